/**
 * Control plane, actions (changes by other actors) and the event log they feed.
 */
import { describe, expect, it } from 'vitest';
import type { Creative } from '../domain/creatives/model.ts';
import type { TestAccount } from '../testkit/harness.ts';
import { controlSuite } from '../testkit/control.ts';

const t = controlSuite({ account: {} });
const { control } = t;

function act(body: unknown, account: TestAccount = t.acc) {
  return control('runAction', 'POST', `/__mock/accounts/${account.accountId}/actions`, body);
}

/** A readable PENDING image creative, put straight into the account's state. */
function pendingCreative(account: TestAccount, id = 'crt_test0001', status: Creative['status'] = 'PENDING'): Creative {
  const product = [...account.state.products.values()][0]!;
  const creative: Creative = {
    creativeId: id,
    productId: product.productId,
    campaignId: 'cmp_test0001',
    brandId: product.brandId,
    mediaType: 'image',
    status,
    url: `https://media.creative-generation.invalid/${id}.png`,
    thumbnailUrl: null,
    playerUrl: null,
    ownAspectRatio: '1:1',
    approvedAt: null,
    rejectionReason: null,
    deletedAt: null,
    deletedWithCampaign: false,
    metadata: {},
    createdAt: t.h.clock.now(),
    cropJobs: 0,
  };
  account.state.creatives.set(id, creative);
  return creative;
}

describe('POST /__mock/accounts/{accountId}/actions with an operationId', () => {
  it('a user approves a creative: creative.approved is recorded with actor { kind: user } and no apiKeyId', async () => {
    pendingCreative(t.acc);
    const res = await act({ actor: { kind: 'user' }, operationId: 'approveCreative', pathParams: { creativeId: 'crt_test0001' } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(200);
    expect(res.body.body).toMatchObject({ object: 'creative', creativeId: 'crt_test0001', approvedAt: '2026-01-01T00:00:00.000Z' });
    expect(res.body.headers.etag).toMatch(/^"/);

    const events = t.acc.state.events.filter((e) => e.type === 'creative.approved');
    expect(events).toHaveLength(1);
    expect(events[0]!.actor).toEqual({ kind: 'user' });
    expect(Object.keys(events[0]!.actor!)).toEqual(['kind']);
    expect(events[0]!.resource).toEqual({ kind: 'creative', id: 'crt_test0001' });

    const log = await control('listEvents', 'GET', `/__mock/accounts/${t.acc.accountId}/events?type=creative.approved`);
    expect(log.body.data).toEqual([
      { eventId: events[0]!.eventId, type: 'creative.approved', timestamp: '2026-01-01T00:00:00.000Z', resource: { kind: 'creative', id: 'crt_test0001' }, actor: { kind: 'user' }, previousAttributes: null },
    ]);

    // The API sees the change, with the same representation and ETag as the action answered.
    const read = await t.h.request('GET', '/creatives/crt_test0001', { key: t.acc.key('read') });
    expect(read.body).toEqual(res.body.body);
    expect(read.headers.etag).toBe(res.body.headers.etag);
  });

  it.each(['share_link', 'staff', 'partner_operator'] as const)('records the %s actor', async (kind) => {
    pendingCreative(t.acc);
    await act({ actor: { kind }, operationId: 'rejectCreative', pathParams: { creativeId: 'crt_test0001' }, body: { rejectionReason: 'off brand' } });
    expect(t.acc.state.events.at(-1)).toMatchObject({ type: 'creative.rejected', actor: { kind } });
  });

  it('an api_key actor carries the key id', async () => {
    pendingCreative(t.acc);
    const keyId = t.acc.keys['creatives:review']!.keyId;
    const res = await act({ actor: { kind: 'api_key', apiKeyId: keyId }, operationId: 'approveCreative', pathParams: { creativeId: 'crt_test0001' } });
    expect(res.body.status).toBe(200);
    expect(t.acc.state.events.at(-1)!.actor).toEqual({ kind: 'api_key', apiKeyId: keyId });
  });

  it('bypasses faults, rate limits and idempotency', async () => {
    pendingCreative(t.acc);
    await control('updateAccountFaults', 'PATCH', `/__mock/accounts/${t.acc.accountId}/faults`, { writesPaused: true });
    await control('updateAccountLimits', 'PATCH', `/__mock/accounts/${t.acc.accountId}/limits`, { 'group:creative_reviews': 0 });
    const res = await act({ actor: { kind: 'staff' }, operationId: 'approveCreative', pathParams: { creativeId: 'crt_test0001' } });
    expect(res.body.status).toBe(200);
    expect(t.acc.state.idempotency.size).toBe(0);
  });

  it('a refusal of the handler is its problem body and status inside a 200', async () => {
    pendingCreative(t.acc, 'crt_rejected', 'REJECTED');
    const conflict = await act({ actor: { kind: 'user' }, operationId: 'approveCreative', pathParams: { creativeId: 'crt_rejected' } });
    expect(conflict.status).toBe(200);
    expect(conflict.body.status).toBe(409);
    expect(conflict.body.body).toMatchObject({ status: 409, code: 'CREATIVE_NOT_PENDING', currentStatus: 'REJECTED', instance: '/api/public/v1/creatives/crt_rejected/approve' });
    const missing = await act({ actor: { kind: 'user' }, operationId: 'approveCreative', pathParams: { creativeId: 'crt_none' } });
    expect(missing.body).toMatchObject({ status: 404, body: { code: 'CREATIVE_NOT_FOUND' } });
    expect(t.acc.state.events).toHaveLength(0);
  });

  it('validates the body against the public operation\'s schema', async () => {
    pendingCreative(t.acc);
    const empty = await act({ actor: { kind: 'user' }, operationId: 'rejectCreative', pathParams: { creativeId: 'crt_test0001' }, body: { rejectionReason: '' } });
    expect(empty.status).toBe(422);
    expect(empty.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'body.rejectionReason' }] });
    const unknown = await act({ actor: { kind: 'user' }, operationId: 'updateCreative', pathParams: { creativeId: 'crt_test0001' }, body: { colour: 'red' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.map((e: { field: string }) => e.field)).toContain('body.colour');
    expect(t.acc.state.creatives.get('crt_test0001')!.status).toBe('PENDING');
  });

  it('an update by the dashboard records previousAttributes like the API', async () => {
    pendingCreative(t.acc);
    const res = await act({ actor: { kind: 'user' }, operationId: 'updateCreative', pathParams: { creativeId: 'crt_test0001' }, body: { metadata: { team: 'a' } } });
    expect(res.body.status).toBe(200);
    const log = await control('listEvents', 'GET', `/__mock/accounts/${t.acc.accountId}/events?resourceId=crt_test0001`);
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({ type: 'creative.updated', actor: { kind: 'user' } });
  });

  it.each([
    ['a read operation', { operationId: 'getCreative', pathParams: { creativeId: 'x' } }, 'operationId'],
    ['an unknown operation', { operationId: 'launchRocket' }, 'operationId'],
    ['a missing path parameter', { operationId: 'approveCreative' }, 'pathParams.creativeId'],
    ['an extra path parameter', { operationId: 'approveCreative', pathParams: { creativeId: 'c', id: 'c' } }, 'pathParams.id'],
    ['a required body left out', { operationId: 'createCampaign' }, 'body'],
    ['a body for an operation that takes none', { operationId: 'deleteCreative', pathParams: { creativeId: 'c' }, body: {} }, 'body'],
  ])('refuses %s with 422', async (_what, request, field) => {
    const res = await act({ actor: { kind: 'user' }, ...request });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it.each([
    ['a user with an apiKeyId', { kind: 'user', apiKeyId: 'key_x' }, 'actor.apiKeyId'],
    ['an api_key actor without apiKeyId', { kind: 'api_key' }, 'actor.apiKeyId'],
    ['an unknown kind', { kind: 'robot' }, 'actor.kind'],
  ])('refuses %s with 422 (the schema)', async (_what, actor, field) => {
    const res = await act({ actor, operationId: 'approveCreative', pathParams: { creativeId: 'c' } });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('refuses another account\'s key as the actor', async () => {
    const other = await t.h.account({ empty: true });
    const res = await act({ actor: { kind: 'api_key', apiKeyId: other.keys.all!.keyId }, operationId: 'approveCreative', pathParams: { creativeId: 'c' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'actor.apiKeyId', message: 'is not a key of this account' }]);
  });

  it('answers 501 ACTION_UNKNOWN for a write this build has no handler for', async () => {
    const { approveCreative: _dropped, ...rest } = t.h.mock.services.handlers;
    t.h.mock.services.handlers = rest;
    const res = await act({ actor: { kind: 'user' }, operationId: 'approveCreative', pathParams: { creativeId: 'c' } });
    expect(res.status).toBe(501);
    expect(res.body).toMatchObject({ code: 'ACTION_UNKNOWN', title: 'Not Implemented' });
  });
});

describe('POST /__mock/accounts/{accountId}/actions with a dashboard action', () => {
  async function campaignWithCreatives(): Promise<string> {
    const products = [...t.acc.state.products.values()].slice(0, 3);
    const created = await act({
      actor: { kind: 'user' },
      operationId: 'createCampaign',
      body: { name: 'Spring', brandId: products[0]!.brandId, productIds: products.filter((p) => p.brandId === products[0]!.brandId).map((p) => p.productId) },
    });
    expect(created.body.status, JSON.stringify(created.body)).toBe(201);
    expect(t.acc.state.events.at(-1)).toMatchObject({ type: 'campaign.created', actor: { kind: 'user' } });
    return created.body.body.campaignId as string;
  }

  it('generates a campaign\'s creatives as the dashboard does', async () => {
    const campaignId = await campaignWithCreatives();
    const res = await act({ actor: { kind: 'user' }, action: 'generateCreatives', input: { campaignId } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(200);
    expect(res.body.body.action).toBe('generateCreatives');
    expect(res.body.body.creativeIds.length).toBeGreaterThan(0);
    for (const id of res.body.body.creativeIds) {
      const read = await t.h.request('GET', `/creatives/${id}`, { key: t.acc.key('read') });
      expect(read.status).toBe(200);
      expect(read.body.status).toBe('PENDING');
    }
    for (const id of res.body.body.eventIds) expect(t.acc.state.events.find((e) => e.eventId === id)?.actor).toEqual({ kind: 'user' });
  });

  it('an action\'s own refusal is its problem inside a 200', async () => {
    const missing = await act({ actor: { kind: 'staff' }, action: 'generateCreatives', input: { campaignId: 'cmp_none' } });
    expect(missing.body).toMatchObject({ status: 404, body: { code: 'CAMPAIGN_NOT_FOUND' } });
    const malformed = await act({ actor: { kind: 'staff' }, action: 'finishGeneration', input: {} });
    expect(malformed.body).toMatchObject({ status: 422, body: { code: 'VALIDATION_ERROR', errors: [{ field: 'creativeId' }] } });
  });

  it('refuses an action the document does not name, and mixing the two forms', async () => {
    const unknown = await act({ actor: { kind: 'user' }, action: 'deleteEverything', input: {} });
    expect(unknown.status).toBe(422);
    const both = await act({ actor: { kind: 'user' }, action: 'finishGeneration', operationId: 'approveCreative', input: {} });
    expect(both.status).toBe(422);
  });
});

describe('GET /__mock/accounts/{accountId}/events', () => {
  it('lists every event oldest first and filters by type and resource', async () => {
    pendingCreative(t.acc, 'crt_a');
    pendingCreative(t.acc, 'crt_b');
    await act({ actor: { kind: 'user' }, operationId: 'approveCreative', pathParams: { creativeId: 'crt_a' } });
    t.h.advance(5);
    await act({ actor: { kind: 'user' }, operationId: 'rejectCreative', pathParams: { creativeId: 'crt_b' } });
    const all = await control('listEvents', 'GET', `/__mock/accounts/${t.acc.accountId}/events`);
    expect(all.body.data.map((e: { type: string; timestamp: string }) => [e.type, e.timestamp])).toEqual([
      ['creative.approved', '2026-01-01T00:00:00.000Z'],
      ['creative.rejected', '2026-01-01T00:00:05.000Z'],
    ]);
    const rejected = await control('listEvents', 'GET', `/__mock/accounts/${t.acc.accountId}/events?type=creative.rejected`);
    expect(rejected.body.data).toHaveLength(1);
    const byResource = await control('listEvents', 'GET', `/__mock/accounts/${t.acc.accountId}/events?resourceId=crt_a`);
    expect(byResource.body.data.map((e: { type: string }) => e.type)).toEqual(['creative.approved']);
    const none = await control('listEvents', 'GET', `/__mock/accounts/${t.acc.accountId}/events?type=campaign.created`);
    expect(none.body.data).toEqual([]);
  });

  it('refuses an unknown type or a repeated filter with 400', async () => {
    for (const query of ['type=creative.exploded', 'type=creative.approved&type=creative.rejected', 'resourceId=']) {
      const res = await control('listEvents', 'GET', `/__mock/accounts/${t.acc.accountId}/events?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.errors[0].field).toMatch(/^(type|resourceId)/);
    }
  });
});
