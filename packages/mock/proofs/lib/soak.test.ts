/**
 * The concurrency soak (packages/mock/proofs/lib/soak.ts), short and seeded inside `npm test`: a real
 * server on 127.0.0.1 (port 0), keep-alive clients over sockets, bounded in time and requests.
 * Exact scenarios under load (one resource per idempotency key, one If-Match winner, no lost
 * metadata update, exact rate limits), zero 5xx, every response conforming, no crash, state
 * invariants at the end. The memory slope needs a longer run: `npm run soak` gives its verdict.
 */
import { describe, expect, it } from 'vitest';
import { formatSoakFigures, runSoak } from './soak.ts';

describe('soak: a short seeded run on loopback', () => {
  it('exact under concurrency, no 5xx, conforming, no crash, invariants hold', async () => {
    const { figures, failures } = await runSoak({ seconds: 6, clients: 8, seed: 1, maxRequests: 4000 });
    expect(failures, `${failures.join('\n')}\n${formatSoakFigures(figures)}`).toEqual([]);
    expect(figures.requests).toBeGreaterThan(300);
    expect(figures.scenarios.length).toBeGreaterThanOrEqual(20);
    expect(figures.scenarios.filter((s) => !s.passed)).toEqual([]);
    expect(figures.fiveXX).toBe(0);
    expect(figures.crashes).toBe(0);
    expect(figures.invariantChecks).toBeGreaterThan(0);
    expect(figures.memory.samples).toBeGreaterThan(3);
  }, 120_000);
});
