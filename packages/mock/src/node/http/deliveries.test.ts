/**
 * Delivery operations over HTTP through the node server, in-process (harness: mock.inject, manual clock). Every
 * response is checked against the document with `violations(operationId, res)` (in `s.call`).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestResponse } from '../../../../mock-core/src/testkit/harness.ts';
import { scene, uniform, walk, type Scene } from '../../../../mock-core/src/testkit/campaigns.ts';

let s: Scene;
beforeEach(async () => {
  s = await scene();
});
afterEach(async () => {
  await s.h.close();
});

const read = () => s.a.key('read');
const list = (query: Record<string, string | number | boolean> = {}, key = read()) => s.call('listDeliveries', 'GET', '/deliveries', { key, query });
const get = (id: string, key = read()) => s.call('getDelivery', 'GET', `/deliveries/${id}`, { key });
const ids = (res: TestResponse) => res.body.data.map((d: { deliveryId: string }) => d.deliveryId);

function expectStatus(res: TestResponse, status: number, code?: string): void {
  expect(res.status, res.text).toBe(status);
  if (code) expect(res.body.code).toBe(code);
}

describe('listDeliveries and getDelivery', () => {
  it('CRTV-013 D15 a finished generation delivers the creative in the ratio it is shown in', async () => {
    const { campaignId, creativeIds } = await s.readyCampaign({ products: 2, body: { aspectRatio: '9:16' }, mediaType: 'video' });
    const res = await list();
    expectStatus(res, 200);
    expect(res.body.data).toHaveLength(2);
    const [first] = res.body.data;
    expect(first).toEqual({
      object: 'delivery',
      deliveryId: expect.any(String),
      creativeId: creativeIds[0],
      campaignId,
      productId: s.a.state.creatives.get(creativeIds[0]!)!.productId,
      aspectRatio: '9:16',
      mediaType: 'video',
      url: expect.stringMatching(/\.webm$/),
      createdAt: s.h.clock.nowIso(),
    });
    const one = await get(first.deliveryId);
    expectStatus(one, 200);
    expect(one.body).toEqual(first);
  });

  it('CRTV-013 filters campaignId and creativeId, alone and together', async () => {
    const a = await s.readyCampaign({ products: 2 });
    const b = await s.readyCampaign({ products: 1 });
    s.dashboard('regenerateCreative', { creativeId: a.creativeIds[0]! });
    s.dashboard('finishGeneration', { creativeId: a.creativeIds[0]! }); // a second rendition
    const all = await list();
    expect(all.body.data).toHaveLength(4);
    expect((await list({ campaignId: a.campaignId })).body.data.map((d: { campaignId: string }) => d.campaignId)).toEqual([a.campaignId, a.campaignId, a.campaignId]);
    expect((await list({ creativeId: a.creativeIds[0]! })).body.data).toHaveLength(2);
    expect((await list({ campaignId: b.campaignId, creativeId: a.creativeIds[0]! })).body.data).toEqual([]);
    expect((await list({ campaignId: 'cmp_unknown' })).body.data).toEqual([]);
  });

  it('GEN-002 (decided) the deliveries of a deleted creative are hidden with it and come back on restore', async () => {
    const { creativeIds } = await s.readyCampaign({ products: 2 });
    const before = await list({ creativeId: creativeIds[0]! });
    const deliveryId = before.body.data[0].deliveryId as string;
    const creativesWrite = s.a.key('creatives:write');
    expectStatus(await s.call('deleteCreative', 'DELETE', `/creatives/${creativeIds[0]}`, { key: creativesWrite }), 200);
    expect(ids(await list())).not.toContain(deliveryId);
    expectStatus(await get(deliveryId), 404, 'DELIVERY_NOT_FOUND');
    expectStatus(await s.call('undeleteCreative', 'POST', `/creatives/${creativeIds[0]}/undelete`, { key: creativesWrite, headers: { 'idempotency-key': s.idem() } }), 200);
    expectStatus(await get(deliveryId), 200);
  });

  it('GEN-004 another account: the same 404 as an unknown id, and an empty list', async () => {
    await s.readyCampaign({ products: 1 });
    const deliveryId = ids(await list())[0] as string;
    const other = await s.h.account({ empty: true });
    const foreign = await get(deliveryId, other.key('read'));
    expectStatus(foreign, 404, 'DELIVERY_NOT_FOUND');
    expect(uniform(foreign)).toEqual(uniform(await get('dlv_unknown', other.key('read'))));
    expect((await list({}, other.key('read'))).body.data).toEqual([]);
  });

  it('PAGE-005..008 PAGE-006 walks, dense and sparse, see every delivery once in creation order; PAGE-013 limit out of range: 400', async () => {
    await s.readyCampaign({ products: 14 });
    const expected = [...s.a.state.deliveries.ids()];
    const dense = await walk(s, 'listDeliveries', '/deliveries', read(), { limit: 4 });
    expect(dense.rows.map((d) => d.deliveryId)).toEqual(expected);
    s.a.state.settings.sparsePages = true;
    const sparse = await walk(s, 'listDeliveries', '/deliveries', read(), { limit: 4 });
    expect(sparse.rows.map((d) => d.deliveryId)).toEqual(expected);
    expect(sparse.pages.some((p) => p.length === 0)).toBe(true);
    expectStatus(await list({ limit: 0 }), 400, 'VALIDATION_ERROR');
    expectStatus(await s.call('listDeliveries', 'GET', '/deliveries'), 401, 'UNAUTHORIZED');
  });

  it('PAGE-005 a cursor stays within the document\'s 512 characters whatever the filter values, and continues the walk', async () => {
    await s.readyCampaign({ products: 1 });
    const [template] = [...s.a.state.deliveries.values()];
    for (let i = 0; i < 150; i++) s.a.state.deliveries.set(`dlv_copy${i}`, { ...template!, deliveryId: `dlv_copy${i}` });
    const long = { limit: 1, campaignId: 'c'.repeat(200), creativeId: 'x'.repeat(200) };
    const first = await list(long); // nothing matches: an empty page before the end (the scan is bounded)
    expectStatus(first, 200);
    const cursor = first.body.pagination.nextCursor as string;
    expect(cursor.length).toBeLessThanOrEqual(512);
    expectStatus(await list({ ...long, cursor }), 200);
  });
});

describe('the demo account', () => {
  it('GEN-005 every seeded delivery conforms and reads back by id', async () => {
    const seeded = await scene({ seeded: true });
    try {
      const key = seeded.a.key('read');
      const { rows } = await walk(seeded, 'listDeliveries', '/deliveries', key, { limit: 50 });
      for (const row of rows.slice(0, 10)) {
        const res = await seeded.call('getDelivery', 'GET', `/deliveries/${row.deliveryId}`, { key });
        expect(res.body).toEqual(row);
      }
    } finally {
      await seeded.h.close();
    }
  });
});
