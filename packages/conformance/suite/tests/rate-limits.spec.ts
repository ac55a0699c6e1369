/**
 * Rate limits (RATE-*), all of them: the RateLimit and RateLimit-Policy headers on every response,
 * errors included (RATE-019, RATE-020, RATE-024); the default per-key group limits and account/IP
 * caps in RateLimit-Policy, and the counters each write group shares (RATE-007, RATE-010..013,
 * RATE-015, RATE-017); a request over its limit: a plain-text read-plane 429 (RATE-003), a
 * problem+json generation-plane 429 (RATE-001), Retry-After and remaining=0 (RATE-021, RATE-023,
 * RATE-026); per-key budgets (RATE-005); caps counted per kind of traffic (RATE-016, RATE-018); a
 * tie reported as the smaller limit (RATE-022).
 *
 * Scenes, through the hooks only: fresh accounts with lowered quotas (`rateLimits` of the accounts
 * hook), a campaign whose creatives the dashboard generates (the actors hook, `readyCampaign`).
 * Limit checks use an unpaced client and observe under `clock.still`, judging only what happened
 * inside one window of the account's own clock. No test here needs the target to itself (D156): an
 * account's counters are its own, and the per-IP caps every client shares are read from the policy,
 * never counted on.
 */
import { caseWhenPresent, expect, needsOperations, skipWhenAbsent, test, unjudged, type ApiClient, type ApiResponse } from '../fixtures/index.ts';
import { parseRateLimit, parseRateLimitPolicy } from '../checks/grammar.ts';
import { operations } from '../../../contract/spec/contract.ts';
import { rateLimits } from '../../../contract/spec/tables.ts';
import { allAssets, allCreatives, newKey, pick, readyCampaign, uniqueName, type Asset, type Product } from '../fixtures/resources.ts';

function rateLimitOf(response: ApiResponse) {
  const parsed = parseRateLimit(response.header('ratelimit') ?? '');
  if (!parsed.ok) throw new Error(`RateLimit ${parsed.error}:\n${response.describe()}`);
  return parsed.value;
}

function policyQuotas(response: ApiResponse): number[] {
  const parsed = parseRateLimitPolicy(response.header('ratelimit-policy') ?? '');
  if (!parsed.ok) throw new Error(`RateLimit-Policy ${parsed.error}:\n${response.describe()}`);
  return parsed.value.map((p) => p.quota);
}

/** `count` requests in a row, without pacing. */
async function burst(api: ApiClient, path: string, count: number): Promise<ApiResponse[]> {
  const responses: ApiResponse[] = [];
  for (let i = 0; i < count; i += 1) responses.push(await api.unpaced().get(path, { query: { limit: 1 } }));
  return responses;
}

/** Whether any response shows the lowered quota, or a 429: else the mock ignored the override. */
function overrideApplied(responses: readonly ApiResponse[], quota: number): boolean {
  return responses.some((r) => r.status === 429 || policyQuotas(r).includes(quota));
}

/**
 * Success number `n` (1-based) under a limit of `quota`: RateLimit reports that limit with
 * `quota - n` left, or another limit that is at least as close to exhaustion.
 */
function expectCountdown(response: ApiResponse, quota: number, n: number): void {
  expect(response).toHaveStatus(200);
  const reported = rateLimitOf(response);
  const left = quota - n;
  const ok = (reported.limit === quota && reported.remaining === left) || reported.remaining < left;
  expect(ok, `request ${n} under a limit of ${quota}: RateLimit: ${response.header('ratelimit')} (expected limit=${quota}, remaining=${left}, or a closer limit)`).toBe(true);
  expect(policyQuotas(response), `RateLimit-Policy lists every limit checked: ${response.header('ratelimit-policy')}`).toContain(quota);
}

function policyItems(response: ApiResponse): string[] {
  return (response.header('ratelimit-policy') ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/**
 * Two writes of one group on an account with the default limits: both succeed, and each lists the
 * group's 60/min limit and the write caps of 300/min per account and 600/min per IP (RATE-017).
 */
function expectDefaults(first: ApiResponse, second: ApiResponse, what: string, firstStatus = 200): void {
  expect(first, `${what}: the first write`).toHaveStatus(firstStatus);
  expect(second, `${what}: the second write`).toHaveStatus(200);
  for (const response of [first, second]) {
    for (const quota of ['60;w=60', '300;w=60', '600;w=60']) expect(policyItems(response), `${what}: RateLimit-Policy: ${response.header('ratelimit-policy')}`).toContain(quota);
  }
}

/**
 * Three writes of one group on a fresh account whose group quota is SHARED_QUOTA: the first two (one
 * of each operation) pass and count down one counter, and the third is refused with that limit.
 * Operations counted apart would leave the third a budget.
 */
function expectOneCounter(seen: readonly [ApiResponse, ApiResponse, ApiResponse], what: string): void {
  const [first, second, third] = seen;
  expect(first.status >= 200 && first.status < 300, `${what}: the first write succeeds:\n${first.describe()}`).toBe(true);
  expect(second.status >= 200 && second.status < 300, `${what}: the second write succeeds:\n${second.describe()}`).toBe(true);
  expect(policyQuotas(first), `${what}: the rate-limits hook lowered the group to ${SHARED_QUOTA}: RateLimit-Policy: ${first.header('ratelimit-policy')}`).toContain(SHARED_QUOTA);
  expect([rateLimitOf(first), rateLimitOf(second)].map((r) => r.remaining), `${what}: one counter of ${SHARED_QUOTA} for both (${first.header('ratelimit')} then ${second.header('ratelimit')})`).toEqual([1, 0]);
  expect(third, `${what}: the third write of the group finds the shared counter spent`).toHaveStatus(429);
  expect(rateLimitOf(third), `${what}: the 429 reports the group limit: RateLimit: ${third.header('ratelimit')}`).toMatchObject({ limit: SHARED_QUOTA, remaining: 0 });
}

async function someAsset(api: ApiClient): Promise<Asset> {
  return pick(await allAssets(api), () => true, 'the account has no live asset');
}

async function someProduct(api: ApiClient): Promise<Product> {
  const products = await api.get('/products', { query: { limit: 1 } });
  expect(products).toHaveStatus(200);
  return pick((products.json as { data: Product[] }).data, () => true, 'the account has no product');
}

/** How many times a scene spoiled by a shared per-IP cap is made again before it is left unjudged. */
const SHARED_CAP_ATTEMPTS = 3;

/**
 * Whether, in a burst on one fresh key counting down a group limit of `groupLimit`, the per-IP cap of
 * its traffic (the document's default, shared with every client of the address) was ever reported
 * closer to exhaustion than the key's own counter could be: then the burst says nothing of the key's
 * counter. Only that cap's quota excuses an answer; any other limit reported is judged.
 */
function sharedCapCloser(answers: readonly ApiResponse[], groupLimit: number, traffic: string): string | undefined {
  const ipCap = rateLimits.caps[traffic]?.ip;
  for (const [index, response] of answers.entries()) {
    const parsed = parseRateLimit(response.header('ratelimit') ?? '');
    if (!parsed.ok || parsed.value.limit !== ipCap || ipCap === groupLimit) continue;
    if (parsed.value.remaining < Math.max(groupLimit - index - 1, 0) || response.status === 429) return `answer ${index + 1}: RateLimit: ${response.header('ratelimit')}`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Headers on every response

test('RATE-020 RATE-019 RATE-024 every response carries RateLimit and RateLimit-Policy, errors included', { tag: ['@area:products', '@area:presets'] }, async ({ api }) => {
  const responses: [string, ApiResponse][] = [
    ['200', await api.get('/products', { query: { limit: 1 } })],
    ['404', await api.get('/products/prd_conformance_unknown_0000')],
    ['401', await api.get('/products', { authorization: null })],
    ['403', await api.get('/presets')],
  ];
  for (const [status, response] of responses) {
    expect(response, `the ${status} case`).toHaveStatus(Number(status));
    expect(response.header('ratelimit'), `RateLimit on the ${status}`).toMatch(/limit=\d+/);
    expect(response.header('ratelimit-policy'), `RateLimit-Policy on the ${status}`).toMatch(/^\d+;w=60/);
    const quotas = policyQuotas(response);
    expect(new Set(quotas).size, `identical limits are listed once: ${response.header('ratelimit-policy')}`).toBe(quotas.length);
  }
});

// ---------------------------------------------------------------------------------------------
// Default limits and caps; counters shared by a write group
//
// The default quotas and caps are judged from RateLimit-Policy, which lists every limit checked
// whatever others spent of it. That two operations share one counter is judged on a fresh account
// whose group quota the rate-limits hook lowers to 2 (D155): one write of each spends it, and the
// third write of the group is refused with that limit. Nothing another client does can spend or
// mask an account's own per-key counter, so none of these needs the target to itself; the per-IP
// caps (shared by every client of the address) are only read from the policy.

/** The quota the sharing scenes lower a group to: one write of each operation spends it. */
const SHARED_QUOTA = 2;

test('RATE-007 RATE-015 a read-plane GET lists its 200/min limit and the caps of 1000/min per account and 2000/min per IP', { tag: ['@area:products'] }, async ({ api }) => {
  const response = await api.get('/products', { query: { limit: 1 } });
  expect(response).toHaveStatus(200);
  const items = policyItems(response);
  for (const quota of ['200;w=60', '1000;w=60', '2000;w=60']) expect(items, `RateLimit-Policy: ${response.header('ratelimit-policy')}`).toContain(quota);
  // RateLimit reports the group limit, or a limit closer to exhaustion than the group counter can be
  // after this read (an account or IP cap other clients of the target spent).
  const reported = rateLimitOf(response);
  expect(reported.limit === 200 || reported.remaining < 199, `the group limit of 200, or a closer one: RateLimit: ${response.header('ratelimit')}`).toBe(true);
});

test('RATE-010 RATE-017 approve and reject share one 60/min counter; a write lists the caps of 300/min per account and 600/min per IP', { tag: ['@hook:accounts', '@hook:actors', '@hook:rate-limits', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, apiFor, hooks, account, accounts, clock }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 2);
  const review = api.as('creatives:review').unpaced();
  const [one, two] = creatives.map((c) => encodeURIComponent(c.creativeId));
  const approved = await review.post(`/creatives/${one}/approve`, { idempotencyKey: newKey('approve') });
  const rejected = await review.post(`/creatives/${two}/reject`, { idempotencyKey: newKey('reject') });
  expectDefaults(approved, rejected, 'approve then reject');

  const seen = await clock.still(async () => {
    const limited = await accounts.create({ rateLimits: { 'group:creative_reviews': SHARED_QUOTA } });
    const { creatives: mine } = await readyCampaign(apiFor(limited), hooks, limited, 2);
    const reviewer = apiFor(limited, 'creatives:review').unpaced();
    const [a, b] = mine.map((c) => encodeURIComponent(c.creativeId));
    return [
      await reviewer.post(`/creatives/${a}/approve`, { idempotencyKey: newKey('approve') }),
      await reviewer.post(`/creatives/${b}/reject`, { idempotencyKey: newKey('reject') }),
      await reviewer.post(`/creatives/${a}/approve`, { idempotencyKey: newKey('approve') }),
    ] as const;
  });
  expectOneCounter(seen, 'approve, reject, approve');
});

test('RATE-011 RATE-017 PATCH and DELETE of creatives share one 60/min counter', { tag: ['@hook:accounts', '@hook:actors', '@hook:rate-limits', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, apiFor, hooks, account, accounts, clock }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 2);
  const writer = api.as('creatives:write').unpaced();
  const [one, two] = creatives.map((c) => encodeURIComponent(c.creativeId));
  const patched = await writer.patch(`/creatives/${one}`, { body: { metadata: { channel: 'conformance' } } });
  const deleted = await writer.delete(`/creatives/${two}`);
  expectDefaults(patched, deleted, 'creative PATCH then DELETE');

  const seen = await clock.still(async () => {
    const limited = await accounts.create({ rateLimits: { 'group:creative_writes': SHARED_QUOTA } });
    const { creatives: mine } = await readyCampaign(apiFor(limited), hooks, limited, 2);
    const w = apiFor(limited, 'creatives:write').unpaced();
    const [a, b] = mine.map((c) => encodeURIComponent(c.creativeId));
    return [await w.patch(`/creatives/${a}`, { body: { metadata: { channel: 'conformance' } } }), await w.delete(`/creatives/${b}`), await w.patch(`/creatives/${a}`, { body: { metadata: { channel: 'again' } } })] as const;
  });
  expectOneCounter(seen, 'creative PATCH, DELETE, PATCH');
});

test('RATE-012 RATE-017 PATCH and archive of assets share one 60/min counter', { tag: ['@hook:accounts', '@hook:rate-limits', '@area:assets'] }, async ({ api, apiFor, accounts, clock }) => {
  const asset = await someAsset(api);
  const writer = api.as('assets:write').unpaced();
  const path = `/assets/${encodeURIComponent(asset.assetId)}`;
  const patched = await writer.patch(path, { body: { favorited: !asset.favorited } });
  const archived = await writer.post(`${path}/archive`, { idempotencyKey: newKey('archive') });
  expectDefaults(patched, archived, 'asset PATCH then archive');

  const seen = await clock.still(async () => {
    const limited = await accounts.create({ rateLimits: { 'group:asset_writes': SHARED_QUOTA } });
    const [a, b] = (await allAssets(apiFor(limited))).slice(0, 2);
    skipWhenAbsent(b === undefined, 'a fresh account has fewer than two live assets');
    const w = apiFor(limited, 'assets:write').unpaced();
    const at = (x: Asset) => `/assets/${encodeURIComponent(x.assetId)}`;
    return [await w.patch(at(a!), { body: { favorited: !a!.favorited } }), await w.post(`${at(b!)}/archive`, { idempotencyKey: newKey('archive') }), await w.patch(at(a!), { body: { favorited: a!.favorited } })] as const;
  });
  expectOneCounter(seen, 'asset PATCH, archive, PATCH');
});

test('RATE-013 RATE-017 POST and PATCH of campaigns share one 60/min counter', { tag: ['@hook:accounts', '@hook:rate-limits', '@area:products', '@area:campaigns'] }, async ({ api, apiFor, accounts, clock }) => {
  const product = await someProduct(api);
  const writer = api.as('campaigns:write').unpaced();
  const created = await writer.post('/campaigns', { body: { name: uniqueName('campaign'), brandId: product.brandId, productIds: [product.productId] }, idempotencyKey: newKey('campaign') });
  expect(created).toHaveStatus(201);
  const campaignId = (created.json as { campaignId: string }).campaignId;
  const patched = await writer.patch(`/campaigns/${encodeURIComponent(campaignId)}`, { body: { name: uniqueName('renamed') } });
  expectDefaults(created, patched, 'campaign POST then PATCH', 201);

  const seen = await clock.still(async () => {
    const limited = await accounts.create({ rateLimits: { 'group:campaign_writes': SHARED_QUOTA } });
    const mine = await someProduct(apiFor(limited));
    const w = apiFor(limited, 'campaigns:write').unpaced();
    const made = await w.post('/campaigns', { body: { name: uniqueName('campaign'), brandId: mine.brandId, productIds: [mine.productId] }, idempotencyKey: newKey('campaign') });
    const id = encodeURIComponent((made.json as { campaignId?: string } | undefined)?.campaignId ?? 'cmp_conformance_unknown_0000');
    return [made, await w.patch(`/campaigns/${id}`, { body: { name: uniqueName('renamed') } }), await w.patch(`/campaigns/${id}`, { body: { name: uniqueName('again') } })] as const;
  });
  expectOneCounter(seen, 'campaign POST, PATCH, PATCH');
});

// ---------------------------------------------------------------------------------------------
// A request over its limit

test('RATE-003 RATE-021 RATE-023 RATE-026 a read over its limit is a 429 of the documented type (plain text in 1.9.0) with Retry-After and remaining=0, and the read after Retry-After succeeds', { tag: ['@hook:accounts', '@hook:rate-limits', '@hook:clock', '@area:products'] }, async ({ accounts, apiFor, clock }) => {
  const quota = 3;
  const observed = await clock.still(async () => {
    const account = await accounts.create({ rateLimits: { 'group:read': quota } });
    const api = apiFor(account);
    return { api, responses: await burst(api, '/products', quota + 1) };
  });
  const { api, responses } = observed;
  // a rate-limits hook that ignores the quota fails the test (the scene did not happen)
  expect(!overrideApplied(responses, quota), 'the rate-limits hook (rateLimits of POST /accounts) did not apply the quota').toBe(false);

  responses.slice(0, quota).forEach((response, index) => expectCountdown(response, quota, index + 1));
  const limited = responses[quota]!;
  expect(limited).toHaveStatus(429);
  // The media type the document declares (text/plain in 1.9.0; problem+json in the pending version).
  const declared = operations.get('listProducts')!.responses['429']!.contentTypes;
  expect(declared, 'one media type for the read-plane 429').toHaveLength(1);
  expect(limited.contentType, limited.describe()).toBe(declared[0]);
  if (declared[0] === 'text/plain') expect(() => JSON.parse(limited.text), 'the read-plane 429 body is not JSON').toThrow();
  else await expect(limited).toBeProblem(429, 'RATE_LIMITED');
  const retryAfter = limited.header('retry-after');
  expect(retryAfter, limited.describe()).toMatch(/^\d+$/);
  const reported = rateLimitOf(limited);
  expect(reported.remaining).toBe(0);
  expect(policyQuotas(limited)).toContain(reported.limit);

  await clock.advance(Number(retryAfter));
  const after = await api.unpaced().get('/products', { query: { limit: 1 } });
  expect(after, `after waiting Retry-After (${retryAfter} s) the next read succeeds`).toHaveStatus(200);
});

test('RATE-005 two keys of one account have separate per-key budgets', { tag: ['@hook:accounts', '@hook:rate-limits', '@area:products'] }, async ({ accounts, apiFor, clock }) => {
  const quota = 3;
  const { responses, other } = await clock.still(async () => {
    const account = await accounts.create({ rateLimits: { 'group:read': quota } });
    const responses = await burst(apiFor(account, 'read'), '/products', quota + 1);
    const other = await apiFor(account, 'runs:read').unpaced().get('/products', { query: { limit: 1 } });
    return { responses, other };
  });
  // a rate-limits hook that ignores the quota fails the test (the scene did not happen)
  expect(!overrideApplied(responses, quota), 'the rate-limits hook (rateLimits of POST /accounts) did not apply the quota').toBe(false);
  expect(responses[quota]!).toHaveStatus(429);
  expectCountdown(other, quota, 1);
});

test('RATE-001 RATE-023 RATE-026 a generation-plane 429 is problem+json RATE_LIMITED with Retry-After', { tag: ['@hook:accounts', '@hook:rate-limits', '@area:presets'] }, async ({ accounts, apiFor, clock, target }) => {
  needsOperations(target, 'listPresets');
  const quota = 1;
  const responses = await clock.still(async () => {
    const account = await accounts.create({ rateLimits: { 'group:generation_read': quota } });
    return burst(apiFor(account, 'runs:read'), '/presets', quota + 1);
  });
  // a rate-limits hook that ignores the quota fails the test (the scene did not happen)
  expect(!overrideApplied(responses, quota), 'the rate-limits hook (rateLimits of POST /accounts) did not apply the quota').toBe(false);
  expectCountdown(responses[0]!, quota, 1);
  const limited = responses[quota]!;
  await expect(limited).toBeProblem(429, 'RATE_LIMITED');
  expect(limited.header('retry-after'), limited.describe()).toMatch(/^\d+$/);
  expect(rateLimitOf(limited).remaining).toBe(0);
});

test('RATE-021 waiting the reported reset after remaining=0 restores the budget (the suite paces itself on it)', { tag: ['@hook:accounts', '@hook:rate-limits', '@area:products'] }, async ({ accounts, apiFor }) => {
  const quota = 2;
  const account = await accounts.create({ rateLimits: { 'group:read': quota } });
  const api = apiFor(account);
  const responses: ApiResponse[] = [];
  for (let i = 0; i < quota * 3; i += 1) responses.push(await api.get('/products', { query: { limit: 1 } }));
  // a rate-limits hook that ignores the quota fails the test (the scene did not happen)
  expect(!overrideApplied(responses, quota), 'the rate-limits hook (rateLimits of POST /accounts) did not apply the quota').toBe(false);
  for (const [index, response] of responses.entries()) {
    expect(response, `paced read ${index + 1}`).toHaveStatus(200);
    expect(response.retriedAfter, `paced read ${index + 1} needed no retry: waiting reset seconds after remaining=0 is enough`).toBeUndefined();
  }
  expect(responses.some((r) => rateLimitOf(r).remaining === 0), 'the budget of 2 ran out along the way').toBe(true);
});

test('RATE-003 a review, a creative write, an asset write and a campaign write refused with 429 answer plain text, not JSON', { tag: ['@hook:accounts', '@hook:rate-limits', '@area:products', '@area:creatives', '@area:campaigns', '@area:assets'] }, async ({ accounts, apiFor }) => {
  // Quotas of 0 refuse every request of those groups, whatever the window, and a refusal consumes
  // nothing: no clock sensitivity, nothing changes.
  const account = await accounts.create({ rateLimits: { 'group:creative_reviews': 0, 'group:creative_writes': 0, 'group:asset_writes': 0, 'group:campaign_writes': 0 } });
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
  // Every answer first: a failed expectation must not leave a request in flight, whose failure
  // would then escape the test and stop the worker.
  const responses = await Promise.all(writes.map(([, pending]) => pending));
  for (const [i, [what]] of writes.entries()) {
    const response = responses[i]!;
    expect(response, what).toHaveStatus(429);
    expect(response.contentType, `${what}: ${response.describe()}`).toBe('text/plain');
    expect(() => JSON.parse(response.text), `${what}: the body is not JSON`).toThrow();
  }
});

test('RATE-011 PATCH, DELETE and undelete of creatives spend one counter of 60: the 61st creative write in a window is refused', { tag: ['@hook:accounts', '@hook:actors', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ accounts, apiFor, hooks, clock }) => {
  // Each attempt has a fresh account: a fresh key, so a fresh counter, and a creative of its own.
  // 61 writes in one window are a tenth of the per-IP write cap, which every client of the address
  // shares: an attempt in which that cap came closer than the key's own counter is made again, and
  // none left judged the test unjudged (D156), so it needs the target to itself no more.
  let seen: ApiResponse[] = [];
  let spoiled: string | undefined;
  for (let attempt = 1; attempt <= SHARED_CAP_ATTEMPTS; attempt += 1) {
    seen = await clock.still(async () => {
      const account = await accounts.create();
      const { creatives } = await readyCampaign(apiFor(account), hooks, account, 1);
      const id = encodeURIComponent(creatives[0]!.creativeId);
      const writer = apiFor(account, 'creatives:write').unpaced();
      const answers: ApiResponse[] = [await writer.delete(`/creatives/${id}`), await writer.post(`/creatives/${id}/undelete`, { idempotencyKey: newKey('undelete') })];
      for (let i = answers.length; i < 60; i += 1) answers.push(await writer.patch(`/creatives/${id}`, { body: { metadata: { cf_count: String(i) } } }));
      answers.push(await writer.post(`/creatives/${id}/undelete`, { idempotencyKey: newKey('undelete') }));
      return answers;
    });
    spoiled = sharedCapCloser(seen, 60, 'writes');
    if (spoiled === undefined) break;
  }
  if (spoiled !== undefined) unjudged(`unjudged: in each of ${SHARED_CAP_ATTEMPTS} attempts the per-IP write cap, which other clients of the target share, came closer to exhaustion than the key's own counter (${spoiled})`);
  seen.slice(0, 60).forEach((r, i) => expect(r, `creative write ${i + 1} of 60`).toHaveStatus(200));
  expect(seen.slice(0, 3).map((r) => ({ limit: rateLimitOf(r).limit, remaining: rateLimitOf(r).remaining })), 'DELETE, undelete and PATCH count down one limit of 60').toEqual([
    { limit: 60, remaining: 59 },
    { limit: 60, remaining: 58 },
    { limit: 60, remaining: 57 },
  ]);
  expect(seen[60]!, 'the 61st creative write (an undelete) in the window').toHaveStatus(429);
  expect(rateLimitOf(seen[60]!)).toMatchObject({ limit: 60, remaining: 0 });
});

test('RATE-018 RATE-016 the generation cap is counted apart from reads and writes: with it exhausted, a read and a write pass; with the read cap exhausted, generation reads pass', { tag: ['@hook:accounts', '@hook:rate-limits', '@area:products', '@area:assets', '@area:presets'] }, async ({ accounts, apiFor, clock }) => {
  const cap = 2;
  const seen = await clock.still(async () => {
    const generation = await accounts.create({ rateLimits: { 'account:generation': cap } });
    const runs = apiFor(generation, 'runs:read').unpaced();
    const gen: ApiResponse[] = [];
    for (let i = 0; i <= cap; i += 1) gen.push(await runs.get('/presets', { query: { limit: 1 } }));
    const read = await apiFor(generation).unpaced().get('/products', { query: { limit: 1 } });
    const asset = (await allAssets(apiFor(generation)))[0];
    const write = asset === undefined ? undefined : await apiFor(generation, 'assets:write').unpaced().patch(`/assets/${encodeURIComponent(asset.assetId)}`, { body: { favorited: !asset.favorited } });
    const reads = await accounts.create({ rateLimits: { 'account:read': cap } });
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
  if (caseWhenPresent(seen.write !== undefined, 'no live asset in the account; the hooks contract makes none (the write under the generation cap)')) expect(seen.write!, 'a write is not counted against the generation cap').toHaveStatus(200);
  seen.plain.slice(0, cap).forEach((r, i) => expect(r, `read ${i + 1} under a read cap of ${cap}`).toHaveStatus(200));
  expect(seen.plain[cap]!, 'over the read cap').toHaveStatus(429);
  expect(seen.genRead, 'a generation read is not counted against the read cap').toHaveStatus(200);
  expect(policyQuotas(seen.genRead)).not.toContain(cap);
});

// ---------------------------------------------------------------------------------------------
// Caps per kind of traffic; ties

test('RATE-018 caps are counted per kind of traffic: with the account read cap exhausted, a write in the same window succeeds', { tag: ['@hook:accounts', '@hook:rate-limits', '@area:products', '@area:assets'] }, async ({ accounts, apiFor, clock }) => {
  const cap = 3;
  // A 429 of a per-IP cap (shared with the other workers and every client of the address) proves
  // nothing of the account's caps: the client never hands one to the test; it sends the request again
  // after that cap's wait, then leaves the test unjudged (D290). Every 429 seen here is judged.
  const { reads, write } = await clock.still(async () => {
    const account = await accounts.create({ rateLimits: { 'account:read': cap } });
    const reader = apiFor(account, 'read').unpaced();
    const reads: ApiResponse[] = [await reader.get('/assets', { query: { limit: 1 } })];
    const asset = (reads[0]!.json as { data?: Asset[] } | undefined)?.data?.[0];
    for (let i = 1; i <= cap; i += 1) reads.push(await reader.get('/products', { query: { limit: 1 } }));
    const write = asset === undefined ? undefined : await apiFor(account, 'assets:write').unpaced().patch(`/assets/${encodeURIComponent(asset.assetId)}`, { body: { favorited: !asset.favorited } });
    return { reads, write };
  });
  skipWhenAbsent(write === undefined, 'no live asset in the account; the hooks contract makes none');
  // a rate-limits hook that ignores the quota fails the test (the scene did not happen)
  expect(!reads.some((r) => r.status === 429 || policyQuotas(r).includes(cap)), 'the rate-limits hook (rateLimits of POST /accounts) did not apply the quota').toBe(false);
  reads.slice(0, cap).forEach((r, i) => expect(r, `read ${i + 1} under an account read cap of ${cap}`).toHaveStatus(200));
  expect(reads[cap]!, `read ${cap + 1} over the account read cap`).toHaveStatus(429);
  expect(rateLimitOf(reads[cap]!), `read ${cap + 1}: the 429 reports the account read cap that refused it: RateLimit: ${reads[cap]!.header('ratelimit')}`).toMatchObject({ limit: cap, remaining: 0 });
  expect(write!, 'a write in the same window is not counted against the read cap').toHaveStatus(200);
  expect(policyQuotas(write!), `the write is not checked against the read cap: ${write!.header('ratelimit-policy')}`).not.toContain(cap);
});

test('RATE-022 when two limits are equally close to exhaustion, RateLimit reports the smaller one', { tag: ['@hook:accounts', '@hook:rate-limits', '@area:products'] }, async ({ accounts, apiFor, clock }) => {
  const response = await clock.still(async () => {
    const account = await accounts.create({ rateLimits: { 'group:read': 3, 'account:read': 4 } });
    // Another key of the account puts the account counter one ahead of the read key's group counter.
    const other = await apiFor(account, 'runs:read').unpaced().get('/products', { query: { limit: 1 } });
    expect(other).toHaveStatus(200);
    return apiFor(account, 'read').unpaced().get('/products', { query: { limit: 1 } });
  });
  expect(response).toHaveStatus(200);
  const quotas = policyQuotas(response);
  // a rate-limits hook that ignores the quota fails the test (the scene did not happen)
  expect(!quotas.includes(3) || !quotas.includes(4), `the rate-limits hook (rateLimits of POST /accounts) did not apply the quotas: ${response.header('ratelimit-policy')}`).toBe(false);
  // group:read 3 - 1 = 2 left; account:read 4 - 2 = 2 left: a tie, reported as the smaller limit.
  expect(rateLimitOf(response), `RateLimit: ${response.header('ratelimit')}`).toEqual(expect.objectContaining({ limit: 3, remaining: 2 }));
});
