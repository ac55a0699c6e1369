/**
 * ETags and If-Match (ETAG-*): a strong ETag on GET of a creative (also a deleted one read with
 * showDeleted), a campaign and an asset, and on the writes that return them; If-Match with the
 * current tag is accepted on PATCH, DELETE and undelete of creatives, PATCH and DELETE of
 * campaigns and every asset write; a stale tag answers 412 PRECONDITION_FAILED and nothing changes
 * (re-read and compared); `*` matches, a list matches when a member is current, a weak tag never
 * matches; a campaign's tag changes when its creativeCount or status changes without an edit.
 */
import { caseWhenPresent, expect, test, type ApiClient, type ApiResponse } from '../fixtures/index.ts';
import {
  allAssets,
  allCampaigns,
  allCreatives,
  clockWindow,
  getAsset,
  getCampaign,
  getCreative,
  markEvents,
  newCampaign,
  newKey,
  ok,
  pick,
  readyCampaign,
  setFaults,
  type Campaign,
  first,
} from '../fixtures/resources.ts';

const STRONG = /^"[\x21\x23-\x7E]*"$/;

function tagOf(response: ApiResponse): string {
  const tag = response.header('etag');
  expect(tag, `a strong ETag: ${response.describe()}`).toMatch(STRONG);
  return tag!;
}

test('ETAG-002 GET of a creative (also a deleted one with showDeleted), a campaign and an asset returns a strong ETag', { tag: ['@area:creatives', '@area:campaigns', '@area:assets'] }, async ({ api }) => {
  const creatives = await allCreatives(api, true);
  const live = pick(creatives, (c) => c.deletedAt === null, 'the account has no live creative');
  tagOf(await getCreative(api, live.creativeId));
  const deleted = creatives.find((c) => c.deletedAt !== null);
  if (caseWhenPresent(deleted !== undefined, 'the account has no deleted creative (GET with showDeleted)')) tagOf(await getCreative(api, deleted!.creativeId, true));
  const campaign = (await allCampaigns(api))[0];
  if (caseWhenPresent(campaign !== undefined, 'the account has no campaign')) tagOf(await getCampaign(api, campaign!.campaignId));
  const asset = (await allAssets(api))[0];
  if (caseWhenPresent(asset !== undefined, 'the account has no asset')) tagOf(await getAsset(api, asset!.assetId));
});

interface Write {
  what: string;
  client: ApiClient;
  method: 'PATCH' | 'DELETE' | 'POST';
  path: string;
  body?: unknown;
  key?: boolean;
  /** The GET that reads the target (before and after). */
  read: () => Promise<ApiResponse>;
}

async function send(w: Write, ifMatch: string): Promise<ApiResponse> {
  const options = { ifMatch, ...(w.body !== undefined ? { body: w.body } : {}), ...(w.key ? { idempotencyKey: newKey('if-match') } : {}) };
  return w.method === 'PATCH' ? w.client.patch(w.path, options) : w.method === 'DELETE' ? w.client.delete(w.path, options) : w.client.post(w.path, options);
}

/** Every write that takes If-Match, in an order in which each applies to the state the previous one left. */
async function ifMatchWrites(api: ApiClient, hooks: Parameters<typeof readyCampaign>[1], account: Parameters<typeof readyCampaign>[2]): Promise<Write[]> {
  const { campaign, creatives } = await readyCampaign(api, hooks, account, 1);
  const creativeId = creatives[0]!.creativeId;
  const asset = first(await allAssets(api), 'live asset');
  const cw = api.as('creatives:write');
  const aw = api.as('assets:write');
  const pw = api.as('campaigns:write');
  const creative = `/creatives/${creativeId}`;
  const assetPath = `/assets/${asset.assetId}`;
  const campaignPath = `/campaigns/${campaign.campaignId}`;
  return [
    { what: 'PATCH /creatives/{id}', client: cw, method: 'PATCH', path: creative, body: { metadata: { cf_if_match: 'yes' } }, read: () => getCreative(api, creativeId, true) },
    { what: 'DELETE /creatives/{id}', client: cw, method: 'DELETE', path: creative, read: () => getCreative(api, creativeId, true) },
    { what: 'POST /creatives/{id}/undelete', client: cw, method: 'POST', path: `${creative}/undelete`, key: true, read: () => getCreative(api, creativeId, true) },
    { what: 'PATCH /assets/{id}', client: aw, method: 'PATCH', path: assetPath, body: { notes: 'if-match' }, read: () => getAsset(api, asset.assetId, true) },
    { what: 'POST /assets/{id}/archive', client: aw, method: 'POST', path: `${assetPath}/archive`, key: true, read: () => getAsset(api, asset.assetId, true) },
    { what: 'POST /assets/{id}/unarchive', client: aw, method: 'POST', path: `${assetPath}/unarchive`, key: true, read: () => getAsset(api, asset.assetId, true) },
    { what: 'DELETE /assets/{id}', client: aw, method: 'DELETE', path: assetPath, read: () => getAsset(api, asset.assetId, true) },
    { what: 'POST /assets/{id}/undelete', client: aw, method: 'POST', path: `${assetPath}/undelete`, key: true, read: () => getAsset(api, asset.assetId, true) },
    { what: 'PATCH /campaigns/{id}', client: pw, method: 'PATCH', path: campaignPath, body: { name: 'if-match renamed' }, read: () => getCampaign(api, campaign.campaignId, true) },
    { what: 'DELETE /campaigns/{id}', client: pw, method: 'DELETE', path: campaignPath, read: () => getCampaign(api, campaign.campaignId, true) },
  ];
}

test('ETAG-004 ETAG-003 If-Match with the current ETag is accepted on PATCH, DELETE and undelete of a creative, PATCH and DELETE of a campaign, and every asset write', { tag: ['@hook:accounts', '@hook:actors', '@area:products', '@area:creatives', '@area:campaigns', '@area:assets'] }, async ({ api, hooks, account }) => {
  for (const w of await ifMatchWrites(api, hooks, account)) {
    const current = tagOf(await w.read());
    const response = await send(w, current);
    expect(response, `${w.what} with If-Match: ${current}`).toHaveStatus(200);
    const after = await w.read();
    expect(tagOf(after), `${w.what} changed the representation, so its tag`).not.toBe(current);
    if (response.header('etag') !== undefined) expect(response.header('etag'), `${w.what} answers the new tag`).toBe(tagOf(after));
  }
});

test('ETAG-005 ETAG-004 a stale If-Match answers 412 PRECONDITION_FAILED on every write that takes it, and nothing changes', { tag: ['@hook:accounts', '@hook:actors', '@hook:events', '@area:products', '@area:creatives', '@area:campaigns', '@area:assets'] }, async ({ api, hooks, account }) => {
  const writes = await ifMatchWrites(api, hooks, account);
  const judged: string[] = [];
  for (const w of writes) {
    const stale = tagOf(await w.read());
    // Change the target under the client's feet (a metadata edit through the API), then write with the old tag.
    if (w.what.endsWith('/undelete')) {
      // The target is deleted and cannot be edited: the next test judges a stale undelete.
      expect(await send(w, stale), `${w.what} with the current tag`).toHaveStatus(200);
      continue;
    }
    expect(await w.client.patch(w.path.replace(/\/(archive|unarchive)$/, ''), { body: { metadata: { cf_bump: newKey() } } }), `${w.what}: an edit of the target`).toHaveStatus(200);
    const before = await w.read();
    expect(tagOf(before), `${w.what}: the edit changed the tag`).not.toBe(stale);
    const events = await markEvents(hooks, account);
    const refused = await send(w, stale);
    await expect(refused, `${w.what} with a stale If-Match`).toBeProblem(412, 'PRECONDITION_FAILED');
    const after = await w.read();
    expect(after.json, `ETAG-005 ${w.what}: nothing changed`).toEqual(before.json);
    expect(after.header('etag'), `ETAG-005 ${w.what}: the ETag did not change`).toBe(before.header('etag'));
    expect(await events.since(), `ETAG-005 ${w.what}: nothing was recorded`).toEqual([]);
    // Apply it for real (current tag) so that the next write meets the state it expects.
    expect(await send(w, tagOf(after)), `${w.what} with the current tag`).toHaveStatus(200);
    judged.push(w.what);
  }
  expect(judged, 'every write on a live target was judged (the undeletes are judged in the next test)').toEqual(writes.map((w) => w.what).filter((what) => !what.endsWith('/undelete')));
});

test('ETAG-005 ETAG-004 a stale If-Match on undelete of a creative or an asset answers 412 and the item stays deleted', { tag: ['@hook:accounts', '@hook:actors', '@area:products', '@area:creatives', '@area:campaigns', '@area:assets'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1);
  const creativeId = creatives[0]!.creativeId;
  const asset = first(await allAssets(api), 'live asset');
  const cases: [string, ApiClient, string, () => Promise<ApiResponse>][] = [
    [`/creatives/${creativeId}`, api.as('creatives:write'), 'creative', () => getCreative(api, creativeId, true)],
    [`/assets/${asset.assetId}`, api.as('assets:write'), 'asset', () => getAsset(api, asset.assetId, true)],
  ];
  for (const [path, client, what, read] of cases) {
    const liveTag = tagOf(await read());
    expect(await client.delete(path)).toHaveStatus(200);
    const before = await read();
    const refused = await client.post(`${path}/undelete`, { idempotencyKey: newKey('undelete'), ifMatch: liveTag });
    await expect(refused, `undelete of a ${what} with the tag it had while live`).toBeProblem(412, 'PRECONDITION_FAILED');
    const after = await read();
    expect(after.json, `the ${what} is still deleted`).toEqual(before.json);
    expect((after.json as { deletedAt: string | null }).deletedAt).not.toBeNull();
  }
});

test('ETAG-004 ETAG-005 If-Match `*` matches the current representation, a list matches when one member is current, and a weak tag never matches', { tag: ['@area:assets'] }, async ({ api }) => {
  const asset = pick(await allAssets(api), () => true, 'the account has no live asset');
  const writer = api.as('assets:write');
  const path = `/assets/${encodeURIComponent(asset.assetId)}`;
  const noChange = { metadata: { cf_never_set: null } };
  const current = tagOf(await getAsset(api, asset.assetId));
  const stale = '"conformance-stale-tag"';
  const cases: [string, number][] = [
    ['*', 200],
    [`${stale}, ${current}`, 200],
    [`${current}, ${stale}`, 200],
    [`W/${current}`, 412],
    [`W/${current}, ${stale}`, 412],
    [stale, 412],
  ];
  for (const [ifMatch, status] of cases) {
    const response = await writer.patch(path, { body: noChange, ifMatch });
    if (status === 200) expect(response, `If-Match: ${ifMatch}`).toHaveStatus(200);
    else await expect(response, `If-Match: ${ifMatch}`).toBeProblem(412, 'PRECONDITION_FAILED');
  }
  expect(tagOf(await getAsset(api, asset.assetId)), 'nothing changed').toBe(current);
});

test('ETAG-001 ERR-034 ETAG-005 a campaign\'s ETag changes when its creativeCount or status changes without an edit, and a write with the old tag answers 412', { tag: ['@hook:accounts', '@hook:actors', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { campaign, creatives } = await readyCampaign(api, hooks, account, 2);
  const [gone, kept] = creatives as [(typeof creatives)[0], (typeof creatives)[0]];
  const path = `/campaigns/${campaign.campaignId}`;
  const writer = api.as('campaigns:write');

  const t0 = await getCampaign(api, campaign.campaignId);
  expect(await api.as('creatives:write').delete(`/creatives/${gone.creativeId}`), 'a creative of the campaign deleted on its own').toHaveStatus(200);
  const t1 = await getCampaign(api, campaign.campaignId);
  expect(t1.json.creativeCount, 'creativeCount changed without an edit of the campaign').not.toBe(t0.json.creativeCount);
  expect(tagOf(t1), 'so did the campaign\'s ETag').not.toBe(tagOf(t0));
  await expect(await writer.patch(path, { body: { name: 'stale' }, ifMatch: tagOf(t0) }), 'PATCH with the tag from before the count changed').toBeProblem(412, 'PRECONDITION_FAILED');
  const afterCount = await getCampaign(api, campaign.campaignId);
  // The write refused for its stale tag must not have happened (ETAG-005), whatever the 412 said.
  expect(afterCount.json, 'ETAG-005 nothing changed: the PATCH answered 412 with the stale tag').toEqual(t1.json);

  expect(await api.as('creatives:review').post(`/creatives/${kept.creativeId}/approve`, { idempotencyKey: newKey('approve') })).toHaveStatus(200);
  const t2 = await getCampaign(api, campaign.campaignId);
  expect(t2.json.status, 'the last unreviewed creative approved: the campaign\'s status changed without an edit').not.toBe(t1.json.status);
  expect(tagOf(t2), 'so did the campaign\'s ETag').not.toBe(tagOf(t1));
  await expect(await writer.delete(path, { ifMatch: tagOf(t1) }), 'DELETE with the tag from before the status changed').toBeProblem(412, 'PRECONDITION_FAILED');
  const afterStatus = await getCampaign(api, campaign.campaignId);
  expect(afterStatus.json, 'ETAG-005 nothing changed: the DELETE answered 412 with the stale tag, the campaign is still live').toEqual(t2.json);
  expect(await writer.delete(path, { ifMatch: tagOf(t2) }), 'DELETE with the current tag').toHaveStatus(200);
});

test('ETAG-001 ERR-034 a campaign\'s ETag changes when its creation finishes, with no request at all', { tag: ['@hook:accounts', '@hook:clock', '@hook:faults', '@area:products', '@area:campaigns'] }, async ({ api, hooks, account, clock }) => {
  await setFaults(hooks, account, { campaignCreationSeconds: 120 });
  const { campaign, t0 } = await clockWindow(clock, 120, async () => {
    const { campaign } = await newCampaign(api, 1);
    return { campaign, t0: await getCampaign(api, campaign.campaignId) };
  });
  await clock.advance(120);
  const t1 = await getCampaign(api, campaign.campaignId);
  expect(t1.json.status, 'the campaign\'s status moved on once its creation finished').not.toBe(t0.json.status);
  expect(tagOf(t1)).not.toBe(tagOf(t0));
  await expect(await api.as('campaigns:write').patch(`/campaigns/${campaign.campaignId}`, { body: { name: 'stale' }, ifMatch: tagOf(t0) })).toBeProblem(412, 'PRECONDITION_FAILED');
  expect(ok(await getCampaign(api, campaign.campaignId)).name).toBe((t0.json as Campaign).name);
});
