import { describe, expect, it } from 'vitest';
import { Limiter, rateLimitHeader, type LimitCheck } from './limiter.ts';

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
