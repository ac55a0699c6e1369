/**
 * Deliveries (CRTV-013, decided as D15: the interface names deliveries on the read plane but shows
 * no endpoint, so every test here is @assumed): GET /deliveries with the `campaignId` and
 * `creativeId` filters and GET /deliveries/{id}; a delivery is a creative rendered in one delivery
 * ratio; an unknown or another account's delivery answers the same 404.
 */
import { expect, skipWhenAbsent, test, type ApiClient } from '../fixtures/index.ts';
import { allCreatives, expectTimestamp, listAll, readyCampaign, uniformPart, type Delivery } from '../fixtures/resources.ts';

const UNKNOWN = 'dlv_conformance_unknown_0000';

async function allDeliveries(api: ApiClient, query: Record<string, string> = {}): Promise<Delivery[]> {
  return listAll<Delivery>(api, '/deliveries', query);
}

test('CRTV-013 GEN-005 GEN-006 GEN-007 PAGE-003 GET /deliveries lists renditions of readable creatives, each readable by id', { tag: ['@assumed', '@area:creatives', '@area:deliveries'] }, async ({ api }) => {
  const deliveries = await allDeliveries(api);
  skipWhenAbsent(deliveries.length === 0, 'the account has no delivery');
  const creatives = new Map((await allCreatives(api)).map((c) => [c.creativeId, c]));
  for (const d of deliveries) {
    const where = JSON.stringify(d);
    expect(d.object, where).toBe('delivery');
    for (const field of ['deliveryId', 'creativeId', 'campaignId', 'productId', 'url'] as const) expect(typeof d[field] === 'string' && d[field].length > 0, `${field} of ${where}`).toBe(true);
    expect(d.aspectRatio, where).toMatch(/^\d+:\d+$/);
    expectTimestamp(d.createdAt, `createdAt of ${where}`);
    const creative = creatives.get(d.creativeId);
    expect(creative, `the delivery's creative is a live, readable creative: ${where}`).toBeDefined();
    expect({ campaignId: d.campaignId, productId: d.productId, mediaType: d.mediaType }, where).toEqual({ campaignId: creative!.campaignId, productId: creative!.productId, mediaType: creative!.mediaType });
  }
  expect(new Set(deliveries.map((d) => d.deliveryId)).size, 'deliveryIds are unique').toBe(deliveries.length);
  for (const listed of deliveries.slice(0, 3)) {
    const one = await api.get(`/deliveries/${encodeURIComponent(listed.deliveryId)}`);
    expect(one).toHaveStatus(200);
    expect(one.json).toEqual(listed);
  }
});

test('CRTV-013 ?campaignId= and ?creativeId= list exactly the deliveries of that campaign or creative', { tag: ['@assumed', '@area:deliveries'] }, async ({ api }) => {
  const deliveries = await allDeliveries(api);
  skipWhenAbsent(deliveries.length === 0, 'the account has no delivery');
  const first = deliveries[0]!;
  const byCampaign = await allDeliveries(api, { campaignId: first.campaignId });
  expect(byCampaign.map((d) => d.deliveryId).sort()).toEqual(deliveries.filter((d) => d.campaignId === first.campaignId).map((d) => d.deliveryId).sort());
  const byCreative = await allDeliveries(api, { creativeId: first.creativeId });
  expect(byCreative.map((d) => d.deliveryId).sort()).toEqual(deliveries.filter((d) => d.creativeId === first.creativeId).map((d) => d.deliveryId).sort());
  const both = await allDeliveries(api, { campaignId: first.campaignId, creativeId: first.creativeId });
  expect(both.map((d) => d.deliveryId).sort()).toEqual(byCreative.map((d) => d.deliveryId).sort());
  expect(await allDeliveries(api, { creativeId: 'crv_conformance_unknown_0000' })).toEqual([]);
});

test('CRTV-013 GEN-004 an unknown delivery and another account\'s answer the same 404 DELIVERY_NOT_FOUND', { tag: ['@assumed', '@area:deliveries'] }, async ({ api, apiFor, accountB }) => {
  const mine = (await allDeliveries(api))[0];
  skipWhenAbsent(mine === undefined, 'account A has no delivery');
  const other = apiFor(accountB);
  const foreign = await other.get(`/deliveries/${encodeURIComponent(mine!.deliveryId)}`);
  const unknown = await other.get(`/deliveries/${UNKNOWN}`);
  await expect(foreign).toBeProblem(404, 'DELIVERY_NOT_FOUND');
  await expect(unknown).toBeProblem(404, 'DELIVERY_NOT_FOUND');
  expect(uniformPart(foreign.problem)).toEqual(uniformPart(unknown.problem));
  expect((await allDeliveries(other, { creativeId: mine!.creativeId })).length, 'another account\'s deliveries are not listed').toBe(0);
});

test('CRTV-013 CRTV-012 a generated creative is delivered in the ratio it is shown in', { tag: ['@hook:accounts', '@hook:actors', '@assumed', '@area:products', '@area:creatives', '@area:campaigns', '@area:deliveries'] }, async ({ api, hooks, account }) => {
  const { campaign, creatives } = await readyCampaign(api, hooks, account, 2, { aspectRatio: '4:5' });
  const deliveries = await allDeliveries(api, { campaignId: campaign.campaignId });
  for (const c of creatives) {
    const mine = deliveries.filter((d) => d.creativeId === c.creativeId);
    expect(mine.map((d) => d.aspectRatio), `the deliveries of ${c.creativeId}`).toContain(c.aspectRatio);
  }
});
