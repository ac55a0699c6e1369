/**
 * Run invariants over HTTP through the node server (packages/mock-core/src/testkit/runs.ts `world`): a property over
 * outcome mixes, stop times and balances (fast-check), each run driven through the whole pipeline.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chargedFor } from '../../../../mock-core/src/domain/credits/ledger.ts';
import { setGenerationSettings } from '../../../../mock-core/src/domain/runs/settings.ts';
import { allItems, guardTaskErrors, postRun, productIds, world, type World } from '../../../../mock-core/src/testkit/runs.ts';

let w: World;
beforeAll(async () => {
  w = await world();
  w.state.limitOverrides['group:generation_write'] = 100_000;
  w.state.limitOverrides['group:generation_read'] = 100_000;
  w.state.limitOverrides['account:generation'] = 100_000;
  w.state.limitOverrides['ip:generation'] = 100_000;
});
afterAll(async () => {
  await w.h.close();
});
guardTaskErrors();

describe('run invariants under any outcome mix, stop time and balance (RUN-003, RUN-021)', () => {
  it('counts sum to total, one run.completed, charged = produced × price, nothing left held', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          weights: fc.tuple(fc.nat(3), fc.nat(3), fc.nat(3), fc.nat(1)).filter(([a, b, c, d]) => a + b + c + d > 0),
          products: fc.integer({ min: 1, max: 6 }),
          perProduct: fc.integer({ min: 1, max: 4 }),
          stopAfter: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
          balanceShortBy: fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
          seed: fc.nat(1000),
        }),
        async ({ weights: [succeeded, failed, refused, stall], products, perProduct, stopAfter, balanceShortBy, seed }) => {
          setGenerationSettings(w.state, { seed, outcomeMix: { succeeded, failed, refused, stall } });
          w.ledger.balance = 100_000;
          const total = products * perProduct;
          const res = await postRun(w, { productIds: productIds(w.state, products), creativesPerProduct: perProduct, presetId: 'pst_studio_white' });
          expect(res.status).toBe(202);
          const runId = res.body.runId as string;
          if (balanceShortBy !== undefined) w.ledger.balance = Math.max(0, total - balanceShortBy);
          const balance = w.ledger.balance;
          const events = w.state.events.length;
          if (stopAfter !== undefined) {
            w.h.advance(stopAfter);
            expect((await w.h.request('POST', `/runs/${runId}/stop`, { key: w.write })).status).toBe(202);
          }
          w.h.advance(25 * 3600);
          const run = (await w.h.request('GET', `/runs/${runId}`, { key: w.read })).body;
          const c = run.counts;
          expect(c.succeeded + c.failed + c.refused + c.stopped + c.pending).toBe(total);
          expect(c.pending).toBe(0);
          expect(run.finalizedAt).not.toBeNull();
          expect(w.state.events.slice(events).filter((e) => e.type === 'run.completed' && e.resource.id === runId)).toHaveLength(1);
          expect(chargedFor(w.ledger, 'run', runId)).toBe(c.succeeded);
          expect(w.ledger.balance).toBe(balance - c.succeeded);
          expect(w.ledger.held).toBe(0);
          if (stopAfter === undefined && stall === 0) expect(c.stopped).toBe(0);
          const items = await allItems(w, runId);
          expect(items.map((i) => i.position)).toEqual(items.map((_, i) => i));
          expect(items.filter((i) => i.outcome === 'succeeded' && i.asset !== null)).toHaveLength(c.succeeded);
          expect(items.every((i) => i.status === 'SETTLED')).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});
