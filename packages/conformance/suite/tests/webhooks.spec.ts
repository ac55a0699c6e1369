/**
 * Webhooks (EVT-*): every event type the public API can cause arrives at a receiver the suite
 * starts (fixtures/webhook-inbox.ts), once the clock passes the processing delay; each delivery is
 * signed per Standard Webhooks (verified with the `standardwebhooks` package); the envelope follows
 * the document's event schemas; `previousAttributes` lists exactly the changed fields; `actor` names
 * the writing key, or the kind of another actor; run.completed has no actor and fires once; nothing
 * is sent for a change that alters nothing, without the plan feature, or for a type the endpoint did
 * not select; a failed hand-over is retried with the same webhook-id.
 *
 * Endpoints are added in the dashboard, not through the API: the tests register the inbox through
 * the webhooks hook of packages/contract/spec/conformance-hooks.yaml, so every test here is tagged @hook:webhooks
 * (with @hook:accounts for an account the hooks know and @hook:clock to let the about-one-minute
 * processing pass on the account's clock).
 *
 * How an event is delivered (signature, webhook-id, retries, duplicates) is judged on one event of
 * the test's own from the smallest scene that makes one: a run's run.completed, from the catalog and
 * a runs:write key alone, where the suite may spend; a PENDING creative's approval otherwise
 * (`eventScene`, D272 in packages/conformance/suite/README.md). So a target without the actors hook, whose accounts
 * hold only their catalog, judges them.
 *
 * Absence is judged with a marker: a later change whose delivery is awaited. Deliveries to one
 * endpoint go out one at a time in the order they are processed, so anything an earlier change
 * caused has arrived by the time the marker does.
 */
import { validatorFor } from '../../../contract/spec/contract.ts';
import type { Schemas } from '../../../contract/spec/types.ts';
import { walk } from '../fixtures/lists.ts';
import type { ApiClient, TestClock } from '../fixtures/index.ts';
import type { ActionRequest, EventType } from '../fixtures/hooks.ts';
import { acceptedRun, getRun, idempotencyKey, pollRun, presetId, setPlan, someProductIds } from '../fixtures/generation.ts';
import { dashboard, first } from '../fixtures/resources.ts';
import {
  deliveries,
  expect,
  skipWhenAbsent,
  needsOperations,
  registerEndpoint,
  settledDeliveries,
  test,
  verifyAt,
  type Delivery,
  type WebhookInbox,
} from '../fixtures/webhook-inbox.ts';

type Creative = Schemas['Creative'];
type Asset = Schemas['Asset'];
type Campaign = Schemas['Campaign'];

const CREATIVE_EVENTS: EventType[] = ['creative.approved', 'creative.rejected', 'creative.updated', 'creative.deleted', 'creative.restored'];
const ASSET_EVENTS: EventType[] = ['asset.updated', 'asset.archived', 'asset.unarchived', 'asset.deleted', 'asset.restored'];
const CAMPAIGN_EVENTS: EventType[] = ['campaign.created', 'campaign.updated', 'campaign.deleted', 'campaign.restored'];

/** The event schema of the document a payload of this type must satisfy. */
function schemaOf(type: string): string {
  if (type === 'run.completed') return 'RunCompletedEvent';
  const [resource, action] = type.split('.');
  const name = `${resource![0]!.toUpperCase()}${resource!.slice(1)}`;
  return action === 'updated' ? `${name}UpdatedEvent` : `${name}Event`;
}

/** Signed per Standard Webhooks, verified by the library, and shaped as the document's event schema. */
function expectSignedEnvelope(delivery: Delivery): void {
  const what = `delivery #${delivery.index} (${delivery.payload?.type}):\n${delivery.raw}`;
  expect(delivery.verified, `new Webhook(secret).verify(raw, headers) accepts ${what}\n${delivery.verifyError}`).toBe(true);
  expect(delivery.id, 'webhook-id is msg_<id>').toMatch(/^msg_\S+$/);
  expect(delivery.headers['webhook-timestamp'], 'webhook-timestamp is Unix seconds').toMatch(/^\d+$/);
  expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$/);
  const schema = schemaOf(delivery.payload.type);
  const validate = validatorFor(`#/components/schemas/${schema}`);
  expect(validate(delivery.payload), `${what}\nagainst ${schema}: ${JSON.stringify(validate.errors, null, 2)}`).toBe(true);
  expect(delivery.raw.includes(delivery.id), 'the event id is not in the body').toBe(false);
}

function ofResource(delivery: Delivery, type: string, idField: string, id: string): boolean {
  return delivery.payload?.type === type && delivery.payload.data[idField] === id;
}

/** Wait for one delivery of `type` about the resource, and check its envelope. */
async function arrival(inbox: WebhookInbox, type: string, idField: string, id: string): Promise<Delivery> {
  const [delivery] = await inbox.waitFor(1, (d) => ofResource(d, type, idField, id));
  expectSignedEnvelope(delivery!);
  return delivery!;
}

// ---------------------------------------------------------------------------------------------
// The event a delivery test watches (D272)

/** One event a scene caused: its type and the resource its deliveries are about. */
interface Caused {
  type: EventType;
  idField: 'runId' | 'creativeId';
  id: string;
}

/**
 * What a delivery test (signature, retries, duplicates) needs is one event of its own, of any type.
 * The smallest scene that makes one is a run: `run.completed` of a run the test starts (1 product,
 * 1 creative) and completes on the account's clock, from the catalog and a runs:write key, which is
 * all the accounts hook promises (no creatives, no actors hook). It is taken wherever the target
 * lets the suite spend (CONFORMANCE_ALLOW_SPEND=1, always the local mock); elsewhere the approval of
 * a PENDING creative the account already holds, as before (skipped naming both when it has none).
 */
interface EventScene {
  /** The event types to register the endpoint for. */
  eventTypes: EventType[];
  /** Cause one more event (a run brought to its end, or an approval); its processing is still to come. */
  cause(): Promise<Caused>;
}

async function eventScene(api: ApiClient, clock: TestClock, target: { allowSpend: boolean }, count: number): Promise<EventScene> {
  if (target.allowSpend) {
    const writer = api.as('runs:write');
    const body = { productIds: await someProductIds(api, 1), creativesPerProduct: 1, presetId: await presetId(writer) };
    return {
      eventTypes: ['run.completed'],
      cause: async () => {
        const run = await acceptedRun(writer, body);
        await pollRun(writer, clock, run.runId, { stepSeconds: 5 });
        return { type: 'run.completed', idField: 'runId', id: run.runId };
      },
    };
  }
  const found = (await creatives(api)).filter((c) => c.status === 'PENDING');
  skipWhenAbsent(found.length < count, `needs a run's run.completed (--allow-spend) or ${count} PENDING creatives, the account has ${found.length}`);
  const pending = found.slice(0, count);
  return {
    eventTypes: ['creative.approved'],
    cause: async () => {
      const creative = pending.shift();
      if (creative === undefined) throw new Error(`the scene was asked for more than the ${count} events it was made for`);
      await approve(api, creative.creativeId);
      return { type: 'creative.approved', idField: 'creativeId', id: creative.creativeId };
    },
  };
}

const about = (caused: Caused) => (d: Delivery) => ofResource(d, caused.type, caused.idField, caused.id);

/**
 * Wait for `count` deliveries matching `match` that arrived from `since` on (an index of the inbox);
 * a shortfall fails naming `rule`, so the report blames the rule the missing delivery shows.
 */
async function arrivals(inbox: WebhookInbox, match: (d: Delivery) => boolean, count: number, rule: string, since = 0): Promise<Delivery[]> {
  try {
    return await inbox.waitFor(count, (d) => d.index >= since && match(d));
  } catch (error) {
    throw new Error(`${rule}: ${(error as Error).message}`);
  }
}

/**
 * The inbox answers 500 to the first `failures` attempts of the first event about `caused` (by its
 * webhook-id), 204 to everything else: a second event about the same resource is not retried.
 */
function failFirstAttempts(inbox: WebhookInbox, caused: Caused, failures: number): void {
  let failingId: string | undefined;
  inbox.respond = (delivery, seen) => {
    if (failingId === undefined && about(caused)(delivery)) failingId = delivery.id;
    return delivery.id === failingId && seen < failures ? 500 : 204;
  };
}

// ---------------------------------------------------------------------------------------------
// Scene helpers (public API)

async function creatives(api: ApiClient): Promise<Creative[]> {
  return (await walk<Creative>(api, '/creatives', { limit: 100 })).rows;
}

/** Readable creatives in review status `status` (D6's field; skips the test when there are too few). */
async function creativesIn(api: ApiClient, status: 'PENDING' | 'APPROVED' | 'REJECTED', count: number): Promise<Creative[]> {
  const found = (await creatives(api)).filter((c) => c.status === status);
  skipWhenAbsent(found.length < count, `needs ${count} ${status} creatives, the account has ${found.length}`);
  return found.slice(0, count);
}

async function approve(api: ApiClient, creativeId: string): Promise<Creative> {
  const response = await api.as('creatives:review').post(`/creatives/${creativeId}/approve`, { idempotencyKey: idempotencyKey() });
  expect(response).toHaveStatus(200);
  return response.json as Creative;
}

async function reject(api: ApiClient, creativeId: string): Promise<Creative> {
  const response = await api.as('creatives:review').post(`/creatives/${creativeId}/reject`, { body: { rejectionReason: 'conformance' }, idempotencyKey: idempotencyKey() });
  expect(response).toHaveStatus(200);
  return response.json as Creative;
}

async function patchCreative(api: ApiClient, creativeId: string, body: Record<string, unknown>): Promise<Creative> {
  const response = await api.as('creatives:write').patch(`/creatives/${creativeId}`, { body });
  expect(response).toHaveStatus(200);
  return response.json as Creative;
}

async function patchAsset(api: ApiClient, assetId: string, body: Record<string, unknown>): Promise<Asset> {
  const response = await api.as('assets:write').patch(`/assets/${assetId}`, { body });
  expect(response).toHaveStatus(200);
  return response.json as Asset;
}

async function liveAsset(api: ApiClient): Promise<Asset> {
  const asset = (await walk<Asset>(api, '/assets', { limit: 100 })).rows.find((a) => a.deletedAt === null && a.status !== 'archived');
  skipWhenAbsent(asset === undefined, 'needs a live, unarchived asset');
  return asset!;
}

async function readShowDeleted<T>(api: ApiClient, path: string): Promise<T> {
  const response = await api.get(path, { query: { showDeleted: true } });
  expect(response).toHaveStatus(200);
  return response.json as T;
}

/** A new campaign for one product of the catalog (D16 body). */
async function createCampaign(api: ApiClient, name: string): Promise<Campaign> {
  const products = (await walk<Schemas['Product']>(api, '/products', { limit: 10 }, 1)).rows;
  const product = products.find((p) => p.brandId !== undefined);
  skipWhenAbsent(product === undefined, 'needs a product with a brandId');
  const response = await api.as('campaigns:write').post('/campaigns', { body: { name, brandId: product!.brandId, productIds: [product!.productId] }, idempotencyKey: idempotencyKey() });
  expect(response).toHaveStatus(201);
  return response.json as Campaign;
}

test.beforeEach(({ target }) => {
  needsOperations(target, 'approveCreative', 'rejectCreative', 'updateCreative', 'deleteCreative', 'undeleteCreative', 'updateAsset', 'archiveAsset', 'unarchiveAsset', 'deleteAsset', 'undeleteAsset', 'createCampaign', 'updateCampaign', 'deleteCampaign', 'undeleteCampaign');
});

// ---------------------------------------------------------------------------------------------
// Signature and envelope

test('EVT-043 EVT-044 EVT-045 EVT-046 EVT-047 EVT-028 EVT-021 EVT-002 a delivery arrives signed per Standard Webhooks over its raw body, id and timestamp with the endpoint\'s secret, stamped with the real time of sending', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@area:products', '@area:presets', '@area:runs', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox, target }) => {
  const scene = await eventScene(api, clock, target, 1);
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: scene.eventTypes });
  const caused = await scene.cause();
  await endpoint.process();
  const delivery = await arrival(inbox, caused.type, caused.idField, caused.id);

  // The signature covers the raw body, the id and the timestamp, with this endpoint's secret.
  // The replay window is the receiver's own clock: a target whose clock was moved still signs with the real time.
  const { headers, raw, receivedAt } = delivery;
  expect(delivery.verified, `the stock verifier accepts it on arrival: ${delivery.verifyError}`).toBe(true);
  const changedBody = raw.replace(JSON.stringify(caused.type), JSON.stringify(`${caused.type}x`));
  expect(changedBody, 'the body names its type').not.toBe(raw);
  expect(() => verifyAt(endpoint.secret, changedBody, headers, receivedAt), 'a changed body fails').toThrow();
  expect(() => verifyAt(endpoint.secret, raw, { ...headers, 'webhook-id': `${delivery.id}x` }, receivedAt), 'another id fails').toThrow();
  expect(() => verifyAt(endpoint.secret, raw, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) }, receivedAt), 'another timestamp fails').toThrow();
  expect(() => verifyAt('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', raw, headers, receivedAt), 'another secret fails').toThrow();
  expect(() => verifyAt(endpoint.secret, raw, headers, Number(headers['webhook-timestamp']) * 1000 + 301_000), 'outside the five-minute window it fails').toThrow(/too old/);
  expect(Math.abs(Number(headers['webhook-timestamp']) - Math.floor(receivedAt / 1000)), 'webhook-timestamp is the Unix time of the attempt').toBeLessThanOrEqual(300);

  const payload = delivery.payload;
  expect(payload.type).toBe(caused.type);
  expect(Number.isNaN(Date.parse(payload.timestamp)), `timestamp ${payload.timestamp} is ISO 8601`).toBe(false);
});

test('EVT-009 EVT-023 EVT-035 EVT-034 EVT-037 an approval arrives with the creative as GET showDeleted returns it and the writing key as actor', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@area:creatives', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: ['creative.approved'] });
  const [creative] = await creativesIn(api, 'PENDING', 1);
  await approve(api, creative!.creativeId);
  await endpoint.process();
  const delivery = await arrival(inbox, 'creative.approved', 'creativeId', creative!.creativeId);
  const payload = delivery.payload;
  expect(payload.type).toBe('creative.approved');
  expect(payload.data).toEqual(await readShowDeleted(api, `/creatives/${creative!.creativeId}`));
  expect(payload.data['deletedAt'], 'deletedAt is always present, null while live').toBeNull();
  expect(payload.data['approvedAt']).not.toBeNull();
  expect(payload.actor).toEqual({ kind: 'api_key', apiKeyId: account.keyId('creatives:review') });
  expect(Object.hasOwn(payload, 'previousAttributes'), 'previousAttributes only on *.updated').toBe(false);
});

test('EVT-004 no resource of the public API manages webhook endpoints', async ({ api }) => {
  for (const path of ['/webhooks', '/webhook-endpoints', '/webhooks/endpoints']) {
    expect(await api.get(path), `GET ${path}`).toHaveStatus(404);
    expect(await api.as('runs:write').post(path, { body: { url: 'http://127.0.0.1:9/hooks', eventTypes: ['run.completed'] } }), `POST ${path}`).toHaveStatus(404);
  }
});

test('EVT-022 the envelope timestamp is the UTC time of the change, not of the delivery', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@assumed', '@area:creatives', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: ['creative.updated'] });
  const [creative] = await creativesIn(api, 'APPROVED', 1);
  const before = Date.parse((await clock.now()).now);
  await patchCreative(api, creative!.creativeId, { metadata: { conformance: 'timestamp' } });
  const after = Date.parse((await clock.now()).now);
  await endpoint.process();
  const delivery = await arrival(inbox, 'creative.updated', 'creativeId', creative!.creativeId);
  expect(delivery.payload.timestamp).toMatch(/Z$/);
  const changedAt = Date.parse(delivery.payload.timestamp);
  expect(changedAt).toBeGreaterThanOrEqual(before);
  expect(changedAt).toBeLessThanOrEqual(after);
  // webhook-timestamp is the real time of sending (EVT-044), not on the target's clock: compare the
  // target's own time at arrival, in whole seconds as the envelope's ISO time may carry milliseconds.
  expect(Math.floor(delivery.arrivedAt / 1000) - Math.floor(changedAt / 1000), 'delivered after the processing delay').toBeGreaterThanOrEqual(endpoint.processingDelaySeconds);
});

// ---------------------------------------------------------------------------------------------
// Every event type the API causes

test('EVT-009 EVT-010 EVT-011 EVT-012 EVT-026 EVT-027 EVT-023 every creative event the API causes arrives, with the creative as data', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@area:creatives', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: CREATIVE_EVENTS });
  const [toApprove, toReject] = await creativesIn(api, 'PENDING', 2);
  const [edited] = await creativesIn(api, 'APPROVED', 1);
  const id = edited!.creativeId;

  await approve(api, toApprove!.creativeId);
  await reject(api, toReject!.creativeId);
  await patchCreative(api, id, { metadata: { conformance: 'events' } });
  await endpoint.process();
  await arrival(inbox, 'creative.approved', 'creativeId', toApprove!.creativeId);
  const rejected = await arrival(inbox, 'creative.rejected', 'creativeId', toReject!.creativeId);
  expect(rejected.payload.data['approvedAt']).toBeNull();
  const updated = await arrival(inbox, 'creative.updated', 'creativeId', id);
  expect((updated.payload.data['metadata'] as Record<string, string>)['conformance']).toBe('events');
  expect(updated.payload.previousAttributes, 'previousAttributes on *.updated').toBeDefined();

  const deleted = await api.as('creatives:write').delete(`/creatives/${id}`);
  expect(deleted).toHaveStatus(200);
  await endpoint.process();
  const deletedEvent = await arrival(inbox, 'creative.deleted', 'creativeId', id);
  expect(deletedEvent.payload.data['deletedAt'], 'creative.deleted carries deletedAt set').not.toBeNull();

  await expect(await api.as('creatives:write').post(`/creatives/${id}/undelete`, { idempotencyKey: idempotencyKey() })).toHaveStatus(200);
  await endpoint.process();
  const restored = await arrival(inbox, 'creative.restored', 'creativeId', id);
  expect(restored.payload.data['deletedAt'], 'creative.restored carries deletedAt null').toBeNull();
  expect(restored.payload.data).toEqual(await readShowDeleted(api, `/creatives/${id}`));

  for (const delivery of inbox.deliveries) {
    expect(delivery.payload.actor, `${delivery.payload.type} names its actor`).toEqual({ kind: 'api_key', apiKeyId: account.keyId(delivery.payload.type.endsWith('approved') || delivery.payload.type.endsWith('rejected') ? 'creatives:review' : 'creatives:write') });
    expect(Object.hasOwn(delivery.payload, 'previousAttributes'), `${delivery.payload.type}`).toBe(delivery.payload.type === 'creative.updated');
  }
});

test('EVT-013 EVT-014 EVT-030 EVT-026 EVT-023 every asset event the API causes arrives, with the asset as data', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@area:assets', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: ASSET_EVENTS });
  const asset = await liveAsset(api);
  const id = asset.assetId;
  const writer = api.as('assets:write');

  await patchAsset(api, id, { favorited: !asset.favorited });
  await endpoint.process();
  const updated = await arrival(inbox, 'asset.updated', 'assetId', id);
  expect(updated.payload.previousAttributes, 'exactly the changed field, with its prior value').toEqual({ favorited: asset.favorited });
  expect(updated.payload.data['favorited']).toBe(!asset.favorited);

  const steps: [string, () => Promise<unknown>, (data: Record<string, unknown>) => void][] = [
    ['asset.archived', () => writer.post(`/assets/${id}/archive`, { idempotencyKey: idempotencyKey() }), () => undefined],
    ['asset.unarchived', () => writer.post(`/assets/${id}/unarchive`, { idempotencyKey: idempotencyKey() }), () => undefined],
    ['asset.deleted', () => writer.delete(`/assets/${id}`), (data) => expect(data['deletedAt'], 'asset.deleted carries deletedAt set').not.toBeNull()],
    ['asset.restored', () => writer.post(`/assets/${id}/undelete`, { idempotencyKey: idempotencyKey() }), (data) => expect(data['deletedAt'], 'asset.restored carries deletedAt null').toBeNull()],
  ];
  for (const [type, act, check] of steps) {
    const response = (await act()) as { status: number };
    expect(response.status, type).toBe(200);
    await endpoint.process();
    const delivery = await arrival(inbox, type, 'assetId', id);
    check(delivery.payload.data);
    expect(delivery.payload.actor).toEqual({ kind: 'api_key', apiKeyId: account.keyId('assets:write') });
    expect(Object.hasOwn(delivery.payload, 'previousAttributes')).toBe(false);
  }
  expect(inbox.deliveries.at(-1)!.payload.data).toEqual(await readShowDeleted(api, `/assets/${id}`));
});

test('EVT-015 EVT-017 EVT-018 creating a campaign sends campaign.created with the Campaign and nothing about its creatives; renaming it sends campaign.updated', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@area:products', '@area:campaigns', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  // The actor and the exact previousAttributes are checked in the @assumed test below.
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: [...CAMPAIGN_EVENTS, ...CREATIVE_EVENTS] });
  const campaign = await createCampaign(api, 'conformance pinned events');
  await endpoint.process();
  const created = await arrival(inbox, 'campaign.created', 'campaignId', campaign.campaignId);
  expect(created.payload.data, 'EVT-015: data is the Campaign as created').toEqual(campaign);

  const renamed = await api.as('campaigns:write').patch(`/campaigns/${campaign.campaignId}`, { body: { name: 'conformance pinned renamed' } });
  expect(renamed).toHaveStatus(200);
  await endpoint.process();
  const updated = await arrival(inbox, 'campaign.updated', 'campaignId', campaign.campaignId);
  expect(updated.payload.data, 'EVT-015: data is the Campaign as renamed').toEqual(renamed.json);
  // The update is the marker: deliveries go out in order, so anything the create caused is in.
  expect(inbox.deliveries.map((d) => d.payload.type), 'EVT-017 EVT-018: the campaign\'s NOT_GENERATED creatives sent nothing').toEqual(['campaign.created', 'campaign.updated']);
});

test('EVT-033 previousAttributes.aspectRatio is null when the creative had no ratio of its own, though data showed the campaign\'s', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@hook:actors', '@area:products', '@area:creatives', '@area:campaigns', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  // Which ratios are accepted is a gap (CRTV-012): the first candidate the target accepts is used.
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: ['creative.updated'] });
  const campaign = await createCampaign(api, 'conformance own ratio');
  const [id] = await dashboard(hooks, account, 'generateCreatives', { campaignId: campaign.campaignId });
  const shown = await readShowDeleted<Creative>(api, `/creatives/${id}`);
  let accepted: string | undefined;
  for (const ratio of ['1:1', '16:9', '9:16', '4:5'].filter((r) => r !== shown.aspectRatio)) {
    const patched = await api.as('creatives:write').patch(`/creatives/${id}`, { body: { aspectRatio: ratio } });
    if (patched.status === 200) {
      accepted = ratio;
      break;
    }
  }
  skipWhenAbsent(accepted === undefined, 'the target accepted none of the ratios 1:1, 16:9, 9:16, 4:5');
  await endpoint.process();
  const [delivery] = await inbox.waitFor(1);
  expectSignedEnvelope(delivery!);
  expect(delivery!.payload.data['aspectRatio']).toBe(accepted);
  expect(delivery!.payload.previousAttributes?.['aspectRatio'], `the creative had no ratio of its own (it showed ${shown.aspectRatio}): ${delivery!.raw}`).toBeNull();
});

test('EVT-015 EVT-016 EVT-017 EVT-018 EVT-030 campaign events: created (and no creative event), updated, deleted, restored', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@assumed', '@area:products', '@area:campaigns', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: [...CAMPAIGN_EVENTS, ...CREATIVE_EVENTS] });
  const writer = api.as('campaigns:write');
  const campaign = await createCampaign(api, 'conformance webhooks');
  const id = campaign.campaignId;
  await endpoint.process();
  const created = await arrival(inbox, 'campaign.created', 'campaignId', id);
  expect(created.payload.data['name']).toBe('conformance webhooks');

  await expect(await writer.patch(`/campaigns/${id}`, { body: { name: 'conformance renamed' } })).toHaveStatus(200);
  await endpoint.process();
  const updated = await arrival(inbox, 'campaign.updated', 'campaignId', id);
  expect(updated.payload.previousAttributes).toEqual({ name: 'conformance webhooks' });
  expect(updated.payload.data['name']).toBe('conformance renamed');

  await expect(await writer.delete(`/campaigns/${id}`)).toHaveStatus(200);
  await endpoint.process();
  const deleted = await arrival(inbox, 'campaign.deleted', 'campaignId', id);
  expect(deleted.payload.data['deletedAt']).not.toBeNull();

  await expect(await writer.post(`/campaigns/${id}/undelete`, { idempotencyKey: idempotencyKey() })).toHaveStatus(200);
  await endpoint.process();
  const restored = await arrival(inbox, 'campaign.restored', 'campaignId', id);
  expect(restored.payload.data['deletedAt']).toBeNull();
  for (const delivery of inbox.deliveries) expect(delivery.payload.actor).toEqual({ kind: 'api_key', apiKeyId: account.keyId('campaigns:write') });

  // Its creative is NOT_GENERATED (no public representation): creating, deleting and restoring the
  // campaign sent nothing about it.
  expect(inbox.deliveries.filter((d) => d.payload.type.startsWith('creative.')).map((d) => d.payload.type)).toEqual([]);
});

test('EVT-011 EVT-012 EVT-016 deleting a campaign sends creative.deleted for each readable creative in it, and restoring it creative.restored', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@area:creatives', '@area:campaigns', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: ['campaign.deleted', 'campaign.restored', 'creative.deleted', 'creative.restored'] });
  const writer = api.as('campaigns:write');
  const readable = await creatives(api);
  const campaigns = (await walk<Campaign>(api, '/campaigns', { limit: 100 })).rows;
  let chosen: { campaign: Campaign; creativeIds: string[] } | undefined;
  for (const campaign of campaigns) {
    const creativeIds = readable.filter((c) => c.campaignId === campaign.campaignId).map((c) => c.creativeId);
    if (creativeIds.length === 0) continue;
    const response = await writer.delete(`/campaigns/${campaign.campaignId}`);
    if (response.status === 200) {
      chosen = { campaign, creativeIds };
      break;
    }
  }
  skipWhenAbsent(chosen === undefined, 'no campaign with readable creatives could be deleted');
  const { campaign, creativeIds } = chosen!;
  await endpoint.process();
  await arrival(inbox, 'campaign.deleted', 'campaignId', campaign.campaignId);
  const deleted = await inbox.waitFor(creativeIds.length, (d) => d.payload.type === 'creative.deleted');
  expect(deleted.map((d) => d.payload.data['creativeId']).sort(), 'one creative.deleted per readable creative').toEqual([...creativeIds].sort());
  for (const d of deleted) {
    expectSignedEnvelope(d);
    expect(d.payload.data['campaignId']).toBe(campaign.campaignId);
    expect(d.payload.data['deletedAt']).not.toBeNull();
  }

  await expect(await writer.post(`/campaigns/${campaign.campaignId}/undelete`, { idempotencyKey: idempotencyKey() })).toHaveStatus(200);
  await endpoint.process();
  await arrival(inbox, 'campaign.restored', 'campaignId', campaign.campaignId);
  const restored = await inbox.waitFor(creativeIds.length, (d) => d.payload.type === 'creative.restored');
  expect(restored.map((d) => d.payload.data['creativeId']).sort()).toEqual([...creativeIds].sort());
  for (const d of restored) {
    expectSignedEnvelope(d);
    expect(d.payload.data['deletedAt']).toBeNull();
  }
});

// ---------------------------------------------------------------------------------------------
// previousAttributes

test('EVT-029 EVT-030 EVT-031 EVT-032 previousAttributes lists exactly the changed fields, metadata as the whole previous map, and never a field data no longer carries', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@area:creatives', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: ['creative.updated'] });
  const [creative] = await creativesIn(api, 'APPROVED', 1);
  const id = creative!.creativeId;
  const change = async (body: Record<string, unknown>): Promise<Delivery> => {
    const seen = inbox.deliveries.length;
    await patchCreative(api, id, body);
    await endpoint.process();
    const [delivery] = (await inbox.waitFor(seen + 1)).slice(seen);
    expectSignedEnvelope(delivery!);
    return delivery!;
  };

  const first = await patchCreative(api, id, { aspectRatio: '4:5', metadata: { conformance_a: '1', conformance_b: '2' } });
  await endpoint.process();
  await inbox.waitFor(1);
  const mapAfterFirst = first.metadata;

  const metadataOnly = await change({ metadata: { conformance_b: '3' } });
  expect(metadataOnly.payload.previousAttributes, 'only metadata changed: the whole previous map').toEqual({ metadata: mapAfterFirst });

  const ratioOnly = await change({ aspectRatio: '9:16' });
  expect(ratioOnly.payload.previousAttributes, 'only the ratio changed').toEqual({ aspectRatio: '4:5' });

  const both = await change({ aspectRatio: '16:9', metadata: { conformance_c: '4' } });
  expect(both.payload.previousAttributes).toEqual({ aspectRatio: '9:16', metadata: { ...mapAfterFirst, conformance_b: '3' } });

  const current = both.payload.data['metadata'] as Record<string, string>;
  const emptied = await change({ metadata: Object.fromEntries(Object.keys(current).map((k) => [k, null])) });
  expect(Object.hasOwn(emptied.payload.data, 'metadata'), 'data no longer carries metadata').toBe(false);
  expect(Object.hasOwn(emptied.payload.previousAttributes ?? {}, 'metadata'), `previousAttributes does not list it: ${JSON.stringify(emptied.payload.previousAttributes)}`).toBe(false);
});

test('EVT-033 EVT-032 EVT-029 previousAttributes.aspectRatio is the creative\'s own ratio, null when it had none; metadata added to none is {}, and removing the last key lists nothing', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@hook:actors', '@assumed', '@area:products', '@area:creatives', '@area:campaigns', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: ['creative.updated'] });
  const campaign = await createCampaign(api, 'conformance ratios');
  const [id] = await dashboard(hooks, account, 'generateCreatives', { campaignId: campaign.campaignId });
  const shown = await readShowDeleted<Creative>(api, `/creatives/${id}`);
  expect(shown.aspectRatio, 'the creative shows the ratio of its campaign').not.toBeNull();
  expect(Object.hasOwn(shown, 'metadata')).toBe(false);

  const expectations: [Record<string, unknown>, Record<string, unknown>][] = [
    [{ aspectRatio: '4:5' }, { aspectRatio: null }],
    [{ metadata: { conformance_a: '1' } }, { metadata: {} }],
    [{ metadata: { conformance_a: null } }, {}],
  ];
  for (const [body, expected] of expectations) {
    const seen = inbox.deliveries.length;
    await patchCreative(api, id!, body);
    await endpoint.process();
    const [delivery] = (await inbox.waitFor(seen + 1)).slice(seen);
    expectSignedEnvelope(delivery!);
    expect(delivery!.payload.previousAttributes, `after ${JSON.stringify(body)}`).toEqual(expected);
  }
});

test('EVT-030 EVT-031 asset.updated and campaign.updated list exactly the changed fields with their prior values', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@assumed', '@area:products', '@area:campaigns', '@area:assets', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: ['asset.updated', 'campaign.updated'] });
  const asset = await liveAsset(api);
  const first = await patchAsset(api, asset.assetId, { notes: 'conformance first', metadata: { conformance: '1' } });
  await endpoint.process();
  await inbox.waitFor(1);
  await patchAsset(api, asset.assetId, { notes: 'conformance second' });
  await endpoint.process();
  const [, notes] = await inbox.waitFor(2);
  expect(notes!.payload.previousAttributes).toEqual({ notes: 'conformance first' });
  await patchAsset(api, asset.assetId, { metadata: { conformance: '2' } });
  await endpoint.process();
  const [, , metadata] = await inbox.waitFor(3);
  expect(metadata!.payload.previousAttributes).toEqual({ metadata: first.metadata });

  const campaign = await createCampaign(api, 'conformance previous');
  await expect(await api.as('campaigns:write').patch(`/campaigns/${campaign.campaignId}`, { body: { metadata: { conformance: 'x' } } })).toHaveStatus(200);
  await endpoint.process();
  const campaignUpdated = await arrival(inbox, 'campaign.updated', 'campaignId', campaign.campaignId);
  expect(campaignUpdated.payload.previousAttributes, 'metadata added where there was none').toEqual({ metadata: {} });
  for (const d of inbox.deliveries) expectSignedEnvelope(d);
});

// ---------------------------------------------------------------------------------------------
// What is not sent

test('EVT-020 a change that alters nothing sends nothing', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@area:creatives', '@area:assets', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: [...CREATIVE_EVENTS, ...ASSET_EVENTS] });
  const [approved, marker] = await creativesIn(api, 'APPROVED', 2);
  const [rejected] = await creativesIn(api, 'REJECTED', 1);
  const asset = await liveAsset(api);
  await patchCreative(api, approved!.creativeId, { metadata: { conformance: 'same' } });
  await endpoint.process();
  await inbox.waitFor(1);

  // Each of these answers 200 and changes nothing.
  await patchCreative(api, approved!.creativeId, { metadata: { conformance: 'same' } });
  await approve(api, approved!.creativeId);
  await reject(api, rejected!.creativeId);
  await patchAsset(api, asset.assetId, { favorited: asset.favorited });
  await expect(await api.as('creatives:write').post(`/creatives/${approved!.creativeId}/undelete`, { idempotencyKey: idempotencyKey() }), 'undelete of a live creative').toHaveStatus(200);
  await expect(await api.as('assets:write').post(`/assets/${asset.assetId}/undelete`, { idempotencyKey: idempotencyKey() }), 'undelete of a live asset').toHaveStatus(200);

  await patchCreative(api, marker!.creativeId, { metadata: { conformance: 'marker' } });
  await endpoint.process();
  await arrival(inbox, 'creative.updated', 'creativeId', marker!.creativeId);
  expect(inbox.deliveries.slice(1).map((d) => `${d.payload.type} ${JSON.stringify(d.payload.data['creativeId'] ?? d.payload.data['assetId'])}`), 'only the marker arrived after the first change').toEqual([
    `creative.updated ${JSON.stringify(marker!.creativeId)}`,
  ]);
});

test('EVT-003 EVT-006 EVT-007 nothing is sent while the plan lacks the webhooks feature when a change is processed, and it is never replayed', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@area:creatives', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: CREATIVE_EVENTS });
  const [withoutFeature, droppedBeforeProcessing, marker] = await creativesIn(api, 'PENDING', 3);

  await setPlan(hooks, account, { features: { webhooks: false } });
  await approve(api, withoutFeature!.creativeId);
  await endpoint.process();

  // Changed while the feature was on, processed after it was lost.
  await setPlan(hooks, account, { features: { webhooks: true } });
  await approve(api, droppedBeforeProcessing!.creativeId);
  await setPlan(hooks, account, { features: { webhooks: false } });
  await endpoint.process();

  await setPlan(hooks, account, { features: { webhooks: true } });
  await reject(api, marker!.creativeId);
  await endpoint.process();
  await arrival(inbox, 'creative.rejected', 'creativeId', marker!.creativeId);
  expect(inbox.deliveries.map((d) => d.payload.data['creativeId']), 'only the change processed with the feature arrived').toEqual([marker!.creativeId]);
});

test('EVT-006 EVT-007 an endpoint added after a change was processed gets nothing of it; one added before the processing gets it', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@area:creatives', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  const [early, pending] = await creativesIn(api, 'PENDING', 2);
  await approve(api, early!.creativeId);
  await clock.advance(120);
  await approve(api, pending!.creativeId);
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: CREATIVE_EVENTS });
  await endpoint.process();
  await arrival(inbox, 'creative.approved', 'creativeId', pending!.creativeId);
  expect(inbox.deliveries.map((d) => d.payload.data['creativeId']), 'the change processed before the endpoint existed is never replayed').toEqual([pending!.creativeId]);
});

test('EVT-005 only the event types an endpoint selected are sent to it', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@area:creatives', '@area:assets', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: ['creative.rejected'] });
  const [approved, rejected] = await creativesIn(api, 'PENDING', 2);
  const [edited] = await creativesIn(api, 'APPROVED', 1);
  await approve(api, approved!.creativeId);
  await patchCreative(api, edited!.creativeId, { metadata: { conformance: 'filtered' } });
  await patchAsset(api, (await liveAsset(api)).assetId, { notes: 'conformance filtered' });
  await reject(api, rejected!.creativeId);
  await endpoint.process();
  await arrival(inbox, 'creative.rejected', 'creativeId', rejected!.creativeId);
  expect(inbox.deliveries.map((d) => d.payload.type)).toEqual(['creative.rejected']);
});

// ---------------------------------------------------------------------------------------------
// Retries and duplicates

test('EVT-039 EVT-040 EVT-002 a failed hand-over is retried after 1, then 2 minutes with the same webhook-id, and a receiver de-duplicates on it', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@area:products', '@area:presets', '@area:runs', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox, target }) => {
  const scene = await eventScene(api, clock, target, 2);
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: scene.eventTypes });
  const retried = await scene.cause();
  failFirstAttempts(inbox, retried, 2);
  await endpoint.process();
  const [attempt1] = await arrivals(inbox, about(retried), 1, 'EVT-002');
  expect(attempt1!.answered).toBe(500);
  const [row1] = await settledDeliveries(hooks, account, { eventId: attempt1!.id, endpointId: endpoint.endpointId }, 1);
  // The delivery log's due time of the retry, on the target's clock (webhook-timestamp is the real time of sending).
  const due = (Date.parse(row1!.nextAttemptAt ?? 'NaN') - Date.parse(row1!.attemptedAt!)) / 1000;
  expect(due, `EVT-040: the retry after the first failed attempt is due a minute later: ${JSON.stringify(row1)}`).toBeGreaterThanOrEqual(60);
  expect(due, `EVT-040: the retry after the first failed attempt is due a minute later: ${JSON.stringify(row1)}`).toBeLessThan(120);

  // Each retry is the next arrival about the resource after the advance that makes it due.
  let since = inbox.deliveries.length;
  await clock.advance(60);
  const [attempt2] = await arrivals(inbox, about(retried), 1, 'EVT-040 (a retry a minute after the first attempt)', since);
  expect(attempt2!.id, 'EVT-039: the retry carries the webhook-id of the first attempt').toBe(attempt1!.id);
  await settledDeliveries(hooks, account, { eventId: attempt1!.id, endpointId: endpoint.endpointId }, 2);
  since = inbox.deliveries.length;
  await clock.advance(120);
  const [attempt3] = await arrivals(inbox, about(retried), 1, 'EVT-040 (a retry two minutes after the second attempt)', since);
  expect(attempt3!.id, 'EVT-039: the retry carries the webhook-id of the first attempt').toBe(attempt1!.id);
  expect(attempt3!.answered, 'the third attempt is accepted').toBe(204);

  for (const attempt of [attempt1!, attempt2!, attempt3!]) {
    expectSignedEnvelope(attempt);
    expect(attempt.payload.type).toBe(retried.type);
    expect(attempt.payload.data[retried.idField]).toBe(retried.id);
  }
  // The schedule on the target's clock (the delivery log; webhook-timestamp is the real time of sending).
  const log = await deliveries(hooks, account, { eventId: attempt1!.id, endpointId: endpoint.endpointId });
  const [t1, t2, t3] = log.map((r) => Date.parse(r.attemptedAt!) / 1000);
  expect(t2! - t1!, 'EVT-040: the first retry comes a minute later').toBeGreaterThanOrEqual(60);
  expect(t2! - t1!, 'EVT-040: the first retry comes a minute later').toBeLessThan(120);
  expect(t3! - t2!, 'EVT-040: the next one two minutes after that').toBeGreaterThanOrEqual(120);
  expect(t3! - t2!, 'EVT-040: the next one two minutes after that').toBeLessThan(240);

  // A later event is the marker: once it arrived, an attempt after the accepted one would have too.
  const marker = await scene.cause();
  await endpoint.process();
  await arrival(inbox, marker.type, marker.idField, marker.id);
  expect(inbox.deliveries.filter((d) => d.id === attempt1!.id).length, 'no attempt after the accepted one').toBe(3);
  expect(inbox.unique().filter((d) => d.id === attempt1!.id).length, 'de-duplicated on webhook-id: the retried event once').toBe(1);
});

test('EVT-039 EVT-002 a duplicate delivery carries the same webhook-id, so a receiver de-duplicates it', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@area:products', '@area:presets', '@area:runs', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox, target }) => {
  const scene = await eventScene(api, clock, target, 1);
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: scene.eventTypes, duplicates: 1 });
  const caused = await scene.cause();
  await endpoint.process();
  // The original and its copy are the first two arrivals about the resource (a copy goes right after its original).
  const [original, copy] = await arrivals(inbox, about(caused), 2, 'EVT-039 (the duplicate of a delivery)');
  for (const delivery of [original!, copy!]) expectSignedEnvelope(delivery);
  expect(copy!.id, 'EVT-039: the duplicate carries the webhook-id of the original').toBe(original!.id);
  expect(copy!.raw, 'the duplicate is the same body').toBe(original!.raw);
  expect(inbox.unique().filter((d) => d.id === original!.id).length, 'de-duplicated on webhook-id: one').toBe(1);
});

test('EVT-041 EVT-040 EVT-039 a delivery that keeps failing is retried with doubling delays capped at an hour, and given up 24 hours after the change', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@area:products', '@area:presets', '@area:runs', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox, target }) => {
  const scene = await eventScene(api, clock, target, 2);
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: scene.eventTypes });
  const failing = await scene.cause();
  failFirstAttempts(inbox, failing, Number.POSITIVE_INFINITY);
  await endpoint.process();
  const [first] = await arrivals(inbox, about(failing), 1, 'EVT-002');
  const failingId = first!.id;
  const changedAt = Date.parse(first!.payload.timestamp) / 1000;

  await settledDeliveries(hooks, account, { eventId: failingId, endpointId: endpoint.endpointId }, 1);
  // One advance covers the day: every retry that falls due inside it runs in it, at its due time.
  await clock.advance(25 * 3600);
  const rows = await settledDeliveries(hooks, account, { eventId: failingId, endpointId: endpoint.endpointId }, 2);
  const last = rows.at(-1)!;
  expect(last.status === 'failed' && last.nextAttemptAt === null, `EVT-041: the last attempt gave up within the one advance: ${JSON.stringify(last)}`).toBe(true);
  await inbox.waitFor(rows.length, (d) => d.id === failingId);
  const attempts = inbox.deliveries.filter((d) => d.id === failingId);
  const log = await deliveries(hooks, account, { eventId: failingId, endpointId: endpoint.endpointId });
  expect(log.length, 'one log row per attempt that arrived').toBe(attempts.length);
  const times = log.map((r) => Date.parse(r.attemptedAt!) / 1000);
  for (const [i, attempt] of attempts.entries()) {
    expect(attempt.verified, attempt.verifyError).toBe(true);
    expect(times[i]! - changedAt, `EVT-041: attempt ${i + 1} lies within 24 hours of the change`).toBeLessThanOrEqual(24 * 3600);
    if (i === 0) continue;
    const gap = times[i]! - times[i - 1]!;
    expect(gap, `EVT-040: gap before attempt ${i + 1}: doubling from a minute`).toBeGreaterThanOrEqual(Math.min(60 * 2 ** (i - 1), 3600));
    expect(gap, `EVT-040: gap before attempt ${i + 1}: doubling from a minute, at most an hour`).toBeLessThanOrEqual(Math.min(60 * 2 ** i, 3600));
  }
  expect(attempts.length, 'EVT-040: retried many times over the day').toBeGreaterThan(20);
  expect(times.at(-1)! + 3600 - changedAt, 'EVT-041: it stopped only because the next attempt would pass 24 hours').toBeGreaterThan(24 * 3600 - 3600);

  // Nothing more comes: two more hours, then a marker.
  await clock.advance(7200);
  const marker = await scene.cause();
  await endpoint.process();
  await arrival(inbox, marker.type, marker.idField, marker.id);
  expect(inbox.deliveries.filter((d) => d.id === failingId).length, 'EVT-041: given up: no attempt after the last').toBe(attempts.length);
});

// ---------------------------------------------------------------------------------------------
// run.completed

test('EVT-008 EVT-027 RUN-021 RUN-007 run.completed arrives once, without actor, with the one Run shape of POST /runs, GET /runs/{runId} and GET /runs', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@spend', '@area:products', '@area:presets', '@area:runs', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox, target }) => {
  needsOperations(target, 'createRun', 'getRun', 'listRuns');
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: ['run.completed'] });
  const writer = api.as('runs:write');
  const body = { productIds: await someProductIds(api, 2), creativesPerProduct: 1, presetId: await presetId(writer) };
  const run = await acceptedRun(writer, body);
  const { final } = await pollRun(writer, clock, run.runId, { stepSeconds: 5 });
  await endpoint.process();
  const delivery = await arrival(inbox, 'run.completed', 'runId', run.runId);
  const read = await getRun(writer, run.runId);
  expect(delivery.payload.data, 'run.completed data is the run as GET /runs/{runId} returns it').toEqual(read);
  expect(delivery.payload.data['status']).toBe(final.status);
  expect(delivery.payload.data['finalizedAt']).toBe(final.finalizedAt);
  expect(Object.hasOwn(delivery.payload, 'actor'), 'run.completed carries no actor').toBe(false);
  expect(Object.hasOwn(delivery.payload, 'previousAttributes')).toBe(false);

  // One shape: the create answer has the members of the read, and a final run's list row is the read.
  const row = (await walk<Record<string, unknown>>(writer, '/runs', { limit: 100 })).rows.find((r) => r['runId'] === run.runId);
  expect(row, 'the final run as a row of GET /runs').toEqual(read);
  expect(Object.keys(run).sort(), 'POST /runs answers the same members as GET /runs/{runId}').toEqual(Object.keys(read).sort());

  // A later run is the marker: once its run.completed arrived, a second one of the first would have too.
  // Runs alone drive it, so a target without the actors hook (no creatives to review) judges it (#32).
  await clock.advance(600);
  const marker = await acceptedRun(writer, body);
  await pollRun(writer, clock, marker.runId, { stepSeconds: 5 });
  await endpoint.process();
  await arrival(inbox, 'run.completed', 'runId', marker.runId);
  expect(inbox.ofType('run.completed').filter((d) => d.payload.data['runId'] === run.runId).length, 'run.completed fires once').toBe(1);
});

test('RUN-024 EVT-008 a stopped run sends run.completed once its in-progress items settle', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@spend', '@area:products', '@area:presets', '@area:runs', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox, target }) => {
  needsOperations(target, 'createRun', 'stopRun', 'getRun');
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: ['run.completed'] });
  const writer = api.as('runs:write');
  const run = await acceptedRun(writer, { productIds: await someProductIds(api, 40), creativesPerProduct: 10, presetId: await presetId(writer) });
  await clock.advance(1);
  await expect(await writer.post(`/runs/${run.runId}/stop`)).toHaveStatus(202);
  const { final } = await pollRun(writer, clock, run.runId, { stepSeconds: 2 });
  await endpoint.process();
  const delivery = await arrival(inbox, 'run.completed', 'runId', run.runId);
  expect(delivery.payload.data['status']).toBe(final.status);
  expect(delivery.payload.data['counts']).toEqual(final.counts);
});

// ---------------------------------------------------------------------------------------------
// Other actors, and data rendered at send time

test('EVT-019 EVT-034 EVT-035 EVT-036 EVT-037 EVT-011 a change by another actor sends the same event, with that actor\'s kind and no apiKeyId', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@hook:actors', '@area:creatives', '@area:campaigns', '@area:assets', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: [...CREATIVE_EVENTS, ...ASSET_EVENTS, ...CAMPAIGN_EVENTS] });
  const [approved, rejected] = await creativesIn(api, 'PENDING', 2);
  const asset = await liveAsset(api);
  const all = await creatives(api);
  const campaigns = (await walk<Campaign>(api, '/campaigns', { limit: 100 })).rows;
  const renamed = first(campaigns, 'campaign');
  // A product of a campaign whose readable creatives are all reviewed (none QUEUED or GENERATING).
  const removable = all.find((c) => c.status === 'APPROVED' && c.campaignId !== renamed.campaignId && all.filter((o) => o.campaignId === c.campaignId && o.productId === c.productId).every((o) => o.status === 'APPROVED' || o.status === 'REJECTED'));
  skipWhenAbsent(removable === undefined, 'needs a reviewed creative to take out of its campaign');
  const removedIds = all.filter((c) => c.campaignId === removable!.campaignId && c.productId === removable!.productId).map((c) => c.creativeId);

  const act = async (body: ActionRequest) => {
    const outcome = await hooks.act(account.accountId!, body);
    expect(outcome.status, JSON.stringify(outcome)).toBe(200);
  };
  await act({ actor: { kind: 'user' }, operationId: 'approveCreative', pathParams: { creativeId: approved!.creativeId } });
  await act({ actor: { kind: 'share_link' }, operationId: 'rejectCreative', pathParams: { creativeId: rejected!.creativeId } });
  await act({ actor: { kind: 'staff' }, operationId: 'updateAsset', pathParams: { assetId: asset.assetId }, body: { favorited: !asset.favorited } });
  await act({ actor: { kind: 'partner_operator' }, operationId: 'updateCampaign', pathParams: { campaignId: renamed.campaignId }, body: { name: `${renamed.name} (partner)` } });
  await act({ actor: { kind: 'user' }, action: 'removeProductFromCampaign', input: { campaignId: removable!.campaignId, productId: removable!.productId } });
  await endpoint.process();

  const expected: [string, string, string, string][] = [
    ['creative.approved', 'creativeId', approved!.creativeId, 'user'],
    ['creative.rejected', 'creativeId', rejected!.creativeId, 'share_link'],
    ['asset.updated', 'assetId', asset.assetId, 'staff'],
    ['campaign.updated', 'campaignId', renamed.campaignId, 'partner_operator'],
    ...removedIds.map((id): [string, string, string, string] => ['creative.deleted', 'creativeId', id, 'user']),
  ];
  for (const [type, field, id, kind] of expected) {
    const delivery = await arrival(inbox, type, field, id);
    expect(delivery.payload.actor, `${type} by ${kind}: the kind alone, no apiKeyId, no name, email or user id`).toEqual({ kind });
  }
  expect(inbox.deliveries.length, 'nothing else was sent').toBe(expected.length);
});

test('EVT-024 data is rendered when the notification is sent: an earlier event shows a later change', { tag: ['@hook:accounts', '@hook:webhooks', '@hook:clock', '@area:creatives', '@area:webhooks'] }, async ({ api, account, hooks, clock, inbox }) => {
  const endpoint = await registerEndpoint(hooks, account, inbox, clock, { eventTypes: ['creative.updated'] });
  const [creative] = await creativesIn(api, 'APPROVED', 1);
  await patchCreative(api, creative!.creativeId, { metadata: { conformance_v: '1' } });
  await patchCreative(api, creative!.creativeId, { metadata: { conformance_v: '2' } });
  await endpoint.process();
  const deliveries = await inbox.waitFor(2);
  for (const d of deliveries) {
    expectSignedEnvelope(d);
    expect((d.payload.data['metadata'] as Record<string, string>)['conformance_v'], 'both show the state when sent').toBe('2');
  }
  const previous = deliveries.map((d) => (d.payload.previousAttributes?.['metadata'] as Record<string, string> | undefined)?.['conformance_v']);
  expect(previous.sort(), 'each still names its own prior value').toEqual(['1', undefined].sort());
});
