import { describe, expect, it } from 'vitest';
import { newAccountState } from '../store.ts';
import { planFor } from '../accounts/service.ts';
import {
  available,
  budgetStatus,
  chargedFor,
  chargeHold,
  creditsOf,
  newCreditLedger,
  nextUtcMidnight,
  placeHold,
  releaseHold,
  spendRefusal,
  type CreditLedger,
} from './ledger.ts';
import { creativePrice, defaultRateCard, upscalePrice } from './ratecard.ts';
import { applyCreditSettings, creditsView } from './settings.ts';

const DAY = 24 * 3600 * 1000;
const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);

type Step =
  | { hold: string; amount: number; at?: number; ref?: string }
  | { charge: string; at?: number }
  | { release: string; at?: number }
  | { refused: 'balance' | 'budget'; amount: number; at?: number };

interface Case {
  balance: number;
  dailyBudget?: number | null;
  steps: Step[];
  want: { balance: number; held: number; charged: number; released: number; available: number; usedToday?: number; remaining?: number; at?: number };
}

/** Run the steps; `hold: 'a'` names the hold so later steps can charge or release it. */
function play(c: Case): CreditLedger {
  const ledger = newCreditLedger();
  ledger.balance = c.balance;
  ledger.dailyBudget = c.dailyBudget ?? null;
  const names = new Map<string, string>();
  for (const step of c.steps) {
    if ('hold' in step) {
      const r = placeHold(ledger, { kind: 'run', id: step.ref ?? 'run_1', jobId: step.hold }, step.amount, step.at ?? T0);
      if (!r.ok) throw new Error(`hold ${step.hold} refused: ${r.reason}`);
      names.set(step.hold, r.hold.holdId);
    } else if ('charge' in step) chargeHold(ledger, names.get(step.charge)!, step.at ?? T0);
    else if ('release' in step) releaseHold(ledger, names.get(step.release)!, step.at ?? T0);
    else {
      const r = placeHold(ledger, { kind: 'run', id: 'run_x' }, step.amount, step.at ?? T0);
      expect(r).toEqual({ ok: false, reason: step.refused });
    }
  }
  return ledger;
}

const cases: [string, Case][] = [
  ['RUN-003: a hold reserves without spending', { balance: 10, steps: [{ hold: 'a', amount: 4 }], want: { balance: 10, held: 4, charged: 0, released: 0, available: 6 } }],
  ['RUN-003: a charge spends the held credits', { balance: 10, steps: [{ hold: 'a', amount: 4 }, { charge: 'a' }], want: { balance: 6, held: 0, charged: 4, released: 0, available: 6 } }],
  ['RUN-003: a release spends nothing', { balance: 10, steps: [{ hold: 'a', amount: 4 }, { release: 'a' }], want: { balance: 10, held: 0, charged: 0, released: 4, available: 10 } }],
  [
    'RUN-003: stop in the middle: two running items finish, one produces (charged), one not (released)',
    { balance: 10, steps: [{ hold: 'a', amount: 2 }, { hold: 'b', amount: 2 }, { charge: 'a' }, { release: 'b' }], want: { balance: 8, held: 0, charged: 2, released: 2, available: 8 } },
  ],
  ['a hold may take exactly what is available', { balance: 5, steps: [{ hold: 'a', amount: 3 }, { hold: 'b', amount: 2 }], want: { balance: 5, held: 5, charged: 0, released: 0, available: 0 } }],
  ['a hold beyond the available balance is refused (balance)', { balance: 5, steps: [{ hold: 'a', amount: 3 }, { refused: 'balance', amount: 3 }], want: { balance: 5, held: 3, charged: 0, released: 0, available: 2 } }],
  ['budget: open holds count as used today', { balance: 100, dailyBudget: 10, steps: [{ hold: 'a', amount: 4 }], want: { balance: 100, held: 4, charged: 0, released: 0, available: 96, usedToday: 4, remaining: 6 } }],
  ['budget: charges count as used today', { balance: 100, dailyBudget: 10, steps: [{ hold: 'a', amount: 4 }, { charge: 'a' }], want: { balance: 96, held: 0, charged: 4, released: 0, available: 96, usedToday: 4, remaining: 6 } }],
  ['budget: a release gives the budget back', { balance: 100, dailyBudget: 10, steps: [{ hold: 'a', amount: 4 }, { release: 'a' }], want: { balance: 100, held: 0, charged: 0, released: 4, available: 100, usedToday: 0, remaining: 10 } }],
  ['budget: a hold of exactly the remaining budget is allowed', { balance: 100, dailyBudget: 10, steps: [{ hold: 'a', amount: 6 }, { hold: 'b', amount: 4 }], want: { balance: 100, held: 10, charged: 0, released: 0, available: 90, usedToday: 10, remaining: 0 } }],
  ['budget: one credit over the remaining budget is refused (budget before balance)', { balance: 6, dailyBudget: 10, steps: [{ hold: 'a', amount: 6 }, { refused: 'budget', amount: 5 }], want: { balance: 6, held: 6, charged: 0, released: 0, available: 0, usedToday: 6, remaining: 4 } }],
  ['budget: a zero budget refuses everything', { balance: 100, dailyBudget: 0, steps: [{ refused: 'budget', amount: 1 }], want: { balance: 100, held: 0, charged: 0, released: 0, available: 100, usedToday: 0, remaining: 0 } }],
  [
    'budget: resets at 00:00 UTC; yesterday\'s charges do not count',
    { balance: 100, dailyBudget: 10, steps: [{ hold: 'a', amount: 8 }, { charge: 'a' }, { hold: 'b', amount: 9, at: T0 + DAY }], want: { balance: 92, held: 9, charged: 8, released: 0, available: 83, usedToday: 9, remaining: 1, at: T0 + DAY } },
  ],
  [
    'budget: a hold placed yesterday and charged today counts today',
    { balance: 100, dailyBudget: 10, steps: [{ hold: 'a', amount: 3 }, { charge: 'a', at: T0 + DAY }], want: { balance: 97, held: 0, charged: 3, released: 0, available: 97, usedToday: 3, remaining: 7, at: T0 + DAY } },
  ],
  [
    'budget: lowered below what was used, remaining is 0, never negative',
    { balance: 100, dailyBudget: 2, steps: [], want: { balance: 100, held: 0, charged: 0, released: 0, available: 100, usedToday: 0, remaining: 2 } },
  ],
];

describe('credits ledger', () => {
  it.each(cases)('%s', (_name, c) => {
    const ledger = play(c);
    const w = c.want;
    expect({ balance: ledger.balance, held: ledger.held, charged: ledger.totals.charged, released: ledger.totals.released, available: available(ledger) }).toEqual({
      balance: w.balance,
      held: w.held,
      charged: w.charged,
      released: w.released,
      available: w.available,
    });
    const budget = budgetStatus(ledger, w.at ?? T0);
    if (w.usedToday === undefined) expect(budget).toBeNull();
    else expect(budget).toEqual({ dailyLimit: c.dailyBudget, usedToday: w.usedToday, remaining: w.remaining, resetsAt: nextUtcMidnight(w.at ?? T0) });
    // Conservation: what the account started with = balance + charged.
    expect(ledger.balance + ledger.totals.charged).toBe(c.balance);
    // Every hold is closed by exactly one charge or release.
    const closed = ledger.journal.filter((e) => e.kind !== 'hold').map((e) => e.holdId);
    expect(new Set(closed).size).toBe(closed.length);
  });

  it('the remaining budget is never negative', () => {
    const ledger = newCreditLedger();
    ledger.dailyBudget = 10;
    const a = placeHold(ledger, { kind: 'run', id: 'r' }, 8, T0);
    if (!a.ok) throw new Error('refused');
    ledger.dailyBudget = 5;
    expect(budgetStatus(ledger, T0)).toMatchObject({ usedToday: 8, remaining: 0 });
    expect(spendRefusal(ledger, 1, T0)).toBe('budget');
  });

  it('charging or releasing a hold twice is a bug, not a silent double charge', () => {
    const ledger = newCreditLedger();
    const r = placeHold(ledger, { kind: 'upscale', id: 'ups_1' }, 2, T0);
    if (!r.ok) throw new Error('refused');
    chargeHold(ledger, r.hold.holdId, T0);
    expect(() => chargeHold(ledger, r.hold.holdId, T0)).toThrow(/no open hold/);
    expect(() => releaseHold(ledger, r.hold.holdId, T0)).toThrow(/no open hold/);
    expect(ledger.totals.charged).toBe(2);
  });

  it('chargedFor sums the charges of one run or upscale', () => {
    const ledger = newCreditLedger();
    for (const [id, amount] of [['run_1', 1], ['run_1', 2], ['run_2', 4]] as const) {
      const r = placeHold(ledger, { kind: 'run', id }, amount, T0);
      if (r.ok) chargeHold(ledger, r.hold.holdId, T0);
    }
    expect(chargedFor(ledger, 'run', 'run_1')).toBe(3);
    expect(chargedFor(ledger, 'run', 'run_2')).toBe(4);
    expect(chargedFor(ledger, 'upscale', 'run_1')).toBe(0);
  });

  it('creditsOf reads the credits the control plane created the account with, once', () => {
    const account = newAccountState({ accountId: 'acc_1', name: 'A', tag: 'aaaaaa', plan: planFor('enterprise'), createdAt: T0, seed: 1 });
    (account as { initialCredits?: unknown }).initialCredits = { balance: 42, dailyBudget: 7 };
    expect(creditsOf(account)).toMatchObject({ balance: 42, dailyBudget: 7 });
    creditsOf(account).balance = 40;
    expect(creditsOf(account).balance).toBe(40);
  });
});

describe('rate card', () => {
  it('RUN-042: a larger imageSize is priced higher', () => {
    const card = defaultRateCard();
    const price = (size: '1K' | '2K' | '4K') => {
      const p = creativePrice(card, 'image', size);
      if (!p.priced) throw new Error('unpriced');
      return p.perCreative;
    };
    expect(price('1K')).toBeLessThan(price('2K'));
    expect(price('2K')).toBeLessThan(price('4K'));
    expect(upscalePrice(card, '2K')!).toBeLessThan(upscalePrice(card, '4K')!);
  });

  it('video ignores the size', () => {
    const card = defaultRateCard();
    expect(creativePrice(card, 'video', '4K')).toEqual(creativePrice(card, 'video', '1K'));
  });
});

describe('applyCreditSettings', () => {
  const table: [string, { input: unknown; ok: boolean; fields?: string[]; check?: (l: CreditLedger) => void }][] = [
    ['sets the balance', { input: { balance: 5 }, ok: true, check: (l) => expect(l.balance).toBe(5) }],
    ['sets and clears the daily budget', { input: { dailyBudget: null }, ok: true, check: (l) => expect(l.dailyBudget).toBeNull() }],
    ['unprices a size (IMAGE_SIZE_UNPRICED drill)', { input: { rateCard: { image: { '4K': null } } }, ok: true, check: (l) => expect(l.rateCard.image).toEqual({ '1K': 1, '2K': 2, '4K': null }) }],
    ['unprices a target (IMAGE_UPSCALE_UNPRICED drill)', { input: { rateCard: { upscale: { '2K': null } } }, ok: true, check: (l) => expect(l.rateCard.upscale['2K']).toBeNull() }],
    ['bumps the version (PRICE_CHANGED drill)', { input: { rateCard: { version: '2026-02-01' } }, ok: true, check: (l) => expect(l.rateCard.version).toBe('2026-02-01') }],
    ['refuses a negative balance', { input: { balance: -1 }, ok: false, fields: ['balance'] }],
    ['refuses an unknown size', { input: { rateCard: { image: { '8K': 9 } } }, ok: false, fields: ['rateCard.image.8K'] }],
    ['refuses an unpriced video', { input: { rateCard: { video: null } }, ok: false, fields: ['rateCard.video'] }],
    ['refuses unknown fields', { input: { bonus: 1 }, ok: false, fields: ['bonus'] }],
    ['changes nothing when any field is invalid', { input: { balance: 1, dailyBudget: 'x' }, ok: false, fields: ['dailyBudget'], check: (l) => expect(l.balance).toBe(10_000) }],
  ];
  it.each(table)('%s', (_name, { input, ok, fields, check }) => {
    const ledger = newCreditLedger();
    const result = applyCreditSettings(ledger, input);
    expect(result.ok).toBe(ok);
    if (!result.ok && fields) expect(result.errors.map((e) => e.field)).toEqual(fields);
    check?.(ledger);
  });

  it('creditsView shows holds, totals, budget and the journal', () => {
    const ledger = newCreditLedger();
    ledger.dailyBudget = 50;
    const r = placeHold(ledger, { kind: 'run', id: 'run_1', jobId: 'job_1' }, 3, T0);
    if (!r.ok) throw new Error('refused');
    const view = creditsView(ledger, T0);
    expect(view).toMatchObject({ balance: 10_000, available: 9_997, held: 3, totals: { charged: 0, released: 0 }, dailyBudget: { dailyLimit: 50, usedToday: 3, remaining: 47, resetsAt: '2026-01-02T00:00:00.000Z' } });
    expect(view.holds).toEqual([{ holdId: r.hold.holdId, ref: { kind: 'run', id: 'run_1', jobId: 'job_1' }, amount: 3, placedAt: '2026-01-01T10:00:00.000Z' }]);
    expect(view.journal).toHaveLength(1);
    expect(view).not.toHaveProperty('ref');
  });

  it('creditsView for one run or upscale (refId): its holds and journal only, and their sums over the whole journal whatever the limit', () => {
    const ledger = newCreditLedger();
    const hold = (id: string, jobId: string, amount: number) => {
      const r = placeHold(ledger, { kind: 'run', id, jobId }, amount, T0);
      if (!r.ok) throw new Error('refused');
      return r.hold.holdId;
    };
    chargeHold(ledger, hold('run_1', 'job_1', 3), T0 + 1);
    releaseHold(ledger, hold('run_1', 'job_2', 3), T0 + 2);
    chargeHold(ledger, hold('run_2', 'job_3', 5), T0 + 3);
    hold('run_1', 'job_4', 3);
    const up = placeHold(ledger, { kind: 'upscale', id: 'ups_1' }, 2, T0 + 4);
    if (!up.ok) throw new Error('refused');

    const run1 = creditsView(ledger, T0 + 5, { refId: 'run_1' });
    expect(run1.ref).toEqual({ id: 'run_1', held: 3, charged: 3, released: 3 });
    expect(run1.holds.map((h) => h.ref.id)).toEqual(['run_1']);
    expect(run1.journal.map((e) => `${e.kind}:${e.ref.id}`)).toEqual(['hold:run_1', 'charge:run_1', 'hold:run_1', 'release:run_1', 'hold:run_1']);
    // The account's own figures are unchanged by the filter.
    expect(run1).toMatchObject({ held: 5, totals: { charged: 8, released: 3 } });

    const lastTwo = creditsView(ledger, T0 + 5, { refId: 'run_1', limit: 2 });
    expect(lastTwo.journal.map((e) => e.kind)).toEqual(['release', 'hold']);
    expect(lastTwo.ref).toEqual(run1.ref);

    expect(creditsView(ledger, T0 + 5, { refId: 'ups_1' }).ref).toEqual({ id: 'ups_1', held: 2, charged: 0, released: 0 });
    expect(creditsView(ledger, T0 + 5, { refId: 'run_none' })).toMatchObject({ ref: { held: 0, charged: 0, released: 0 }, holds: [], journal: [] });
    const latest = creditsView(ledger, T0 + 5, { limit: 3 });
    expect(latest.journal.map((e) => `${e.kind}:${e.ref.id}`)).toEqual(['charge:run_2', 'hold:run_1', 'hold:ups_1']);
    expect(latest.holds).toHaveLength(2);
  });
});
