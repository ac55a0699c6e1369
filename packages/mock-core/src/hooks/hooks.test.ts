/**
 * The mock serves packages/contract/spec/conformance-hooks.yaml at /__hooks (D92): a session walks every operation of
 * the document and each answers 2xx (so the document and the mock cannot drift), and each hook does
 * what the contract says, seen through the public API. In-process, the MSW handlers serve it too.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hooksRoutes } from '../../../contract/spec/generated/conformance-hooks.ts';
import { createHarness, type Harness } from '../testkit/harness.ts';
import { createMockHandlers } from '../../../msw/src/msw.ts';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

async function hook(method: string, path: string, body?: unknown) {
  const res = await h.mock.inject({ method: method as 'GET', url: `/__hooks${path}`, ...(body !== undefined ? { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
  return { status: res.statusCode, body: res.body === '' ? undefined : (JSON.parse(res.body) as any), headers: res.headers };
}

describe('/__hooks', () => {
  it('answers 2xx to every operation of packages/contract/spec/conformance-hooks.yaml', async () => {
    const answered = new Map<string, number>();
    const call = async (operationId: keyof typeof hooksRoutes, path: string, body?: unknown) => {
      const route = hooksRoutes[operationId];
      const res = await hook(route.method, path, body);
      answered.set(operationId, res.status);
      return res;
    };
    await call('getCapabilities', '/capabilities');
    const created = await call('createAccount', '/accounts', { plan: 'growth', credits: { balance: 1000 }, keys: { reader: { scopes: ['read'] }, writer: { scopes: ['read', 'campaigns:write'], expiresInDays: 30 } }, rateLimits: { 'group:read': 100 } });
    const id = created.body.accountId as string;
    await call('getAccount', `/accounts/${id}`);
    await call('updateAccount', `/accounts/${id}`, { plan: 'enterprise', credits: { dailyBudget: 500 } });
    await call('getAccountClock', `/accounts/${id}/clock`);
    await call('advanceAccountClock', `/accounts/${id}/clock/advance`, { seconds: 10 });
    await call('setAccountFaults', `/accounts/${id}/faults`, { lostRaces: 1 });
    await call('runAction', `/accounts/${id}/actions`, { action: 'revokeKey', input: { keyId: created.body.keys.reader.keyId } });
    const endpoint = await call('createWebhookEndpoint', `/accounts/${id}/webhook-endpoints`, { url: 'http://127.0.0.1:4020/hooks', eventTypes: ['campaign.created'] });
    await call('listWebhookDeliveries', `/accounts/${id}/webhook-deliveries`);
    await call('deleteWebhookEndpoint', `/accounts/${id}/webhook-endpoints/${endpoint.body.endpointId}`);
    await call('setAccountRateLimits', `/accounts/${id}/rate-limits`, { 'group:read': 5 });
    await call('setAccountOutcomes', `/accounts/${id}/outcomes`, { items: ['failed'], upscales: ['failed'] });
    await call('listAccountEvents', `/accounts/${id}/events`);
    await call('deleteAccount', `/accounts/${id}`);
    const missing = Object.keys(hooksRoutes).filter((operationId) => !(answered.get(operationId)! >= 200 && answered.get(operationId)! < 300));
    expect(missing.map((operationId) => `${operationId}: ${answered.get(operationId) ?? 'never called'}`)).toEqual([]);
  });

  it('capabilities: every hook of the document, and the contract version', async () => {
    const res = await hook('GET', '/capabilities');
    expect(res.body.hooks).toEqual(['accounts', 'clock', 'faults', 'actors', 'webhooks', 'rate-limits', 'outcomes', 'events']);
    expect(res.body.contractVersion).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('accounts: the keys asked for and no others, on the plan asked for; a disposed account\'s keys answer 401', async () => {
    const created = await hook('POST', '/accounts', { plan: 'core', keys: { reader: { scopes: ['read'] } } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body.keys)).toEqual(['reader']);
    expect(created.body.plan.name).toBe('core');
    const key = created.body.keys.reader.key as string;
    expect((await h.request('GET', '/campaigns', { key })).status).toBe(200);
    expect((await h.request('POST', '/campaigns', { key, body: {} })).status).toBe(403);
    expect((await hook('DELETE', `/accounts/${created.body.accountId}`)).status).toBe(204);
    expect((await h.request('GET', '/campaigns', { key })).status).toBe(401);
  });

  it('clock: advancing one account expires its write key and leaves another account\'s key alone', async () => {
    const make = async () => (await hook('POST', '/accounts', { empty: true, keys: { w: { scopes: ['read', 'campaigns:write'], expiresInDays: 30 } } })).body;
    const a = await make();
    const b = await make();
    const moved = await hook('POST', `/accounts/${a.accountId}/clock/advance`, { seconds: 31 * 86400 });
    expect(moved.body.advancedSeconds).toBe(31 * 86400);
    expect((await h.request('GET', '/campaigns', { key: a.keys.w.key })).status).toBe(401);
    expect((await h.request('GET', '/campaigns', { key: b.keys.w.key })).status).toBe(200);
  });

  it('faults and rate limits: writes paused answer 503, a quota of 1 answers 429 on the second read', async () => {
    const a = (await hook('POST', '/accounts', { empty: true })).body;
    expect((await hook('PATCH', `/accounts/${a.accountId}/faults`, { writesPaused: true })).body.writesPaused).toBe(true);
    expect((await h.request('DELETE', '/campaigns/cmp_conformance_unknown_0000', { key: a.keys.all.key })).body.code).toBe('WRITES_PAUSED');
    expect((await hook('PATCH', `/accounts/${a.accountId}/rate-limits`, { 'group:read': 1 })).body).toEqual({ 'group:read': 1 });
    expect((await h.request('GET', '/campaigns', { key: a.keys.read.key })).status).toBe(200);
    expect((await h.request('GET', '/campaigns', { key: a.keys.read.key })).status).toBe(429);
  });

  it('actors: generateCreatives stops a first generation at `until` (contract 0.2.0, actors.generateUntil): no public representation until finished', async () => {
    expect((await hook('GET', '/capabilities')).body.actors.generateUntil).toBe(true);
    const a = (await hook('POST', '/accounts', {})).body;
    const key = a.keys.all.key as string;
    const [product] = (await h.request('GET', '/products', { key, query: { limit: 1 } })).body.data as { productId: string; brandId: string }[];
    const campaign = await h.request('POST', '/campaigns', { key, body: { name: 'until', brandId: product!.brandId, productIds: [product!.productId] }, headers: { 'idempotency-key': 'hooks-until-1' } });
    expect(campaign.status).toBe(201);
    const act = async (action: string, input: unknown) => hook('POST', `/accounts/${a.accountId}/actions`, { action, input });
    const queued = await act('generateCreatives', { campaignId: campaign.body.campaignId, until: 'QUEUED' });
    expect(queued.body.status).toBe(200);
    const [id] = queued.body.ids as string[];
    expect((await h.request('GET', `/creatives/${id}`, { key })).body.code).toBe('CREATIVE_NOT_FOUND');
    expect((await act('finishGeneration', { creativeId: id })).body.status).toBe(200);
    expect((await h.request('GET', `/creatives/${id}`, { key })).body.status).toBe('PENDING');
    expect((await act('generateCreatives', { campaignId: campaign.body.campaignId, until: 'DONE' })).status).toBe(422);
  });

  it('refuses what the document refuses: an unknown member (422), an unknown account (404), a path outside it (404)', async () => {
    expect((await hook('POST', '/accounts', { nope: 1 })).status).toBe(422);
    expect((await hook('GET', '/accounts/acc_nope/clock')).body.code).toBe('ACCOUNT_NOT_FOUND');
    expect((await hook('GET', '/nothing')).body.code).toBe('NOT_FOUND');
    expect((await hook('GET', '/accounts')).status).toBe(405);
  });
});

describe('/__hooks acts only on the accounts it made (D256)', () => {
  // Every operation of the document that names an account, with a body its schema accepts.
  const bodies: Record<string, unknown> = {
    updateAccount: { plan: 'starter' },
    advanceAccountClock: { seconds: 60 },
    setAccountFaults: { writesPaused: true },
    runAction: { action: 'revokeKey', input: { keyId: 'key_x' } },
    createWebhookEndpoint: { url: 'http://127.0.0.1:4020/hooks', eventTypes: ['campaign.created'] },
    setAccountRateLimits: { 'group:read': 1 },
    setAccountOutcomes: { items: ['failed'] },
  };
  const named = Object.entries(hooksRoutes).filter(([, route]) => route.path.includes('{accountId}'));

  it('names every operation with an account (the table below covers the document)', () => {
    expect(named.map(([id]) => id).sort()).toEqual(['advanceAccountClock', 'deleteAccount', 'deleteWebhookEndpoint', 'getAccount', 'getAccountClock', 'listAccountEvents', 'listWebhookDeliveries', 'runAction', 'setAccountFaults', 'setAccountOutcomes', 'setAccountRateLimits', 'updateAccount', 'createWebhookEndpoint'].sort());
  });

  for (const [operationId, route] of named) {
    it(`${operationId} on an account made through /__mock answers 404 ACCOUNT_NOT_FOUND and changes nothing`, async () => {
      const other = await h.account({ empty: true });
      const before = JSON.stringify({ suspended: other.state.suspended, plan: other.state.plan, faults: other.state.faults, limits: other.state.limitOverrides, endpoints: other.state.webhooks.endpoints.size, keys: [...other.state.keys.values()].map((k) => k.revokedAt) });
      const path = route.path.replace('{accountId}', other.accountId).replace('{endpointId}', 'whe_x');
      const res = await hook(route.method, path, bodies[operationId]);
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(res.body.code).toBe('ACCOUNT_NOT_FOUND');
      const after = JSON.stringify({ suspended: other.state.suspended, plan: other.state.plan, faults: other.state.faults, limits: other.state.limitOverrides, endpoints: other.state.webhooks.endpoints.size, keys: [...other.state.keys.values()].map((k) => k.revokedAt) });
      expect(after).toBe(before);
      expect((await h.request('GET', '/campaigns', { key: other.key('all') })).status).toBe(200);
    });
  }

  it('createWebhookEndpoint refuses a system port or a numeric host not written as read (D256): 422 on url', async () => {
    const made = (await hook('POST', '/accounts', { empty: true })).body;
    for (const url of ['http://127.0.0.1:22/', 'http://2130706433:22/', 'http://0x7f000001:4020/']) {
      const res = await hook('POST', `/accounts/${made.accountId}/webhook-endpoints`, { url, eventTypes: ['campaign.created'] });
      expect(res.status, url).toBe(422);
      expect(res.body.errors[0].field, url).toBe('url');
    }
  });

  it('deleteAccount: an account of the hooks, twice, answers 204 both times; one it never made, 404', async () => {
    const made = (await hook('POST', '/accounts', { empty: true })).body;
    expect((await hook('DELETE', `/accounts/${made.accountId}`)).status).toBe(204);
    expect((await hook('DELETE', `/accounts/${made.accountId}`)).status).toBe(204);
    expect((await hook('DELETE', '/accounts/acc_never_made')).status).toBe(404);
  });
});

describe('/__hooks in-process (msw)', () => {
  it('serves the hooks beside the control plane, and /__mock is not reachable under /__hooks', async () => {
    const mock = createMockHandlers({ baseUrl: 'http://api.test', seed: false });
    await mock.ready;
    try {
      const ok = await fetchVia(mock, 'http://api.test/__hooks/capabilities', {});
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { hooks: string[] }).hooks).toContain('clock');
      expect((await fetchVia(mock, 'http://api.test/__hooks/__mock/clock', {})).status).toBe(404);
    } finally {
      mock.dispose();
    }
  });
});

/** Sends a request through the MSW handlers without a server (msw's own handler resolution). */
async function fetchVia(mock: ReturnType<typeof createMockHandlers>, url: string, headers: Record<string, string>): Promise<Response> {
  const { getResponse } = await import('msw');
  const response = await getResponse(mock.handlers, new Request(url, { headers }));
  if (!response) throw new Error(`no handler answered ${url}`);
  return response;
}
