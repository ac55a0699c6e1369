/**
 * End to end: a real HTTP receiver on 127.0.0.1 is registered through the control plane; one event
 * of each of the 15 types is caused through the public API (the harness), one review by another
 * actor through the control plane's actions, `run.completed` through a run; the clock is advanced
 * and every delivery that arrives over the socket is verified as a receiver would:
 * the signature with the unmodified `new Webhook(secret).verify(rawBody, headers)` (its default
 * five-minute window, judged by the real clock, however far the mock's clock was moved), the
 * headers and the envelope against the document (the `<X>Event` schema and the webhook's own request
 * body), the actor rules, and exactly one delivery per recorded event.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { eventTypes } from '../../../contract/spec/tables.ts';
import { validatorFor } from '../../../contract/spec/contract.ts';
import { controlViolations } from '../testkit/control.ts';
import type { RequestOptions, TestResponse } from '../testkit/harness.ts';
import type { DomainEvent } from './model.ts';
import { attemptTimes, DEFAULT_RETRY_POLICY } from './backoff.ts';
import { signatureHeadersOf, verifyAt, webhookSuite, type ReceivedOverHttp } from '../testkit/webhooks.ts';

const EVENT_SCHEMA: Record<string, string> = {
  'run.completed': 'RunCompletedEvent',
  'creative.updated': 'CreativeUpdatedEvent',
  'asset.updated': 'AssetUpdatedEvent',
  'campaign.updated': 'CampaignUpdatedEvent',
};
function eventSchema(type: string): string {
  return EVENT_SCHEMA[type] ?? `${type.split('.')[0]!.replace(/^./, (c) => c.toUpperCase())}Event`;
}

const t = webhookSuite();
let idem = 0;

async function api(method: string, path: string, key: string, options: RequestOptions = {}): Promise<TestResponse> {
  const res = await t.h.request(method, path, { key: t.acc.key(key), ...options, headers: { 'idempotency-key': `e2e-${++idem}`, ...(options.headers ?? {}) } });
  expect(res.status, `${method} ${path} → ${res.status} ${res.text}`).toBeLessThan(300);
  return res;
}

async function register(types: readonly string[] = eventTypes): Promise<{ endpointId: string; secret: string }> {
  const res = await t.h.control('POST', `/__mock/accounts/${t.acc.accountId}/webhook-endpoints`, { url: t.receiver.url, eventTypes: types, description: 'e2e receiver' });
  expect(controlViolations('createWebhookEndpoint', res)).toEqual([]);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

interface Checked {
  request: ReceivedOverHttp;
  id: string;
  payload: any;
}

/**
 * Everything a receiver checks, with the stock verifier at the real time (the library's replay window).
 * The webhook's own request body schema (packages/contract/spec/openapi.yaml `webhooks`) pins `data.deletedAt` on
 * `*.deleted` / `*.restored`; since `data` is rendered when sent (EVT-024), that holds only while
 * the event is still the latest of its resource: `latest: false` checks the `<X>Event` schema only.
 */
function check(request: ReceivedOverHttp, secret: string, latest: (eventId: string) => boolean = () => true): Checked {
  expect(request.method).toBe('POST');
  expect(request.headers['content-type']).toBe('application/json');
  const headers = signatureHeadersOf(request);
  for (const [name, schema] of [['webhook-id', 'WebhookId'], ['webhook-timestamp', 'WebhookTimestamp'], ['webhook-signature', 'WebhookSignature']] as const) {
    expect(validatorFor(`#/components/parameters/${schema}/schema`)(headers[name]), `${name}: ${headers[name]}`).toBe(true);
  }
  const payload = new Webhook(secret).verify(request.body, headers) as any; // throws on a bad signature or an old timestamp
  expect(payload).toEqual(JSON.parse(request.body));
  const component = validatorFor(`#/components/schemas/${eventSchema(payload.type)}`);
  expect(component(payload), `${payload.type} vs ${eventSchema(payload.type)}: ${JSON.stringify(component.errors?.slice(0, 3))}`).toBe(true);
  if (latest(headers['webhook-id']!)) {
    const webhook = validatorFor(`#/webhooks/${payload.type}/post/requestBody/content/application~1json/schema`);
    expect(webhook(payload), `${payload.type} vs its webhook body: ${JSON.stringify(webhook.errors?.slice(0, 3))}`).toBe(true);
  }
  return { request, id: headers['webhook-id']!, payload };
}

describe('webhooks end to end, over real HTTP', () => {
  it('one delivery per event of each of the 15 types, signed, in the documented envelope, with the actor rules', async () => {
    const { secret } = await register();
    const start = t.h.clock.now();
    const wallAtStart = Date.now();

    // Campaign: created, updated; two of its three creatives generated in the dashboard (the third
    // stays NOT_GENERATED and must never be the subject of an event, EVT-017).
    const brandId = [...t.acc.state.brands.values()][0]!.brandId;
    const productIds = [...t.acc.state.products.values()].filter((p) => p.brandId === brandId).slice(0, 3).map((p) => p.productId);
    const campaign = (await api('POST', '/campaigns', 'campaigns:write', { body: { name: 'Webhook launch', brandId, productIds } })).body;
    const campaignId = campaign.campaignId as string;
    const generated = await t.h.control('POST', `/__mock/accounts/${t.acc.accountId}/actions`, { actor: { kind: 'user' }, action: 'generateCreatives', input: { campaignId, productIds: productIds.slice(0, 2) } });
    expect(generated.status, generated.text).toBe(200);
    const [c1, c2] = generated.body.body.creativeIds as string[];
    const c3 = t.acc.state.campaigns.get(campaignId)!.creativeIds.find((id) => id !== c1 && id !== c2)!;
    await api('PATCH', `/campaigns/${campaignId}`, 'campaigns:write', { body: { name: 'Webhook launch, renamed' } });

    // Creatives: approved (API key), rejected (a review link), updated, deleted, restored.
    await api('POST', `/creatives/${c1}/approve`, 'creatives:review');
    const rejected = await t.h.control('POST', `/__mock/accounts/${t.acc.accountId}/actions`, { actor: { kind: 'share_link' }, operationId: 'rejectCreative', pathParams: { creativeId: c2 }, body: { rejectionReason: 'Off brand' } });
    expect(rejected.body.status, rejected.text).toBe(200);
    await api('PATCH', `/creatives/${c1}`, 'creatives:write', { body: { metadata: { channel: 'web' } } });
    await api('DELETE', `/creatives/${c1}`, 'creatives:write');
    await api('POST', `/creatives/${c1}/undelete`, 'creatives:write');

    // Asset: updated, archived, unarchived, deleted, restored.
    const asset = [...t.acc.state.assets.values()][0]!;
    await api('PATCH', `/assets/${asset.assetId}`, 'assets:write', { body: { favorited: !asset.favorited } });
    await api('POST', `/assets/${asset.assetId}/archive`, 'assets:write');
    await api('POST', `/assets/${asset.assetId}/unarchive`, 'assets:write');
    await api('DELETE', `/assets/${asset.assetId}`, 'assets:write');
    await api('POST', `/assets/${asset.assetId}/undelete`, 'assets:write');

    // Campaign deleted and restored: the cascade sends creative.deleted / creative.restored for each
    // readable creative (EVT-011, EVT-012), never for the NOT_GENERATED one.
    await api('DELETE', `/campaigns/${campaignId}`, 'campaigns:write');
    await api('POST', `/campaigns/${campaignId}/undelete`, 'campaigns:write');

    // A run: run.completed once it is final (EVT-008), without an actor (EVT-027).
    const run = (await api('POST', '/runs', 'runs:write', { body: { productIds: productIds.slice(0, 1), creativesPerProduct: 1, presetId: 'pst_studio_white' } })).body;

    const recorded = (): DomainEvent[] => t.acc.state.events;
    const latest = (eventId: string) => {
      const event = recorded().find((e) => e.eventId === eventId)!;
      return recorded().findLast((e) => e.resource.id === event.resource.id) === event;
    };
    const atStart = recorded().filter((e) => e.timestamp === start);
    expect(new Set(atStart.map((e) => e.type))).toEqual(new Set(eventTypes.filter((t) => t !== 'run.completed')));
    expect(atStart.some((e) => e.resource.id === c3)).toBe(false);

    // Processing, a minute after the changes: every change of the start instant goes out.
    t.h.advance(60);
    const runEvent = recorded().find((e) => e.type === 'run.completed');
    expect(runEvent, 'the run is final within a minute').toBeDefined();
    expect(runEvent!.timestamp).toBeGreaterThan(start);
    await t.receiver.waitFor(atStart.length);
    await t.service.idle();
    expect(t.receiver.requests).toHaveLength(atStart.length);
    const first = t.receiver.requests.map((r) => check(r, secret, latest));

    // A minute after the run became final: run.completed.
    await t.deliver(60, atStart.length + 1);
    const second = t.receiver.requests.slice(atStart.length).map((r) => check(r, secret, latest));
    const deliveries = [...first, ...second];

    // Exactly one delivery per recorded event, each type at least once, webhook-id = event id.
    expect(deliveries.map((d) => d.id).sort()).toEqual(recorded().map((e) => e.eventId).sort());
    expect(new Set(deliveries.map((d) => d.payload.type))).toEqual(new Set(eventTypes));
    expect(eventTypes).toHaveLength(15);

    const byId = new Map(recorded().map((e) => [e.eventId, e]));
    for (const d of deliveries) {
      const event = byId.get(d.id)!;
      // EVT-021, EVT-022: the type, and the time of the change (not of the delivery).
      expect(d.payload.type).toBe(event.type);
      expect(d.payload.timestamp).toBe(new Date(event.timestamp).toISOString());
      // #12 §3: signed with the wall clock's second when sent, not the mock clock's (which the log keeps).
      expect(Number(d.request.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(Math.floor(wallAtStart / 1000));
      expect(Number(d.request.headers['webhook-timestamp'])).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
      // EVT-028: the event id is not in the body.
      expect(d.request.body).not.toContain(d.id);
      // EVT-026: previousAttributes on *.updated only, exactly as recorded.
      if (event.type.endsWith('.updated')) expect(d.payload.previousAttributes).toEqual(event.previousAttributes ?? {});
      else expect(d.payload).not.toHaveProperty('previousAttributes');
      // EVT-027, EVT-035..037: actor absent on run.completed; apiKeyId only (and always) for api_key.
      if (event.type === 'run.completed') {
        expect(d.payload).not.toHaveProperty('actor');
      } else if (d.payload.actor.kind === 'api_key') {
        expect(Object.keys(d.payload.actor).sort()).toEqual(['apiKeyId', 'kind']);
        expect(Object.values(t.acc.keys).map((k) => k.keyId)).toContain(d.payload.actor.apiKeyId);
      } else {
        expect(Object.keys(d.payload.actor)).toEqual(['kind']);
      }
    }

    const of = (type: string) => deliveries.filter((d) => d.payload.type === type);
    // The writing key of each API change (EVT-035).
    expect(of('campaign.created')[0]!.payload.actor).toEqual({ kind: 'api_key', apiKeyId: t.acc.keys['campaigns:write']!.keyId });
    expect(of('creative.approved')[0]!.payload.actor).toEqual({ kind: 'api_key', apiKeyId: t.acc.keys['creatives:review']!.keyId });
    expect(of('asset.archived')[0]!.payload.actor).toEqual({ kind: 'api_key', apiKeyId: t.acc.keys['assets:write']!.keyId });
    // The review link (EVT-019, EVT-036).
    expect(of('creative.rejected')).toHaveLength(1);
    expect(of('creative.rejected')[0]!.payload.actor).toEqual({ kind: 'share_link' });
    // EVT-011, EVT-012: the cascade covers the readable creatives, once on its own and once with the campaign.
    expect(of('creative.deleted').map((d) => d.payload.data.creativeId).sort()).toEqual([c1, c1, c2].sort());
    expect(of('creative.restored').map((d) => d.payload.data.creativeId).sort()).toEqual([c1, c1, c2].sort());
    // EVT-023: data with showDeleted; EVT-024: rendered when sent, so the campaign shows its last name.
    expect(of('campaign.deleted')[0]!.payload.data).toMatchObject({ campaignId, name: 'Webhook launch, renamed', deletedAt: null });
    expect(of('campaign.created')[0]!.payload.data.name).toBe('Webhook launch, renamed');
    expect(of('campaign.updated')[0]!.payload.previousAttributes).toEqual({ name: 'Webhook launch' });
    expect(of('creative.updated')[0]!.payload.previousAttributes).toEqual({ metadata: {} });
    expect(of('asset.updated')[0]!.payload.previousAttributes).toEqual({ favorited: asset.favorited });
    // EVT-008: run.completed carries the run as GET /runs/{runId} returns it.
    const runNow = await api('GET', `/runs/${run.runId}`, 'runs:read');
    expect(of('run.completed')[0]!.payload.data).toEqual(runNow.body);

    // EVT-020: changes that alter nothing send nothing (the domain records nothing; verified here
    // through the public API and the wire).
    const before = recorded().length;
    await api('PATCH', `/campaigns/${campaignId}`, 'campaigns:write', { body: { name: 'Webhook launch, renamed' } });
    await api('PATCH', `/creatives/${c1}`, 'creatives:write', { body: { metadata: { channel: 'web' } } });
    await api('POST', `/creatives/${c1}/approve`, 'creatives:review');
    await api('POST', `/assets/${asset.assetId}/undelete`, 'assets:write');
    await api('POST', `/campaigns/${campaignId}/undelete`, 'campaigns:write');
    expect(recorded()).toHaveLength(before);
    t.h.advance(3600);
    await t.service.idle();
    expect(t.receiver.requests).toHaveLength(deliveries.length);

    // The delivery log agrees: one succeeded first attempt per event.
    const log = await t.h.control('GET', `/__mock/accounts/${t.acc.accountId}/webhook-deliveries`);
    expect(controlViolations('listWebhookDeliveries', log)).toEqual([]);
    expect(log.body.data).toHaveLength(deliveries.length);
    expect(log.body.data.every((row: any) => row.attempt === 1 && row.status === 'succeeded' && row.responseStatus === 204)).toBe(true);
  });

  it('a receiver that answers 500 gets the same webhook-id again a minute later (on the mock\'s clock), each attempt verifiable', async () => {
    const { secret } = await register(['asset.archived']);
    t.receiver.status = (_r, i) => (i === 0 ? 500 : 204);
    const asset = [...t.acc.state.assets.values()][0]!;
    await api('POST', `/assets/${asset.assetId}/archive`, 'assets:write');
    await t.deliver(60, 1);
    await t.deliver(60, 2);
    const [a, b] = t.receiver.requests.map((r) => check(r, secret));
    expect(a!.id).toBe(b!.id);
    const attempted = t.service.deliveries(t.acc.state).map((row) => row.attemptedAt!);
    expect(attempted[1]! - attempted[0]!).toBe(60_000);
  });

  it('#12 §3 after the clock moved by days, a stock standardwebhooks receiver (default tolerance) verifies every delivery; the envelope keeps the time of the change', async () => {
    const { secret } = await register(['asset.archived', 'asset.unarchived']);
    t.receiver.status = (_r, i) => (i === 0 ? 500 : 204);
    const clock = async (advanceSeconds: number) => expect((await t.h.control('POST', '/__mock/clock', { advanceSeconds })).status).toBe(200);
    await clock(3 * 86_400);
    const asset = [...t.acc.state.assets.values()][0]!;
    await api('POST', `/assets/${asset.assetId}/archive`, 'assets:write');
    const changedAt = t.h.clock.now();
    await clock(5 * 86_400); // far past the processing delay: the first attempt (500) and its retry
    await api('POST', `/assets/${asset.assetId}/unarchive`, 'assets:write');
    await clock(2 * 86_400);
    const requests = await t.receiver.waitFor(3);
    for (const request of requests) {
      const payload = new Webhook(secret).verify(request.body, signatureHeadersOf(request)) as { timestamp: string };
      expect(Date.parse(payload.timestamp)).toBeGreaterThanOrEqual(changedAt);
    }
    expect((JSON.parse(requests[0]!.body) as { timestamp: string }).timestamp).toBe(new Date(changedAt).toISOString());
  });

  it('EVT-040 EVT-041 one advance through the control plane runs every retry that falls due inside it, each at its own due time (a 24-hour drill is one advance)', async () => {
    await register(['asset.archived']);
    t.receiver.status = () => 500;
    const asset = [...t.acc.state.assets.values()][0]!;
    await api('POST', `/assets/${asset.assetId}/archive`, 'assets:write');
    const changedAt = t.h.clock.now();
    const advanced = await t.h.control('POST', '/__mock/clock', { advanceSeconds: 25 * 3600 });
    expect(advanced.body.pendingTasks, 'nothing left on the clock after the advance').toBe(0);
    const expected = attemptTimes(DEFAULT_RETRY_POLICY, changedAt, changedAt + 60_000);
    const rows = t.service.deliveries(t.acc.state);
    expect(rows.map((row) => row.attemptedAt)).toEqual(expected);
    expect(rows.at(-1)).toMatchObject({ givenUp: true, nextAttemptAt: null });
    expect(t.receiver.requests).toHaveLength(expected.length);
  });

  it('the replay window: a delivery checked more than five minutes after it was signed fails verification', async () => {
    const { secret } = await register(['asset.archived']);
    const asset = [...t.acc.state.assets.values()][0]!;
    await api('POST', `/assets/${asset.assetId}/archive`, 'assets:write');
    const [request] = await t.deliver(60, 1);
    const signedAt = Number(request!.headers['webhook-timestamp']) * 1000;
    expect(() => verifyAt(signedAt + 300_000, secret, request!.body, signatureHeadersOf(request!))).not.toThrow();
    expect(() => verifyAt(signedAt + 301_000, secret, request!.body, signatureHeadersOf(request!))).toThrow('Message timestamp too old');
  });

  it('EVT-011, EVT-014, EVT-016: a *.deleted delivery of a resource still deleted when sent carries deletedAt', async () => {
    const { secret } = await register(['asset.deleted', 'creative.deleted', 'campaign.deleted']);
    const brandId = [...t.acc.state.brands.values()][0]!.brandId;
    const productIds = [...t.acc.state.products.values()].filter((p) => p.brandId === brandId).slice(0, 1).map((p) => p.productId);
    const { campaignId } = (await api('POST', '/campaigns', 'campaigns:write', { body: { name: 'To delete', brandId, productIds } })).body;
    await t.h.control('POST', `/__mock/accounts/${t.acc.accountId}/actions`, { actor: { kind: 'user' }, action: 'generateCreatives', input: { campaignId } });
    const asset = [...t.acc.state.assets.values()][0]!;
    await api('DELETE', `/assets/${asset.assetId}`, 'assets:write');
    await api('DELETE', `/campaigns/${campaignId}`, 'campaigns:write');
    await t.deliver(60, 3);
    const checked = t.receiver.requests.map((r) => check(r, secret));
    expect(checked.map((c) => c.payload.type).sort()).toEqual(['asset.deleted', 'campaign.deleted', 'creative.deleted']);
    for (const c of checked) expect(c.payload.data.deletedAt).toBe(new Date(t.h.clock.now() - 60_000).toISOString());
  });

  it('EVT-003: without the webhooks feature nothing reaches the receiver', async () => {
    await register(['asset.archived']);
    const plan = await t.h.control('PATCH', `/__mock/accounts/${t.acc.accountId}/plan`, { tier: 'core' });
    expect(plan.body.webhooks).toBe(false);
    const asset = [...t.acc.state.assets.values()][0]!;
    await api('POST', `/assets/${asset.assetId}/archive`, 'assets:write');
    t.h.advance(3600);
    await t.service.idle();
    expect(t.receiver.requests).toHaveLength(0);
  });
});
