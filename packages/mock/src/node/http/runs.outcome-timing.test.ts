/**
 * #17 item 7: updateGeneration "applies to items and upscales that start after the change". An
 * outcome is drawn when the item or upscale starts (its `startedAt`), under the settings then; a
 * change made before it starts applies to it, one made after does not.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addAsset, allItems, guardTaskErrors, postRun, postUpscale, productIds, world, type World } from '../../../../mock-core/src/testkit/runs.ts';
import { setGenerationSettings } from '../../../../mock-core/src/domain/runs/settings.ts';

let w: World;
afterEach(async () => {
  await w?.h.close();
});
guardTaskErrors();

function settings(input: unknown) {
  const r = setGenerationSettings(w.state, input);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
}

async function oneItemRun(): Promise<string> {
  const res = await postRun(w, { productIds: productIds(w.state, 1), creativesPerProduct: 1, presetId: 'pst_studio_white' });
  expect(res.status, res.text).toBe(202);
  return res.body.runId as string;
}

describe('generation settings apply to what starts after the change (updateGeneration)', () => {
  it('a run item that started under a pattern keeps its outcome when the pattern is reset', async () => {
    w = await world();
    settings({ outcomePattern: ['failed'] });
    const runId = await oneItemRun();
    w.h.advance(0); // the item starts
    expect((await allItems(w, runId))[0]).toMatchObject({ status: 'RUNNING', startedAt: expect.any(String) });
    settings({ outcomePattern: null });
    w.h.advance(3600);
    expect((await allItems(w, runId))[0]).toMatchObject({ status: 'SETTLED', outcome: 'failed' });
  });

  it('a run item not started yet (QUEUED, no startedAt) follows the setting in effect when it starts', async () => {
    w = await world();
    settings({ outcomePattern: ['failed'] });
    const runId = await oneItemRun();
    expect((await allItems(w, runId))[0]).toMatchObject({ status: 'QUEUED', startedAt: null });
    settings({ outcomePattern: null });
    w.h.advance(3600);
    expect((await allItems(w, runId))[0]).toMatchObject({ status: 'SETTLED', outcome: 'succeeded' });
  });

  it('an upscale accepted but not started (QUEUED) follows the mix in effect when it starts; one already PROCESSING keeps its outcome', async () => {
    w = await world();
    const source = addAsset(w.state, { width: 1024, height: 768 });
    settings({ upscaleOutcomeMix: { failed: 1 } });
    const queued = (await postUpscale(w, { source: { assetId: source.assetId }, target: '2K' })).body.upscaleId as string;
    settings({ upscaleOutcomeMix: { succeeded: 1 } });
    w.h.advance(2); // it starts, under the new mix
    settings({ upscaleOutcomeMix: { failed: 1 } });
    w.h.advance(3600);
    const done = (await w.h.request('GET', `/upscales/${queued}`, { key: w.read })).body;
    expect(done).toMatchObject({ status: 'SUCCEEDED' });
  });
});
