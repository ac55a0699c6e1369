/** Control plane, accounts: createAccount, getAccount, updateAccount, updatePlan, updateSettings. */
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../domain/accounts/model.ts';
import { controlSuite } from '../testkit/control.ts';

const t = controlSuite();
const { control } = t;

describe('POST /__mock/accounts', () => {
  it('creates a seeded enterprise account with one key per scope plus `all`', async () => {
    const res = await control('createAccount', 'POST', '/__mock/accounts');
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['accountId', 'keys']);
    expect(Object.keys(res.body.keys)).toEqual([...SCOPES, 'all']);
    for (const scope of SCOPES) {
      expect(Object.keys(res.body.keys[scope])).toEqual(['keyId', 'key', 'scopes']);
      expect(res.body.keys[scope].scopes).toEqual(scope === 'runs:read' ? ['runs:read', 'read'] : [scope]);
    }
    expect(res.body.keys.all.scopes).toEqual([...SCOPES]);
    const state = await control('getAccount', 'GET', `/__mock/accounts/${res.body.accountId}`);
    expect(state.body.plan.tier).toBe('enterprise');
    expect(state.body.counts.products).toBe(60);
    expect(state.body.credits).toBeNull();
    // the keys work on the public API
    const products = await t.h.request('GET', '/products', { key: res.body.keys.read.key });
    expect(products.status).toBe(200);
  });

  it('takes name, plan, features, limits, credits, seed and empty', async () => {
    const res = await control('createAccount', 'POST', '/__mock/accounts', {
      name: 'Drill',
      plan: 'core',
      features: { campaignLimit: 2, imageSizes: ['1K', '2K'], webhooks: true },
      limits: { 'group:read': 3, 'ip:read': 50 },
      credits: { balance: 120, dailyBudget: 40 },
      seed: 7,
      empty: true,
    });
    expect(res.status).toBe(201);
    const state = await control('getAccount', 'GET', `/__mock/accounts/${res.body.accountId}`);
    expect(state.body).toMatchObject({
      accountId: res.body.accountId,
      name: 'Drill',
      seed: 7,
      suspended: false,
      plan: { tier: 'core', campaigns: true, runsWrite: true, webhooks: true, upscales: false, campaignLimit: 2, productsPerCampaign: 100, imageSizes: ['1K', '2K'] },
      limits: { 'group:read': 3, 'ip:read': 50 },
      credits: { balance: 120, dailyBudget: 40 },
      faults: { writesPaused: false, spendUnavailable: false, lostRaces: 0, cascadeSeconds: 0, creationSeconds: 0, slowWritesMs: 0 },
      settings: { sparsePages: false },
    });
    expect(state.body.counts).toMatchObject({ products: 0, brands: 0, keys: 8, events: 0, idempotency: 0 });
    // the kept credits are on the account for the credits ledger
    expect(t.h.mock.services.store.accounts.get(res.body.accountId)!.initialCredits).toEqual({ balance: 120, dailyBudget: 40 });
    // the limit override applies
    const r = await t.h.request('GET', '/products', { key: res.body.keys.read.key });
    expect(r.headers['ratelimit-policy']).toContain('3;w=60');
  });

  it('defaults dailyBudget to null', async () => {
    const res = await control('createAccount', 'POST', '/__mock/accounts', { credits: { balance: 5 }, empty: true });
    expect(t.h.mock.services.store.accounts.get(res.body.accountId)!.initialCredits).toEqual({ balance: 5, dailyBudget: null });
  });

  it('gives the same demo data for the same seed', async () => {
    const a = await t.h.account({ seed: 3 });
    const b = await t.h.account({ seed: 3 });
    const titles = (acc: typeof a) => [...acc.state.products.values()].map((p) => p.title);
    expect(titles(a)).toEqual(titles(b));
  });

  it.each([
    ['an unknown tier', { plan: 'platinum' }, 'plan'],
    ['an unknown feature', { features: { teleport: true } }, 'features.teleport'],
    ['a negative campaign limit', { features: { campaignLimit: -1 } }, 'features.campaignLimit'],
    ['an unknown image size', { features: { imageSizes: ['8K'] } }, 'features.imageSizes[0]'],
    ['an unknown limit name', { limits: { 'group:everything': 5 } }, 'limits.group:everything'],
    ['a fractional quota', { limits: { 'group:read': 1.5 } }, 'limits.group:read'],
    ['credits without a balance', { credits: { dailyBudget: 3 } }, 'credits.balance'],
    ['a negative balance', { credits: { balance: -1 } }, 'credits.balance'],
    ['a string seed', { seed: '42' }, 'seed'],
    ['an empty name', { name: '' }, 'name'],
  ])('refuses %s with 422 VALIDATION_ERROR naming the field', async (_what, body, field) => {
    const res = await control('createAccount', 'POST', '/__mock/accounts', body);
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(t.h.mock.services.store.accounts.size).toBe(0);
  });
});

describe('GET /__mock/accounts/{accountId}', () => {
  it('shows keys without the key or its hash, with their status', async () => {
    const acc = await t.h.account({ empty: true });
    const res = await control('getAccount', 'GET', `/__mock/accounts/${acc.accountId}`);
    expect(res.body.keys).toHaveLength(8);
    for (const key of res.body.keys) {
      expect(Object.keys(key)).toEqual(['keyId', 'name', 'last4', 'scopes', 'createdAt', 'expiresAt', 'revokedAt', 'status']);
      expect(key.status).toBe('active');
    }
    expect(res.text).not.toContain(acc.key('read'));
    expect(res.text).not.toMatch(/"hash"/);
    expect(res.body.keys.find((k: { name: string }) => k.name === 'read').expiresAt).toBeNull();
    expect(res.body.keys.find((k: { name: string }) => k.name === 'runs:write').expiresAt).toBe('2027-01-01T00:00:00.000Z');
  });

  it('counts every collection of the account, including ones other modules add', async () => {
    const acc = await t.h.account({ empty: true });
    (acc.state as unknown as Record<string, unknown>).widgets = new Map([['a', 1]]);
    const res = await control('getAccount', 'GET', `/__mock/accounts/${acc.accountId}`);
    expect(res.body.counts.widgets).toBe(1);
  });
});

describe('PATCH /__mock/accounts/{accountId}', () => {
  it('suspends and restores API access', async () => {
    const acc = await t.h.account({ empty: true });
    const suspended = await control('updateAccount', 'PATCH', `/__mock/accounts/${acc.accountId}`, { suspended: true });
    expect(suspended.body.suspended).toBe(true);
    expect((await t.h.request('GET', '/products', { key: acc.key('read') })).status).toBe(401);
    await control('updateAccount', 'PATCH', `/__mock/accounts/${acc.accountId}`, { suspended: false, name: 'Back' });
    expect((await t.h.request('GET', '/products', { key: acc.key('read') })).status).toBe(200);
    expect(acc.state.name).toBe('Back');
  });

  it('refuses a non-boolean suspension', async () => {
    const acc = await t.h.account({ empty: true });
    const res = await control('updateAccount', 'PATCH', `/__mock/accounts/${acc.accountId}`, { suspended: 'yes' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'suspended', message: 'must be boolean' }]);
  });

  it('requires a body', async () => {
    const acc = await t.h.account({ empty: true });
    const res = await control('updateAccount', 'PATCH', `/__mock/accounts/${acc.accountId}`);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'body', message: 'is required' }]);
  });
});

describe('PATCH /__mock/accounts/{accountId}/plan', () => {
  it('a tier resets to its defaults with the features on top', async () => {
    const acc = await t.h.account({ empty: true });
    const res = await control('updatePlan', 'PATCH', `/__mock/accounts/${acc.accountId}/plan`, { tier: 'growth', features: { upscales: false } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tier: 'growth', campaigns: true, webhooks: true, runsWrite: true, imageSizes: ['1K', '2K'], upscales: false, campaignLimit: 100, productsPerCampaign: 500 });
    expect(acc.state.plan).toEqual(res.body);
  });

  it('features alone merge into the current plan', async () => {
    const acc = await t.h.account({ empty: true, plan: 'core' });
    const res = await control('updatePlan', 'PATCH', `/__mock/accounts/${acc.accountId}/plan`, { features: { campaignLimit: 1 } });
    expect(res.body).toMatchObject({ tier: 'core', campaignLimit: 1, productsPerCampaign: 100 });
  });

  it('a lapsed plan makes the next request that needs it answer 401', async () => {
    const acc = await t.h.account({ empty: true });
    const createRun = () => t.h.request('POST', '/runs', { key: acc.key('runs:write'), body: {}, headers: { 'idempotency-key': 'k1' } });
    expect((await createRun()).status).toBe(400); // authenticated; the empty body is refused
    await control('updatePlan', 'PATCH', `/__mock/accounts/${acc.accountId}/plan`, { features: { runsWrite: false } });
    expect((await createRun()).status).toBe(401);
    // a read key keeps working on any plan
    await control('updatePlan', 'PATCH', `/__mock/accounts/${acc.accountId}/plan`, { tier: 'starter' });
    expect((await t.h.request('GET', '/products', { key: acc.key('read') })).status).toBe(200);
  });

  it('refuses an unknown tier or feature', async () => {
    const acc = await t.h.account({ empty: true });
    for (const body of [{ tier: 'gold' }, { features: { campaigns: 'yes' } }, { plan: 'core' }]) {
      const res = await control('updatePlan', 'PATCH', `/__mock/accounts/${acc.accountId}/plan`, body);
      expect(res.status).toBe(422);
    }
    expect(acc.state.plan.tier).toBe('enterprise');
  });
});

describe('PATCH /__mock/accounts/{accountId}/settings', () => {
  it('switches sparse pages on, which the lists then serve', async () => {
    const acc = await t.h.account();
    const res = await control('updateSettings', 'PATCH', `/__mock/accounts/${acc.accountId}/settings`, { sparsePages: true });
    expect(res.body).toEqual({ sparsePages: true });
    const first = await t.h.request('GET', '/products', { key: acc.key('read'), query: { limit: 10 } });
    const second = await t.h.request('GET', '/products', { key: acc.key('read'), query: { limit: 10, cursor: first.body.pagination.nextCursor } });
    expect(second.body.data).toEqual([]);
    expect(second.body.pagination.nextCursor).not.toBeNull();
  });

  it('refuses a bad value', async () => {
    const acc = await t.h.account({ empty: true });
    const res = await control('updateSettings', 'PATCH', `/__mock/accounts/${acc.accountId}/settings`, { sparsePages: 1 });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].field).toBe('sparsePages');
  });
});
