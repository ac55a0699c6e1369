/**
 * Rate limits (RATE-*): the RateLimit and RateLimit-Policy headers on every response, errors
 * included; a read over its limit is a plain-text 429 with Retry-After and remaining=0, and the next
 * read after Retry-After succeeds; per-key budgets; a generation-plane 429 is problem+json
 * RATE_LIMITED.
 *
 * The 429 tests lower one account's limit through /__mock (`limits` on POST /__mock/accounts) and
 * use an unpaced client. The mock's clock is shared by every worker, so they observe under
 * `clock.still` and judge only what happened inside one window.
 */
import { expect, needsOperations, test, type ApiClient, type ApiResponse } from '../fixtures/index.ts';
import { parseRateLimit, parseRateLimitPolicy } from '../checks/grammar.ts';
import { operations } from '../../spec/contract.ts';

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

test('RATE-020 RATE-019 RATE-024 every response carries RateLimit and RateLimit-Policy, errors included', async ({ api }) => {
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

test('RATE-003 RATE-021 RATE-023 RATE-026 a read over its limit is a 429 of the documented type (plain text in 1.9.0) with Retry-After and remaining=0, and the read after Retry-After succeeds', { tag: ['@control', '@exclusive'] }, async ({ accounts, apiFor, clock }) => {
  const quota = 3;
  const observed = await clock.still(async () => {
    const account = await accounts.create({ limits: { 'group:read': quota } });
    const api = apiFor(account);
    return { api, responses: await burst(api, '/products', quota + 1) };
  });
  const { api, responses } = observed;
  // a control plane that ignores this part of spec/mock-control.yaml fails the test
  expect(!overrideApplied(responses, quota), 'POST /__mock/accounts does not apply `limits` (mock/control/routes.ts)').toBe(false);

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

test('RATE-005 two keys of one account have separate per-key budgets', { tag: ['@control', '@exclusive'] }, async ({ accounts, apiFor, clock }) => {
  const quota = 3;
  const { responses, other } = await clock.still(async () => {
    const account = await accounts.create({ limits: { 'group:read': quota } });
    const responses = await burst(apiFor(account, 'read'), '/products', quota + 1);
    const other = await apiFor(account, 'runs:read').unpaced().get('/products', { query: { limit: 1 } });
    return { responses, other };
  });
  // a control plane that ignores this part of spec/mock-control.yaml fails the test
  expect(!overrideApplied(responses, quota), 'POST /__mock/accounts does not apply `limits` (mock/control/routes.ts)').toBe(false);
  expect(responses[quota]!).toHaveStatus(429);
  expectCountdown(other, quota, 1);
});

test('RATE-001 RATE-023 RATE-026 a generation-plane 429 is problem+json RATE_LIMITED with Retry-After', { tag: ['@control', '@exclusive'] }, async ({ accounts, apiFor, clock, target }) => {
  needsOperations(target, 'listPresets');
  const quota = 1;
  const responses = await clock.still(async () => {
    const account = await accounts.create({ limits: { 'group:generation_read': quota } });
    return burst(apiFor(account, 'runs:read'), '/presets', quota + 1);
  });
  // a control plane that ignores this part of spec/mock-control.yaml fails the test
  expect(!overrideApplied(responses, quota), 'POST /__mock/accounts does not apply `limits` (mock/control/routes.ts)').toBe(false);
  expectCountdown(responses[0]!, quota, 1);
  const limited = responses[quota]!;
  await expect(limited).toBeProblem(429, 'RATE_LIMITED');
  expect(limited.header('retry-after'), limited.describe()).toMatch(/^\d+$/);
  expect(rateLimitOf(limited).remaining).toBe(0);
});

test('RATE-021 waiting the reported reset after remaining=0 restores the budget (the suite paces itself on it)', { tag: ['@control', '@exclusive'] }, async ({ accounts, apiFor }) => {
  const quota = 2;
  const account = await accounts.create({ limits: { 'group:read': quota } });
  const api = apiFor(account);
  const responses: ApiResponse[] = [];
  for (let i = 0; i < quota * 3; i += 1) responses.push(await api.get('/products', { query: { limit: 1 } }));
  // a control plane that ignores this part of spec/mock-control.yaml fails the test
  expect(!overrideApplied(responses, quota), 'POST /__mock/accounts does not apply `limits` (mock/control/routes.ts)').toBe(false);
  for (const [index, response] of responses.entries()) {
    expect(response, `paced read ${index + 1}`).toHaveStatus(200);
    expect(response.retriedAfter, `paced read ${index + 1} needed no retry: waiting reset seconds after remaining=0 is enough`).toBeUndefined();
  }
  expect(responses.some((r) => rateLimitOf(r).remaining === 0), 'the budget of 2 ran out along the way').toBe(true);
});
