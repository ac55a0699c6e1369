/**
 * Limits and scopes: the base URL's versioned prefix (VER-001); the review and write scopes kept
 * apart (AUTH-015); what each plan allows (AUTH-020..022); the default limits and caps in
 * RateLimit-Policy and the counters shared by each write group (RATE-007, RATE-010..013, RATE-015,
 * RATE-017); caps counted per kind of traffic (RATE-018); a tie reported as the smaller limit
 * (RATE-022).
 *
 * Scenes: fresh accounts through /__mock (plan, per-account limit overrides), a campaign whose
 * creatives are generated with the dashboard action (`readyCampaign`). Limit checks use an unpaced
 * client and observe under `clock.still`.
 */
import { expect, skipWhenAbsent, test, type ApiClient, type ApiResponse } from '../fixtures/index.ts';
import { parseRateLimit, parseRateLimitPolicy } from '../checks/grammar.ts';
import { allAssets, allCreatives, newKey, pick, readyCampaign, uniqueName, type Asset, type Product } from '../fixtures/resources.ts';

function rateLimitOf(response: ApiResponse): { limit: number; remaining: number } {
  const parsed = parseRateLimit(response.header('ratelimit') ?? '');
  if (!parsed.ok) throw new Error(`RateLimit ${parsed.error}:\n${response.describe()}`);
  return parsed.value;
}

function policyQuotas(response: ApiResponse): number[] {
  const parsed = parseRateLimitPolicy(response.header('ratelimit-policy') ?? '');
  if (!parsed.ok) throw new Error(`RateLimit-Policy ${parsed.error}:\n${response.describe()}`);
  return parsed.value.map((p) => p.quota);
}

function policyItems(response: ApiResponse): string[] {
  return (response.header('ratelimit-policy') ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/** Two writes of one group in a row: both succeed, report the group limit of 60, and the second has one less left. */
function expectShared(first: ApiResponse, second: ApiResponse, what: string): void {
  for (const [n, response] of [['first', first], ['second', second]] as const) {
    expect(response.status >= 200 && response.status < 300, `${what}: the ${n} write succeeds:\n${response.describe()}`).toBe(true);
  }
  const a = rateLimitOf(first);
  const b = rateLimitOf(second);
  expect(a.limit, `${what}: the first write is closest to its group limit: RateLimit: ${first.header('ratelimit')}`).toBe(60);
  expect(b.limit, `${what}: the second write is closest to its group limit: RateLimit: ${second.header('ratelimit')}`).toBe(60);
  expect(b.remaining, `${what}: one counter of 60 for both (${first.header('ratelimit')} then ${second.header('ratelimit')})`).toBe(a.remaining - 1);
  for (const response of [first, second]) expect(policyItems(response), `${what}: RateLimit-Policy: ${response.header('ratelimit-policy')}`).toContain('60;w=60');
}

async function someAsset(api: ApiClient): Promise<Asset> {
  return pick(await allAssets(api), () => true, 'the account has no live asset');
}

// ---------------------------------------------------------------------------------------------
// Base URL

test('VER-001 the API answers under the base URL, which includes /api/public/v1; the same path without the prefix is not the API', async ({ api, account, target, request }) => {
  expect(target.basePath, `the base URL ${target.baseURL} includes the versioned prefix`).toMatch(/\/api\/public\/v1$/);
  await expect(await api.get('/products', { query: { limit: 1 } })).toHaveStatus(200);
  const bare = await request.get(`${target.origin}/products?limit=1`, { headers: { authorization: `Bearer ${account.key('read')}` }, failOnStatusCode: false, maxRedirects: 0 });
  if (target.localMock) {
    expect(bare.status(), `GET ${target.origin}/products without the prefix`).toBe(404);
  } else {
    // Another target may serve something else at its root; it must not be the API's product list.
    let body: unknown;
    try {
      body = JSON.parse(await bare.text());
    } catch {
      body = undefined;
    }
    const isList = bare.status() === 200 && typeof body === 'object' && body !== null && Array.isArray((body as { data?: unknown }).data);
    expect(isList, `GET ${target.origin}/products without the prefix answered the API's list`).toBe(false);
  }
});

// ---------------------------------------------------------------------------------------------
// Scopes and plans

test('AUTH-015 creatives:review and creatives:write are separate: each alone answers 403 API_TOKEN_SCOPE_DENIED on the other\'s operations', { tag: '@control' }, async ({ api, control, account }) => {
  const { creatives } = await readyCampaign(api, control, account, 1);
  const id = encodeURIComponent(creatives[0]!.creativeId);
  await expect(await api.as('creatives:review').patch(`/creatives/${id}`, { body: { metadata: { channel: 'conformance' } } }), 'PATCH with a creatives:review key').toBeProblem(403, 'API_TOKEN_SCOPE_DENIED');
  await expect(await api.as('creatives:write').post(`/creatives/${id}/approve`, { idempotencyKey: newKey('approve') }), 'approve with a creatives:write key').toBeProblem(403, 'API_TOKEN_SCOPE_DENIED');
  // The right scope is accepted: the 403s above are about the scope.
  await expect(await api.as('creatives:review').post(`/creatives/${id}/approve`, { idempotencyKey: newKey('approve') })).toHaveStatus(200);
});

test('AUTH-020 a read-only key works on the lowest plan', { tag: '@control' }, async ({ accounts, apiFor }) => {
  const account = await accounts.create({ plan: 'starter' });
  await expect(await apiFor(account, 'read').get('/products', { query: { limit: 1 } })).toHaveStatus(200);
});

test('AUTH-021 on the lowest plan, creatives:write, creatives:review and assets:write operations are not refused for the plan', { tag: '@control' }, async ({ api, control, account }) => {
  const { creatives } = await readyCampaign(api, control, account, 2);
  const asset = await someAsset(api);
  const plan = await control.send('PATCH', `/__mock/accounts/${encodeURIComponent(account.accountId!)}/plan`, { tier: 'starter' });
  expect(plan.status, plan.text).toBe(200);

  await expect(await api.get('/products', { query: { limit: 1 } }), 'a read on the starter plan').toHaveStatus(200);
  const [one, two] = creatives.map((c) => encodeURIComponent(c.creativeId));
  await expect(await api.as('creatives:write').patch(`/creatives/${one}`, { body: { metadata: { channel: 'conformance' } } }), 'creatives:write PATCH on starter').toHaveStatus(200);
  await expect(await api.as('creatives:review').post(`/creatives/${two}/approve`, { idempotencyKey: newKey('approve') }), 'creatives:review approve on starter').toHaveStatus(200);
  const patched = await api.as('assets:write').patch(`/assets/${encodeURIComponent(asset.assetId)}`, { body: { favorited: !asset.favorited } });
  await expect(patched, 'assets:write PATCH on starter').toHaveStatus(200);
  expect((patched.json as Asset).favorited).toBe(!asset.favorited);
});

test('AUTH-022 campaigns:write needs a plan with campaigns: POST /campaigns on starter, or with campaigns=false, answers 403 TIER_REQUIRED', { tag: '@control' }, async ({ accounts, apiFor, control }) => {
  const starter = await accounts.create({ plan: 'starter' });
  const noCampaigns = await accounts.create();
  const changed = await control.send('PATCH', `/__mock/accounts/${encodeURIComponent(noCampaigns.accountId!)}/plan`, { features: { campaigns: false } });
  expect(changed.status, changed.text).toBe(200);
  for (const [what, account] of [['starter', starter], ['campaigns=false', noCampaigns]] as const) {
    const api = apiFor(account);
    const products = await api.get('/products', { query: { limit: 1 } });
    expect(products).toHaveStatus(200);
    const product = (products.json as { data: Product[] }).data[0];
    skipWhenAbsent(product === undefined, 'the account has no product');
    const body = { name: uniqueName('campaign'), brandId: product!.brandId, productIds: [product!.productId] };
    await expect(await api.as('campaigns:write').post('/campaigns', { body, idempotencyKey: newKey('campaign') }), `POST /campaigns on ${what}`).toBeProblem(403, 'TIER_REQUIRED');
  }
});

// ---------------------------------------------------------------------------------------------
// Default limits and caps

test('RATE-007 RATE-015 a read-plane GET lists its 200/min limit and the caps of 1000/min per account and 2000/min per IP', { tag: '@exclusive' }, async ({ api }) => {
  const response = await api.get('/products', { query: { limit: 1 } });
  expect(response).toHaveStatus(200);
  const items = policyItems(response);
  for (const quota of ['200;w=60', '1000;w=60', '2000;w=60']) expect(items, `RateLimit-Policy: ${response.header('ratelimit-policy')}`).toContain(quota);
  const reported = rateLimitOf(response);
  expect(reported.limit, `a fresh key is closest to the group limit: RateLimit: ${response.header('ratelimit')}`).toBe(200);
});

test('RATE-010 RATE-017 approve and reject share one 60/min counter; a write lists the caps of 300/min per account and 600/min per IP', { tag: ['@control', '@exclusive'] }, async ({ api, control, account }) => {
  const { creatives } = await readyCampaign(api, control, account, 2);
  const review = api.as('creatives:review').unpaced();
  const [one, two] = creatives.map((c) => encodeURIComponent(c.creativeId));
  const approved = await review.post(`/creatives/${one}/approve`, { idempotencyKey: newKey('approve') });
  const rejected = await review.post(`/creatives/${two}/reject`, { idempotencyKey: newKey('reject') });
  expectShared(approved, rejected, 'approve then reject');
  for (const response of [approved, rejected]) {
    for (const quota of ['300;w=60', '600;w=60']) expect(policyItems(response), `RateLimit-Policy: ${response.header('ratelimit-policy')}`).toContain(quota);
  }
});

test('RATE-011 RATE-017 PATCH and DELETE of creatives share one 60/min counter', { tag: ['@control', '@exclusive'] }, async ({ api, control, account }) => {
  const { creatives } = await readyCampaign(api, control, account, 2);
  const writer = api.as('creatives:write').unpaced();
  const [one, two] = creatives.map((c) => encodeURIComponent(c.creativeId));
  const patched = await writer.patch(`/creatives/${one}`, { body: { metadata: { channel: 'conformance' } } });
  const deleted = await writer.delete(`/creatives/${two}`);
  expectShared(patched, deleted, 'creative PATCH then DELETE');
  for (const quota of ['300;w=60', '600;w=60']) expect(policyItems(deleted), `RateLimit-Policy: ${deleted.header('ratelimit-policy')}`).toContain(quota);
});

test('RATE-012 RATE-017 PATCH and archive of assets share one 60/min counter', { tag: ['@control', '@exclusive'] }, async ({ api }) => {
  const asset = await someAsset(api);
  const writer = api.as('assets:write').unpaced();
  const path = `/assets/${encodeURIComponent(asset.assetId)}`;
  const patched = await writer.patch(path, { body: { favorited: !asset.favorited } });
  const archived = await writer.post(`${path}/archive`, { idempotencyKey: newKey('archive') });
  expectShared(patched, archived, 'asset PATCH then archive');
  for (const quota of ['300;w=60', '600;w=60']) expect(policyItems(archived), `RateLimit-Policy: ${archived.header('ratelimit-policy')}`).toContain(quota);
});

test('RATE-013 RATE-017 POST and PATCH of campaigns share one 60/min counter', { tag: ['@control', '@exclusive'] }, async ({ api }) => {
  const products = await api.get('/products', { query: { limit: 1 } });
  expect(products).toHaveStatus(200);
  const product = (products.json as { data: Product[] }).data[0];
  skipWhenAbsent(product === undefined, 'the account has no product');
  const writer = api.as('campaigns:write').unpaced();
  const created = await writer.post('/campaigns', { body: { name: uniqueName('campaign'), brandId: product!.brandId, productIds: [product!.productId] }, idempotencyKey: newKey('campaign') });
  expect(created).toHaveStatus(201);
  const campaignId = (created.json as { campaignId: string }).campaignId;
  const patched = await writer.patch(`/campaigns/${encodeURIComponent(campaignId)}`, { body: { name: uniqueName('renamed') } });
  expectShared(created, patched, 'campaign POST then PATCH');
  for (const quota of ['300;w=60', '600;w=60']) expect(policyItems(patched), `RateLimit-Policy: ${patched.header('ratelimit-policy')}`).toContain(quota);
});

test('RATE-003 a review, a creative write, an asset write and a campaign write refused with 429 answer plain text, not JSON', { tag: '@control' }, async ({ accounts, apiFor }) => {
  // Quotas of 0 refuse every request of those groups, whatever the window, and a refusal consumes
  // nothing: no clock sensitivity, nothing changes.
  const account = await accounts.create({ limits: { 'group:creative_reviews': 0, 'group:creative_writes': 0, 'group:asset_writes': 0, 'group:campaign_writes': 0 } });
  const reader = apiFor(account);
  const creative = pick(await allCreatives(reader), () => true, 'the account has no readable creative');
  const asset = await someAsset(reader);
  const product = (await reader.get('/products', { query: { limit: 1 } })).json as { data: Product[] };
  const c = encodeURIComponent(creative.creativeId);
  const writes: [string, Promise<ApiResponse>][] = [
    ['approve', apiFor(account, 'creatives:review').unpaced().post(`/creatives/${c}/approve`, { idempotencyKey: newKey('approve') })],
    ['creative PATCH', apiFor(account, 'creatives:write').unpaced().patch(`/creatives/${c}`, { body: { metadata: { cf: '1' } } })],
    ['asset PATCH', apiFor(account, 'assets:write').unpaced().patch(`/assets/${encodeURIComponent(asset.assetId)}`, { body: { favorited: !asset.favorited } })],
    ['campaign POST', apiFor(account, 'campaigns:write').unpaced().post('/campaigns', { body: { name: uniqueName('limited'), brandId: product.data[0]!.brandId, productIds: [product.data[0]!.productId] }, idempotencyKey: newKey('campaign') })],
  ];
  for (const [what, pending] of writes) {
    const response = await pending;
    expect(response, what).toHaveStatus(429);
    expect(response.contentType, `${what}: ${response.describe()}`).toBe('text/plain');
    expect(() => JSON.parse(response.text), `${what}: the body is not JSON`).toThrow();
  }
});

test('RATE-011 PATCH, DELETE and undelete of creatives spend one counter of 60: the 61st creative write in a window is refused', { tag: '@control' }, async ({ accounts, apiFor, control, clock }) => {
  // Each attempt (the shared clock may move, and the attempt is made again) has a fresh account:
  // a fresh key, so a fresh counter, and a creative of its own.
  const seen = await clock.still(async () => {
    const account = await accounts.create();
    const { creatives } = await readyCampaign(apiFor(account), control, account, 1);
    const id = encodeURIComponent(creatives[0]!.creativeId);
    const writer = apiFor(account, 'creatives:write').unpaced();
    const answers: ApiResponse[] = [await writer.delete(`/creatives/${id}`), await writer.post(`/creatives/${id}/undelete`, { idempotencyKey: newKey('undelete') })];
    for (let i = answers.length; i < 60; i += 1) answers.push(await writer.patch(`/creatives/${id}`, { body: { metadata: { cf_count: String(i) } } }));
    answers.push(await writer.post(`/creatives/${id}/undelete`, { idempotencyKey: newKey('undelete') }));
    return answers;
  });
  seen.slice(0, 60).forEach((r, i) => expect(r, `creative write ${i + 1} of 60`).toHaveStatus(200));
  expect(seen.slice(0, 3).map((r) => ({ limit: rateLimitOf(r).limit, remaining: rateLimitOf(r).remaining })), 'DELETE, undelete and PATCH count down one limit of 60').toEqual([
    { limit: 60, remaining: 59 },
    { limit: 60, remaining: 58 },
    { limit: 60, remaining: 57 },
  ]);
  expect(seen[60]!, 'the 61st creative write (an undelete) in the window').toHaveStatus(429);
  expect(rateLimitOf(seen[60]!)).toMatchObject({ limit: 60, remaining: 0 });
});

test('RATE-018 RATE-016 the generation cap is counted apart from reads and writes: with it exhausted, a read and a write pass; with the read cap exhausted, generation reads pass', { tag: '@control' }, async ({ accounts, apiFor, clock }) => {
  const cap = 2;
  const seen = await clock.still(async () => {
    const generation = await accounts.create({ limits: { 'account:generation': cap } });
    const runs = apiFor(generation, 'runs:read').unpaced();
    const gen: ApiResponse[] = [];
    for (let i = 0; i <= cap; i += 1) gen.push(await runs.get('/presets', { query: { limit: 1 } }));
    const read = await apiFor(generation).unpaced().get('/products', { query: { limit: 1 } });
    const asset = (await allAssets(apiFor(generation)))[0];
    const write = asset === undefined ? undefined : await apiFor(generation, 'assets:write').unpaced().patch(`/assets/${encodeURIComponent(asset.assetId)}`, { body: { favorited: !asset.favorited } });
    const reads = await accounts.create({ limits: { 'account:read': cap } });
    const reader = apiFor(reads).unpaced();
    const plain: ApiResponse[] = [];
    for (let i = 0; i <= cap; i += 1) plain.push(await reader.get('/products', { query: { limit: 1 } }));
    const genRead = await apiFor(reads, 'runs:read').unpaced().get('/presets', { query: { limit: 1 } });
    return { gen, read, write, plain, genRead };
  });
  seen.gen.slice(0, cap).forEach((r, i) => expect(r, `generation read ${i + 1} under a generation cap of ${cap}`).toHaveStatus(200));
  expect(seen.gen[cap]!, 'over the generation cap').toHaveStatus(429);
  expect(seen.read, 'a read-plane GET is not counted against the generation cap').toHaveStatus(200);
  expect(policyQuotas(seen.read)).not.toContain(cap);
  expect(seen.write, 'a write is not counted against the generation cap').toBeDefined();
  expect(seen.write!).toHaveStatus(200);
  seen.plain.slice(0, cap).forEach((r, i) => expect(r, `read ${i + 1} under a read cap of ${cap}`).toHaveStatus(200));
  expect(seen.plain[cap]!, 'over the read cap').toHaveStatus(429);
  expect(seen.genRead, 'a generation read is not counted against the read cap').toHaveStatus(200);
  expect(policyQuotas(seen.genRead)).not.toContain(cap);
});

// ---------------------------------------------------------------------------------------------
// Caps per kind of traffic; ties

test('RATE-018 caps are counted per kind of traffic: with the account read cap exhausted, a write in the same window succeeds', { tag: ['@control', '@exclusive'] }, async ({ accounts, apiFor, clock }) => {
  const cap = 3;
  const { reads, write } = await clock.still(async () => {
    const account = await accounts.create({ limits: { 'account:read': cap } });
    const reader = apiFor(account, 'read').unpaced();
    const reads: ApiResponse[] = [await reader.get('/assets', { query: { limit: 1 } })];
    const asset = (reads[0]!.json as { data?: Asset[] } | undefined)?.data?.[0];
    for (let i = 1; i <= cap; i += 1) reads.push(await reader.get('/products', { query: { limit: 1 } }));
    const write = asset === undefined ? undefined : await apiFor(account, 'assets:write').unpaced().patch(`/assets/${encodeURIComponent(asset.assetId)}`, { body: { favorited: !asset.favorited } });
    return { reads, write };
  });
  skipWhenAbsent(write === undefined, 'the account has no live asset');
  // a control plane that ignores this part of spec/mock-control.yaml fails the test
  expect(!reads.some((r) => r.status === 429 || policyQuotas(r).includes(cap)), 'the mock does not apply `limits` overrides').toBe(false);
  reads.slice(0, cap).forEach((r, i) => expect(r, `read ${i + 1} under an account read cap of ${cap}`).toHaveStatus(200));
  expect(reads[cap]!, `read ${cap + 1} over the account read cap`).toHaveStatus(429);
  expect(write!, 'a write in the same window is not counted against the read cap').toHaveStatus(200);
  expect(policyQuotas(write!), `the write is not checked against the read cap: ${write!.header('ratelimit-policy')}`).not.toContain(cap);
});

test('RATE-022 when two limits are equally close to exhaustion, RateLimit reports the smaller one', { tag: ['@control', '@exclusive'] }, async ({ accounts, apiFor, clock }) => {
  const response = await clock.still(async () => {
    const account = await accounts.create({ limits: { 'group:read': 3, 'account:read': 4 } });
    // Another key of the account puts the account counter one ahead of the read key's group counter.
    const other = await apiFor(account, 'runs:read').unpaced().get('/products', { query: { limit: 1 } });
    expect(other).toHaveStatus(200);
    return apiFor(account, 'read').unpaced().get('/products', { query: { limit: 1 } });
  });
  expect(response).toHaveStatus(200);
  const quotas = policyQuotas(response);
  // a control plane that ignores this part of spec/mock-control.yaml fails the test
  expect(!quotas.includes(3) || !quotas.includes(4), `the mock does not apply \`limits\` overrides: ${response.header('ratelimit-policy')}`).toBe(false);
  // group:read 3 - 1 = 2 left; account:read 4 - 2 = 2 left: a tie, reported as the smaller limit.
  expect(rateLimitOf(response), `RateLimit: ${response.header('ratelimit')}`).toEqual(expect.objectContaining({ limit: 3, remaining: 2 }));
});
