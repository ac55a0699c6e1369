/**
 * Upscale operations over HTTP through the node server, in-process (packages/mock-core/src/testkit/runs.ts `world`: mock.inject,
 * manual clock): the whole pipeline; the domain's transitions are tables in packages/mock-core/src/domain/upscales/transitions.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { violations } from '../../../../mock-core/src/testkit/harness.ts';
import { chargedFor } from '../../../../mock-core/src/domain/credits/ledger.ts';
import { setGenerationSettings } from '../../../../mock-core/src/domain/runs/settings.ts';
import { addAsset, guardTaskErrors, idem, postUpscale, world, type World } from '../../../../mock-core/src/testkit/runs.ts';

let w: World;
afterEach(async () => {
  await w?.h.close();
});
guardTaskErrors();

async function getUpscale(w: World, id: string) {
  const res = await w.h.request('GET', `/upscales/${id}`, { key: w.read });
  expect(violations('getUpscale', res)).toEqual([]);
  return res.body;
}

describe('POST /upscales', () => {
  it('UPSC-001, UPSC-004, UPSC-007, UPSC-009: 202 QUEUED with Location, held on accept; PROCESSING; SUCCEEDED with a NEW asset; charged once', async () => {
    w = await world();
    const source = addAsset(w.state, { width: 1024, height: 768 });
    const original = structuredClone(source);
    const res = await postUpscale(w, { source: { assetId: source.assetId }, target: '4K' });
    expect(res.status).toBe(202);
    expect(violations('createUpscale', res)).toEqual([]);
    expect(res.headers.location).toBe(`/api/public/v1/upscales/${res.body.upscaleId}`);
    expect(res.body).toMatchObject({ object: 'upscale', status: 'QUEUED', source: { assetId: source.assetId }, target: '4K', assetId: null, failureReason: null, finalizedAt: null, credits: { estimated: 2 } });
    const id = res.body.upscaleId as string;
    // UPSC-004: held on accept.
    expect(w.ledger.held).toBe(2);
    expect(w.ledger.journal.map((e) => e.kind)).toEqual(['hold']);

    w.h.advance(2);
    expect((await getUpscale(w, id)).status).toBe('PROCESSING');
    w.h.advance(60);
    const done = await getUpscale(w, id);
    expect(done).toMatchObject({ status: 'SUCCEEDED', assetId: expect.any(String), finalizedAt: expect.any(String) });
    expect(done.assetId).not.toBe(source.assetId);
    expect(chargedFor(w.ledger, 'upscale', id)).toBe(2);
    expect(w.ledger.held).toBe(0);

    // UPSC-008, ASST-005: the result is readable as an asset, with derivation, at 4K on the long edge.
    const asset = await w.h.request('GET', `/assets/${done.assetId}`, { key: w.acct.key('read') });
    expect(asset.status).toBe(200);
    expect(violations('getAsset', asset)).toEqual([]);
    expect(asset.body).toMatchObject({ width: 4096, height: 3072, derivation: { kind: 'ai_rerender', operation: 'image_upscale', parentAssetId: source.assetId, rootAssetId: source.assetId } });
    // D49: its url is a PNG really of that size (the header's width and height; image.test.ts decodes one whole).
    const png = await w.h.mock.inject({ method: 'GET', url: new URL(asset.body.url).pathname });
    expect(png.statusCode).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect([png.rawPayload.readUInt32BE(16), png.rawPayload.readUInt32BE(20)]).toEqual([4096, 3072]);
    // UPSC-002: the original never changes.
    expect(w.state.assets.get(source.assetId)).toEqual(original);
  });

  it('ASST-005: rootAssetId follows a chain of upscales', async () => {
    w = await world();
    const source = addAsset(w.state, { width: 1024, height: 1024 });
    const first = await postUpscale(w, { source: { assetId: source.assetId }, target: '2K' });
    w.h.advance(60);
    const twoK = (await getUpscale(w, first.body.upscaleId)).assetId as string;
    const second = await postUpscale(w, { source: { assetId: twoK }, target: '4K' });
    expect(second.status).toBe(202);
    w.h.advance(60);
    const fourK = (await getUpscale(w, second.body.upscaleId)).assetId as string;
    expect(w.state.assets.get(fourK)!.derivation).toEqual({ kind: 'ai_rerender', operation: 'image_upscale', parentAssetId: twoK, rootAssetId: source.assetId });
  });

  it('UPSC-011, UPSC-012: a product image as the source (primary, then a gallery image); the product image is held as one asset', async () => {
    w = await world();
    const product = [...w.state.products.values()].find((p) => p.galleryImageUrls.length >= 2)!;
    const primary = await postUpscale(w, { source: { productId: product.productId, image: 'primary' }, target: '2K' });
    expect(primary.status).toBe(202);
    expect(violations('createUpscale', primary)).toEqual([]);
    expect(primary.body.source).toEqual({ productId: product.productId, image: 'primary' });
    const gallery = await postUpscale(w, { source: { productId: product.productId, image: 'gallery', index: 1 }, target: '2K' });
    expect(gallery.status).toBe(202);
    w.h.advance(60);
    const a = w.state.assets.get((await getUpscale(w, primary.body.upscaleId)).assetId)!;
    const b = w.state.assets.get((await getUpscale(w, gallery.body.upscaleId)).assetId)!;
    expect(w.state.assets.get(a.derivation!.parentAssetId)!.url).toBe(product.primaryImageUrl);
    expect(w.state.assets.get(b.derivation!.parentAssetId)!.url).toBe(product.galleryImageUrls[1]);
    // Upscaling the primary image again reuses the asset that holds it.
    const again = await postUpscale(w, { source: { productId: product.productId, image: 'primary' }, target: '4K' });
    w.h.advance(60);
    expect(w.state.assets.get((await getUpscale(w, again.body.upscaleId)).assetId)!.derivation!.parentAssetId).toBe(a.derivation!.parentAssetId);
  });

  it('UPSC-004: a FAILED upscale releases its hold; nothing is charged', async () => {
    w = await world();
    const r = setGenerationSettings(w.state, { upscaleOutcomeMix: { failed: 1 } });
    expect(r.ok).toBe(true);
    const source = addAsset(w.state);
    const assets = w.state.assets.size;
    const res = await postUpscale(w, { source: { assetId: source.assetId }, target: '2K' });
    w.h.advance(60);
    const done = await getUpscale(w, res.body.upscaleId);
    expect(done).toMatchObject({ status: 'FAILED', assetId: null, failureReason: 'render_failed' });
    expect(w.state.assets.size).toBe(assets);
    expect(w.ledger.totals).toEqual({ charged: 0, released: 1 });
    expect(w.ledger.balance).toBe(10_000);
  });

  it('UPSC-004: nothing is refunded when the delivered asset is deleted', async () => {
    w = await world();
    const source = addAsset(w.state);
    const res = await postUpscale(w, { source: { assetId: source.assetId }, target: '2K' });
    w.h.advance(60);
    const assetId = (await getUpscale(w, res.body.upscaleId)).assetId as string;
    const del = await w.h.request('DELETE', `/assets/${assetId}`, { key: w.acct.key('assets:write') });
    if (del.status === 200) expect(w.state.assets.get(assetId)!.deletedAt).not.toBeNull();
    else w.state.assets.get(assetId)!.deletedAt = w.h.clock.now(); // before the assets writes land
    w.h.advance(3600);
    expect(w.ledger.totals).toEqual({ charged: 1, released: 0 });
    expect(w.ledger.balance).toBe(10_000 - 1);
  });

  type Refusal = [string, { plan?: 'core'; setup?: (w: World) => unknown; body: (w: World, s: any) => unknown; status: number; code: string; field?: string }];
  const refusals: Refusal[] = [
    ['UPSC-012: a gallery image without index', { body: (w) => ({ source: { productId: w.state.products.ids()[1], image: 'gallery' }, target: '2K' }), status: 400, code: 'VALIDATION_ERROR', field: 'source.index' }],
    ['UPSC-012: index on the primary image', { body: (w) => ({ source: { productId: w.state.products.ids()[1], image: 'primary', index: 0 }, target: '2K' }), status: 400, code: 'VALIDATION_ERROR', field: 'source.index' }],
    ['AUTH-026, ERR-017: a plan without upscales', { plan: 'core', setup: (w) => addAsset(w.state), body: (_w, s) => ({ source: { assetId: s.assetId }, target: '2K' }), status: 403, code: 'IMAGE_UPSCALE_NOT_ENTITLED' }],
    ['an unknown asset', { body: () => ({ source: { assetId: 'ast_nope' }, target: '2K' }), status: 404, code: 'ASSET_NOT_FOUND' }],
    ['a deleted asset', { setup: (w) => addAsset(w.state, { deletedAt: 1 }), body: (_w, s) => ({ source: { assetId: s.assetId }, target: '2K' }), status: 404, code: 'ASSET_NOT_FOUND' }],
    ['an unknown product', { body: () => ({ source: { productId: 'prd_nope', image: 'primary' }, target: '2K' }), status: 404, code: 'PRODUCT_NOT_FOUND' }],
    ['UPSC-013: a video asset', { setup: (w) => addAsset(w.state, { type: 'VIDEO', durationSec: 15 }), body: (_w, s) => ({ source: { assetId: s.assetId }, target: '2K' }), status: 422, code: 'IMAGE_UPSCALE_SOURCE_UNREADABLE', field: 'source.assetId' }],
    [
      'UPSC-013: an index beyond the gallery',
      { body: (w) => ({ source: { productId: [...w.state.products.values()].find((p) => p.galleryImageUrls.length === 0)!.productId, image: 'gallery', index: 0 }, target: '2K' }), status: 422, code: 'IMAGE_UPSCALE_SOURCE_UNREADABLE', field: 'source.index' },
    ],
    ['D34: a source already as large as the target', { setup: (w) => addAsset(w.state, { width: 2048, height: 1024 }), body: (_w, s) => ({ source: { assetId: s.assetId }, target: '2K' }), status: 422, code: 'IMAGE_UPSCALE_TARGET_NOT_LARGER', field: 'target' }],
    ['D34: an unpriced target', { setup: (w) => ((w.ledger.rateCard.upscale['4K'] = null), addAsset(w.state)), body: (_w, s) => ({ source: { assetId: s.assetId }, target: '4K' }), status: 409, code: 'IMAGE_UPSCALE_UNPRICED' }],
    ['ERR-033: the spend dependency is unreachable', { setup: (w) => ((w.state.faults.spendUnavailable = true), addAsset(w.state)), body: (_w, s) => ({ source: { assetId: s.assetId }, target: '2K' }), status: 503, code: 'ACCOUNT_SPEND_UNAVAILABLE' }],
    ['ERR-038: the balance cannot cover it', { setup: (w) => ((w.ledger.balance = 1), addAsset(w.state)), body: (_w, s) => ({ source: { assetId: s.assetId }, target: '4K' }), status: 402, code: 'INSUFFICIENT_CREDITS' }],
    ['ERR-037: the daily budget cannot cover it', { setup: (w) => ((w.ledger.dailyBudget = 1), addAsset(w.state)), body: (_w, s) => ({ source: { assetId: s.assetId }, target: '4K' }), status: 409, code: 'ACCOUNT_SPEND_CAP_EXCEEDED' }],
    ['ERR-031: WRITES_PAUSED', { setup: (w) => ((w.state.faults.writesPaused = true), addAsset(w.state)), body: (_w, s) => ({ source: { assetId: s.assetId }, target: '2K' }), status: 503, code: 'WRITES_PAUSED' }],
  ];
  it.each(refusals)('%s: refused, nothing written or held', async (_name, c) => {
    w = await world(c.plan ? { plan: c.plan } : {});
    const s = c.setup?.(w);
    const assets = w.state.assets.size;
    const res = await postUpscale(w, c.body(w, s));
    expect(res.status).toBe(c.status);
    expect(res.body.code).toBe(c.code);
    if (c.field) expect(res.body.errors.map((e: any) => e.field)).toEqual([c.field]);
    expect(violations('createUpscale', res)).toEqual([]);
    expect(w.state.upscales.size).toBe(0);
    expect(w.state.assets.size).toBe(assets);
    expect(w.ledger.journal).toEqual([]);
  });

  // D23: body failures on the generation plane answer 400, though createUpscale declares a 422
  // for its own refusals.
  it('ERR-041, UPSC-011: a target that is not 2K or 4K answers 400 VALIDATION_ERROR', async () => {
    w = await world();
    const res = await postUpscale(w, { source: { assetId: addAsset(w.state).assetId }, target: '1K' });
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(violations('createUpscale', res)).toEqual([]);
    expect(res.status).toBe(400);
  });

  it('another account\'s asset answers 404 ASSET_NOT_FOUND', async () => {
    w = await world();
    const other = await w.h.account();
    const theirs = addAsset(other.state);
    const res = await postUpscale(w, { source: { assetId: theirs.assetId }, target: '2K' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('ASSET_NOT_FOUND');
    expect(violations('createUpscale', res)).toEqual([]);
  });

  it('D34: IMAGE_UPSCALE_IN_PROGRESS for the same source and target while QUEUED or PROCESSING; free again once final', async () => {
    w = await world();
    const source = addAsset(w.state);
    const first = await postUpscale(w, { source: { assetId: source.assetId }, target: '2K' });
    const dup = await postUpscale(w, { source: { assetId: source.assetId }, target: '2K' });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('IMAGE_UPSCALE_IN_PROGRESS');
    expect(violations('createUpscale', dup)).toEqual([]);
    w.h.advance(3);
    expect((await postUpscale(w, { source: { assetId: source.assetId }, target: '2K' })).body.code).toBe('IMAGE_UPSCALE_IN_PROGRESS');
    // Another target of the same source is a different upscale.
    expect((await postUpscale(w, { source: { assetId: source.assetId }, target: '4K' })).status).toBe(202);
    w.h.advance(60);
    expect((await getUpscale(w, first.body.upscaleId)).status).toBe('SUCCEEDED');
    expect((await postUpscale(w, { source: { assetId: source.assetId }, target: '2K' })).status).toBe(202);
  });

  it('IMAGE_UPSCALE_IN_PROGRESS holds while an upscale stalls', async () => {
    w = await world();
    setGenerationSettings(w.state, { upscaleOutcomeMix: { stall: 1 } });
    const source = addAsset(w.state);
    const first = await postUpscale(w, { source: { assetId: source.assetId }, target: '2K' });
    w.h.advance(7 * 24 * 3600);
    expect((await getUpscale(w, first.body.upscaleId)).status).toBe('PROCESSING');
    expect((await postUpscale(w, { source: { assetId: source.assetId }, target: '2K' })).body.code).toBe('IMAGE_UPSCALE_IN_PROGRESS');
    expect(w.ledger.held).toBe(1);
  });

  it('IDEM-007: a replay returns the same upscale; no second one', async () => {
    w = await world();
    const source = addAsset(w.state);
    const key = idem();
    const first = await postUpscale(w, { source: { assetId: source.assetId }, target: '2K' }, { idempotencyKey: key });
    const again = await postUpscale(w, { source: { assetId: source.assetId }, target: '2K' }, { idempotencyKey: key });
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.upscaleId).toBe(first.body.upscaleId);
    expect(w.state.upscales.size).toBe(1);
    expect(violations('createUpscale', again)).toEqual([]);
  });

  it('IDEM-001: Idempotency-Key is required', async () => {
    w = await world();
    const res = await w.h.request('POST', '/upscales', { key: w.write, body: { source: { assetId: 'x' }, target: '2K' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    expect(violations('createUpscale', res)).toEqual([]);
  });

  it('AUTH-011: a runs:read key cannot upscale', async () => {
    w = await world();
    const res = await postUpscale(w, { source: { assetId: addAsset(w.state).assetId }, target: '2K' }, { key: w.read });
    expect(res.status).toBe(403);
    expect(violations('createUpscale', res)).toEqual([]);
  });
});

describe('GET /upscales/{upscaleId}', () => {
  it('UPSC-010: 404 UPSCALE_NOT_FOUND for an unknown or another account\'s upscale', async () => {
    w = await world();
    const res = await postUpscale(w, { source: { assetId: addAsset(w.state).assetId }, target: '2K' });
    const other = await w.h.account();
    for (const [key, id] of [[w.read, 'ups_nope'], [other.key('runs:read'), res.body.upscaleId]] as const) {
      const got = await w.h.request('GET', `/upscales/${id}`, { key });
      expect(got.status).toBe(404);
      expect(got.body.code).toBe('UPSCALE_NOT_FOUND');
      expect(violations('getUpscale', got)).toEqual([]);
    }
  });

  it('AUTH-008: a read-only key is refused', async () => {
    w = await world();
    const res = await w.h.request('GET', '/upscales/ups_x', { key: w.acct.key('read') });
    expect(res.status).toBe(403);
    expect(violations('getUpscale', res)).toEqual([]);
  });
});
