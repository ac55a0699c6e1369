/**
 * Campaign operations over HTTP through the node server, in-process (harness: mock.inject, manual clock). Every
 * response is checked against the document with `violations(operationId, res)` (in `s.call`).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestResponse } from '../../../../mock-core/src/testkit/harness.ts';
import type { Creative } from '../../../../mock-core/src/domain/creatives/model.ts';
import { scene, strongETag, uniform, walk, type Scene } from '../../../../mock-core/src/testkit/campaigns.ts';

let s: Scene;
beforeEach(async () => {
  s = await scene();
});
afterEach(async () => {
  await s.h.close();
});

const read = () => s.a.key('read');
const write = () => s.a.key('campaigns:write');
const creative = (id: string): Creative => s.a.state.creatives.get(id)!;
const events = () => s.events().map((e) => ({ type: e.type, id: e.resource.id, ...(e.previousAttributes ? { previousAttributes: e.previousAttributes } : {}) }));

const get = (id: string, query?: Record<string, string | boolean>, key = read()) => s.call('getCampaign', 'GET', `/campaigns/${id}`, { key, ...(query ? { query } : {}) });
const list = (query: Record<string, string | number | boolean> = {}, key = read()) => s.call('listCampaigns', 'GET', '/campaigns', { key, query });
const post = (body: unknown, headers: Record<string, string> = {}, key = write()) =>
  s.call('createCampaign', 'POST', '/campaigns', { key, body, headers: { 'idempotency-key': s.idem(), ...headers } });
const patch = (id: string, body: unknown, headers: Record<string, string> = {}, key = write()) => s.call('updateCampaign', 'PATCH', `/campaigns/${id}`, { key, body, headers });
const del = (id: string, headers: Record<string, string> = {}, key = write()) => s.call('deleteCampaign', 'DELETE', `/campaigns/${id}`, { key, headers });
const undelete = (id: string, headers: Record<string, string> = {}, key = write()) =>
  s.call('undeleteCampaign', 'POST', `/campaigns/${id}/undelete`, { key, headers: { 'idempotency-key': s.idem(), ...headers } });
const approve = (creativeId: string) =>
  s.call('approveCreative', 'POST', `/creatives/${creativeId}/approve`, { key: s.a.key('creatives:review'), headers: { 'idempotency-key': s.idem() } });

function expectStatus(res: TestResponse, status: number, code?: string): void {
  expect(res.status, res.text).toBe(status);
  if (code) expect(res.body.code).toBe(code);
}

function body(productCount = 2, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const ps = s.products(productCount);
  return { name: 'Spring launch', brandId: ps[0]!.brandId, productIds: ps.map((p) => p.productId), ...extra };
}

describe('createCampaign', () => {
  it('CAMP-001 CAMP-019 CAMP-022 ETAG-003 EVT-015 EVT-018 EVT-035: 201 with Location and ETag; NOT_GENERATED creatives; campaign.created only', async () => {
    const ps = s.products(3);
    const res = await post({ name: 'Spring launch', brandId: ps[0]!.brandId, productIds: ps.map((p) => p.productId), aspectRatio: '4:5', metadata: { team: 'growth' } });
    expectStatus(res, 201);
    const id = res.body.campaignId as string;
    expect(res.headers.location).toBe(`/api/public/v1/campaigns/${id}`);
    expect(res.body).toEqual({
      object: 'campaign',
      campaignId: id,
      name: 'Spring launch',
      status: 'IN_PROGRESS',
      brandId: ps[0]!.brandId,
      creativeCount: 3,
      createdAt: s.h.clock.nowIso(),
      deletedAt: null,
      metadata: { team: 'growth' },
    });
    expect(strongETag(res)).toBe(strongETag(await get(id)));
    const creatives = s.a.state.campaigns.get(id)!.creativeIds.map(creative);
    expect(creatives.map((c) => [c.productId, c.status, c.brandId])).toEqual(ps.map((p) => [p.productId, 'NOT_GENERATED', p.brandId]));
    expect(s.events().map((e) => [e.type, e.resource, e.actor])).toEqual([['campaign.created', { kind: 'campaign', id }, { kind: 'api_key', apiKeyId: s.a.keys['campaigns:write']!.keyId }]]);
    const listed = await s.call('listCreatives', 'GET', '/creatives', { key: read() });
    expect(listed.body.data).toEqual([]); // CRTV-001
  });

  it('CAMP-031 D71 an empty metadata map is accepted as on PATCH: 201, the campaign carries no metadata', async () => {
    const res = await post(body(2, { metadata: {} }));
    expectStatus(res, 201);
    expect('metadata' in res.body).toBe(false);
    expect(s.a.state.campaigns.get(res.body.campaignId)!.metadata).toEqual({});
  });

  it('IDEM-006 IDEM-007 a retry under the same key replays the 201 and creates nothing; another body under it is 409', async () => {
    const key = s.idem();
    const first = await post(body(), { 'idempotency-key': key });
    const again = await post(body(), { 'idempotency-key': key });
    expectStatus(again, 201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.location).toBe(first.headers.location);
    expect(s.a.state.campaigns.size).toBe(1);
    expectStatus(await post(body(3), { 'idempotency-key': key }), 409, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('CAMP-026 D31 a plan without campaigns: 403 TIER_REQUIRED', async () => {
    s.a.state.plan.campaigns = false;
    expectStatus(await post(body()), 403, 'TIER_REQUIRED');
    expect(s.a.state.campaigns.size).toBe(0);
  });

  it('CAMP-024 ERR-011 ERR-018 at the campaign limit: 403 LIMIT_EXCEEDED campaigns (deleted ones do not count)', async () => {
    s.a.state.plan.campaignLimit = 1;
    const first = await post(body());
    expectStatus(first, 201);
    const res = await post(body());
    expectStatus(res, 403, 'LIMIT_EXCEEDED');
    expect(res.body).toMatchObject({ limitKey: 'campaigns', limit: 1, current: 1 });
    expectStatus(await del(first.body.campaignId), 200);
    expectStatus(await post(body()), 201);
  });

  it('CAMP-025 ERR-011 more products than the plan allows: 403 LIMIT_EXCEEDED productsPerCampaign', async () => {
    s.a.state.plan.productsPerCampaign = 2;
    const res = await post(body(3));
    expectStatus(res, 403, 'LIMIT_EXCEEDED');
    expect(res.body).toMatchObject({ limitKey: 'productsPerCampaign', limit: 2, current: 3 });
  });

  it('D16 GEN-004 an unknown product (or another account\'s): 404 PRODUCT_NOT_FOUND naming productIds[i]', async () => {
    const other = await s.h.account();
    const foreign = [...other.state.products.values()][0]!.productId;
    const b = body(2);
    const res = await post({ ...b, productIds: [...(b.productIds as string[]), 'prd_unknown', foreign] });
    expectStatus(res, 404, 'PRODUCT_NOT_FOUND');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['productIds[2]', 'productIds[3]']);
    expect(s.a.state.campaigns.size).toBe(0);
  });

  it('CAMP-028 D16 ERR-040 422 VALIDATION_ERROR: unknown brand, a product of another brand, an unknown field, an empty name', async () => {
    const other = s.products(1, 1)[0]!.productId;
    const cases: [Record<string, unknown>, string][] = [
      [body(1, { brandId: 'brd_unknown' }), 'brandId'],
      [{ ...body(1), productIds: [...(body(1).productIds as string[]), other] }, 'productIds[1]'],
      [body(1, { budget: 5 }), 'budget'],
      [body(1, { name: '' }), 'name'],
      [body(1, { aspectRatio: '7:5' }), 'aspectRatio'],
    ];
    for (const [b, field] of cases) {
      const res = await post(b);
      expectStatus(res, 422, 'VALIDATION_ERROR');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect(s.a.state.campaigns.size).toBe(0);
  });

  it('ERR-032 ERR-025 ERR-026 a lost race: 503 SERVICE_UNAVAILABLE with Retry-After, nothing changed; the same request then succeeds once', async () => {
    s.a.state.faults.lostRaces = 1;
    const key = s.idem();
    const lost = await post(body(), { 'idempotency-key': key });
    expectStatus(lost, 503, 'SERVICE_UNAVAILABLE');
    expect(lost.headers['retry-after']).toBe('1');
    expect(s.a.state.campaigns.size).toBe(0);
    expect(s.a.state.faults.lostRaces).toBe(0);
    expectStatus(await post(body(), { 'idempotency-key': key }), 201);
    expect(s.a.state.campaigns.size).toBe(1);
  });

  it('IDEM-005 AUTH-017 a missing key: 400; a key without campaigns:write: 403', async () => {
    expectStatus(await s.call('createCampaign', 'POST', '/campaigns', { key: write(), body: body() }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    expectStatus(await post(body(), {}, s.a.key('creatives:write')), 403, 'API_TOKEN_SCOPE_DENIED');
  });
});

describe('getCampaign and listCampaigns', () => {
  it('CAMP-004 D8 ETAG-001 status CREATING while being created, then IN_PROGRESS: the ETag changes without an edit', async () => {
    s.a.state.faults.creationSeconds = 30;
    const { campaignId } = await s.createCampaign();
    const creating = await get(campaignId);
    expectStatus(creating, 200);
    expect(creating.body.status).toBe('CREATING');
    s.h.advance(30);
    const ready = await get(campaignId);
    expect(ready.body.status).toBe('IN_PROGRESS');
    expect(strongETag(ready)).not.toBe(strongETag(creating));
  });

  it('ETAG-001 ERR-034 deleting a creative changes creativeCount and the ETag; a PATCH with the old ETag answers 412', async () => {
    const { campaignId, creativeIds } = await s.readyCampaign({ products: 2 });
    const before = await get(campaignId);
    expect(before.body.creativeCount).toBe(2);
    expectStatus(await s.call('deleteCreative', 'DELETE', `/creatives/${creativeIds[0]}`, { key: s.a.key('creatives:write') }), 200);
    const after = await get(campaignId);
    expect(after.body.creativeCount).toBe(1);
    expect(strongETag(after)).not.toBe(strongETag(before));
    expectStatus(await patch(campaignId, { name: 'x' }, { 'if-match': strongETag(before) }), 412, 'PRECONDITION_FAILED');
    expect(s.a.state.campaigns.get(campaignId)!.name).toBe('Spring launch');
  });

  it('CAMP-004 ETAG-001 reviewing every creative makes it COMPLETED and changes the ETag', async () => {
    const { campaignId, creativeIds } = await s.readyCampaign({ products: 2 });
    const before = strongETag(await get(campaignId));
    for (const id of creativeIds) expectStatus(await approve(id), 200);
    const after = await get(campaignId);
    expect(after.body.status).toBe('COMPLETED');
    expect(strongETag(after)).not.toBe(before);
  });

  it('PAGE-010 a deleted campaign: 404 without showDeleted, 200 with deletedAt set; GEN-004 another account gets the uniform 404', async () => {
    const { campaignId } = await s.readyCampaign({ products: 2 });
    expectStatus(await del(campaignId), 200);
    expectStatus(await get(campaignId), 404, 'CAMPAIGN_NOT_FOUND');
    const res = await get(campaignId, { showDeleted: true });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ deletedAt: s.h.clock.nowIso(), creativeCount: 2 });
    strongETag(res);
    const other = await s.h.account({ empty: true });
    const foreign = await get(campaignId, { showDeleted: true }, other.key('read'));
    expectStatus(foreign, 404, 'CAMPAIGN_NOT_FOUND');
    expect(uniform(foreign)).toEqual(uniform(await get('cmp_unknown', { showDeleted: true }, other.key('read'))));
  });

  it('CAMP-020 PAGE-009 newest first, deleted ones only with showDeleted', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await s.createCampaign({ name: `C${i}` })).campaignId);
      s.h.advance(1);
    }
    expectStatus(await del(ids[1]!), 200);
    const live = await list();
    expect(live.body.data.map((c: { campaignId: string }) => c.campaignId)).toEqual([ids[2], ids[0]]);
    const all = await list({ showDeleted: true });
    expect(all.body.data.map((c: { campaignId: string }) => c.campaignId)).toEqual([ids[2], ids[1], ids[0]]);
    expect(all.body.data[1].deletedAt).not.toBeNull();
  });

  it('CAMP-021 status filters by exact match', async () => {
    const inProgress = await s.readyCampaign({ products: 1 });
    const completed = await s.readyCampaign({ products: 1 });
    expectStatus(await approve(completed.creativeIds[0]!), 200);
    s.a.state.faults.creationSeconds = 60;
    const creating = await s.createCampaign();
    const ids = async (status: string) => (await list({ status })).body.data.map((c: { campaignId: string }) => c.campaignId);
    expect(await ids('IN_PROGRESS')).toEqual([inProgress.campaignId]);
    expect(await ids('COMPLETED')).toEqual([completed.campaignId]);
    expect(await ids('CREATING')).toEqual([creating.campaignId]);
    expect(await ids('in_progress')).toEqual([]);
  });

  it('PAGE-005..008 PAGE-006 walks follow nextCursor to null, also with sparse pages; GEN-004 another account sees none', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await s.createCampaign({ name: `C${i}` })).campaignId);
    const dense = await walk(s, 'listCampaigns', '/campaigns', read(), { limit: 5 });
    expect(dense.rows.map((c) => c.campaignId)).toEqual([...ids].reverse());
    s.a.state.settings.sparsePages = true;
    const sparse = await walk(s, 'listCampaigns', '/campaigns', read(), { limit: 3 });
    expect(sparse.rows.map((c) => c.campaignId)).toEqual([...ids].reverse());
    expect(sparse.pages.some((p) => p.length === 0)).toBe(true);
    const other = await s.h.account({ empty: true });
    expect((await list({ showDeleted: true }, other.key('read'))).body.data).toEqual([]);
    expectStatus(await list({ limit: 101 }), 400, 'VALIDATION_ERROR');
  });
});

describe('updateCampaign', () => {
  it('CAMP-018 CAMP-023 EVT-015 EVT-030 EVT-031 rename and metadata: 200 with a new ETag; campaign.updated with previousAttributes', async () => {
    const { campaignId } = await s.createCampaign({ metadata: { a: '1' } });
    s.mark();
    const before = strongETag(await get(campaignId));
    const res = await patch(campaignId, { name: 'Summer', metadata: { b: '2' } }, { 'if-match': before });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ name: 'Summer', metadata: { a: '1', b: '2' } });
    expect(strongETag(res)).not.toBe(before);
    expect(strongETag(res)).toBe(strongETag(await get(campaignId)));
    expect(events()).toEqual([{ type: 'campaign.updated', id: campaignId, previousAttributes: { name: 'Spring launch', metadata: { a: '1' } } }]);
    expect(s.events()[0]!.actor).toEqual({ kind: 'api_key', apiKeyId: s.a.keys['campaigns:write']!.keyId });
  });

  it('D33 META-008 removing the last key: metadata gone, campaign.updated with previousAttributes {}', async () => {
    const { campaignId } = await s.createCampaign({ metadata: { a: '1' } });
    s.mark();
    const res = await patch(campaignId, { metadata: { a: null } });
    expectStatus(res, 200);
    expect('metadata' in res.body).toBe(false);
    expect(events()).toEqual([{ type: 'campaign.updated', id: campaignId, previousAttributes: {} }]);
  });

  it('CAMP-027 EVT-020 a PATCH that changes nothing: 200, same ETag, no event', async () => {
    const { campaignId } = await s.createCampaign();
    s.mark();
    const etag = strongETag(await get(campaignId));
    const res = await patch(campaignId, { name: 'Spring launch', metadata: { gone: null } });
    expectStatus(res, 200);
    expect(strongETag(res)).toBe(etag);
    expect(s.events()).toEqual([]);
  });

  it('ETAG-005 stale If-Match: 412, unchanged; * matches; D32 a deleted campaign: 404; ERR-040 unknown field: 422', async () => {
    const { campaignId } = await s.createCampaign();
    const etag = strongETag(await get(campaignId));
    expectStatus(await patch(campaignId, { name: 'One' }), 200);
    expectStatus(await patch(campaignId, { name: 'Two' }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    expect(s.a.state.campaigns.get(campaignId)!.name).toBe('One');
    expectStatus(await patch(campaignId, { status: 'COMPLETED' }), 422, 'VALIDATION_ERROR');
    expectStatus(await patch(campaignId, { name: 'Three' }, { 'if-match': '*' }), 200);
    expectStatus(await del(campaignId), 200);
    expectStatus(await patch(campaignId, { name: 'Four' }), 404, 'CAMPAIGN_NOT_FOUND');
    expectStatus(await patch(campaignId, { name: 'Four' }, { 'if-match': '*' }), 404, 'CAMPAIGN_NOT_FOUND');
  });

  it('D31 AUTH-023 ERR-014 a plan without campaigns: 401 ENTITLEMENT_LOST; GEN-004 another account\'s campaign: 404', async () => {
    const { campaignId } = await s.createCampaign();
    const other = await s.h.account({ empty: true });
    expectStatus(await patch(campaignId, { name: 'x' }, {}, other.key('campaigns:write')), 404, 'CAMPAIGN_NOT_FOUND');
    s.a.state.plan.campaigns = false;
    expectStatus(await patch(campaignId, { name: 'x' }), 401, 'ENTITLEMENT_LOST');
  });
});

describe('deleteCampaign', () => {
  it('CAMP-005 CAMP-006 CAMP-013 EVT-011 EVT-016 EVT-017 cascade: every live creative deleted with it, events for readable ones, then campaign.deleted', async () => {
    const { campaignId, creativeIds } = await s.readyCampaign({ products: 3 });
    const [own, readable] = creativeIds as [string, string, string];
    const extra = await s.createCampaign(); // a second campaign stays untouched
    expectStatus(await s.call('deleteCreative', 'DELETE', `/creatives/${own}`, { key: s.a.key('creatives:write') }), 200);
    s.a.state.creatives.set(creativeIds[2]!, { ...creative(creativeIds[2]!), status: 'NOT_GENERATED', url: null }); // unreadable: sends nothing
    s.h.advance(5);
    s.mark();
    const res = await del(campaignId);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ deletedAt: s.h.clock.nowIso(), creativeCount: 2 });
    expect(strongETag(res)).toBe(strongETag(await get(campaignId, { showDeleted: true })));
    expect(creative(own)).toMatchObject({ deletedWithCampaign: false });
    expect(creative(readable)).toMatchObject({ deletedAt: s.h.clock.now(), deletedWithCampaign: true });
    expect(creative(creativeIds[2]!)).toMatchObject({ deletedWithCampaign: true });
    expect(events()).toEqual([
      { type: 'creative.deleted', id: readable },
      { type: 'campaign.deleted', id: campaignId },
    ]);
    expect(s.a.state.campaigns.get(extra.campaignId)!.deletedAt).toBeNull();
  });

  it('CAMP-009 ERR-010 ERR-027 a creative QUEUED or GENERATING: 409 CAMPAIGN_NOT_DELETABLE with generatingCount; after generation the delete succeeds', async () => {
    const { campaignId, creativeIds } = await s.readyCampaign({ products: 3, until: 'QUEUED', productIds: s.products(2).map((p) => p.productId) });
    s.dashboard('startGeneration', { creativeId: creativeIds[1]! });
    const res = await del(campaignId);
    expectStatus(res, 409, 'CAMPAIGN_NOT_DELETABLE');
    expect(res.body.generatingCount).toBe(2);
    expect(s.a.state.campaigns.get(campaignId)!.deletedAt).toBeNull();
    for (const id of creativeIds.slice(0, 2)) s.dashboard('finishGeneration', { creativeId: id });
    expectStatus(await del(campaignId), 200);
  });

  it('CAMP-010 ERR-010 still being created: 409 CAMPAIGN_NOT_DELETABLE reason still_being_created; afterwards it deletes', async () => {
    s.a.state.faults.creationSeconds = 20;
    const { campaignId } = await s.createCampaign();
    const res = await del(campaignId);
    expectStatus(res, 409, 'CAMPAIGN_NOT_DELETABLE');
    expect(res.body.reason).toBe('still_being_created');
    s.h.advance(20);
    expectStatus(await del(campaignId), 200);
  });

  it('CAMP-017 ERR-028 while a restore is still finishing: 409 CAMPAIGN_CASCADE_PENDING with Retry-After; the same request then succeeds', async () => {
    s.a.state.faults.cascadeSeconds = 10;
    const { campaignId } = await s.readyCampaign({ products: 1 });
    expectStatus(await del(campaignId), 200);
    s.h.advance(10);
    expectStatus(await undelete(campaignId), 200);
    const key = s.idem();
    const pending = await del(campaignId, { 'idempotency-key': key });
    expectStatus(pending, 409, 'CAMPAIGN_CASCADE_PENDING');
    expect(pending.headers['retry-after']).toBe('10');
    s.h.advance(10);
    expectStatus(await del(campaignId, { 'idempotency-key': key }), 200); // D37: the key stayed free
  });

  it('D32 a deleted campaign: 404; ETAG-005 a stale If-Match: 412 and nothing deleted', async () => {
    const { campaignId, creativeIds } = await s.readyCampaign({ products: 1 });
    const etag = strongETag(await get(campaignId));
    expectStatus(await approve(creativeIds[0]!), 200); // status → COMPLETED: the ETag moves (ERR-034)
    expectStatus(await del(campaignId, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    expect(creative(creativeIds[0]!).deletedAt).toBeNull();
    expectStatus(await del(campaignId, { 'if-match': strongETag(await get(campaignId)) }), 200);
    expectStatus(await del(campaignId), 404, 'CAMPAIGN_NOT_FOUND');
  });
});

describe('undeleteCampaign', () => {
  it('CAMP-011 CAMP-012 CAMP-013 EVT-012 EVT-016 restores exactly the creatives deleted with it; creative.restored for readable ones, then campaign.restored', async () => {
    const { campaignId, creativeIds } = await s.readyCampaign({ products: 3 });
    const creativesWrite = s.a.key('creatives:write');
    expectStatus(await s.call('deleteCreative', 'DELETE', `/creatives/${creativeIds[0]}`, { key: creativesWrite }), 200);
    expectStatus(await del(campaignId), 200);
    s.mark();
    const res = await undelete(campaignId);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ deletedAt: null, creativeCount: 2 });
    expect(strongETag(res)).toBe(strongETag(await get(campaignId)));
    expect(creative(creativeIds[0]!).deletedAt).not.toBeNull(); // deleted on its own: stays deleted
    expect(creativeIds.slice(1).map((id) => creative(id).deletedAt)).toEqual([null, null]);
    expect(events()).toEqual([
      { type: 'creative.restored', id: creativeIds[1] },
      { type: 'creative.restored', id: creativeIds[2] },
      { type: 'campaign.restored', id: campaignId },
    ]);
    // it can be restored on its own now that the campaign is live (CRTV-021)
    expectStatus(await s.call('undeleteCreative', 'POST', `/creatives/${creativeIds[0]}/undelete`, { key: creativesWrite, headers: { 'idempotency-key': s.idem() } }), 200);
  });

  it('CAMP-016 a live campaign: no-op 200 with an ETag, no event', async () => {
    const { campaignId } = await s.createCampaign();
    s.mark();
    const res = await undelete(campaignId);
    expectStatus(res, 200);
    strongETag(res);
    expect(s.events()).toEqual([]);
  });

  it('CAMP-015 ERR-011 at the campaign limit: 403 LIMIT_EXCEEDED, still deleted', async () => {
    const { campaignId } = await s.createCampaign();
    expectStatus(await del(campaignId), 200);
    s.a.state.plan.campaignLimit = 1;
    await s.createCampaign();
    const res = await undelete(campaignId);
    expectStatus(res, 403, 'LIMIT_EXCEEDED');
    expect(res.body).toMatchObject({ limitKey: 'campaigns', limit: 1, current: 1 });
    expect(s.a.state.campaigns.get(campaignId)!.deletedAt).not.toBeNull();
  });

  it('CAMP-015 CAMP-025 ERR-011 D70 the plan now allows fewer products per campaign: 403 LIMIT_EXCEEDED productsPerCampaign, still deleted', async () => {
    const { campaignId } = await s.createCampaign(body(5));
    expectStatus(await del(campaignId), 200);
    s.a.state.plan.productsPerCampaign = 2;
    const res = await undelete(campaignId);
    expectStatus(res, 403, 'LIMIT_EXCEEDED');
    expect(res.body).toMatchObject({ limitKey: 'productsPerCampaign', limit: 2, current: 5 });
    expect(s.a.state.campaigns.get(campaignId)!.deletedAt).not.toBeNull();
    s.a.state.plan.productsPerCampaign = 5;
    expectStatus(await undelete(campaignId), 200);
  });

  it('CAMP-017 right after a delete with a running cascade: 409 CAMPAIGN_CASCADE_PENDING with Retry-After', async () => {
    s.a.state.faults.cascadeSeconds = 3;
    const { campaignId } = await s.createCampaign();
    expectStatus(await del(campaignId), 200);
    const res = await undelete(campaignId);
    expectStatus(res, 409, 'CAMPAIGN_CASCADE_PENDING');
    expect(res.headers['retry-after']).toBe('3');
    s.h.advance(3);
    expectStatus(await undelete(campaignId), 200);
  });

  it('ERR-032 a lost race: 503 SERVICE_UNAVAILABLE with Retry-After and nothing restored', async () => {
    const { campaignId } = await s.createCampaign();
    expectStatus(await del(campaignId), 200);
    s.a.state.faults.lostRaces = 1;
    const res = await undelete(campaignId);
    expectStatus(res, 503, 'SERVICE_UNAVAILABLE');
    expect(res.headers['retry-after']).toBeDefined();
    expect(s.a.state.campaigns.get(campaignId)!.deletedAt).not.toBeNull();
    expectStatus(await undelete(campaignId), 200);
  });

  it('IDEM-005 a missing key: 400; GEN-004 an unknown or foreign campaign: 404', async () => {
    const { campaignId } = await s.createCampaign();
    expectStatus(await s.call('undeleteCampaign', 'POST', `/campaigns/${campaignId}/undelete`, { key: write() }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    const other = await s.h.account({ empty: true });
    const foreign = await undelete(campaignId, {}, other.key('campaigns:write'));
    expectStatus(foreign, 404, 'CAMPAIGN_NOT_FOUND');
    expectStatus(await undelete('cmp_unknown'), 404, 'CAMPAIGN_NOT_FOUND');
  });
});

describe('the demo account', () => {
  it('GEN-005 every seeded campaign conforms, live and deleted', async () => {
    const seeded = await scene({ seeded: true });
    try {
      const key = seeded.a.key('read');
      const { rows } = await walk(seeded, 'listCampaigns', '/campaigns', key, { showDeleted: true, limit: 2 });
      expect(rows.length).toBe(seeded.a.state.campaigns.size);
      for (const row of rows) {
        const res = await seeded.call('getCampaign', 'GET', `/campaigns/${row.campaignId}`, { key, query: { showDeleted: true } });
        expect(res.body).toEqual(row);
      }
    } finally {
      await seeded.h.close();
    }
  });
});
