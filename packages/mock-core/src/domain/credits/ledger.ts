/**
 * The credits ledger of one account: balance, holds, charges, the daily API credit budget and the
 * account's rate card.
 *
 * - A hold reserves credits for work that has started (a run item as it starts, RUN-003; an upscale
 *   when it is accepted, UPSC-004). Holds do not leave the balance, they make it unavailable.
 * - A hold is either charged (the work produced a creative / delivered an image: the balance goes
 *   down) or released (nothing produced: nothing spent). Nothing charged is ever refunded.
 * - The daily API credit budget (when the account has one) counts what was charged today (UTC) plus
 *   every open hold; it resets at 00:00 UTC. `remaining` never goes below 0.
 *
 * The functions mutate the ledger in place (one ledger per account, many small operations per run)
 * and record every movement in `journal`, so tests can assert exactly what was held, charged and
 * released (GET /__mock/accounts/{id}/credits).
 */
import { defaultRateCard, type RateCard } from './ratecard.ts';

export const DEFAULT_BALANCE = 10_000;
const DAY_MS = 24 * 3600 * 1000;

export interface LedgerRef {
  kind: 'run' | 'upscale';
  /** runId or upscaleId. */
  id: string;
  /** The run item, for a run hold. */
  jobId?: string;
}

export interface Hold {
  holdId: string;
  ref: LedgerRef;
  amount: number;
  placedAt: number;
}

export type LedgerEntryKind = 'hold' | 'charge' | 'release';

export interface LedgerEntry {
  kind: LedgerEntryKind;
  holdId: string;
  ref: LedgerRef;
  amount: number;
  at: number;
}

export interface CreditLedger {
  /** Credits the account owns. Charges lower it; holds do not. */
  balance: number;
  /** Sum of the open holds (kept incrementally: a 1,000-item run must not rescan its holds). */
  held: number;
  holds: Map<string, Hold>;
  /** Credits charged per UTC day (`YYYY-MM-DD`), for the daily budget. */
  chargedByDay: Map<string, number>;
  /** The daily API credit budget; null when the account has none. */
  dailyBudget: number | null;
  rateCard: RateCard;
  /** Every hold, charge and release, in order. */
  journal: LedgerEntry[];
  totals: { charged: number; released: number };
  nextHold: number;
  /** Whether the account's creation-time credits (control plane `credits`) have been read. */
  initialApplied: boolean;
}

export function newCreditLedger(): CreditLedger {
  return {
    balance: DEFAULT_BALANCE,
    held: 0,
    holds: new Map(),
    chargedByDay: new Map(),
    dailyBudget: null,
    rateCard: defaultRateCard(),
    journal: [],
    totals: { charged: 0, released: 0 },
    nextHold: 1,
    initialApplied: false,
  };
}

/**
 * The account's ledger. The control plane records the credits an account is created with as
 * `account.initialCredits` after the account state (and its ledger) exist; they are read here, once,
 * on first use. Every reader of the ledger goes through this function.
 */
export function creditsOf(account: { credits: CreditLedger }): CreditLedger {
  const ledger = account.credits;
  if (!ledger.initialApplied) {
    ledger.initialApplied = true;
    const initial = (account as { initialCredits?: { balance: number; dailyBudget?: number | null } | null }).initialCredits;
    if (initial) {
      ledger.balance = initial.balance;
      ledger.dailyBudget = initial.dailyBudget ?? null;
    }
  }
  return ledger;
}

/** Credits that a new hold may take: the balance less what open holds reserve. */
export function available(ledger: CreditLedger): number {
  return Math.max(0, ledger.balance - ledger.held);
}

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** 00:00 UTC of the day after `now`. */
export function nextUtcMidnight(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
}

export interface BudgetStatus {
  dailyLimit: number;
  usedToday: number;
  remaining: number;
  resetsAt: number;
}

/** The daily budget as it stands at `now`, or null when the account has none. */
export function budgetStatus(ledger: CreditLedger, now: number): BudgetStatus | null {
  if (ledger.dailyBudget === null) return null;
  const usedToday = (ledger.chargedByDay.get(utcDay(now)) ?? 0) + ledger.held;
  return {
    dailyLimit: ledger.dailyBudget,
    usedToday,
    remaining: Math.max(0, ledger.dailyBudget - usedToday),
    resetsAt: nextUtcMidnight(now),
  };
}

/** Why `amount` cannot be spent now, checking the budget first, or undefined when it can. */
export type SpendRefusal = 'budget' | 'balance';

export function spendRefusal(ledger: CreditLedger, amount: number, now: number): SpendRefusal | undefined {
  const budget = budgetStatus(ledger, now);
  if (budget && amount > budget.remaining) return 'budget';
  if (amount > available(ledger)) return 'balance';
  return undefined;
}

export type HoldResult = { ok: true; hold: Hold } | { ok: false; reason: SpendRefusal };

/** RUN-003 / UPSC-004: reserve `amount` for started work, or say why it cannot be reserved. */
export function placeHold(ledger: CreditLedger, ref: LedgerRef, amount: number, now: number): HoldResult {
  const reason = spendRefusal(ledger, amount, now);
  if (reason) return { ok: false, reason };
  const hold: Hold = { holdId: `hld_${(ledger.nextHold++).toString(36)}`, ref, amount, placedAt: now };
  ledger.holds.set(hold.holdId, hold);
  ledger.held += amount;
  ledger.journal.push({ kind: 'hold', holdId: hold.holdId, ref, amount, at: now });
  return { ok: true, hold };
}

function closeHold(ledger: CreditLedger, holdId: string): Hold {
  const hold = ledger.holds.get(holdId);
  if (!hold) throw new Error(`no open hold ${holdId}`);
  ledger.holds.delete(holdId);
  ledger.held -= hold.amount;
  if (ledger.holds.size === 0) ledger.held = 0; // no float dust once nothing is held
  return hold;
}

/** The work produced its creative or image: the held credits are spent (never refunded). */
export function chargeHold(ledger: CreditLedger, holdId: string, now: number): number {
  const hold = closeHold(ledger, holdId);
  ledger.balance -= hold.amount;
  const day = utcDay(now);
  ledger.chargedByDay.set(day, (ledger.chargedByDay.get(day) ?? 0) + hold.amount);
  ledger.totals.charged += hold.amount;
  ledger.journal.push({ kind: 'charge', holdId, ref: hold.ref, amount: hold.amount, at: now });
  return hold.amount;
}

/** The work produced nothing: the held credits become available again, nothing is spent. */
export function releaseHold(ledger: CreditLedger, holdId: string, now: number): number {
  const hold = closeHold(ledger, holdId);
  ledger.totals.released += hold.amount;
  ledger.journal.push({ kind: 'release', holdId, ref: hold.ref, amount: hold.amount, at: now });
  return hold.amount;
}

/** Credits charged so far for one run or upscale (test helper and control-plane view). */
export function chargedFor(ledger: CreditLedger, kind: LedgerRef['kind'], id: string): number {
  let sum = 0;
  for (const entry of ledger.journal) if (entry.kind === 'charge' && entry.ref.kind === kind && entry.ref.id === id) sum += entry.amount;
  return sum;
}
