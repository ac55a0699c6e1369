/**
 * Idempotency-Key (IDEM-*): required where the interface requires it (400
 * IDEMPOTENCY_KEY_REQUIRED), optional on PATCH and DELETE, malformed → 400 INVALID_IDEMPOTENCY_KEY;
 * a retry with the same key and request replays the original result (status, Location, ETag, body)
 * without executing again; the same key with another request → 409 IDEMPOTENCY_KEY_REUSED; a
 * request whose twin is still running → 409 IDEMPOTENCY_IN_PROGRESS with Retry-After; a 503
 * WRITES_PAUSED does not consume the key; concurrent identical creates make one resource.
 */
import { caseWhenPresent, expect, test, type ApiClient, type ApiResponse } from '../fixtures/index.ts';
import { presetId } from '../fixtures/generation.ts';
import { expectCreatedNothing, expectUnchanged, isShared } from '../fixtures/shared-account.ts';
import {
  allAssets,
  allCampaigns,
  allCreatives,
  brandWithProducts,
  clockWindow,
  expectEventsByKey,
  getCreative,
  markEvents,
  newCampaign,
  newKey,
  ok,
  readyCampaign,
  setFaults,
  setPlan,
  uniqueName,
  type Asset,
  type Campaign,
  type Creative,
  type CampaignInput,
  first,
} from '../fixtures/resources.ts';

/** The campaigns of the account carrying `name` (live or deleted). */
async function campaignsNamed(api: ApiClient, name: string): Promise<Campaign[]> {
  return (await allCampaigns(api, true)).filter((c) => c.name === name);
}

/** Status, Location, ETag and body of a response: what a replay repeats. */
function outcome(response: ApiResponse): { status: number; location?: string; etag?: string; body: unknown } {
  return { status: response.status, location: response.header('location'), etag: response.header('etag'), body: response.body };
}

async function campaignInput(api: ApiClient): Promise<CampaignInput & { name: string }> {
  const { brandId, productIds } = await brandWithProducts(api, 1);
  return { name: uniqueName('idempotency'), brandId, productIds };
}

test('IDEM-001 IDEM-002 IDEM-005 ERR-013 every operation that requires an Idempotency-Key answers 400 IDEMPOTENCY_KEY_REQUIRED without one, and changes nothing', { tag: ['@area:products', '@area:creatives', '@area:campaigns', '@area:assets', '@area:presets', '@area:runs', '@area:upscales'] }, async ({ api, account }) => {
  const creative = (await allCreatives(api))[0];
  const asset = (await allAssets(api))[0];
  const campaign = (await allCampaigns(api, true))[0];
  const input = await campaignInput(api);
  const calls: [string, ApiClient, string, unknown][] = [['POST /campaigns', api.as('campaigns:write'), '/campaigns', input]];
  if (caseWhenPresent(creative !== undefined, 'the account has no readable creative (approve, reject, creative undelete)') && creative) {
    const id = encodeURIComponent(creative.creativeId);
    calls.push(['approve', api.as('creatives:review'), `/creatives/${id}/approve`, undefined], ['reject', api.as('creatives:review'), `/creatives/${id}/reject`, {}], ['creative undelete', api.as('creatives:write'), `/creatives/${id}/undelete`, undefined]);
  }
  if (caseWhenPresent(asset !== undefined, 'the account has no asset (asset archive, unarchive, undelete, POST /upscales)') && asset) {
    const id = encodeURIComponent(asset.assetId);
    for (const action of ['archive', 'unarchive', 'undelete']) calls.push([`asset ${action}`, api.as('assets:write'), `/assets/${id}/${action}`, undefined]);
  }
  if (caseWhenPresent(campaign !== undefined, 'the account has no campaign (campaign undelete)') && campaign) calls.push(['campaign undelete', api.as('campaigns:write'), `/campaigns/${encodeURIComponent(campaign.campaignId)}/undelete`, undefined]);
  if (caseWhenPresent(account.has('runs:write'), 'no "runs:write" key profile is configured (POST /runs, POST /upscales)')) {
    calls.push(['POST /runs', api.as('runs:write'), '/runs', { productIds: input.productIds, creativesPerProduct: 1, presetId: await presetId(api.as('runs:write')) }]);
    if (asset) calls.push(['POST /upscales', api.as('runs:write'), '/upscales', { source: { assetId: asset.assetId }, target: '4K' }]);
  }
  const before = { creatives: await allCreatives(api, true), assets: await allAssets(api, true), campaigns: await allCampaigns(api, true) };
  for (const [what, client, path, body] of calls) {
    const refused = await client.post(path, body === undefined ? {} : { body });
    await expect(refused, `${what} without an Idempotency-Key`).toBeProblem(400, 'IDEMPOTENCY_KEY_REQUIRED');
  }
  const after = { creatives: await allCreatives(api, true), assets: await allAssets(api, true), campaigns: await allCampaigns(api, true) };
  if (!isShared(account)) {
    expect(after, 'nothing changed').toEqual(before);
    return;
  }
  // A shared account (keys given): others write meanwhile. The campaign this test sent carries its
  // unique name; the resources it named are compared, a change by another client noted, not failed.
  expectCreatedNothing(account, 'POST /campaigns without an Idempotency-Key', before.campaigns, after.campaigns, (c) => c.campaignId, (c) => c.name === input.name);
  const named = (rows: { creatives: Creative[]; assets: Asset[]; campaigns: Campaign[] }) => ({
    creative: rows.creatives.find((c) => c.creativeId === creative?.creativeId),
    asset: rows.assets.find((a) => a.assetId === asset?.assetId),
    campaign: rows.campaigns.find((c) => c.campaignId === campaign?.campaignId),
  });
  expectUnchanged(account, 'the resources the refused requests named', named(before), named(after), () => []);
});

test('IDEM-004 a malformed Idempotency-Key answers 400 INVALID_IDEMPOTENCY_KEY and nothing is created (pinned part: values malformed under any reading)', { tag: ['@area:products', '@area:campaigns'] }, async ({ api }) => {
  // The exact grammar is a gap (IDEM-011, @assumed below). These values are neither a token nor a
  // quoted string, so they are malformed however the grammar is drawn.
  const input = await campaignInput(api);
  const writer = api.as('campaigns:write');
  for (const key of ['"unterminated', 'two words "and a quote']) {
    await expect(await writer.post('/campaigns', { body: input, idempotencyKey: key }), `Idempotency-Key: ${key}`).toBeProblem(400, 'INVALID_IDEMPOTENCY_KEY');
  }
  expect(await campaignsNamed(api, input.name), 'nothing was created').toEqual([]);
});

test('IDEM-004 IDEM-011 ERR-013 a malformed Idempotency-Key answers 400 INVALID_IDEMPOTENCY_KEY; the bare and the quoted form are the same key', { tag: ['@assumed', '@area:products', '@area:campaigns'] }, async ({ api }) => {
  const input = await campaignInput(api);
  const writer = api.as('campaigns:write');
  for (const key of ['has space', 'x'.repeat(256), 'a/b', 'semi;colon', '"unterminated', '""']) {
    await expect(await writer.post('/campaigns', { body: input, idempotencyKey: key }), `Idempotency-Key: ${key.slice(0, 40)}`).toBeProblem(400, 'INVALID_IDEMPOTENCY_KEY');
  }
  expect(await campaignsNamed(api, input.name), 'nothing was created').toEqual([]);

  const bare = newKey('quoted');
  const created = await writer.post('/campaigns', { body: input, idempotencyKey: bare });
  expect(created, 'a key of 1–255 allowed characters').toHaveStatus(201);
  const quoted = await writer.post('/campaigns', { body: input, idempotencyKey: `"${bare}"` });
  expect(outcome(quoted), 'the quoted form replays the bare one').toEqual(outcome(created));
  await expect(await writer.post('/campaigns', { body: { ...input, name: `${input.name} other` }, idempotencyKey: `"${bare}"` }), 'another request under the quoted form').toBeProblem(409, 'IDEMPOTENCY_KEY_REUSED');
  expect((await campaignsNamed(api, input.name)).length).toBe(1);
  const longest = await writer.post('/campaigns', { body: { ...input, name: `${input.name} 255` }, idempotencyKey: 'k'.repeat(255) });
  expect(longest, 'a key of 255 characters').toHaveStatus(201);
});

test('IDEM-003 PATCH and DELETE of creatives, assets and campaigns succeed without an Idempotency-Key', { tag: ['@hook:accounts', '@hook:actors', '@area:products', '@area:creatives', '@area:campaigns', '@area:assets'] }, async ({ api, hooks, account }) => {
  const { campaign, creatives } = await readyCampaign(api, hooks, account, 1);
  const asset = first(await allAssets(api), 'live asset');
  const cases: [string, string, string][] = [
    ['creative', 'creatives:write', `/creatives/${creatives[0]!.creativeId}`],
    ['asset', 'assets:write', `/assets/${asset.assetId}`],
    ['campaign', 'campaigns:write', `/campaigns/${campaign.campaignId}`],
  ];
  for (const [what, profile, path] of cases) {
    expect(await api.as(profile).patch(path, { body: { metadata: { cf_no_key: 'yes' } } }), `PATCH of a ${what} without a key`).toHaveStatus(200);
  }
  for (const [what, profile, path] of cases) {
    const deleted = await api.as(profile).delete(path);
    expect(deleted, `DELETE of a ${what} without a key`).toHaveStatus(200);
    expect((deleted.json as { deletedAt?: string | null }).deletedAt).not.toBeNull();
  }
});

test('IDEM-006 IDEM-007 CAMP-022 a retried POST /campaigns with the same key and body replays the original status, Location, ETag and body without executing again', { tag: ['@area:products', '@area:campaigns'] }, async ({ api }) => {
  const input = await campaignInput(api);
  const key = newKey('replay');
  const writer = api.as('campaigns:write');
  const first = await writer.post('/campaigns', { body: input, idempotencyKey: key });
  expect(first).toHaveStatus(201);
  const campaign = first.json as Campaign;

  // The campaign changes after the create; a replay still answers the original result.
  const renamed = await writer.patch(`/campaigns/${encodeURIComponent(campaign.campaignId)}`, { body: { name: `${input.name} renamed` } });
  expect(renamed).toHaveStatus(200);
  for (const attempt of [1, 2]) {
    const replay = await writer.post('/campaigns', { body: input, idempotencyKey: key });
    expect(outcome(replay), `retry ${attempt} replays the original result`).toEqual(outcome(first));
  }
  const named = (await allCampaigns(api, true)).filter((c) => c.campaignId === campaign.campaignId || c.name === input.name);
  expect(named.map((c) => [c.campaignId, c.name]), 'one campaign, renamed once: the retries created and changed nothing').toEqual([[campaign.campaignId, `${input.name} renamed`]]);
});

test('IDEM-006 a retried approve replays its answer and records no second event', { tag: ['@hook:accounts', '@hook:actors', '@hook:events', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1);
  const c = creatives[0]!;
  const review = api.as('creatives:review');
  const key = newKey('approve');
  const events = await markEvents(hooks, account);
  const first = await review.post(`/creatives/${c.creativeId}/approve`, { idempotencyKey: key });
  expect(first).toHaveStatus(200);
  const replay = await review.post(`/creatives/${c.creativeId}/approve`, { idempotencyKey: key });
  expect(outcome(replay)).toEqual(outcome(first));
  expectEventsByKey(await events.since(), [['creative.approved', c.creativeId]], account.keyId('creatives:review'));
});

test('IDEM-016 ERR-007 a replayed refusal carries its own requestId; the rest of the answer is the stored one', { tag: ['@hook:accounts', '@hook:actors', '@assumed', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1);
  const c = creatives[0]!;
  const review = api.as('creatives:review');
  expect(await review.post(`/creatives/${c.creativeId}/reject`, { idempotencyKey: newKey('reject') })).toHaveStatus(200);
  const key = newKey('approve');
  const first = await review.post(`/creatives/${c.creativeId}/approve`, { idempotencyKey: key });
  await expect(first).toBeProblem(409, 'CREATIVE_NOT_PENDING');
  const replay = await review.post(`/creatives/${c.creativeId}/approve`, { idempotencyKey: key });
  await expect(replay).toBeProblem(409, 'CREATIVE_NOT_PENDING');
  expect(replay.problem.requestId, 'every answer has its own requestId').not.toBe(first.problem.requestId);
  const { requestId: _first, ...stored } = first.problem;
  const { requestId: _replay, ...replayed } = replay.problem;
  expect(replayed, 'the rest is the stored answer').toEqual(stored);
});

test('IDEM-008 the same key with a different request answers 409 IDEMPOTENCY_KEY_REUSED and executes nothing', { tag: ['@area:products', '@area:campaigns'] }, async ({ api }) => {
  const input = await campaignInput(api);
  const key = newKey('reused');
  const writer = api.as('campaigns:write');
  expect(await writer.post('/campaigns', { body: input, idempotencyKey: key })).toHaveStatus(201);
  const other = { ...input, name: `${input.name} other` };
  await expect(await writer.post('/campaigns', { body: other, idempotencyKey: key }), 'another body under the key').toBeProblem(409, 'IDEMPOTENCY_KEY_REUSED');
  expect(await campaignsNamed(api, other.name), 'the other request was not executed').toEqual([]);
  expect((await campaignsNamed(api, input.name)).length).toBe(1);
});

test('IDEM-008 the same key on another operation answers 409 IDEMPOTENCY_KEY_REUSED and changes nothing', { tag: ['@hook:accounts', '@hook:actors', '@hook:events', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 2);
  const [a, b] = creatives as [(typeof creatives)[0], (typeof creatives)[0]];
  const key = newKey('reused');
  const review = api.as('creatives:review');
  expect(await review.post(`/creatives/${a.creativeId}/approve`, { idempotencyKey: key })).toHaveStatus(200);
  const events = await markEvents(hooks, account);
  await expect(await review.post(`/creatives/${b.creativeId}/approve`, { idempotencyKey: key }), 'the key of A\'s approve on B').toBeProblem(409, 'IDEMPOTENCY_KEY_REUSED');
  await expect(await review.post(`/creatives/${a.creativeId}/reject`, { idempotencyKey: key }), 'the key of A\'s approve on A\'s reject').toBeProblem(409, 'IDEMPOTENCY_KEY_REUSED');
  expect(ok(await getCreative(api, b.creativeId)), 'B is unchanged').toEqual(b);
  expect(await events.since()).toEqual([]);
});

test('IDEM-009 IDEM-007 a request whose twin is still running answers 409 IDEMPOTENCY_IN_PROGRESS with Retry-After; the first completes and is then replayed', { tag: ['@hook:accounts', '@hook:clock', '@hook:faults', '@area:products', '@area:campaigns'] }, async ({ api, hooks, account, clock }) => {
  const writer = api.as('campaigns:write');
  const slowSeconds = 120;
  await setFaults(hooks, account, { idempotencyInProgressSeconds: slowSeconds });
  // Fresh per attempt: the key, and the campaign's name (an attempt spoiled by a clock move may
  // still create its campaign; "exactly one" is counted by this attempt's name). Two identical
  // requests are sent at once: whichever the target takes first holds the key in progress (and
  // answers only once the account's clock has moved by the fault's time), so the one answered
  // first is the twin. Nothing is read of the target's idempotency store: only what the API answers.
  const scene = await clockWindow(clock, slowSeconds, async (attempt) => {
    const input = await campaignInput(api);
    const key = newKey(`in-progress-${attempt}`);
    const send = (which: number) => writer.post('/campaigns', { body: input, idempotencyKey: key }).then((response) => ({ which, response }));
    const pending = [send(0), send(1)];
    const twin = await Promise.race(pending);
    return { input, key, twin: twin.response, held: pending[1 - twin.which]!.then((answered) => answered.response) };
  });
  const input = scene.input;
  await expect(scene.twin, 'the twin of a request still running (answered while the other is held)').toBeProblem(409, 'IDEMPOTENCY_IN_PROGRESS');
  expect(scene.twin.header('retry-after'), scene.twin.describe()).toMatch(/^\d+$/);

  await clock.advance(slowSeconds);
  const first = await scene.held;
  expect(first, 'the request that held the key completes once its (clock) time has passed').toHaveStatus(201);
  await setFaults(hooks, account, { idempotencyInProgressSeconds: 0 });
  const replay = await writer.post('/campaigns', { body: input, idempotencyKey: scene.key });
  expect(outcome(replay), 'the retry after Retry-After replays the first result').toEqual(outcome(first));
  expect((await campaignsNamed(api, input.name)).length, 'exactly one campaign').toBe(1);
});

test('IDEM-007 concurrent identical creates under one key produce exactly one campaign', { tag: ['@area:products', '@area:campaigns'] }, async ({ api }) => {
  const input = await campaignInput(api);
  const key = newKey('concurrent');
  const writer = api.as('campaigns:write');
  const responses = await Promise.all(Array.from({ length: 6 }, () => writer.post('/campaigns', { body: input, idempotencyKey: key })));
  const created = responses.filter((r) => r.status === 201);
  for (const r of responses) {
    if (r.status !== 201) await expect(r, 'a concurrent twin either replays (201) or is still in progress').toBeProblem(409, 'IDEMPOTENCY_IN_PROGRESS');
  }
  expect(created.length, 'at least one of them answers 201').toBeGreaterThan(0);
  expect(new Set(created.map((r) => (r.json as Campaign).campaignId)).size, 'every 201 names the same campaign').toBe(1);
  const after = await writer.post('/campaigns', { body: input, idempotencyKey: key });
  expect(outcome(after), 'a later retry replays it').toEqual(outcome(created[0]!));
  expect((await campaignsNamed(api, input.name)).length, 'exactly one campaign exists').toBe(1);
});

test('IDEM-010 ERR-026 ERR-029 ERR-025 a 503 WRITES_PAUSED does not consume the key: the identical request sent after writes resume executes once', { tag: ['@hook:accounts', '@hook:faults', '@hook:actors', '@hook:events', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1);
  const input = await campaignInput(api);
  const campaignKey = newKey('paused');
  const approveKey = newKey('paused');
  const writer = api.as('campaigns:write');
  const review = api.as('creatives:review');
  const approvePath = `/creatives/${creatives[0]!.creativeId}/approve`;
  await setFaults(hooks, account, { writesPaused: true });
  const events = await markEvents(hooks, account);
  for (const paused of [await writer.post('/campaigns', { body: input, idempotencyKey: campaignKey }), await review.post(approvePath, { idempotencyKey: approveKey })]) {
    await expect(paused).toBeProblem(503, 'WRITES_PAUSED');
    expect(paused.header('retry-after'), paused.describe()).toMatch(/^\d+$/);
  }
  expect(await campaignsNamed(api, input.name), 'nothing was created').toEqual([]);
  expect(ok(await getCreative(api, creatives[0]!.creativeId)).approvedAt, 'nothing was approved').toBeNull();
  expect(await events.since()).toEqual([]);

  await setFaults(hooks, account, { writesPaused: false });
  const created = await writer.post('/campaigns', { body: input, idempotencyKey: campaignKey });
  expect(created, 'the same create after writes resumed executes').toHaveStatus(201);
  const approved = await review.post(approvePath, { idempotencyKey: approveKey });
  expect(approved, 'the same approve after writes resumed executes').toHaveStatus(200);
  expect((await campaignsNamed(api, input.name)).length).toBe(1);
  const recorded = await events.since();
  expect(recorded.map((e) => e.type).sort()).toEqual(['campaign.created', 'creative.approved']);
});

test('IDEM-013 AUTH-023 entitlement is re-checked on a replay too: a campaign PATCH replayed after the plan lost campaigns answers 401 ENTITLEMENT_LOST, and replays again once the plan has them', { tag: ['@hook:accounts', '@area:products', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { campaign } = await newCampaign(api, 1);
  const writer = api.as('campaigns:write');
  const key = newKey('lapse');
  const body = { name: uniqueName('renamed') };
  const send = () => writer.patch(`/campaigns/${encodeURIComponent(campaign.campaignId)}`, { body, idempotencyKey: key });
  const first = await send();
  expect(first).toHaveStatus(200);
  await setPlan(hooks, account, { campaigns: false });
  await expect(await send(), 'the replay after the plan lapsed').toBeProblem(401, 'ENTITLEMENT_LOST');
  await setPlan(hooks, account, { campaigns: true });
  const again = await send();
  expect(outcome(again), 'with the plan back, the stored answer replays').toEqual(outcome(first));
});

test('IDEM-015 a POST /campaigns replayed after the plan lost campaigns answers what a fresh create would (403 TIER_REQUIRED), and the stored 201 once the plan has them again', { tag: ['@hook:accounts', '@assumed', '@area:products', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const input = await campaignInput(api);
  const key = newKey('lapse');
  const writer = api.as('campaigns:write');
  const first = await writer.post('/campaigns', { body: input, idempotencyKey: key });
  expect(first).toHaveStatus(201);
  await setPlan(hooks, account, { campaigns: false });
  await expect(await writer.post('/campaigns', { body: input, idempotencyKey: key }), 'the replay after the plan lapsed').toBeProblem(403, 'TIER_REQUIRED');
  await setPlan(hooks, account, { campaigns: true });
  expect(outcome(await writer.post('/campaigns', { body: input, idempotencyKey: key }))).toEqual(outcome(first));
  expect((await campaignsNamed(api, input.name)).length, 'one campaign').toBe(1);
});

test('IDEM-014 a create refused by the plan (TIER_REQUIRED, LIMIT_EXCEEDED) stores nothing: the identical request under the same key is created once the plan allows it', { tag: ['@hook:accounts', '@assumed', '@area:products', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const live = (await allCampaigns(api)).length;
  const refusals: [string, Parameters<typeof setPlan>[2], Parameters<typeof setPlan>[2]][] = [
    ['TIER_REQUIRED', { campaigns: false }, { campaigns: true }],
    ['LIMIT_EXCEEDED', { campaignLimit: live }, { campaignLimit: live + 10 }],
  ];
  for (const [code, refuse, allow] of refusals) {
    const input = await campaignInput(api);
    const key = newKey('refused');
    const writer = api.as('campaigns:write');
    await setPlan(hooks, account, refuse);
    await expect(await writer.post('/campaigns', { body: input, idempotencyKey: key }), code).toBeProblem(403, code);
    await setPlan(hooks, account, allow);
    const created = await writer.post('/campaigns', { body: input, idempotencyKey: key });
    expect(created, `after ${code} was lifted`).toHaveStatus(201);
    expect(created.header('idempotent-replayed'), 'executed anew, not replayed').toBeUndefined();
    expect((await campaignsNamed(api, input.name)).length, `${code}: one campaign`).toBe(1);
  }
});

test('IDEM-012 a key is kept 24 hours per account: within them it replays, after them the request executes anew, and another account\'s same key is its own', { tag: ['@hook:accounts', '@hook:clock', '@assumed', '@area:products', '@area:campaigns'] }, async ({ api, apiFor, accountB, clock }) => {
  const input = await campaignInput(api);
  const key = newKey('retention');
  const writer = api.as('campaigns:write');
  const first = await writer.post('/campaigns', { body: input, idempotencyKey: key });
  expect(first).toHaveStatus(201);
  expect(first.header('idempotent-replayed')).toBeUndefined();

  const otherApi = apiFor(accountB);
  const otherInput = await campaignInput(otherApi);
  const other = await otherApi.as('campaigns:write').post('/campaigns', { body: otherInput, idempotencyKey: key });
  expect(other, 'the same key on another account executes there').toHaveStatus(201);

  await clock.advance(23 * 3600);
  const within = await writer.post('/campaigns', { body: input, idempotencyKey: key });
  expect(outcome(within), 'after 23 hours the key still replays').toEqual(outcome(first));
  expect(within.header('idempotent-replayed')).toBe('true');
  await clock.advance(2 * 3600);
  const after = await writer.post('/campaigns', { body: input, idempotencyKey: key });
  expect(after, 'after 25 hours the request executes anew').toHaveStatus(201);
  expect((after.json as Campaign).campaignId).not.toBe((first.json as Campaign).campaignId);
  expect((await campaignsNamed(api, input.name)).length).toBe(2);
});
