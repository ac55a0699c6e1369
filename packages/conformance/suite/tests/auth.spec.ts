/**
 * Authentication and scopes (AUTH-*): 401 for a missing, malformed, unknown, revoked or expired key
 * with one uniform body; 403 API_TOKEN_SCOPE_DENIED for a missing scope, sharing the 401's detail;
 * what each scope reaches.
 */
import { rateLimits } from '../../../contract/spec/tables.ts';
import { parseRateLimitPolicy } from '../checks/grammar.ts';
import { caseWhenPresent, expect, needsOperations, skipWhenAbsent, test, type ApiResponse, type ProblemBody } from '../fixtures/index.ts';
import { allCampaigns, dashboard, pick, readyCampaign, setPlan } from '../fixtures/resources.ts';

/** A problem without the members that differ per request by design. */
function uniformPart(response: ApiResponse): Omit<ProblemBody, 'requestId'> {
  const { requestId: _requestId, ...rest } = response.problem;
  return rest;
}

/** A key of the same shape that no account holds: the last hex digit changed. */
function unknownKeyLike(key: string): string {
  const last = key.at(-1) === '0' ? '1' : '0';
  return `${key.slice(0, -1)}${last}`;
}

test('AUTH-001 AUTH-002 AUTH-033 AUTH-035 a missing, malformed or unknown key answers 401 with one uniform body', { tag: ['@area:products'] }, async ({ api, account }) => {
  const key = account.key('read');
  const causes: Record<string, string | null> = {
    'no Authorization header': null,
    'an empty bearer token': 'Bearer ',
    'a token that is not a key': 'Bearer not-a-key',
    'a key with uppercase hex': `Bearer ${key.replace(/[0-9a-f]{64}$/, (hex) => hex.toUpperCase())}`,
    'a key one character short': `Bearer ${key.slice(0, -1)}`,
    'a key one character long': `Bearer ${key}0`,
    'an unknown key of the right shape': `Bearer ${unknownKeyLike(key)}`,
  };
  const answers: [string, ApiResponse][] = [];
  for (const [cause, authorization] of Object.entries(causes)) {
    const response = await api.get('/products', { authorization });
    expect(response, cause).toHaveStatus(401);
    answers.push([cause, response]);
  }
  const [, reference] = answers[0]!;
  for (const [cause, response] of answers.slice(1)) {
    expect(uniformPart(response), `AUTH-035: the 401 for ${cause} differs from the one for no key`).toEqual(uniformPart(reference));
  }
  // The same key, unmodified, is accepted: the 401s above are about the token, not the account.
  await expect(await api.get('/products', { query: { limit: 1 } })).toHaveStatus(200);
});

test('AUTH-004 AUTH-033 another mechanism (Basic, another scheme, a cookie) does not authenticate', { tag: ['@area:products'] }, async ({ api, account }) => {
  const key = account.key('read');
  const attempts: Record<string, { authorization: string | null; headers?: Record<string, string> }> = {
    'Basic with the key as user name': { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
    'the key under another scheme': { authorization: `Token ${key}` },
    'the bare key without a scheme': { authorization: key },
    'the key in a cookie': { authorization: null, headers: { cookie: `session=${key}; api_key=${key}` } },
  };
  for (const [what, options] of Object.entries(attempts)) {
    expect(await api.get('/products', options), what).toHaveStatus(401);
  }
});

test('RATE-025 a 401 for an unknown key lists only the key limit and the per-IP cap in RateLimit-Policy', { tag: ['@area:products'] }, async ({ api, account }) => {
  const unknown = await api.get('/products', { authorization: `Bearer ${unknownKeyLike(account.key('read'))}` });
  expect(unknown).toHaveStatus(401);
  const known = await api.get('/products', { query: { limit: 1 } });
  expect(known).toHaveStatus(200);
  const items = (response: ApiResponse) => (response.header('ratelimit-policy') ?? '').split(',').filter((item) => item.trim() !== '');
  expect(items(unknown).length, `RateLimit-Policy of the 401: ${unknown.header('ratelimit-policy')}`).toBeGreaterThanOrEqual(1);
  expect(items(unknown).length, `RateLimit-Policy of the 401: ${unknown.header('ratelimit-policy')}`).toBeLessThanOrEqual(2);
  // A valid key is also checked against the account-wide cap, which a bad key is not.
  expect(items(known).length).toBeGreaterThan(items(unknown).length);
  // Which two: with the document's read-plane quotas in force (a valid key's read lists exactly those),
  // the key's group limit and the per-IP cap, never the account-wide cap.
  const quotas = (response: ApiResponse) => {
    const parsed = parseRateLimitPolicy(response.header('ratelimit-policy') ?? '');
    return parsed.ok ? parsed.value.map((p) => p.quota).sort((a, b) => a - b) : [];
  };
  const { read } = rateLimits.groups;
  const caps = rateLimits.caps['read']!;
  if (caseWhenPresent(JSON.stringify(quotas(known)) === JSON.stringify([read!.limit, caps.account, caps.ip].sort((a, b) => a - b)), `the target's read-plane quotas (${known.header('ratelimit-policy')}) are not the document's defaults`)) {
    expect(quotas(unknown), `RateLimit-Policy of the 401: ${unknown.header('ratelimit-policy')}`).toEqual([read!.limit, caps.ip].sort((a, b) => a - b));
  }
});

test('AUTH-013 a creatives:write key PATCHes, DELETEs and undeletes a creative, and reads', { tag: ['@hook:accounts', '@hook:actors', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1);
  const id = encodeURIComponent(creatives[0]!.creativeId);
  const writer = api.as('creatives:write');
  expect(await writer.patch(`/creatives/${id}`, { body: { metadata: { cf_scope: 'write' } } }), 'PATCH').toHaveStatus(200);
  expect(await writer.delete(`/creatives/${id}`), 'DELETE').toHaveStatus(200);
  expect(await writer.post(`/creatives/${id}/undelete`, { idempotencyKey: `cf-undelete-${Date.now().toString(36)}` }), 'undelete').toHaveStatus(200);
  expect(await writer.get(`/creatives/${id}`), 'read (creatives:write implies read)').toHaveStatus(200);
  expect(await writer.get('/products', { query: { limit: 1 } }), 'read the catalog').toHaveStatus(200);
});

test('AUTH-035 a plan that lapsed answers the 401 of a bad key: the detail text does not tell them apart', { tag: ['@hook:accounts', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const campaign = pick(await allCampaigns(api), () => true, 'the account has no live campaign');
  const writer = api.as('campaigns:write');
  const path = `/campaigns/${encodeURIComponent(campaign.campaignId)}`;
  const badKey = await writer.patch(path, { body: { name: 'lapsed' }, authorization: `Bearer ${unknownKeyLike(account.key('campaigns:write'))}` });
  await setPlan(hooks, account, { campaigns: false });
  const lapsed = await writer.patch(path, { body: { name: 'lapsed' } });
  await setPlan(hooks, account, { campaigns: true });
  expect(lapsed, 'a lapsed plan').toHaveStatus(401);
  expect(badKey, 'an unknown key').toHaveStatus(401);
  expect({ title: lapsed.problem.title, detail: lapsed.problem.detail }, 'the same title and detail').toEqual({ title: badKey.problem.title, detail: badKey.problem.detail });
});

test('AUTH-036 a 401 on the read plane and on the generation plane carries code UNAUTHORIZED', { tag: ['@assumed', '@area:products', '@area:presets'] }, async ({ api }) => {
  for (const path of ['/products', '/presets']) {
    await expect(await api.get(path, { authorization: null })).toBeProblem(401, 'UNAUTHORIZED');
  }
});

test('AUTH-040 every 401 (no key, a bad key, on a read and on a write) carries the Bearer challenge, the same for every cause', { tag: ['@assumed', '@area:products', '@area:creatives', '@area:presets'] }, async ({ api, account }) => {
  const bad = `Bearer ${unknownKeyLike(account.key('read'))}`;
  const answers = [
    await api.get('/products', { authorization: null }),
    await api.get('/presets', { authorization: bad }),
    await api.patch('/creatives/crv_conformance_unknown_0000', { authorization: null, body: { metadata: {} } }),
  ];
  for (const response of answers) {
    expect(response).toHaveStatus(401);
    expect(response.header('www-authenticate')?.trim().split(/[ ,]/)[0]?.toLowerCase(), response.describe()).toBe('bearer');
  }
  expect(new Set(answers.map((r) => r.header('www-authenticate'))).size, 'one challenge whatever the cause').toBe(1);
});

test('AUTH-032 AUTH-035 a revoked key answers 401 on its next request, with the uniform body', { tag: ['@hook:accounts', '@hook:actors', '@area:products'] }, async ({ api, account, hooks }) => {
  await expect(await api.get('/products', { query: { limit: 1 } })).toHaveStatus(200);
  // Revoked the way the dashboard does (the public API has no key management).
  await dashboard(hooks, account, 'revokeKey', { keyId: account.keyId('read') });
  const revoked = await api.get('/products', { query: { limit: 1 } });
  expect(revoked).toHaveStatus(401);
  const unknown = await api.get('/products', { query: { limit: 1 }, authorization: `Bearer ${unknownKeyLike(account.key('read'))}` });
  expect(uniformPart(revoked), 'AUTH-035: a revoked key\'s 401 body is the one of an unknown key').toEqual(uniformPart(unknown));
  // Other keys of the account are untouched.
  await expect(await api.as('runs:read').get('/products', { query: { limit: 1 } })).toHaveStatus(200);
});

test('AUTH-029 AUTH-035 an expired key answers 401 on every request, with the uniform body', { tag: ['@hook:accounts', '@hook:clock', '@area:products', '@area:presets', '@area:runs'] }, async ({ accounts, apiFor, clock }) => {
  // A write key that expires in 30 days on the account's clock, and a read key (no expiry) beside it.
  const owner = await accounts.create({ keys: { read: { scopes: ['read'] }, 'runs:write': { scopes: ['runs:write'], expiresInDays: 30 } } });
  const api = apiFor(owner);
  const runs = api.as('runs:write');
  await expect(await runs.get('/products', { query: { limit: 1 } })).toHaveStatus(200);
  await clock.advance(30 * 24 * 3600 + 60);
  const unknown = await api.get('/products', { query: { limit: 1 }, authorization: `Bearer ${unknownKeyLike(owner.key('read'))}` });
  for (const path of ['/products', '/presets', '/runs']) {
    const expired = await runs.get(path, { query: { limit: 1 } });
    expect(expired, path).toHaveStatus(401);
    expect(uniformPart(expired).detail, `AUTH-035: ${path}`).toEqual(uniformPart(unknown).detail);
  }
  const expired = await runs.get('/products', { query: { limit: 1 } });
  expect(uniformPart(expired), 'AUTH-035: an expired key\'s 401 body is the one of an unknown key').toEqual(uniformPart(unknown));
});

test('AUTH-034 AUTH-035 a key without the scope answers 403 API_TOKEN_SCOPE_DENIED with the detail of a 401', { tag: ['@area:presets'] }, async ({ api }) => {
  const denied = await api.get('/presets');
  await expect(denied).toBeProblem(403, 'API_TOKEN_SCOPE_DENIED');
  const unauthorized = await api.get('/presets', { authorization: null });
  expect(unauthorized).toHaveStatus(401);
  expect(denied.problem.detail, 'AUTH-035: a missing scope and a bad token cannot be told apart by detail text').toEqual(unauthorized.problem.detail);
});

test('AUTH-008 a read key cannot reach the generation plane', { tag: ['@area:presets', '@area:runs', '@area:upscales'] }, async ({ api }) => {
  const paths = ['/presets', '/runs', '/runs/run_conformance_unknown', '/runs/run_conformance_unknown/items', '/upscales/ups_conformance_unknown'];
  for (const path of paths) {
    await expect(await api.get(path), path).toBeProblem(403, 'API_TOKEN_SCOPE_DENIED');
  }
});

test('AUTH-010 AUTH-011 AUTH-013 AUTH-014 AUTH-016 AUTH-017 a key of any scope also reads the catalog', { tag: ['@area:products'] }, async ({ api, account }) => {
  const profiles = ['runs:read', 'runs:write', 'creatives:write', 'creatives:review', 'assets:write', 'campaigns:write'].filter((p) => caseWhenPresent(account.has(p), `no "${p}" key profile is configured`));
  skipWhenAbsent(profiles.length === 0, 'no key profile other than read is configured');
  for (const profile of profiles) {
    const response = await api.as(profile).get('/products', { query: { limit: 1 } });
    expect(response, profile).toHaveStatus(200);
  }
});

test('AUTH-007 a read key reaches every read-plane list', { tag: ['@area:products', '@area:creatives', '@area:campaigns', '@area:assets', '@area:deliveries'] }, async ({ api, target }) => {
  needsOperations(target, 'listProducts', 'listCreatives', 'listCampaigns', 'listAssets', 'listDeliveries');
  for (const path of ['/products', '/creatives', '/campaigns', '/assets', '/deliveries']) {
    expect(await api.get(path, { query: { limit: 1 } }), path).toHaveStatus(200);
  }
});

test('AUTH-009 AUTH-011 a runs:write key reads the generation plane (runs:write implies runs:read)', { tag: ['@area:presets', '@area:runs'] }, async ({ api, target }) => {
  needsOperations(target, 'listPresets', 'listRuns');
  const runs = api.as('runs:write');
  for (const path of ['/presets', '/runs']) {
    expect(await runs.get(path, { query: { limit: 1 } }), path).toHaveStatus(200);
  }
});
