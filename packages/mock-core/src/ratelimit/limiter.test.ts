import { describe, expect, it } from 'vitest';
import { operationsList, type OperationInfo } from '../../../contract/spec/contract.ts';
import { rateLimits } from '../../../contract/spec/tables.ts';
import { defaultLimits } from '../control/limits.ts';
import { limitsFor, type RateSubject } from '../pipeline/rate-limit.ts';
import { newAccountState, Store } from '../domain/store.ts';
import { Limiter, rateLimitHeader, type Decision, type LimitCheck } from './limiter.ts';

const W = 60;
const check = (counter: string, quota: number): LimitCheck => ({ counter, quota, windowSeconds: W });

describe('Limiter: window arithmetic', () => {
  it('RATE: counts per 60-second window and reports delay-seconds to the reset', () => {
    const limiter = new Limiter();
    const d1 = limiter.hit([check('k', 3)], 10_000);
    expect(d1.reported).toEqual({ limit: 3, remaining: 2, reset: 50 });
    limiter.hit([check('k', 3)], 20_000);
    const d3 = limiter.hit([check('k', 3)], 59_999);
    expect(d3.reported).toEqual({ limit: 3, remaining: 0, reset: 1 });
    const d4 = limiter.hit([check('k', 3)], 59_999);
    expect(d4.allowed).toBe(false);
    expect(d4.retryAfter).toBe(1);
    const next = limiter.hit([check('k', 3)], 60_000);
    expect(next.allowed).toBe(true);
    expect(next.reported).toEqual({ limit: 3, remaining: 2, reset: 60 });
  });

  it('a rejected request consumes nothing from any of its limits', () => {
    const limiter = new Limiter();
    limiter.hit([check('small', 1), check('big', 10)], 0);
    const rejected = limiter.hit([check('small', 1), check('big', 10)], 0);
    expect(rejected.allowed).toBe(false);
    const other = limiter.hit([check('big', 10)], 0);
    expect(other.reported.remaining).toBe(8); // one admitted request, not two
  });
});

describe('Limiter: the reading each limit counts on (D91, D274)', () => {
  // One request's three limits, as the pipeline builds them for an account 90 s ahead of the mock:
  // the key's group limit and the account cap on the account's clock, the per-IP cap on the wall reading.
  const key = (quota: number): LimitCheck => ({ counter: 'key:k:read', quota, windowSeconds: W, offsetMs: 90_000 });
  const acct = (quota: number): LimitCheck => ({ counter: 'account:a:read', quota, windowSeconds: W, offsetMs: 90_000 });
  const ip = (quota: number): LimitCheck => ({ counter: 'ip:127.0.0.1:read', quota, windowSeconds: W, wall: true });
  const MOCK = 1_767_225_600_000; // 2026-01-01T00:00:00Z, the manual clock's start (a window boundary)
  const WALL = 1_795_000_020_000 + 10_000; // the wall clock, 10 s into a window
  // [name, { exhaust: the limit spent (quota 1, the others 100), moved: how each reading moved after, want: admitted? reset? }]
  const cases: [string, { exhausted: 'key' | 'account' | 'ip'; mockMs: number; wallMs: number; admitted: boolean; reset?: number }][] = [
    ['a per-IP cap: an advance of the mock\'s clock (a whole window) does not end its window', { exhausted: 'ip', mockMs: 60_000, wallMs: 0, admitted: false, reset: 50 }],
    ['a per-IP cap: on a manual clock nobody moves, real time ends its window', { exhausted: 'ip', mockMs: 0, wallMs: 50_000, admitted: true }],
    ['a per-IP cap: its reset is the wall window\'s, whatever the mock\'s clock reads', { exhausted: 'ip', mockMs: 30_000, wallMs: 20_000, admitted: false, reset: 30 }],
    ['a key\'s limit: an advance of the clock ends its window', { exhausted: 'key', mockMs: 60_000, wallMs: 0, admitted: true }],
    ['a key\'s limit: real time alone does not (a manual clock)', { exhausted: 'key', mockMs: 0, wallMs: 120_000, admitted: false, reset: 30 }],
    ['an account cap: an advance of the clock ends its window', { exhausted: 'account', mockMs: 30_000, wallMs: 0, admitted: true }],
    ['an account cap: real time alone does not (a manual clock)', { exhausted: 'account', mockMs: 0, wallMs: 120_000, admitted: false, reset: 30 }],
  ];
  for (const [name, { exhausted, mockMs, wallMs, admitted, reset }] of cases) {
    it(name, () => {
      const limiter = new Limiter();
      const checks = [key(exhausted === 'key' ? 1 : 100), acct(exhausted === 'account' ? 1 : 100), ip(exhausted === 'ip' ? 1 : 100)];
      expect(limiter.hit(checks, MOCK, WALL).allowed).toBe(true);
      expect(limiter.hit(checks, MOCK, WALL).allowed).toBe(false);
      const later = limiter.hit(checks, MOCK + mockMs, WALL + wallMs);
      expect(later.allowed).toBe(admitted);
      if (!admitted) expect({ limit: later.reported.limit, retryAfter: later.retryAfter }).toEqual({ limit: 1, retryAfter: reset });
    });
  }

  it('a sweep drops a counter by its own reading: a mock clock far ahead of the wall keeps the per-IP counter', () => {
    const limiter = new Limiter();
    const checks = [ip(1)];
    limiter.hit(checks, MOCK, WALL);
    limiter.sweep(MOCK + 10 * 3_600_000, WALL + 1_000);
    expect(limiter.hit(checks, MOCK + 10 * 3_600_000, WALL + 1_000).allowed).toBe(false);
    limiter.sweep(MOCK, WALL + 2 * 3_600_000);
    expect(limiter.hit(checks, MOCK, WALL + 2 * 3_600_000).reported.remaining).toBe(0);
  });
});

describe('Limiter: which limit the RateLimit header reports', () => {
  const cases: [string, { quotas: [string, number, number][]; want: { limit: number; remaining: number }; policy: string }][] = [
    ['RATE: the limit closest to exhaustion (lowest remaining)', { quotas: [['a', 200, 150], ['b', 1000, 10], ['c', 2000, 0]], want: { limit: 200, remaining: 49 }, policy: '200;w=60, 1000;w=60, 2000;w=60' }],
    ['RATE: a tie goes to the smaller limit', { quotas: [['a', 100, 50], ['b', 60, 10]], want: { limit: 60, remaining: 49 }, policy: '60;w=60, 100;w=60' }],
    ['RATE: the policy lists closest first', { quotas: [['a', 200, 0], ['b', 300, 290]], want: { limit: 300, remaining: 9 }, policy: '300;w=60, 200;w=60' }],
    ['RATE: identical limits are listed once', { quotas: [['a', 60, 0], ['b', 60, 0], ['c', 300, 0]], want: { limit: 60, remaining: 59 }, policy: '60;w=60, 300;w=60' }],
  ];
  for (const [name, { quotas, want, policy }] of cases) {
    it(name, () => {
      const limiter = new Limiter();
      for (const [counter, quota, used] of quotas) for (let i = 0; i < used; i++) limiter.hit([check(counter, quota)], 0);
      const decision = limiter.hit(quotas.map(([counter, quota]) => check(counter, quota)), 0);
      expect(decision.reported).toMatchObject(want);
      expect(decision.policy).toBe(policy);
    });
  }

  it('RATE: on a 429 the limit that rejected is reported with remaining=0', () => {
    const limiter = new Limiter();
    for (let i = 0; i < 5; i++) limiter.hit([check('key', 5), check('acct', 1000)], 0);
    const decision = limiter.hit([check('key', 5), check('acct', 1000)], 30_000);
    expect(decision.allowed).toBe(false);
    expect(decision.reported).toEqual({ limit: 5, remaining: 0, reset: 30 });
    expect(decision.retryAfter).toBe(30);
  });

  it('formats draft-7 fields', () => {
    expect(rateLimitHeader({ limit: 200, remaining: 7, reset: 12 })).toBe('limit=200, remaining=7, reset=12');
  });
});

/**
 * The limiter is optimized (scratch slots, insertion sort, remembered policies): it must decide
 * exactly as this plain statement of the rules does, for any sequence of requests.
 */
class ReferenceLimiter {
  private readonly counters = new Map<string, { windowStart: number; count: number; wall: boolean }>();

  hit(checks: readonly LimitCheck[], mockNow: number, wallNow: number = mockNow): Decision {
    if (checks.length === 0) throw new Error('a request is always checked against at least one limit');
    const states = checks.map((check) => {
      const now = readingOf(check, mockNow, wallNow);
      const windowMs = check.windowSeconds * 1000;
      const windowStart = Math.floor(now / windowMs) * windowMs;
      const counter = this.counters.get(check.counter);
      const used = counter && counter.windowStart === windowStart ? counter.count : 0;
      const reset = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
      return { check, windowStart, used, reset };
    });
    const rejecting = states.filter((s) => s.used >= s.check.quota).sort((a, b) => a.check.quota - b.check.quota)[0];
    if (rejecting) {
      const ordered = referenceOrder(states.map((s) => ({ check: s.check, remaining: Math.max(0, s.check.quota - s.used), reset: s.reset })));
      return {
        allowed: false,
        reported: { limit: rejecting.check.quota, remaining: 0, reset: rejecting.reset },
        policy: referencePolicy(ordered),
        retryAfter: rejecting.reset,
      };
    }
    for (const s of states) this.counters.set(s.check.counter, { windowStart: s.windowStart, count: s.used + 1, wall: s.check.wall === true });
    const ordered = referenceOrder(states.map((s) => ({ check: s.check, remaining: s.check.quota - (s.used + 1), reset: s.reset })));
    const top = ordered[0]!;
    return { allowed: true, reported: { limit: top.check.quota, remaining: top.remaining, reset: top.reset }, policy: referencePolicy(ordered) };
  }

  forceReject(checks: readonly LimitCheck[], mockNow: number, wallNow: number = mockNow): Decision {
    const first = checks[0];
    if (!first) throw new Error('a request is always checked against at least one limit');
    const windowMs = first.windowSeconds * 1000;
    const now = readingOf(first, mockNow, wallNow);
    const reset = Math.max(1, Math.ceil((Math.floor(now / windowMs) * windowMs + windowMs - now) / 1000));
    const ordered = checks.map((check, i) => ({ check, remaining: i === 0 ? 0 : Math.max(0, check.quota - this.used(check, readingOf(check, mockNow, wallNow))), reset }));
    return { allowed: false, reported: { limit: first.quota, remaining: 0, reset }, policy: referencePolicy(referenceOrder(ordered)), retryAfter: reset };
  }

  private used(check: LimitCheck, now: number): number {
    const windowMs = check.windowSeconds * 1000;
    const counter = this.counters.get(check.counter);
    return counter && counter.windowStart === Math.floor(now / windowMs) * windowMs ? counter.count : 0;
  }

  clear(): void {
    this.counters.clear();
  }

  sweep(now: number, wallNow: number = now): void {
    for (const [name, counter] of this.counters) if (counter.windowStart + 3_600_000 < (counter.wall ? wallNow : now)) this.counters.delete(name);
  }
}

/** The reading a limit counts on: the wall's for a per-IP cap, else the mock's plus the account's advance. */
const readingOf = (check: LimitCheck, mockNow: number, wallNow: number): number => (check.wall ? wallNow : mockNow + (check.offsetMs ?? 0));

type Ranked = { check: LimitCheck; remaining: number; reset: number };
const referenceOrder = (items: Ranked[]): Ranked[] => [...items].sort((a, b) => a.remaining - b.remaining || a.check.quota - b.check.quota);
const referencePolicy = (ordered: Ranked[]): string => [...new Set(ordered.map((r) => `${r.check.quota};w=${r.check.windowSeconds}`))].join(', ');

/** Deterministic pseudo-random numbers (a 32-bit LCG), so a failure replays. */
function lcg(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return Math.floor((state / 2 ** 32) * n);
  };
}

describe('Limiter: same decisions as the plain statement of the rules', () => {
  for (const seed of [1, 7, 42, 2024]) {
    it(`seed ${seed}: thousands of hits, forced 429s, sweeps and clears`, () => {
      const random = lcg(seed);
      const limiter = new Limiter();
      const reference = new ReferenceLimiter();
      // Few names, small and equal quotas, mixed windows: exhaustion, rejections and ties are frequent,
      // and more distinct (quota, window) sequences than the policy memo holds.
      const names = ['key:a:read', 'key:b:read', 'account:1:read', 'ip:x:read', 'ip:y:read', 'token:t:read'];
      const quotas = [1, 2, 2, 3, 5, 5, 8, 60];
      const windows = [1, 2, 10, 60];
      let now = 1_700_000_000_000 + random(60_000);
      // The wall reading runs apart from the mock's (a manual clock, advances): per-IP checks count on it.
      let wall = 1_795_000_000_000 + random(60_000);
      let allowed = 0;
      let rejected = 0;
      for (let step = 0; step < 6000; step++) {
        now += random(10) === 0 ? random(120_000) : random(1500);
        if (random(3) === 0) wall += random(10) === 0 ? random(120_000) : random(1500);
        const action = random(100);
        if (action === 0) {
          limiter.clear();
          reference.clear();
          continue;
        }
        if (action === 1) {
          const at = now + random(2) * 3_700_000;
          const wallAt = wall + random(2) * 3_700_000;
          limiter.sweep(at, wallAt);
          reference.sweep(at, wallAt);
          continue;
        }
        const count = 1 + random(4);
        const checks: LimitCheck[] = [];
        for (let i = 0; i < count; i++) {
          const counter = names[random(names.length)]!;
          // A per-IP counter on the wall reading, a key's or an account's sometimes ahead on its account's clock.
          const base = counter.startsWith('ip:') ? { wall: true as const } : random(3) === 0 ? { offsetMs: random(90_000) } : {};
          checks.push({ counter, quota: quotas[random(quotas.length)]!, windowSeconds: windows[random(windows.length)]!, ...base });
        }
        const force = action < 10;
        const got = force ? limiter.forceReject(checks, now, wall) : limiter.hit(checks, now, wall);
        const want = force ? reference.forceReject(checks, now, wall) : reference.hit(checks, now, wall);
        expect(got, `step ${step}: ${force ? 'forceReject' : 'hit'} ${JSON.stringify(checks)} at ${now}, wall ${wall}`).toStrictEqual(want);
        if (want.allowed) allowed++;
        else rejected++;
      }
      // The sequence exercised both outcomes.
      expect(allowed).toBeGreaterThan(500);
      expect(rejected).toBeGreaterThan(500);
    });
  }

  it('an empty list of limits is an error, as before', () => {
    expect(() => new Limiter().hit([], 0)).toThrow('at least one limit');
    expect(() => new Limiter().forceReject([], 0)).toThrow('at least one limit');
  });
});

/** limitsFor remembers group lookups and counter names: it must still build exactly these checks. */
function referenceLimitsFor(store: Store, subject: RateSubject): LimitCheck[] {
  const group = subject.operation?.rateLimitGroup ?? 'read';
  const traffic = rateLimits.groups[group]!.traffic;
  const caps = rateLimits.caps[traffic]!;
  const window = rateLimits.windowSeconds;
  const quota = (name: string, fallback: number) => subject.account?.limitOverrides[name] ?? store.limitOverrides[name] ?? fallback;
  const groupQuota = quota(`group:${group}`, rateLimits.groups[group]!.limit);
  const ipCheck = { counter: `ip:${subject.ip}:${traffic}`, quota: quota(`ip:${traffic}`, caps.ip), windowSeconds: window, wall: true as const };
  if (subject.keyId && subject.account) {
    return [
      { counter: `key:${subject.keyId}:${group}`, quota: groupQuota, windowSeconds: window },
      { counter: `account:${subject.account.accountId}:${traffic}`, quota: quota(`account:${traffic}`, caps.account), windowSeconds: window },
      ipCheck,
    ];
  }
  return [{ counter: `token:${subject.tokenHash ?? 'none'}:${group}`, quota: groupQuota, windowSeconds: window }, ipCheck];
}

describe('limitsFor: same checks as the plain construction', () => {
  it('for every group, authenticated or not, with overrides changing between requests', () => {
    const random = lcg(99);
    const store = new Store();
    const plan = { tier: 'core', campaigns: true, webhooks: true, runsWrite: true, imageSizes: ['1K'], upscales: true, campaignLimit: 10, productsPerCampaign: 10 } as const;
    const accounts = [1, 2, 3].map((i) => newAccountState({ accountId: `acc_${i}`, name: `A${i}`, tag: `a${i}`, plan: { ...plan, imageSizes: ['1K'] }, createdAt: 0, seed: i }));
    const ops: (OperationInfo | undefined)[] = [undefined, ...operationsList];
    const overrideNames = Object.keys(defaultLimits());
    // More distinct ids than the name memo holds, so it is forgotten and refilled along the way.
    for (let step = 0; step < 8000; step++) {
      if (random(20) === 0) {
        const target = random(2) === 0 ? store.limitOverrides : accounts[random(accounts.length)]!.limitOverrides;
        const name = overrideNames[random(overrideNames.length)]!;
        if (random(3) === 0) delete target[name];
        else target[name] = 1 + random(500);
      }
      const authenticated = random(4) !== 0;
      const subject: RateSubject = {
        operation: ops[random(ops.length)],
        ip: `10.${random(50)}.${random(250)}.1`,
        ...(authenticated ? { keyId: `key_${random(100_000)}`, account: accounts[random(accounts.length)]! } : random(2) === 0 ? { tokenHash: `h${random(100_000)}` } : {}),
      };
      expect(limitsFor(store, subject), `step ${step}`).toStrictEqual(referenceLimitsFor(store, subject));
    }
  });
});
