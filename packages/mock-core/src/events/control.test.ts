/**
 * The webhook control plane (packages/mock-core/src/control/webhooks.ts, contract packages/contract/spec/mock-control.yaml, tag
 * `webhooks`): every answer is checked against its declared schema.
 */
import { describe, expect, it } from 'vitest';
import { buildMock } from '../../../mock/src/node/app.ts';
import { Clock } from '../core/clock.ts';
import { parseSnapshot, restoreState, serializeState } from '../../../mock/src/node/persistence.ts';
import { Store } from '../domain/store.ts';
import type { TestResponse } from '../testkit/harness.ts';
import { controlViolations } from '../testkit/control.ts';
import { controlOperations } from '../control/document.ts';
import { controlRoutes } from '../control/routes.ts';
import { webhookHandlers } from '../control/webhooks.ts';
import { webhookSuite } from '../testkit/webhooks.ts';

const t = webhookSuite();

async function control(operationId: string, method: string, path: string, body?: unknown): Promise<TestResponse> {
  const res = await t.h.control(method, path, body);
  expect(controlViolations(operationId, res), `${method} ${path} → ${res.status} ${res.text}`).toEqual([]);
  return res;
}

const endpoints = () => `/__mock/accounts/${t.acc.accountId}/webhook-endpoints`;

async function create(body: Record<string, unknown> = {}) {
  const res = await control('createWebhookEndpoint', 'POST', endpoints(), { url: t.receiver.url, eventTypes: ['asset.archived'], ...body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('the contract', () => {
  it('every webhook operation of the control document has a handler and every handler an operation', () => {
    const webhookOperations = controlOperations().filter((op) => op.tag === 'webhooks');
    expect(webhookOperations.map((op) => op.operationId).sort()).toEqual(Object.keys(webhookHandlers).sort());
    // ... and the control plane's dispatcher serves each of them with that handler.
    const served = controlRoutes().filter((route) => route.operation.tag === 'webhooks');
    expect(served.map((route) => route.operation.operationId).sort()).toEqual(Object.keys(webhookHandlers).sort());
    for (const route of served) expect(route.handler, route.operation.operationId).toBe(webhookHandlers[route.operation.operationId]);
  });
});

describe('webhook endpoints', () => {
  it('POST registers an endpoint and shows its secret once; GET never shows it again', async () => {
    const created = await create({ eventTypes: ['asset.archived', 'creative.approved'], description: 'local listener' });
    expect(created).toEqual({
      endpointId: expect.stringMatching(/^whe_/),
      url: t.receiver.url,
      description: 'local listener',
      eventTypes: ['asset.archived', 'creative.approved'],
      enabled: true,
      chaos: { duplicate: 0, outOfOrder: false, failFirst: 0 },
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { secret: _secret, ...shown } = created;
    const list = await control('listWebhookEndpoints', 'GET', endpoints());
    expect(list.body).toEqual({ data: [shown] });
    const one = await control('getWebhookEndpoint', 'GET', `${endpoints()}/${created.endpointId}`);
    expect(one.body).not.toHaveProperty('secret');
    expect(list.text).not.toContain(created.secret.slice(6));
    expect(one.text).not.toContain(created.secret.slice(6));
  });

  it.each([
    ['an endpoint with no event type', { eventTypes: [] }, 'eventTypes'],
    ['an unknown event type', { eventTypes: ['run.started'] }, 'eventTypes[0]'],
    ['a host outside loopback', { url: 'http://example.com/hooks' }, 'url'],
    ['a private address', { url: 'http://10.1.2.3:4020/hooks' }, 'url'],
    ['a scheme other than http(s)', { url: 'ftp://127.0.0.1/hooks' }, 'url'],
    ['credentials in the URL', { url: 'http://me:pw@127.0.0.1/hooks' }, 'url'],
    ['a system port of loopback (D256)', { url: 'http://127.0.0.1:22/' }, 'url'],
    ['loopback written as a decimal number (D256)', { url: 'http://2130706433:4020/' }, 'url'],
    ['loopback written in hex (D256)', { url: 'http://0x7f.0.0.1:4020/' }, 'url'],
    ['an unknown field', { secret: 'whsec_x' }, 'secret'],
    ['a duplicate probability above 1 that is not a count', { chaos: { duplicate: 2.5 } }, 'chaos.duplicate'],
    ['a negative failFirst', { chaos: { failFirst: -1 } }, 'chaos.failFirst'],
  ])('refuses %s with 422 VALIDATION_ERROR', async (_name, body, field) => {
    const res = await control('createWebhookEndpoint', 'POST', endpoints(), { url: t.receiver.url, eventTypes: ['asset.archived'], ...body });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: expect.arrayContaining([expect.objectContaining({ field })]) });
    expect(t.service.listEndpoints(t.acc.state)).toEqual([]);
  });

  it('refuses a missing body with 422', async () => {
    const missing = await control('createWebhookEndpoint', 'POST', endpoints());
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'body', message: 'is required' }] });
  });

  it('answers 404 ACCOUNT_NOT_FOUND for an unknown account and 404 NOT_FOUND for an unknown endpoint', async () => {
    const account = await control('listWebhookEndpoints', 'GET', '/__mock/accounts/acc_none/webhook-endpoints');
    expect(account.status).toBe(404);
    expect(account.body.code).toBe('ACCOUNT_NOT_FOUND');
    for (const [operationId, method] of [['getWebhookEndpoint', 'GET'], ['updateWebhookEndpoint', 'PATCH'], ['deleteWebhookEndpoint', 'DELETE']] as const) {
      const res = await control(operationId, method, `${endpoints()}/whe_none`, method === 'PATCH' ? { enabled: false } : undefined);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });

  it('PATCH disables and enables, changes event types, merges chaos; a refused PATCH changes nothing', async () => {
    const { endpointId } = await create({ chaos: { duplicate: 2 } });
    t.h.advance(5);
    const disabled = await control('updateWebhookEndpoint', 'PATCH', `${endpoints()}/${endpointId}`, { enabled: false, eventTypes: ['asset.deleted', 'asset.restored'], chaos: { outOfOrder: true } });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ enabled: false, eventTypes: ['asset.deleted', 'asset.restored'], chaos: { duplicate: 2, outOfOrder: true, failFirst: 0 }, updatedAt: '2026-01-01T00:00:05.000Z' });
    const refused = await control('updateWebhookEndpoint', 'PATCH', `${endpoints()}/${endpointId}`, { enabled: true, eventTypes: [] });
    expect(refused.status).toBe(422);
    const enabled = await control('updateWebhookEndpoint', 'PATCH', `${endpoints()}/${endpointId}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, eventTypes: ['asset.deleted', 'asset.restored'] });
  });

  it('DELETE removes the endpoint (204), then 404', async () => {
    const { endpointId } = await create();
    const gone = await control('deleteWebhookEndpoint', 'DELETE', `${endpoints()}/${endpointId}`);
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    expect((await control('listWebhookEndpoints', 'GET', endpoints())).body).toEqual({ data: [] });
    expect((await control('deleteWebhookEndpoint', 'DELETE', `${endpoints()}/${endpointId}`)).status).toBe(404);
  });
});

describe('the delivery log', () => {
  it('lists every attempt with its times, status and next attempt, filtered by endpoint, event or type', async () => {
    const { endpointId } = await create({ chaos: { failFirst: 1 } });
    const asset = [...t.acc.state.assets.values()][0]!;
    const archive = await t.h.request('POST', `/assets/${asset.assetId}/archive`, { key: t.acc.key('assets:write'), headers: { 'idempotency-key': 'webhook-log-1' } });
    expect(archive.status, archive.text).toBe(200);
    const eventId = t.acc.state.events.at(-1)!.eventId;

    await t.deliver(60, 1);
    await t.deliver(60, 2);

    const log = await control('listWebhookDeliveries', 'GET', `/__mock/accounts/${t.acc.accountId}/webhook-deliveries`);
    expect(log.body.data).toEqual([
      {
        deliveryId: expect.stringMatching(/^whd_/),
        eventId,
        endpointId,
        type: 'asset.archived',
        attempt: 1,
        duplicate: false,
        scheduledAt: '2026-01-01T00:01:00.000Z',
        attemptedAt: '2026-01-01T00:01:00.000Z',
        status: 'failed',
        responseStatus: 204,
        error: 'chaos: failFirst treats attempts 1..1 as failed',
        nextAttemptAt: '2026-01-01T00:02:00.000Z',
        givenUp: false,
        latencyMs: expect.any(Number),
        request: {
          url: t.receiver.url,
          headers: expect.objectContaining({ 'content-type': 'application/json', 'webhook-id': eventId, 'webhook-timestamp': expect.stringMatching(/^\d+$/), 'webhook-signature': expect.stringMatching(/^v1,/) }),
          body: expect.stringContaining(`"type":"asset.archived"`),
        },
      },
      expect.objectContaining({ attempt: 2, scheduledAt: '2026-01-01T00:02:00.000Z', status: 'succeeded', responseStatus: 204, error: null, nextAttemptAt: null }),
    ]);
    const base = `/__mock/accounts/${t.acc.accountId}/webhook-deliveries`;
    expect((await control('listWebhookDeliveries', 'GET', `${base}?eventId=${eventId}`)).body.data).toHaveLength(2);
    expect((await control('listWebhookDeliveries', 'GET', `${base}?endpointId=whe_other`)).body.data).toHaveLength(0);
    expect((await control('listWebhookDeliveries', 'GET', `${base}?type=asset.deleted`)).body.data).toHaveLength(0);
    expect((await control('listWebhookDeliveries', 'GET', `${base}?type=asset.archived`)).body.data).toHaveLength(2);
    const last = await control('listWebhookDeliveries', 'GET', `${base}?limit=1`);
    expect(last.body.data).toEqual([expect.objectContaining({ attempt: 2, status: 'succeeded' })]);
  });

  it('keeps every detail of the delivery log across a --state save and restore: latency, headers with the signature, payload, answer', async () => {
    await create({ chaos: { failFirst: 1 } });
    const asset = [...t.acc.state.assets.values()][0]!;
    expect((await t.h.request('POST', `/assets/${asset.assetId}/archive`, { key: t.acc.key('assets:write'), headers: { 'idempotency-key': 'state-log-1' } })).status).toBe(200);
    await t.deliver(60, 1);
    await t.deliver(60, 2);
    const base = `/__mock/accounts/${t.acc.accountId}/webhook-deliveries`;
    const before = (await control('listWebhookDeliveries', 'GET', base)).body.data;
    expect(before).toHaveLength(2);
    for (const row of before) expect(row).toMatchObject({ latencyMs: expect.any(Number), responseStatus: 204, request: { headers: expect.objectContaining({ 'webhook-signature': expect.stringMatching(/^v1,/) }) } });

    const store = new Store();
    const resumed = restoreState(store, parseSnapshot(serializeState(t.h.mock.services.store, t.h.clock)));
    const copy = buildMock({ store, clock: new Clock({ mode: 'manual', start: resumed.epochMs }) });
    await copy.app.ready();
    try {
      const res = await copy.inject({ method: 'GET', url: base });
      const answer = { status: res.statusCode, headers: res.headers as Record<string, string>, body: JSON.parse(res.payload), text: res.payload };
      expect(controlViolations('listWebhookDeliveries', answer)).toEqual([]);
      expect(answer.body.data).toEqual(before);
    } finally {
      await copy.app.close();
    }
  });

  it('re-sends a delivery: a new delivery of the same event, attempted now, in the log and at the receiver', async () => {
    await create();
    const asset = [...t.acc.state.assets.values()][0]!;
    expect((await t.h.request('POST', `/assets/${asset.assetId}/archive`, { key: t.acc.key('assets:write'), headers: { 'idempotency-key': 'resend-1' } })).status).toBe(200);
    await t.deliver(60, 1);
    const base = `/__mock/accounts/${t.acc.accountId}/webhook-deliveries`;
    const [first] = (await control('listWebhookDeliveries', 'GET', base)).body.data;
    const resent = await control('resendWebhookDelivery', 'POST', `${base}/${first.deliveryId}/resend`);
    expect(resent.status).toBe(202);
    expect(resent.body).toEqual({ deliveryId: expect.stringMatching(/^whd_/), eventId: first.eventId, endpointId: first.endpointId, resentFrom: first.deliveryId });
    expect(resent.body.deliveryId).not.toBe(first.deliveryId);
    await t.h.mock.services.webhooks.idle();
    const rows = (await control('listWebhookDeliveries', 'GET', base)).body.data;
    expect(rows).toEqual([expect.objectContaining({ deliveryId: first.deliveryId }), expect.objectContaining({ deliveryId: resent.body.deliveryId, eventId: first.eventId, attempt: 1, status: 'succeeded' })]);
    expect((await t.receiver.waitFor(2)).map((r) => r.headers['webhook-id'])).toEqual([first.eventId, first.eventId]);
    const missing = await control('resendWebhookDelivery', 'POST', `${base}/whd_missing/resend`);
    expect(missing.status).toBe(404);
  });
});

describe('settings', () => {
  it('the processing delay per account and globally', async () => {
    const account = `/__mock/accounts/${t.acc.accountId}/webhook-settings`;
    expect((await control('getAccountWebhookSettings', 'GET', account)).body).toEqual({ processingDelaySeconds: 60, accountProcessingDelaySeconds: null, planIncludesWebhooks: true });
    const global = await control('updateWebhookSettings', 'PATCH', '/__mock/webhook-settings', { processingDelaySeconds: 5 });
    expect(global.body).toEqual({ processingDelaySeconds: 5, retry: { firstDelaySeconds: 60, factor: 2, maxDelaySeconds: 3600, horizonSeconds: 86400 }, requestTimeoutMs: 5000 });
    expect((await control('updateAccountWebhookSettings', 'PATCH', account, { processingDelaySeconds: 1.5 })).body).toEqual({ processingDelaySeconds: 1.5, accountProcessingDelaySeconds: 1.5, planIncludesWebhooks: true });
    expect((await control('updateAccountWebhookSettings', 'PATCH', account, { processingDelaySeconds: null })).body).toMatchObject({ processingDelaySeconds: 5, accountProcessingDelaySeconds: null });
    expect((await control('updateAccountWebhookSettings', 'PATCH', account, { processingDelaySeconds: -1 })).status).toBe(422);
    expect((await control('updateWebhookSettings', 'PATCH', '/__mock/webhook-settings', { processingDelaySeconds: 86_401 })).status).toBe(422);
    expect((await control('getWebhookSettings', 'GET', '/__mock/webhook-settings')).body.processingDelaySeconds).toBe(5);
  });
});
