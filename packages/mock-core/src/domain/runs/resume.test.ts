import { afterEach, describe, expect, it } from 'vitest';
import { parseSnapshot, restoreState, serializeState } from '../../../../mock/src/node/persistence.ts';
import { createHarness, type Harness } from '../../testkit/harness.ts';
import { chargedFor, creditsOf } from '../credits/ledger.ts';
import { resumeGeneration } from './resume.ts';
import { addAsset, guardTaskErrors, postRun, postUpscale, productIds, world, type World } from '../../testkit/runs.ts';

let w: World;
let h2: Harness | undefined;
afterEach(async () => {
  await w?.h.close();
  await h2?.close();
  h2 = undefined;
});
guardTaskErrors();

/** Save the state of `w`, load it into a fresh mock at the same clock reading, and re-arm. */
async function reload(w: World): Promise<Harness> {
  const text = serializeState(w.h.mock.services.store, w.h.clock);
  const h = await createHarness({ start: w.h.clock.now() });
  restoreState(h.mock.services.store, parseSnapshot(text));
  resumeGeneration(h.mock.services.store, h.clock, h.mock.services.events);
  return h;
}

describe('resumeGeneration after a state load', () => {
  it('a run in the middle (some items running, a stall) picks up where it stopped', async () => {
    w = await world();
    const res = await postRun(w, { productIds: productIds(w.state, 5), creativesPerProduct: 2, presetId: 'pst_studio_white' });
    const runId = res.body.runId as string;
    w.h.advance(9); // some items settled, others running
    const before = creditsOf(w.state);
    expect(before.held).toBeGreaterThan(0);
    h2 = await reload(w);
    h2.advance(3600);
    const account = h2.mock.services.store.accounts.get(w.acct.accountId)!;
    const run = account.runs.get(runId)!;
    expect(run.status).toBe('SUCCEEDED');
    expect(run.counts).toEqual({ succeeded: 10, failed: 0, refused: 0, stopped: 0, pending: 0 });
    const ledger = creditsOf(account);
    expect(chargedFor(ledger, 'run', runId)).toBe(10);
    expect(ledger.held).toBe(0);
    expect(account.events.filter((e) => e.type === 'run.completed')).toHaveLength(1);
    const got = await h2.request('GET', `/runs/${runId}`, { key: w.read });
    expect(got.body.status).toBe('SUCCEEDED');
  });

  it('an upscale PROCESSING finishes after a load', async () => {
    w = await world();
    const source = addAsset(w.state);
    const res = await postUpscale(w, { source: { assetId: source.assetId }, target: '2K' });
    w.h.advance(3);
    expect(w.state.upscales.get(res.body.upscaleId)!.status).toBe('PROCESSING');
    h2 = await reload(w);
    h2.advance(60);
    const account = h2.mock.services.store.accounts.get(w.acct.accountId)!;
    const upscale = account.upscales.get(res.body.upscaleId)!;
    expect(upscale.status).toBe('SUCCEEDED');
    expect(account.assets.get(upscale.assetId!)!.derivation?.parentAssetId).toBe(source.assetId);
    expect(creditsOf(account).totals.charged).toBe(1);
  });
});
