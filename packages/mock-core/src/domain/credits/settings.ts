/**
 * Reading and setting an account's credits from the control plane (packages/mock-core/src/control/credits.ts):
 * `creditsView` is what GET /__mock/accounts/{id}/credits answers; `applyCreditSettings` is the
 * setter (balance, daily budget, rate card), validated as a whole before anything changes.
 */
import type { ImageSize } from '../accounts/model.ts';
import { iso } from '../shared.ts';
import { available, budgetStatus, type CreditLedger, type LedgerEntry, type LedgerRef } from './ledger.ts';
import { IMAGE_SIZES, UPSCALE_TARGETS, copyRateCard, type RateCard, type UpscaleTarget } from './ratecard.ts';

export interface CreditsView {
  balance: number;
  available: number;
  held: number;
  totals: { charged: number; released: number };
  dailyBudget: { dailyLimit: number; usedToday: number; remaining: number; resetsAt: string } | null;
  rateCard: RateCard;
  holds: { holdId: string; ref: LedgerRef; amount: number; placedAt: string }[];
  journal: { kind: LedgerEntry['kind']; holdId: string; ref: LedgerRef; amount: number; at: string }[];
  /** With `refId`: the sums of that run's or upscale's movements. */
  ref?: { id: string; held: number; charged: number; released: number };
}

/** What the view shows of the holds and the journal: one run's or upscale's only, the most recent entries only. */
export interface CreditsViewFilter {
  refId?: string;
  limit?: number;
}

export function creditsView(ledger: CreditLedger, now: number, filter: CreditsViewFilter = {}): CreditsView {
  const budget = budgetStatus(ledger, now);
  const { refId, limit } = filter;
  const holds = [...ledger.holds.values()].filter((h) => refId === undefined || h.ref.id === refId);
  let entries = refId === undefined ? ledger.journal : ledger.journal.filter((e) => e.ref.id === refId);
  let ref: CreditsView['ref'];
  if (refId !== undefined) {
    ref = { id: refId, held: holds.reduce((sum, h) => sum + h.amount, 0), charged: 0, released: 0 };
    for (const e of entries) {
      if (e.kind === 'charge') ref.charged += e.amount;
      else if (e.kind === 'release') ref.released += e.amount;
    }
  }
  if (limit !== undefined && entries.length > limit) entries = entries.slice(entries.length - limit);
  return {
    balance: ledger.balance,
    available: available(ledger),
    held: ledger.held,
    totals: { ...ledger.totals },
    dailyBudget: budget ? { dailyLimit: budget.dailyLimit, usedToday: budget.usedToday, remaining: budget.remaining, resetsAt: iso(budget.resetsAt) } : null,
    rateCard: copyRateCard(ledger.rateCard),
    holds: holds.map((h) => ({ holdId: h.holdId, ref: { ...h.ref }, amount: h.amount, placedAt: iso(h.placedAt) })),
    journal: entries.map((e) => ({ kind: e.kind, holdId: e.holdId, ref: { ...e.ref }, amount: e.amount, at: iso(e.at) })),
    ...(ref ? { ref } : {}),
  };
}

/**
 * The setter's body (every member optional):
 * `{ balance?: number >= 0, dailyBudget?: number >= 0 | null,
 *    rateCard?: { version?: string, image?: { 1K|2K|4K?: number >= 0 | null }, video?: number >= 0,
 *                 upscale?: { 2K|4K?: number >= 0 | null } } }`
 * A price of `null` unprices the size or target (IMAGE_SIZE_UNPRICED / IMAGE_UPSCALE_UNPRICED).
 */
export type SettingsResult = { ok: true } | { ok: false; errors: { field: string; message: string }[] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

export function applyCreditSettings(ledger: CreditLedger, input: unknown): SettingsResult {
  const errors: { field: string; message: string }[] = [];
  if (!isRecord(input)) return { ok: false, errors: [{ field: 'body', message: 'must be a JSON object' }] };
  for (const key of Object.keys(input)) if (!['balance', 'dailyBudget', 'rateCard'].includes(key)) errors.push({ field: key, message: 'is not a known field' });
  if (input.balance !== undefined && !isAmount(input.balance)) errors.push({ field: 'balance', message: 'must be a finite number >= 0' });
  if (input.dailyBudget !== undefined && input.dailyBudget !== null && !isAmount(input.dailyBudget)) {
    errors.push({ field: 'dailyBudget', message: 'must be a finite number >= 0, or null for no budget' });
  }
  const card = input.rateCard;
  const next = copyRateCard(ledger.rateCard);
  if (card !== undefined) {
    if (!isRecord(card)) errors.push({ field: 'rateCard', message: 'must be an object' });
    else {
      for (const key of Object.keys(card)) if (!['version', 'image', 'video', 'upscale'].includes(key)) errors.push({ field: `rateCard.${key}`, message: 'is not a known field' });
      if (card.version !== undefined) {
        if (typeof card.version !== 'string' || card.version.length === 0) errors.push({ field: 'rateCard.version', message: 'must be a non-empty string' });
        else next.version = card.version;
      }
      if (card.video !== undefined) {
        if (!isAmount(card.video)) errors.push({ field: 'rateCard.video', message: 'must be a number >= 0 (video is always priced)' });
        else next.video = card.video;
      }
      readPrices(card.image, 'rateCard.image', IMAGE_SIZES, next.image, errors);
      readPrices(card.upscale, 'rateCard.upscale', UPSCALE_TARGETS, next.upscale, errors);
    }
  }
  if (errors.length) return { ok: false, errors };
  if (input.balance !== undefined) ledger.balance = input.balance as number;
  if (input.dailyBudget !== undefined) ledger.dailyBudget = input.dailyBudget as number | null;
  ledger.rateCard = next;
  return { ok: true };
}

function readPrices<K extends ImageSize | UpscaleTarget>(
  value: unknown,
  field: string,
  keys: readonly K[],
  into: Record<K, number | null>,
  errors: { field: string; message: string }[],
): void {
  if (value === undefined) return;
  if (!isRecord(value)) {
    errors.push({ field, message: 'must be an object' });
    return;
  }
  for (const [key, price] of Object.entries(value)) {
    if (!(keys as readonly string[]).includes(key)) errors.push({ field: `${field}.${key}`, message: `is not one of ${keys.join(', ')}` });
    else if (price !== null && !isAmount(price)) errors.push({ field: `${field}.${key}`, message: 'must be a number >= 0 or null' });
    else into[key as K] = price as number | null;
  }
}
