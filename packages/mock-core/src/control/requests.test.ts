/** Control plane: the request journal (listRequests), the account list (listAccounts), a campaign's creatives (listCampaignCreatives). */
import { describe, expect, it } from 'vitest';
import { JOURNAL_BODY_BYTES, JOURNAL_CAPACITY } from '../pipeline/journal.ts';
import { controlSuite } from '../testkit/control.ts';

const t = controlSuite({ account: {} });
const { control } = t;
const journal = () => `/__mock/accounts/${t.acc.accountId}/requests`;

describe('GET /__mock/accounts/{accountId}/requests', () => {
  it('journals each API request, newest first: method, path, query, key, status, problem code, latency, RateLimit state, bodies (no Authorization)', async () => {
    const read = t.acc.keys.read!;
    const list = await t.h.request('GET', '/creatives', { key: read.key, query: { limit: 2 }, headers: { 'x-trace': 'one' } });
    expect(list.status).toBe(200);
    const bad = await t.h.request('POST', '/campaigns', { key: t.acc.key('all'), body: { name: 5 }, headers: { 'idempotency-key': 'journal-1' } });
    expect(bad.status).toBe(422);

    const res = await control('listRequests', 'GET', journal());
    expect(res.body.capacity).toBe(JOURNAL_CAPACITY);
    expect(res.body.total).toBe(2);
    const [second, first] = res.body.data;
    expect(first).toMatchObject({
      seq: 1,
      method: 'GET',
      path: '/api/public/v1/creatives',
      query: { limit: '2' },
      keyId: read.keyId,
      status: 200,
      code: null,
      rateLimit: { limit: list.headers.ratelimit, policy: list.headers['ratelimit-policy'], retryAfter: null },
      request: { body: null, bodyBytes: 0, truncated: false },
      response: { body: list.text, bodyBytes: Buffer.byteLength(list.text), truncated: false },
    });
    expect(first.request.headers['x-trace']).toBe('one');
    expect(first.request.headers.authorization).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain(read.key);
    expect(first.latencyMs).toBeGreaterThanOrEqual(0);
    expect(first.at).toBe('2026-01-01T00:00:00.000Z');
    expect(second).toMatchObject({ seq: 2, method: 'POST', path: '/api/public/v1/campaigns', status: 422, code: 'VALIDATION_ERROR', request: { body: '{"name":5}' } });
    expect(second.requestId).toBe(bad.body.requestId);
  });

  it("journals a revoked key's 401 in its account under the key's id, and a request with no key or an unknown key nowhere", async () => {
    const read = t.acc.keys.read!;
    await control('revokeKey', 'POST', `/__mock/accounts/${t.acc.accountId}/keys/${read.keyId}/revoke`);
    expect((await t.h.request('GET', '/creatives', { key: read.key })).status).toBe(401);
    expect((await t.h.request('GET', '/creatives')).status).toBe(401);
    expect((await t.h.request('GET', '/creatives', { key: `cgs_${'0'.repeat(64)}` })).status).toBe(401);
    const res = await control('listRequests', 'GET', journal());
    expect(res.body.data).toEqual([expect.objectContaining({ status: 401, code: 'UNAUTHORIZED', keyId: read.keyId })]);
  });

  it('keeps the newest entries up to the capacity, pages back with before, and cuts long bodies', async () => {
    const key = t.acc.key('read');
    for (let i = 0; i < JOURNAL_CAPACITY + 5; i++) await t.h.request('GET', '/products', { key });
    const page = await control('listRequests', 'GET', `${journal()}?limit=3`);
    expect(page.body.total).toBe(JOURNAL_CAPACITY + 5);
    expect(page.body.data.map((e: { seq: number }) => e.seq)).toEqual([JOURNAL_CAPACITY + 5, JOURNAL_CAPACITY + 4, JOURNAL_CAPACITY + 3]);
    const back = await control('listRequests', 'GET', `${journal()}?limit=500&before=${JOURNAL_CAPACITY + 3}`);
    expect(back.body.data).toHaveLength(JOURNAL_CAPACITY - 3);
    expect(back.body.data.at(-1).seq).toBe(6); // 1..5 were dropped

    const big = 'x'.repeat(JOURNAL_BODY_BYTES + 100);
    await t.h.request('POST', '/campaigns', { key: t.acc.key('all'), body: { name: big }, headers: { 'idempotency-key': 'journal-big' } });
    const [entry] = (await control('listRequests', 'GET', `${journal()}?limit=1`)).body.data;
    expect(entry.request.truncated).toBe(true);
    expect(entry.request.bodyBytes).toBe(Buffer.byteLength(JSON.stringify({ name: big })));
    expect(Buffer.byteLength(entry.request.body)).toBe(JOURNAL_BODY_BYTES);
  });

  it.each([['limit=0'], ['limit=501'], ['before=0'], ['limit=x']])('refuses %s with 400', async (query) => {
    expect((await control('listRequests', 'GET', `${journal()}?${query}`)).status).toBe(400);
  });

  it('answers 404 for an unknown account', async () => {
    expect((await control('listRequests', 'GET', '/__mock/accounts/acc_missing/requests')).status).toBe(404);
  });
});

describe('GET /__mock/accounts', () => {
  it('lists every account in creation order, in short', async () => {
    const other = await t.h.account({ plan: 'starter' });
    await control('updateAccount', 'PATCH', `/__mock/accounts/${other.accountId}`, { suspended: true });
    const res = await control('listAccounts', 'GET', '/__mock/accounts');
    expect(res.body.data).toEqual([
      { accountId: t.acc.accountId, name: expect.any(String), tier: 'enterprise', suspended: false, createdAt: '2026-01-01T00:00:00.000Z' },
      { accountId: other.accountId, name: expect.any(String), tier: 'starter', suspended: true, createdAt: '2026-01-01T00:00:00.000Z' },
    ]);
  });
});

describe('GET /__mock/accounts/{accountId}/campaigns/{campaignId}/creatives', () => {
  it("pages a campaign's creatives in its order, those the API hides included", async () => {
    const campaign = [...t.acc.state.campaigns.values()].find((c) => c.creativeIds.length > 3)!;
    const base = `/__mock/accounts/${t.acc.accountId}/campaigns/${campaign.campaignId}/creatives`;
    const first = await control('listCampaignCreatives', 'GET', `${base}?limit=2`);
    expect(first.body.total).toBe(campaign.creativeIds.length);
    expect(first.body.data.map((c: { creativeId: string }) => c.creativeId)).toEqual(campaign.creativeIds.slice(0, 2));
    const rest = await control('listCampaignCreatives', 'GET', `${base}?limit=500&offset=2`);
    expect(rest.body.data.map((c: { creativeId: string }) => c.creativeId)).toEqual(campaign.creativeIds.slice(2));
    const all = [...first.body.data, ...rest.body.data];
    for (const row of all) {
      const creative = t.acc.state.creatives.get(row.creativeId)!;
      expect(row).toMatchObject({ status: creative.status, productId: creative.productId, readable: creative.status !== 'NOT_GENERATED' && creative.url !== null });
    }
    expect((await control('listCampaignCreatives', 'GET', `/__mock/accounts/${t.acc.accountId}/campaigns/cmp_missing/creatives`)).status).toBe(404);
  });
});
