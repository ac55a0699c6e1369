/**
 * Creative operations over HTTP through the node server, in-process (harness: mock.inject, manual clock). Every
 * response is checked against the document with `violations(operationId, res)` (in `s.call`).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestResponse } from '../../../../mock-core/src/testkit/harness.ts';
import { scene, strongETag, uniform, walk, type Scene } from '../../../../mock-core/src/testkit/campaigns.ts';
import { isReadable, type Creative } from '../../../../mock-core/src/domain/creatives/model.ts';

let s: Scene;
beforeEach(async () => {
  s = await scene();
});
afterEach(async () => {
  await s.h.close();
});

const read = () => s.a.key('read');
const write = () => s.a.key('creatives:write');
const review = () => s.a.key('creatives:review');
const state = (id: string): Creative => s.a.state.creatives.get(id)!;
const events = () => s.events().map((e) => ({ type: e.type, id: e.resource.id, ...(e.previousAttributes ? { previousAttributes: e.previousAttributes } : {}) }));
const keyId = (profile: string) => s.a.keys[profile]!.keyId;

const get = (id: string, query?: Record<string, string | boolean>, key = read()) => s.call('getCreative', 'GET', `/creatives/${id}`, { key, ...(query ? { query } : {}) });
const patch = (id: string, body: unknown, headers: Record<string, string> = {}, key = write()) => s.call('updateCreative', 'PATCH', `/creatives/${id}`, { key, body, headers });
const del = (id: string, headers: Record<string, string> = {}, key = write()) => s.call('deleteCreative', 'DELETE', `/creatives/${id}`, { key, headers });
const undelete = (id: string, headers: Record<string, string> = {}, key = write()) =>
  s.call('undeleteCreative', 'POST', `/creatives/${id}/undelete`, { key, headers: { 'idempotency-key': s.idem(), ...headers } });
const approve = (id: string, options: { body?: unknown; key?: string } = {}) =>
  s.call('approveCreative', 'POST', `/creatives/${id}/approve`, { key: options.key ?? review(), headers: { 'idempotency-key': s.idem() }, ...(options.body !== undefined ? { body: options.body } : {}) });
const reject = (id: string, body?: unknown, key = review()) =>
  s.call('rejectCreative', 'POST', `/creatives/${id}/reject`, { key, headers: { 'idempotency-key': s.idem() }, ...(body !== undefined ? { body } : {}) });

function expectStatus(res: TestResponse, status: number, code?: string): void {
  expect(res.status, res.text).toBe(status);
  if (code) expect(res.body.code).toBe(code);
}

async function oneCreative(options: Parameters<Scene['readyCampaign']>[0] = {}): Promise<{ id: string; campaignId: string }> {
  const { campaignId, creativeIds } = await s.readyCampaign({ products: 1, ...options });
  s.mark(); // events from here on (creating the campaign sent campaign.created)
  return { id: creativeIds[0]!, campaignId };
}

describe('getCreative', () => {
  it('CRTV-003 CRTV-006..011 ETAG-002: 200 with a strong ETag; campaign ratio shown; no deletedAt, no metadata', async () => {
    const { id, campaignId } = await oneCreative({ body: { aspectRatio: '4:5' } });
    const c = state(id);
    const product = s.a.state.products.get(c.productId)!;
    const res = await get(id);
    expectStatus(res, 200);
    strongETag(res);
    expect(res.body).toEqual({
      object: 'creative',
      creativeId: id,
      productId: c.productId,
      campaignId,
      brandId: c.brandId,
      sku: product.sku,
      mediaType: 'image',
      url: `http://localhost${c.url}/816x1020.png`, // D49: on the mock's origin, in the shown ratio
      thumbnailUrl: null,
      aspectRatio: '4:5',
      approvedAt: null,
      playerUrl: null,
      embedCode: null,
      status: 'PENDING',
    });
  });

  it('CRTV-006 a video creative carries thumbnailUrl, playerUrl and embedCode', async () => {
    const { id } = await oneCreative({ mediaType: 'video' });
    const res = await get(id);
    expectStatus(res, 200);
    expect(res.body.mediaType).toBe('video');
    for (const field of ['thumbnailUrl', 'playerUrl', 'embedCode']) expect(typeof res.body[field]).toBe('string');
  });

  it('MEDIA-003 D49 (#17 item 10) a video creative\'s media and embedCode follow the ratio it shows, also after a PATCH', async () => {
    const { id } = await oneCreative({ mediaType: 'video', body: { aspectRatio: '4:5' } });
    const frame = (embedCode: string) => /width="(\d+)" height="(\d+)"/.exec(embedCode)!.slice(1).join('x');
    const before = await get(id);
    expect(before.body.aspectRatio).toBe('4:5');
    expect(frame(before.body.embedCode)).toBe('512x640'); // 4:5, not 9:16
    expect(before.body.embedCode).toContain(`src="${before.body.playerUrl}"`);
    expect(before.body.url).toMatch(/\/816x1020\.webm$/);
    expect(before.body.thumbnailUrl).toMatch(/\/256x320\.png$/);
    expectStatus(await patch(id, { aspectRatio: '16:9' }), 200);
    const after = await get(id);
    expect(frame(after.body.embedCode)).toBe('640x360');
    expect(after.body.url).toMatch(/\/1024x576\.webm$/);
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('PAGE-001 PAGE-002 expand=product joins the Product object; the ETag does not depend on the view', async () => {
    const { id } = await oneCreative();
    const plain = await get(id);
    const res = await get(id, { expand: 'product' });
    expectStatus(res, 200);
    expect(res.body.product).toMatchObject({ object: 'product', productId: state(id).productId });
    expect(strongETag(res)).toBe(strongETag(plain));
  });

  it('CRTV-001 a NOT_GENERATED creative answers 404 CREATIVE_NOT_FOUND', async () => {
    const { creativeIds } = await s.createCampaign();
    expectStatus(await get(creativeIds[0]!), 404, 'CREATIVE_NOT_FOUND');
  });

  it('CRTV-005 3D and playable creatives answer 404', async () => {
    const { creativeIds } = await s.readyCampaign({ products: 2 });
    s.a.state.creatives.set(creativeIds[0]!, { ...state(creativeIds[0]!), mediaType: '3d' });
    s.a.state.creatives.set(creativeIds[1]!, { ...state(creativeIds[1]!), mediaType: 'playable' });
    expectStatus(await get(creativeIds[0]!), 404, 'CREATIVE_NOT_FOUND');
    expectStatus(await get(creativeIds[1]!), 404, 'CREATIVE_NOT_FOUND');
  });

  it('PAGE-010 PAGE-011 ETAG-002 a deleted creative: 404 without showDeleted, 200 with deletedAt and an ETag with it', async () => {
    const { id } = await oneCreative();
    expectStatus(await del(id), 200);
    expectStatus(await get(id), 404, 'CREATIVE_NOT_FOUND');
    const res = await get(id, { showDeleted: true });
    expectStatus(res, 200);
    expect(res.body.deletedAt).toBe(s.h.clock.nowIso());
    strongETag(res);
    const live = await oneCreative();
    const shown = await get(live.id, { showDeleted: true });
    expect(shown.body.deletedAt).toBeNull();
  });

  it('GEN-004 another account\'s creative answers the same 404 as an unknown id', async () => {
    const { id } = await oneCreative();
    const other = await s.h.account({ empty: true });
    const foreign = await get(id, undefined, other.key('read'));
    const unknown = await get('crv_does_not_exist', undefined, other.key('read'));
    expectStatus(foreign, 404, 'CREATIVE_NOT_FOUND');
    expect(uniform(foreign)).toEqual(uniform(unknown));
  });

  it('ERR-039 a bad query value answers 400 VALIDATION_ERROR; no key answers 401', async () => {
    const { id } = await oneCreative();
    expectStatus(await get(id, { expand: 'campaign' }), 400, 'VALIDATION_ERROR');
    expectStatus(await s.call('getCreative', 'GET', `/creatives/${id}`), 401, 'UNAUTHORIZED');
  });
});

describe('listCreatives', () => {
  it('CRTV-001 CRTV-005 PAGE-003 GEN-006 only readable creatives, in insertion order; no object on the envelope', async () => {
    const ready = await s.readyCampaign({ products: 3 });
    await s.createCampaign(); // NOT_GENERATED creatives: never listed
    s.a.state.creatives.set(ready.creativeIds[1]!, { ...state(ready.creativeIds[1]!), mediaType: 'playable' });
    const res = await s.call('listCreatives', 'GET', '/creatives', { key: read() });
    expectStatus(res, 200);
    expect(res.body.object).toBeUndefined();
    expect(res.body.data.map((c: { creativeId: string }) => c.creativeId)).toEqual([ready.creativeIds[0], ready.creativeIds[2]]);
    expect(res.body.pagination).toEqual({ nextCursor: null, hasMore: false, pageSize: 25 });
    expect(res.body.data.every((c: object) => !('deletedAt' in c))).toBe(true);
  });

  it('PAGE-009 PAGE-011 deleted creatives only with showDeleted, every row then carrying deletedAt', async () => {
    const { creativeIds } = await s.readyCampaign({ products: 3 });
    expectStatus(await del(creativeIds[1]!), 200);
    const live = await s.call('listCreatives', 'GET', '/creatives', { key: read() });
    expect(live.body.data.map((c: { creativeId: string }) => c.creativeId)).toEqual([creativeIds[0], creativeIds[2]]);
    const all = await s.call('listCreatives', 'GET', '/creatives', { key: read(), query: { showDeleted: true } });
    expect(all.body.data.map((c: { creativeId: string; deletedAt: string | null }) => [c.creativeId, c.deletedAt])).toEqual([
      [creativeIds[0], null],
      [creativeIds[1], s.h.clock.nowIso()],
      [creativeIds[2], null],
    ]);
  });

  it('PAGE-001 expand=product joins each row\'s product', async () => {
    await s.readyCampaign({ products: 2 });
    const res = await s.call('listCreatives', 'GET', '/creatives', { key: read(), query: { expand: 'product' } });
    expectStatus(res, 200);
    expect(res.body.data.every((c: { productId: string; product: { productId: string } }) => c.product.productId === c.productId)).toBe(true);
  });

  it('PAGE-005..008 a walk with limit follows nextCursor to null and sees every row once', async () => {
    const { creativeIds } = await s.readyCampaign({ products: 17 });
    const { rows, pages } = await walk(s, 'listCreatives', '/creatives', read(), { limit: 5 });
    expect(rows.map((c) => c.creativeId)).toEqual(creativeIds);
    expect(pages.map((p) => p.length)).toEqual([5, 5, 5, 2]);
  });

  it('PAGE-006 sparse and empty pages before the end: only nextCursor null ends the walk', async () => {
    const { creativeIds } = await s.readyCampaign({ products: 20 });
    s.a.state.settings.sparsePages = true;
    const { rows, pages } = await walk(s, 'listCreatives', '/creatives', read(), { limit: 6 });
    expect(rows.map((c) => c.creativeId)).toEqual(creativeIds);
    expect(pages.some((p) => p.length === 0)).toBe(true);
  });

  it('PAGE-013 a limit out of range answers 400; a cursor from another list answers 400', async () => {
    expectStatus(await s.call('listCreatives', 'GET', '/creatives', { key: read(), query: { limit: 0 } }), 400, 'VALIDATION_ERROR');
    await s.readyCampaign({ products: 3 });
    const first = await s.call('listCreatives', 'GET', '/creatives', { key: read(), query: { limit: 1 } });
    const cursor = first.body.pagination.nextCursor as string;
    expectStatus(await s.call('listCreatives', 'GET', '/creatives', { key: read(), query: { cursor, showDeleted: true } }), 400, 'VALIDATION_ERROR');
  });

  it('GEN-004 another account sees none of these creatives', async () => {
    await s.readyCampaign({ products: 2 });
    const other = await s.h.account({ empty: true });
    const res = await s.call('listCreatives', 'GET', '/creatives', { key: other.key('read'), query: { showDeleted: true } });
    expect(res.body.data).toEqual([]);
  });
});

describe('updateCreative', () => {
  it('CRTV-024 CRTV-025 CRTV-027 EVT-010 EVT-033 EVT-035 ratio and metadata: 200 as GET, new ETag, creative.updated by the api key, crop job', async () => {
    const { id } = await oneCreative();
    const before = strongETag(await get(id));
    const res = await patch(id, { aspectRatio: '9:16', metadata: { channel: 'social' } });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ aspectRatio: '9:16', metadata: { channel: 'social' }, status: 'PENDING' });
    expect('deletedAt' in res.body).toBe(false); // GEN-008: as a plain GET returns it
    const after = strongETag(res);
    expect(after).not.toBe(before);
    expect(strongETag(await get(id))).toBe(after);
    expect(state(id).cropJobs).toBe(1);
    const [event] = s.events();
    expect(event).toMatchObject({ type: 'creative.updated', resource: { kind: 'creative', id }, previousAttributes: { aspectRatio: null, metadata: {} }, actor: { kind: 'api_key', apiKeyId: keyId('creatives:write') } });
    expect(s.events()).toHaveLength(1);
  });

  it('EVT-031 EVT-033 previousAttributes: the own previous ratio and the whole previous map', async () => {
    const { id } = await oneCreative();
    expectStatus(await patch(id, { aspectRatio: '1:1', metadata: { a: '1', b: '2' } }), 200);
    expectStatus(await patch(id, { aspectRatio: null, metadata: { b: null } }), 200);
    expect(events()[1]).toEqual({ type: 'creative.updated', id, previousAttributes: { aspectRatio: '1:1', metadata: { a: '1', b: '2' } } });
    expect(state(id).cropJobs).toBe(0); // CRTV-025 (decided): 1:1 is the campaign's ratio, so the shown ratio never changed: nothing to crop
  });

  it('D33 META-008 removing the last key: metadata gone from the body, event sent with previousAttributes {}', async () => {
    const { id } = await oneCreative();
    expectStatus(await patch(id, { metadata: { a: '1' } }), 200);
    const res = await patch(id, { metadata: { a: null } });
    expectStatus(res, 200);
    expect('metadata' in res.body).toBe(false);
    expect(events()[1]).toEqual({ type: 'creative.updated', id, previousAttributes: {} });
  });

  it('CRTV-026 EVT-020 a change that alters nothing: 200, same ETag, no event', async () => {
    const { id } = await oneCreative();
    expectStatus(await patch(id, { metadata: { a: '1' } }), 200);
    const etag = strongETag(await get(id));
    const res = await patch(id, { metadata: { a: '1', gone: null } });
    expectStatus(res, 200);
    expect(strongETag(res)).toBe(etag);
    expect(s.events()).toHaveLength(1);
  });

  it('CRTV-028 ERR-024 META-007 CRTV-012 422 VALIDATION_ERROR: unknown field, ratio outside the delivery ratios, 51 keys, key too long', async () => {
    const { id } = await oneCreative();
    const cases: [unknown, string][] = [
      [{ status: 'APPROVED' }, 'status'],
      [{ aspectRatio: '5:7' }, 'aspectRatio'],
      [{ metadata: { ['k'.repeat(41)]: 'v' } }, `metadata.${'k'.repeat(41)}`],
    ];
    for (const [body, field] of cases) {
      const res = await patch(id, body);
      expectStatus(res, 422, 'VALIDATION_ERROR');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expectStatus(await patch(id, { metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'])) }), 200);
    const over = await patch(id, { metadata: { one: 'more' } });
    expectStatus(over, 422, 'VALIDATION_ERROR');
    expect(over.body.errors).toEqual([{ field: 'metadata', message: expect.any(String) }]);
    expect(s.events()).toHaveLength(1);
  });

  it('ETAG-004 ETAG-005 If-Match: current, * and a list match; a stale value answers 412 and changes nothing', async () => {
    const { id } = await oneCreative();
    const etag = strongETag(await get(id));
    const ok = await patch(id, { metadata: { a: '1' } }, { 'if-match': etag });
    expectStatus(ok, 200);
    const stale = await patch(id, { metadata: { a: '2' } }, { 'if-match': etag });
    expectStatus(stale, 412, 'PRECONDITION_FAILED');
    expect(state(id).metadata).toEqual({ a: '1' });
    expect(s.events()).toHaveLength(1);
    expectStatus(await patch(id, { metadata: { a: '3' } }, { 'if-match': '*' }), 200);
    const current = strongETag(await get(id));
    expectStatus(await patch(id, { metadata: { a: '4' } }, { 'if-match': `"nope", ${current}` }), 200);
    expectStatus(await patch(id, { metadata: { a: '5' } }, { 'if-match': `W/${strongETag(await get(id))}` }), 412, 'PRECONDITION_FAILED');
  });

  it('ERR-020 a deleted or NOT_GENERATED creative answers 404 (before If-Match: 404, not 412)', async () => {
    const { id } = await oneCreative();
    expectStatus(await del(id), 200);
    expectStatus(await patch(id, { metadata: { a: '1' } }), 404, 'CREATIVE_NOT_FOUND');
    expectStatus(await patch(id, { metadata: { a: '1' } }, { 'if-match': '"stale"' }), 404, 'CREATIVE_NOT_FOUND');
    const { creativeIds } = await s.createCampaign();
    expectStatus(await patch(creativeIds[0]!, { metadata: { a: '1' } }), 404, 'CREATIVE_NOT_FOUND');
  });

  it('GEN-004 ERR-014 another account\'s creative: the uniform 404; a read key: 403; no key: 401 ENTITLEMENT_LOST', async () => {
    const { id } = await oneCreative();
    const other = await s.h.account({ empty: true });
    const foreign = await patch(id, { metadata: { a: '1' } }, {}, other.key('creatives:write'));
    expectStatus(foreign, 404, 'CREATIVE_NOT_FOUND');
    expect(uniform(foreign)).toEqual(uniform(await patch('crv_unknown', { metadata: { a: '1' } }, {}, other.key('creatives:write'))));
    expectStatus(await patch(id, { metadata: { a: '1' } }, {}, read()), 403, 'API_TOKEN_SCOPE_DENIED');
    expectStatus(await s.call('updateCreative', 'PATCH', `/creatives/${id}`, { body: { metadata: { a: '1' } } }), 401, 'ENTITLEMENT_LOST');
    expect(s.events()).toEqual([]);
  });
});

describe('deleteCreative', () => {
  it('CRTV-018 CRTV-029 EVT-011 200 with deletedAt set and an ETag; creative.deleted', async () => {
    const { id } = await oneCreative();
    const res = await del(id);
    expectStatus(res, 200);
    expect(res.body.deletedAt).toBe(s.h.clock.nowIso());
    expect(strongETag(res)).toBe(strongETag(await get(id, { showDeleted: true })));
    expect(events()).toEqual([{ type: 'creative.deleted', id }]);
  });

  it('CRTV-020 ERR-009 ERR-027 a QUEUED creative: 409 CREATIVE_NOT_DELETABLE with currentStatus; after generation the same delete succeeds', async () => {
    const { id } = await oneCreative();
    s.dashboard('regenerateCreative', { creativeId: id });
    const res = await del(id);
    expectStatus(res, 409, 'CREATIVE_NOT_DELETABLE');
    expect(res.body.currentStatus).toBe('QUEUED');
    s.dashboard('startGeneration', { creativeId: id });
    expect((await del(id)).body.currentStatus).toBe('GENERATING');
    expect(state(id).deletedAt).toBeNull();
    s.dashboard('finishGeneration', { creativeId: id });
    expectStatus(await del(id), 200);
  });

  it('D32 ERR-020 deleting a deleted creative answers 404', async () => {
    const { id } = await oneCreative();
    expectStatus(await del(id), 200);
    expectStatus(await del(id), 404, 'CREATIVE_NOT_FOUND');
    expect(s.events()).toHaveLength(1);
  });

  it('ETAG-005 a stale If-Match answers 412 and the creative stays live', async () => {
    const { id } = await oneCreative();
    const etag = strongETag(await get(id));
    expectStatus(await patch(id, { metadata: { a: '1' } }), 200);
    expectStatus(await del(id, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    expect(state(id).deletedAt).toBeNull();
    expectStatus(await del(id, { 'if-match': strongETag(await get(id)) }), 200);
  });

  it('IDEM-003 IDEM-006 an optional Idempotency-Key replays the first answer', async () => {
    const { id } = await oneCreative();
    const key = s.idem();
    const first = await del(id, { 'idempotency-key': key });
    const again = await del(id, { 'idempotency-key': key });
    expectStatus(again, 200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(s.events()).toHaveLength(1);
  });
});

describe('undeleteCreative', () => {
  it('CRTV-021 EVT-012 a deleted creative: 200 live with an ETag, creative.restored', async () => {
    const { id } = await oneCreative();
    expectStatus(await del(id), 200);
    const res = await undelete(id);
    expectStatus(res, 200);
    expect(res.body.deletedAt).toBeNull();
    expect(strongETag(res)).toBe(strongETag(await get(id)));
    expect(events()).toEqual([
      { type: 'creative.deleted', id },
      { type: 'creative.restored', id },
    ]);
  });

  it('CRTV-023 a live creative: no-op 200, no event', async () => {
    const { id } = await oneCreative();
    const res = await undelete(id);
    expectStatus(res, 200);
    strongETag(res);
    expect(s.events()).toEqual([]);
  });

  it('CRTV-022 deleted with its campaign, campaign still deleted: 409 CREATIVE_CAMPAIGN_DELETED; after the campaign is restored it is live again', async () => {
    const { id, campaignId } = await oneCreative();
    const campaigns = s.a.key('campaigns:write');
    expectStatus(await s.call('deleteCampaign', 'DELETE', `/campaigns/${campaignId}`, { key: campaigns }), 200);
    const res = await undelete(id);
    expectStatus(res, 409, 'CREATIVE_CAMPAIGN_DELETED');
    expect(state(id).deletedAt).not.toBeNull();
    expectStatus(await s.call('undeleteCampaign', 'POST', `/campaigns/${campaignId}/undelete`, { key: campaigns, headers: { 'idempotency-key': s.idem() } }), 200);
    expect(state(id).deletedAt).toBeNull();
  });

  it('ETAG-004 ETAG-005 If-Match on undelete: stale → 412 and still deleted; current → 200', async () => {
    const { id } = await oneCreative();
    const live = strongETag(await get(id));
    const deleted = strongETag(await del(id));
    expectStatus(await undelete(id, { 'if-match': live }), 412, 'PRECONDITION_FAILED');
    expect(state(id).deletedAt).not.toBeNull();
    expectStatus(await undelete(id, { 'if-match': deleted }), 200);
  });

  it('IDEM-005 ERR-020 a missing Idempotency-Key: 400; an unknown or NOT_GENERATED creative: 404', async () => {
    const { id } = await oneCreative();
    expectStatus(await s.call('undeleteCreative', 'POST', `/creatives/${id}/undelete`, { key: write() }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    expectStatus(await undelete('crv_unknown'), 404, 'CREATIVE_NOT_FOUND');
    const { creativeIds } = await s.createCampaign();
    expectStatus(await undelete(creativeIds[0]!), 404, 'CREATIVE_NOT_FOUND');
  });
});

describe('approveCreative and rejectCreative', () => {
  it('CRTV-014 EVT-009 EVT-035 approve: 200 APPROVED with approvedAt and an ETag; creative.approved by the review key', async () => {
    const { id } = await oneCreative();
    const res = await approve(id);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ status: 'APPROVED', approvedAt: s.h.clock.nowIso() });
    expect(strongETag(res)).toBe(strongETag(await get(id)));
    expect(s.events().map((e) => [e.type, e.actor])).toEqual([['creative.approved', { kind: 'api_key', apiKeyId: keyId('creatives:review') }]]);
    expect(s.events()[0]!.previousAttributes).toBeUndefined(); // EVT-026
  });

  it('CRTV-016 a repeat approve: no-op 200, no event; CRTV-017 reject after approve: 409 CREATIVE_NOT_PENDING with currentStatus', async () => {
    const { id } = await oneCreative();
    expectStatus(await approve(id, { body: {} }), 200);
    s.h.advance(60);
    const again = await approve(id);
    expectStatus(again, 200);
    expect(again.body.approvedAt).not.toBe(s.h.clock.nowIso());
    const conflict = await reject(id, { rejectionReason: 'too late' });
    expectStatus(conflict, 409, 'CREATIVE_NOT_PENDING');
    expect(conflict.body.currentStatus).toBe('APPROVED');
    expect(events()).toEqual([{ type: 'creative.approved', id }]);
  });

  it('CRTV-015 CRTV-016 CRTV-017 reject with a reason; repeat no-op; approve after reject: 409', async () => {
    const { id } = await oneCreative();
    const res = await reject(id, { rejectionReason: 'Logo cropped' });
    expectStatus(res, 200);
    expect(res.body.status).toBe('REJECTED');
    strongETag(res);
    expectStatus(await reject(id), 200);
    const conflict = await approve(id);
    expectStatus(conflict, 409, 'CREATIVE_NOT_PENDING');
    expect(conflict.body.currentStatus).toBe('REJECTED');
    expect(events()).toEqual([{ type: 'creative.rejected', id }]);
  });

  it('D32 a QUEUED creative: approve answers 409 CREATIVE_NOT_PENDING with currentStatus QUEUED', async () => {
    const { id } = await oneCreative();
    s.dashboard('regenerateCreative', { creativeId: id });
    const res = await approve(id);
    expectStatus(res, 409, 'CREATIVE_NOT_PENDING');
    expect(res.body.currentStatus).toBe('QUEUED');
  });

  it('CRTV-030 ERR-040 a rejectionReason outside 1-500 characters, or a field sent to approve: 422, one entry per field', async () => {
    const { id } = await oneCreative();
    expectStatus(await reject(id, { rejectionReason: '' }), 422, 'VALIDATION_ERROR');
    expectStatus(await reject(id, { rejectionReason: 'x'.repeat(501) }), 422, 'VALIDATION_ERROR');
    const refused = await approve(id, { body: { note: 'x' } });
    expectStatus(refused, 422, 'VALIDATION_ERROR');
    expect(refused.body.errors).toEqual([{ field: 'note', message: expect.any(String) }]);
    expect(state(id).status).toBe('PENDING');
  });

  it('AUTH-015 creatives:write cannot review (403); ERR-020 a deleted creative answers 404; IDEM-005 a key is required', async () => {
    const { id } = await oneCreative();
    expectStatus(await approve(id, { key: write() }), 403, 'API_TOKEN_SCOPE_DENIED');
    expectStatus(await reject(id, undefined, write()), 403, 'API_TOKEN_SCOPE_DENIED');
    expectStatus(await s.call('approveCreative', 'POST', `/creatives/${id}/approve`, { key: review() }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    expectStatus(await del(id), 200);
    expectStatus(await approve(id), 404, 'CREATIVE_NOT_FOUND');
    expectStatus(await reject(id), 404, 'CREATIVE_NOT_FOUND');
  });

  it('EVT-019 EVT-036 the same events whoever acts: a dashboard removal sends creative.deleted by a user', async () => {
    const { id, campaignId } = await oneCreative();
    s.dashboard('removeProductFromCampaign', { campaignId, productId: state(id).productId });
    expect(s.events().map((e) => [e.type, e.resource.id, e.actor])).toEqual([['creative.deleted', id, { kind: 'user' }]]);
    expectStatus(await get(id), 404, 'CREATIVE_NOT_FOUND');
  });
});

describe('the demo account', () => {
  it('GEN-005 CRTV-005 every seeded readable creative conforms, in lists and by id; unreadable ones never show', async () => {
    const seeded = await scene({ seeded: true });
    try {
      const key = seeded.a.key('read');
      const { rows } = await walk(seeded, 'listCreatives', '/creatives', key, { showDeleted: true, expand: 'product', limit: 20 });
      const readable = [...seeded.a.state.creatives.values()].filter((c) => isReadable(c));
      expect(rows.map((c) => c.creativeId)).toEqual(readable.map((c) => c.creativeId));
      for (const row of rows) {
        const res = await seeded.call('getCreative', 'GET', `/creatives/${row.creativeId}`, { key, query: { showDeleted: true, expand: 'product' } });
        expect(res.body).toEqual(row);
        strongETag(res);
      }
      const hidden = [...seeded.a.state.creatives.values()].filter((c) => !isReadable(c));
      for (const c of hidden) expectStatus(await seeded.call('getCreative', 'GET', `/creatives/${c.creativeId}`, { key, query: { showDeleted: true } }), 404, 'CREATIVE_NOT_FOUND');
    } finally {
      await seeded.h.close();
    }
  });
});
