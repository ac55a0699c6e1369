/**
 * Run operations over HTTP through the node server, in-process (packages/mock-core/src/testkit/runs.ts `world`: mock.inject,
 * manual clock): the whole pipeline; the domain's transitions are tables in packages/mock-core/src/domain/runs/transitions.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { validatorFor } from '../../../../contract/spec/contract.ts';
import { renderPayload } from '../../../../mock-core/src/events/payload.ts';
import { violations } from '../../../../mock-core/src/testkit/harness.ts';
import { chargedFor } from '../../../../mock-core/src/domain/credits/ledger.ts';
import { setGenerationSettings } from '../../../../mock-core/src/domain/runs/settings.ts';
import { CONCURRENCY } from '../../../../mock-core/src/domain/runs/scheduler.ts';
import { addProducts, allItems, guardTaskErrors, idem, postRun, productIds, world, type World } from '../../../../mock-core/src/testkit/runs.ts';

let w: World;
afterEach(async () => {
  await w?.h.close();
});
guardTaskErrors();

const image = (w: World, n = 2, extra: Record<string, unknown> = {}) => ({ productIds: productIds(w.state, n), creativesPerProduct: 2, presetId: 'pst_studio_white', ...extra });

function setMix(w: World, input: unknown) {
  const r = setGenerationSettings(w.state, input);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
}

/** Drive a run to its end (one advance) and return the final GET. */
async function finish(w: World, runId: string) {
  w.h.advance(24 * 3600);
  const res = await w.h.request('GET', `/runs/${runId}`, { key: w.read });
  expect(violations('getRun', res)).toEqual([]);
  return res.body;
}

describe('POST /runs/estimate', () => {
  it('RUN-004, RUN-034, RUN-048: quotes without writing or charging; no budget → no budget field', async () => {
    w = await world();
    const before = JSON.stringify([w.ledger.balance, w.ledger.held, w.ledger.journal.length, w.state.runs.size, w.state.sequence]);
    const res = await w.h.request('POST', '/runs/estimate', { key: w.read, body: image(w) });
    expect(res.status).toBe(200);
    expect(violations('estimateRun', res)).toEqual([]);
    expect(res.body).toEqual({ object: 'run_estimate', total: 4, imageSize: '1K', credits: { estimated: 4, perCreative: 1, rateCardVersion: w.ledger.rateCard.version } });
    expect(JSON.stringify([w.ledger.balance, w.ledger.held, w.ledger.journal.length, w.state.runs.size, w.state.sequence])).toBe(before);
  });

  it('RUN-042: a larger imageSize is priced higher', async () => {
    w = await world();
    const quote = async (imageSize: string) => (await w.h.request('POST', '/runs/estimate', { key: w.read, body: image(w, 2, { imageSize }) })).body.credits.estimated as number;
    const [k1, k2, k4] = [await quote('1K'), await quote('2K'), await quote('4K')];
    expect(k1).toBeLessThan(k2);
    expect(k2).toBeLessThan(k4);
  });

  it.each([
    ['sufficient', 100, true],
    ['exactly enough', 4, true],
    ['RUN-005: already too small, still reported', 3, false],
    ['RUN-005: zero', 0, false],
  ] as const)('RUN-005: reports the daily budget (%s)', async (_name, dailyBudget, sufficient) => {
    w = await world();
    w.ledger.dailyBudget = dailyBudget;
    const res = await w.h.request('POST', '/runs/estimate', { key: w.read, body: image(w) });
    expect(res.status).toBe(200);
    expect(violations('estimateRun', res)).toEqual([]);
    expect(res.body.budget).toEqual({ dailyLimit: dailyBudget, usedToday: 0, remaining: dailyBudget, resetsAt: '2026-01-02T00:00:00.000Z', sufficient });
  });

  it('a video estimate has no imageSize', async () => {
    w = await world();
    const res = await w.h.request('POST', '/runs/estimate', { key: w.read, body: { ...image(w), presetId: 'pst_social_video', modality: 'video' } });
    expect(violations('estimateRun', res)).toEqual([]);
    expect(res.body.imageSize).toBeUndefined();
    expect(res.body.credits.perCreative).toBe(w.ledger.rateCard.video);
  });

  it('D34: IMAGE_SIZE_NOT_ENTITLED applies to the estimate', async () => {
    w = await world({ plan: 'growth' });
    const res = await w.h.request('POST', '/runs/estimate', { key: w.read, body: image(w, 2, { imageSize: '4K' }) });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('IMAGE_SIZE_NOT_ENTITLED');
    expect(violations('estimateRun', res)).toEqual([]);
  });

  it('D34: IMAGE_SIZE_UNPRICED applies to the estimate', async () => {
    w = await world();
    w.ledger.rateCard.image['2K'] = null;
    const res = await w.h.request('POST', '/runs/estimate', { key: w.read, body: image(w, 2, { imageSize: '2K' }) });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('IMAGE_SIZE_UNPRICED');
    expect(violations('estimateRun', res)).toEqual([]);
  });

  it('RUN-039: an unknown product answers 404 with the field', async () => {
    w = await world();
    const res = await w.h.request('POST', '/runs/estimate', { key: w.read, body: { ...image(w), productIds: [productIds(w.state, 1)[0], 'prd_nope'] } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual([{ field: 'productIds[1]', message: expect.any(String) }]);
    expect(violations('estimateRun', res)).toEqual([]);
  });

  it('RUN-045: imageSize with modality video answers 400', async () => {
    w = await world();
    const res = await w.h.request('POST', '/runs/estimate', { key: w.read, body: { ...image(w), presetId: 'pst_social_video', modality: 'video', imageSize: '2K' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors).toEqual([{ field: 'imageSize', message: 'is not allowed with modality video' }]);
    expect(violations('estimateRun', res)).toEqual([]);
  });

  it('ERR-033: ACCOUNT_SPEND_UNAVAILABLE with Retry-After when the budget cannot be read', async () => {
    w = await world();
    w.state.faults.spendUnavailable = true;
    const res = await w.h.request('POST', '/runs/estimate', { key: w.read, body: image(w) });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('ACCOUNT_SPEND_UNAVAILABLE');
    expect(violations('estimateRun', res)).toEqual([]);
  });

  it('AUTH-008: a read-only key is refused', async () => {
    w = await world();
    const res = await w.h.request('POST', '/runs/estimate', { key: w.acct.key('read'), body: image(w) });
    expect(res.status).toBe(403);
    expect(violations('estimateRun', res)).toEqual([]);
  });
});

describe('POST /runs', () => {
  it('RUN-001, RUN-002, RUN-025, RUN-035, RUN-043: 202 at once, ACCEPTED, Location, the quoted price pinned', async () => {
    w = await world();
    const body = image(w, 3, { imageSize: '2K' });
    const quote = await w.h.request('POST', '/runs/estimate', { key: w.read, body });
    const res = await postRun(w, body);
    expect(res.status).toBe(202);
    expect(violations('createRun', res)).toEqual([]);
    expect(res.headers.location).toBe(`/api/public/v1/runs/${res.body.runId}`);
    expect(res.body).toMatchObject({ object: 'run', status: 'ACCEPTED', total: 6, finalizedAt: null, counts: { succeeded: 0, failed: 0, refused: 0, stopped: 0, pending: 6 } });
    expect(res.body.credits).toEqual({ estimated: quote.body.credits.estimated, rateCardVersion: quote.body.credits.rateCardVersion });
    expect(res.body.estimatedCompletion).toEqual({ completesAt: expect.any(String), durationSeconds: expect.any(Number) });
    expect(w.ledger.held).toBe(0); // nothing held before an item starts
  });

  it('IDEM-007, RUN-046: a replay returns the same run; spelling out the defaults is the same request', async () => {
    w = await world();
    const key = idem();
    const first = await postRun(w, image(w), { idempotencyKey: key });
    const again = await postRun(w, { ...image(w), modality: 'image', imageSize: '1K', referenceSource: 'PRIMARY' }, { idempotencyKey: key });
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(violations('createRun', again)).toEqual([]);
    expect(again.body.runId).toBe(first.body.runId);
    expect(w.state.runs.size).toBe(1);
  });

  it('IDEM-001: Idempotency-Key is required', async () => {
    w = await world();
    const res = await w.h.request('POST', '/runs', { key: w.write, body: image(w) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    expect(violations('createRun', res)).toEqual([]);
  });

  it('IDEM: the same key with another body answers IDEMPOTENCY_KEY_REUSED', async () => {
    w = await world();
    const key = idem();
    await postRun(w, image(w), { idempotencyKey: key });
    const res = await postRun(w, image(w, 3), { idempotencyKey: key });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(violations('createRun', res)).toEqual([]);
  });

  type Refusal = [string, { plan?: 'core' | 'growth'; setup?: (w: World) => void; body: (w: World) => unknown; status: number; code: string; errors?: unknown }];
  const refusals: Refusal[] = [
    ['RUN-047: total over 1,000', { body: (w) => ({ ...image(w, 1), productIds: addProducts(w.state, 101, 0), creativesPerProduct: 10 }), status: 400, code: 'VALIDATION_ERROR' }],
    ['RUN-047: more than 10 creatives per product', { body: (w) => image(w, 1, { creativesPerProduct: 11 }), status: 400, code: 'VALIDATION_ERROR' }],
    ['RUN-047: unknown field', { body: (w) => image(w, 1, { colour: 'red' }), status: 400, code: 'VALIDATION_ERROR' }],
    ['RUN-040: unknown preset', { body: (w) => image(w, 1, { presetId: 'pst_nope' }), status: 400, code: 'VALIDATION_ERROR', errors: [{ field: 'presetId', message: expect.any(String) }] }],
    ['RUN-040: a video preset on an image run', { body: (w) => image(w, 1, { presetId: 'pst_social_video' }), status: 400, code: 'VALIDATION_ERROR', errors: [{ field: 'presetId', message: expect.any(String) }] }],
    ['RUN-045: referenceSource with modality video', { body: (w) => image(w, 1, { presetId: 'pst_social_video', modality: 'video', referenceSource: 'ALL' }), status: 400, code: 'VALIDATION_ERROR' }],
    ['AUTH-025, ERR-016: 2K below growth', { plan: 'core', body: (w) => image(w, 1, { imageSize: '2K' }), status: 403, code: 'IMAGE_SIZE_NOT_ENTITLED' }],
    ['AUTH-025, ERR-016: 4K below enterprise', { plan: 'growth', body: (w) => image(w, 1, { imageSize: '4K' }), status: 403, code: 'IMAGE_SIZE_NOT_ENTITLED' }],
    [
      'RUN-039: unknown products, each named',
      { body: (w) => ({ ...image(w), productIds: ['prd_x', productIds(w.state, 1)[0], 'prd_y'] }), status: 404, code: 'PRODUCT_NOT_FOUND', errors: [{ field: 'productIds[0]', message: expect.any(String) }, { field: 'productIds[2]', message: expect.any(String) }] },
    ],
    ['ERR-021: IMAGE_SIZE_UNPRICED', { setup: (w) => void (w.ledger.rateCard.image['4K'] = null), body: (w) => image(w, 1, { imageSize: '4K' }), status: 409, code: 'IMAGE_SIZE_UNPRICED' }],
    ['ERR-036: PRICE_CHANGED', { body: (w) => image(w, 1, { expectedRateCardVersion: 'an-old-card' }), status: 409, code: 'PRICE_CHANGED' }],
    ['ERR-035: PRICE_EXCEEDS_MAX', { body: (w) => image(w, 2, { maxCredits: 3 }), status: 409, code: 'PRICE_EXCEEDS_MAX' }],
    ['ERR-037: ACCOUNT_SPEND_CAP_EXCEEDED (daily budget)', { setup: (w) => void (w.ledger.dailyBudget = 3), body: (w) => image(w, 2), status: 409, code: 'ACCOUNT_SPEND_CAP_EXCEEDED' }],
    ['ERR-037: ACCOUNT_SPEND_CAP_EXCEEDED (balance)', { setup: (w) => void (w.ledger.balance = 3), body: (w) => image(w, 2), status: 409, code: 'ACCOUNT_SPEND_CAP_EXCEEDED' }],
    ['ERR-033: ACCOUNT_SPEND_UNAVAILABLE', { setup: (w) => void (w.state.faults.spendUnavailable = true), body: (w) => image(w, 1), status: 503, code: 'ACCOUNT_SPEND_UNAVAILABLE' }],
    ['ERR-031: WRITES_PAUSED', { setup: (w) => void (w.state.faults.writesPaused = true), body: (w) => image(w, 1), status: 503, code: 'WRITES_PAUSED' }],
  ];
  it.each(refusals)('%s: refused, nothing written or charged', async (_name, c) => {
    w = await world(c.plan ? { plan: c.plan } : {});
    c.setup?.(w);
    const balance = w.ledger.balance;
    const res = await postRun(w, c.body(w));
    expect(res.status).toBe(c.status);
    expect(res.body.code).toBe(c.code);
    if (c.errors) expect(res.body.errors).toEqual(c.errors);
    expect(violations('createRun', res)).toEqual([]);
    expect(w.state.runs.size).toBe(0);
    expect(w.state.runItems.size).toBe(0);
    expect(w.ledger.journal).toEqual([]);
    expect(w.ledger.balance).toBe(balance);
    if (c.status === 503) expect(res.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('a budget refusal still lets the estimate report the budget (RUN-005 with ERR-037)', async () => {
    w = await world();
    w.ledger.dailyBudget = 3;
    expect((await postRun(w, image(w))).body.code).toBe('ACCOUNT_SPEND_CAP_EXCEEDED');
    const est = await w.h.request('POST', '/runs/estimate', { key: w.read, body: image(w) });
    expect(est.body.budget).toMatchObject({ remaining: 3, sufficient: false });
  });

  it('ERR-033: Prefer: scenario=spend_unavailable, and the key is not consumed', async () => {
    w = await world();
    const key = idem();
    const res = await postRun(w, image(w), { idempotencyKey: key, headers: { prefer: 'scenario=spend_unavailable' } });
    expect(res.status).toBe(503);
    expect(violations('createRun', res)).toEqual([]);
    const retry = await postRun(w, image(w), { idempotencyKey: key });
    expect(retry.status).toBe(202);
  });

  it('RUN-046: the default 1K is never refused as not entitled', async () => {
    w = await world({ plan: 'core' });
    const res = await postRun(w, image(w, 1, { imageSize: '1K' }));
    expect(res.status).toBe(202);
  });

  it('AUTH-019: a runs:write key below Core answers 401', async () => {
    w = await world({ plan: 'starter' });
    const res = await postRun(w, image(w, 1));
    expect(res.status).toBe(401);
    expect(violations('createRun', res)).toEqual([]);
  });

  it('AUTH-011: a runs:read key cannot create', async () => {
    w = await world();
    const res = await postRun(w, image(w, 1), { key: w.read });
    expect(res.status).toBe(403);
    expect(violations('createRun', res)).toEqual([]);
  });
});

describe('run progression on the clock', () => {
  it('RUN-003, RUN-026: RUNNING once items start; credits held per running item', async () => {
    w = await world();
    const res = await postRun(w, image(w, 5)); // 10 items
    const runId = res.body.runId as string;
    w.h.advance(0);
    const running = await w.h.request('GET', `/runs/${runId}`, { key: w.read });
    expect(violations('getRun', running)).toEqual([]);
    expect(running.body.status).toBe('RUNNING');
    expect(w.ledger.held).toBe(CONCURRENCY * 1);
    expect(w.ledger.totals.charged).toBe(0);
    const items = await allItems(w, runId);
    expect(items.filter((i) => i.status === 'RUNNING')).toHaveLength(CONCURRENCY);
  });

  it('RUN-028, RUN-021, EVT-008, EVT-027: all succeeded → SUCCEEDED, one charge per creative, run.completed once without actor', async () => {
    w = await world();
    const res = await postRun(w, image(w, 5));
    const runId = res.body.runId as string;
    const durationSeconds = res.body.estimatedCompletion.durationSeconds as number;
    w.h.advance(durationSeconds); // D11: the estimate is an upper bound
    const run = (await w.h.request('GET', `/runs/${runId}`, { key: w.read })).body;
    expect(run).toMatchObject({ status: 'SUCCEEDED', counts: { succeeded: 10, failed: 0, refused: 0, stopped: 0, pending: 0 }, estimatedCompletion: null });
    expect(run.finalizedAt).not.toBeNull();
    expect(chargedFor(w.ledger, 'run', runId)).toBe(10);
    expect(w.ledger.held).toBe(0);
    expect(w.ledger.balance).toBe(10_000 - 10);
    const completed = w.state.events.filter((e) => e.type === 'run.completed');
    expect(completed).toHaveLength(1);
    expect(completed[0]!.resource).toEqual({ kind: 'run', id: runId });
    expect(completed[0]!.actor).toBeUndefined();
    // EVT-008: the payload's data is the Run as GET /runs/{runId} returns it.
    const payload = renderPayload(w.state, completed[0]!, w.h.clock.now(), 'http://localhost');
    const validate = validatorFor('#/components/schemas/RunCompletedEvent');
    expect(validate(payload), JSON.stringify(validate.errors)).toBe(true);
    expect(payload!.data).toEqual(run);
    // finalizedAt is set once; nothing moves later.
    w.h.advance(48 * 3600);
    const later = (await w.h.request('GET', `/runs/${runId}`, { key: w.read })).body;
    expect(later).toEqual(run);
    expect(w.state.events.filter((e) => e.type === 'run.completed')).toHaveLength(1);
  });

  it('RUN-014, RUN-015, RUN-018: one item per planned creative, request order, asset once produced (and in account.assets)', async () => {
    w = await world();
    const ids = productIds(w.state, 3);
    const res = await postRun(w, { productIds: ids, creativesPerProduct: 2, presetId: 'pst_lifestyle' });
    const runId = res.body.runId as string;
    const queued = await w.h.request('GET', `/runs/${runId}/items`, { key: w.read });
    expect(violations('listRunItems', queued)).toEqual([]);
    expect(queued.body.data.map((i: any) => [i.position, i.productId, i.status, i.outcome, i.asset])).toEqual(
      [0, 1, 2, 3, 4, 5].map((p) => [p, ids[Math.floor(p / 2)], 'QUEUED', null, null]),
    );
    w.h.advance(3600);
    const settled = await w.h.request('GET', `/runs/${runId}/items`, { key: w.read });
    expect(violations('listRunItems', settled)).toEqual([]);
    for (const i of settled.body.data) {
      expect(i).toMatchObject({ object: 'run_item', runId, status: 'SETTLED', outcome: 'succeeded', asset: { object: 'asset', type: 'STATIC', width: 1024 } });
      expect(i.asset.derivation).toBeUndefined();
      expect(w.state.assets.get(i.asset.assetId)).toBeDefined();
    }
  });

  it('RUN-014: items page in request order', async () => {
    w = await world();
    const res = await postRun(w, image(w, 5)); // 10 items
    const runId = res.body.runId as string;
    const positions: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await w.h.request('GET', `/runs/${runId}/items`, { key: w.read, query: { limit: 3, ...(cursor ? { cursor } : {}) } });
      expect(violations('listRunItems', page)).toEqual([]);
      positions.push(...page.body.data.map((i: any) => i.position));
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    expect(positions).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  type Mix = [string, { settings: unknown; items: number; want: string; check?: (counts: any) => void }];
  const mixes: Mix[] = [
    ['RUN-029: a mixed outcome → PARTIAL', { settings: { outcomePattern: ['succeeded', 'failed', 'refused'] }, items: 6, want: 'PARTIAL', check: (c) => expect(c).toEqual({ succeeded: 2, failed: 2, refused: 2, stopped: 0, pending: 0 }) }],
    ['RUN-030: every item refused → REFUSED', { settings: { outcomeMix: { refused: 1 } }, items: 4, want: 'REFUSED' }],
    ['RUN-031: none succeeded, not all refused → FAILED', { settings: { outcomePattern: ['refused', 'failed'] }, items: 4, want: 'FAILED' }],
    ['RUN-029: a weighted mix is deterministic by seed', { settings: { seed: 7, outcomeMix: { succeeded: 1, failed: 1 } }, items: 20, want: 'PARTIAL' }],
  ];
  it.each(mixes)('%s', async (_name, c) => {
    w = await world();
    setMix(w, c.settings);
    const res = await postRun(w, image(w, c.items / 2));
    const run = await finish(w, res.body.runId);
    expect(run.status).toBe(c.want);
    c.check?.(run.counts);
    // RUN-003: charged exactly for the produced creatives.
    expect(chargedFor(w.ledger, 'run', run.runId)).toBe(run.counts.succeeded);
    expect(w.ledger.held).toBe(0);
    const items = await allItems(w, run.runId);
    expect(items.filter((i) => i.asset !== null)).toHaveLength(run.counts.succeeded);
  });

  it('outcomes are deterministic: the same seed gives the same items', async () => {
    const outcomes = async () => {
      const x = await world({ seed: 99 });
      setMix(x, { outcomeMix: { succeeded: 2, failed: 1, refused: 1 } });
      const res = await postRun(x, image(x, 10));
      x.h.advance(3600);
      const items = await allItems(x, res.body.runId);
      await x.h.close();
      return items.map((i) => i.outcome);
    };
    w = await world();
    expect(await outcomes()).toEqual(await outcomes());
  });

  it('RUN-032: a stalled item keeps the run open until 24 h, then EXPIRED with the unsettled items failed', async () => {
    w = await world();
    setMix(w, { outcomePattern: ['succeeded', 'stall'] });
    const res = await postRun(w, image(w, 2)); // 4 items: 2 succeed, 2 stall
    const runId = res.body.runId as string;
    w.h.advance(23 * 3600);
    const open = (await w.h.request('GET', `/runs/${runId}`, { key: w.read })).body;
    expect(open).toMatchObject({ status: 'RUNNING', finalizedAt: null, counts: { succeeded: 2, pending: 2 } });
    expect(w.ledger.held).toBe(2);
    w.h.advance(3600);
    const expired = (await w.h.request('GET', `/runs/${runId}`, { key: w.read })).body;
    expect(expired).toMatchObject({ status: 'EXPIRED', counts: { succeeded: 2, failed: 2, pending: 0 }, finalizedAt: '2026-01-02T00:00:00.000Z' });
    expect(w.ledger.held).toBe(0);
    expect(chargedFor(w.ledger, 'run', runId)).toBe(2);
    expect((await allItems(w, runId)).map((i) => i.outcome)).toEqual(['succeeded', 'failed', 'succeeded', 'failed']);
    expect(w.state.events.filter((e) => e.type === 'run.completed')).toHaveLength(1);
  });

  it('items whose hold cannot be placed mid-run settle refused, charging nothing', async () => {
    w = await world();
    const res = await postRun(w, image(w, 3)); // 6 items at 1 credit
    w.ledger.balance = 2; // another spender drained the account after the create
    const run = await finish(w, res.body.runId);
    expect(run.counts).toEqual({ succeeded: 2, failed: 0, refused: 4, stopped: 0, pending: 0 });
    expect(run.status).toBe('PARTIAL');
    expect(w.ledger.balance).toBe(0);
  });

  it('a reset account stops progressing: no charges, no run.completed after POST /__mock/reset', async () => {
    w = await world();
    const runId = (await postRun(w, image(w, 5))).body.runId as string;
    w.h.advance(0);
    const reset = await w.h.control('POST', '/__mock/reset');
    expect(reset.status).toBeLessThan(300);
    const events = w.state.events.length;
    const journal = w.ledger.journal.length;
    w.h.advance(48 * 3600);
    expect(w.state.runs.get(runId)!.status).toBe('RUNNING');
    expect(w.state.events.length).toBe(events);
    expect(w.ledger.journal.length).toBe(journal);
  });

  it('D9, D11: speed shortens durations and the estimate', async () => {
    w = await world();
    const slow = (await postRun(w, image(w, 5))).body.estimatedCompletion.durationSeconds as number;
    setMix(w, { speed: 10 });
    const fast = await postRun(w, image(w, 5));
    expect(fast.body.estimatedCompletion.durationSeconds).toBe(Math.ceil(slow / 10));
    expect(slow).toBe(30); // a 10-item run takes about half a minute at speed 1
    w.h.advance(fast.body.estimatedCompletion.durationSeconds);
    expect((await w.h.request('GET', `/runs/${fast.body.runId}`, { key: w.read })).body.status).toBe('SUCCEEDED');
  });

  it('a 1,000-item run reaches finalizedAt with one advance', async () => {
    w = await world();
    const ids = [...productIds(w.state, 60), ...addProducts(w.state, 40, w.h.clock.now())];
    const res = await postRun(w, { productIds: ids, creativesPerProduct: 10, presetId: 'pst_studio_white' });
    expect(res.status).toBe(202);
    expect(res.body.total).toBe(1000);
    w.h.advance(res.body.estimatedCompletion.durationSeconds);
    const run = (await w.h.request('GET', `/runs/${res.body.runId}`, { key: w.read })).body;
    expect(run.status).toBe('SUCCEEDED');
    expect(run.counts.succeeded).toBe(1000);
    expect(w.ledger.totals.charged).toBe(1000);
  });
});

describe('GET /runs and GET /runs/{runId}', () => {
  it('RUN-033, RUN-010: newest first; a non-final row omits counts, a final one has them', async () => {
    w = await world();
    const a = (await postRun(w, image(w, 1))).body.runId;
    w.h.advance(3600);
    const b = (await postRun(w, image(w, 1))).body.runId;
    const res = await w.h.request('GET', '/runs', { key: w.read });
    expect(res.status).toBe(200);
    expect(violations('listRuns', res)).toEqual([]);
    expect(res.body.object).toBe('list');
    expect(res.body.data.map((r: any) => r.runId)).toEqual([b, a]);
    expect(res.body.data[0].counts).toBeUndefined();
    expect(res.body.data[1].counts).toMatchObject({ succeeded: 2, pending: 0 });
  });

  it('RUN-036: a run belonging to another account answers 404 RUN_NOT_FOUND', async () => {
    w = await world();
    const runId = (await postRun(w, image(w, 1))).body.runId;
    const other = await w.h.account();
    for (const [op, path] of [['getRun', `/runs/${runId}`], ['listRunItems', `/runs/${runId}/items`]] as const) {
      const res = await w.h.request('GET', path, { key: other.key('runs:read') });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('RUN_NOT_FOUND');
      expect(violations(op, res)).toEqual([]);
    }
  });

  it('a bad cursor answers 400', async () => {
    w = await world();
    const res = await w.h.request('GET', '/runs', { key: w.read, query: { cursor: 'nope' } });
    expect(res.status).toBe(400);
    expect(violations('listRuns', res)).toEqual([]);
  });
});

describe('POST /runs/{id}/stop', () => {
  it('RUN-006, RUN-023, RUN-024, RUN-027, RUN-003: stop in the middle', async () => {
    w = await world();
    setMix(w, { outcomePattern: ['succeeded', 'failed'] });
    const res = await postRun(w, image(w, 5)); // 10 items
    const runId = res.body.runId as string;
    w.h.advance(0); // items 0-3 start
    const stop = await w.h.request('POST', `/runs/${runId}/stop`, { key: w.write });
    expect(stop.status).toBe(202);
    expect(violations('stopRun', stop)).toEqual([]);
    expect(stop.body).toMatchObject({ status: 'STOPPING', finalizedAt: null, counts: { stopped: 6, pending: 4 } });
    expect(w.ledger.held).toBe(4);
    w.h.advance(3600);
    const run = (await w.h.request('GET', `/runs/${runId}`, { key: w.read })).body;
    expect(run).toMatchObject({ status: 'STOPPED', counts: { succeeded: 2, failed: 2, refused: 0, stopped: 6, pending: 0 } });
    expect(run.finalizedAt).not.toBeNull();
    // Items in progress finished; charged only the two that produced a creative.
    expect(chargedFor(w.ledger, 'run', runId)).toBe(2);
    expect(w.ledger.totals.released).toBe(2);
    expect(w.ledger.held).toBe(0);
    const items = await allItems(w, runId);
    expect(items.map((i) => i.outcome)).toEqual(['succeeded', 'failed', 'succeeded', 'failed', 'stopped', 'stopped', 'stopped', 'stopped', 'stopped', 'stopped']);
    expect(items.slice(4).every((i) => i.startedAt === null)).toBe(true);
    expect(w.state.events.filter((e) => e.type === 'run.completed')).toHaveLength(1);
  });

  it('RUN-023: stop of an ACCEPTED run reads STOPPING, then STOPPED at the next tick', async () => {
    w = await world();
    const runId = (await postRun(w, image(w, 1))).body.runId;
    const stop = await w.h.request('POST', `/runs/${runId}/stop`, { key: w.write });
    expect(stop.body).toMatchObject({ status: 'STOPPING', counts: { stopped: 2, pending: 0 } });
    w.h.advance(0);
    const run = (await w.h.request('GET', `/runs/${runId}`, { key: w.read })).body;
    expect(run).toMatchObject({ status: 'STOPPED', counts: { stopped: 2 } });
    expect(w.ledger.journal).toEqual([]);
  });

  it('RUN-037, RUN-038: no Idempotency-Key needed; a repeat answers 202 with the run unchanged (STOPPING and final)', async () => {
    w = await world();
    const runId = (await postRun(w, image(w, 3))).body.runId;
    w.h.advance(0);
    const first = await w.h.request('POST', `/runs/${runId}/stop`, { key: w.write });
    const second = await w.h.request('POST', `/runs/${runId}/stop`, { key: w.write });
    expect(second.status).toBe(202);
    expect(violations('stopRun', second)).toEqual([]);
    expect(second.body).toEqual(first.body);
    w.h.advance(3600);
    const final = (await w.h.request('GET', `/runs/${runId}`, { key: w.read })).body;
    const third = await w.h.request('POST', `/runs/${runId}/stop`, { key: w.write });
    expect(third.status).toBe(202);
    expect(third.body).toEqual(final);
  });

  it('404 RUN_NOT_FOUND for an unknown run', async () => {
    w = await world();
    const res = await w.h.request('POST', '/runs/run_nope/stop', { key: w.write });
    expect(res.status).toBe(404);
    expect(violations('stopRun', res)).toEqual([]);
  });

  it('ERR-031: WRITES_PAUSED applies to stop', async () => {
    w = await world();
    const runId = (await postRun(w, image(w, 1))).body.runId;
    w.state.faults.writesPaused = true;
    const res = await w.h.request('POST', `/runs/${runId}/stop`, { key: w.write });
    expect(res.status).toBe(503);
    expect(violations('stopRun', res)).toEqual([]);
  });
});
