/**
 * The delivery scheduler with a fake transport: processing on the injected clock, the feature and
 * endpoint checks at processing time, type filter, disabled endpoints, retries and the horizon,
 * the stable webhook-id, chaos, and data rendered at send time.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Actor } from '../domain/accounts/model.ts';
import type { Asset } from '../domain/assets/model.ts';
import { buildMock } from '../../../mock/src/node/app.ts';
import { Clock } from '../core/clock.ts';
import { decodeSnapshot, parseSnapshot, restoreDecoded, restoreState, serializeState } from '../../../mock/src/node/persistence.ts';
import { Store } from '../domain/store.ts';
import { createHarness, type Harness, type TestAccount } from '../testkit/harness.ts';
import { attemptTimes, DEFAULT_RETRY_POLICY } from './backoff.ts';
import { WebhookInputError, type EndpointInput } from './endpoints.ts';
import type { EventDraft } from './model.ts';
import { fakeTransport, runDeliveries, verifyAt, type FakeTransport } from '../testkit/webhooks.ts';
import type { DeliveryResult } from './transport.ts';
import type { WebhookService } from './webhooks.ts';

const URL_ = 'http://127.0.0.1:4020/hooks';
const MIN = 60_000;
/** The injected wall clock (far from the manual clock): what `webhook-timestamp` carries. */
const WALL = Date.UTC(2031, 5, 1, 12, 0, 0);
const wall = () => WALL;

let h: Harness;
let acc: TestAccount;
let fake: FakeTransport;
let service: WebhookService;
let asset: Asset;

beforeEach(async () => {
  fake = fakeTransport();
  h = await createHarness({ webhooks: { transport: fake.transport }, wall });
  acc = await h.account();
  service = h.mock.services.webhooks;
  asset = [...acc.state.assets.values()][0]!;
});
afterEach(async () => {
  await service.idle();
  await h.close();
});

function endpoint(input: Partial<EndpointInput> = {}) {
  return service.createEndpoint(acc.state, { url: URL_, eventTypes: ['asset.updated', 'asset.archived', 'asset.deleted'], ...input });
}

/** Record an event about the seeded asset now, as the domain would. */
function emit(type: EventDraft['type'] = 'asset.archived', actor: Actor = { kind: 'user' }, previousAttributes?: Record<string, unknown>) {
  const drafts: EventDraft[] = [{ type, ...(previousAttributes ? { previousAttributes } : {}) }];
  return h.mock.services.events.record(acc.state, { kind: 'asset', id: asset.assetId }, drafts, actor, h.clock.now())[0]!;
}

async function advance(seconds: number) {
  h.clock.advance(seconds);
  await service.idle();
}

describe('processing (EVT-006)', () => {
  it('sends an event processingDelaySeconds (60) after the change, signed, with the envelope', async () => {
    const { secret } = endpoint();
    const start = h.clock.now();
    const event = emit('asset.updated', { kind: 'api_key', apiKeyId: 'key_x' }, { favorited: false });
    await advance(59);
    expect(fake.received).toHaveLength(0);
    await advance(1);
    expect(fake.received).toHaveLength(1);
    const [sent] = fake.received;
    expect(sent!.url).toBe(URL_);
    // Signed with the wall clock's second (a receiver's replay window is judged by its own clock).
    expect(sent!.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': event.eventId, 'webhook-timestamp': String(WALL / 1000) });
    expect(sent!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verifyAt(WALL, secret, sent!.body, sent!.headers)).toEqual(sent!.payload);
    expect(sent!.payload).toEqual({
      type: 'asset.updated',
      timestamp: new Date(start).toISOString(),
      data: expect.objectContaining({ object: 'asset', assetId: asset.assetId, deletedAt: null }),
      previousAttributes: { favorited: false },
      actor: { kind: 'api_key', apiKeyId: 'key_x' },
    });
    expect(service.deliveries(acc.state)).toEqual([
      expect.objectContaining({ eventId: event.eventId, type: 'asset.updated', attempt: 1, duplicate: false, scheduledAt: start + MIN, attemptedAt: start + MIN, status: 'succeeded', responseStatus: 204, error: null, nextAttemptAt: null, givenUp: false }),
    ]);
  });

  it('the delay is adjustable globally and per account, for later changes', async () => {
    endpoint();
    service.setGlobalProcessingDelay(10);
    emit();
    await advance(10);
    expect(fake.received).toHaveLength(1);
    service.setAccountProcessingDelay(acc.state, 0);
    expect(service.settings(acc.state)).toEqual({ processingDelaySeconds: 0, accountProcessingDelaySeconds: 0 });
    emit();
    await advance(0);
    expect(fake.received).toHaveLength(2);
    service.setAccountProcessingDelay(acc.state, null);
    expect(service.settings(acc.state).processingDelaySeconds).toBe(10);
    service.reset();
    expect(service.processingDelaySeconds).toBe(60);
    expect(() => service.setGlobalProcessingDelay(-1)).toThrow(WebhookInputError);
    expect(() => service.setAccountProcessingDelay(acc.state, 86_401)).toThrow(WebhookInputError);
  });

  it('an event waiting for processing keeps its processing time when the delay changes', async () => {
    endpoint();
    emit();
    service.setGlobalProcessingDelay(0);
    await advance(30);
    expect(fake.received).toHaveLength(0);
    await advance(30);
    expect(fake.received).toHaveLength(1);
  });

  it('the events of one instant go out together, in the order they were recorded', async () => {
    endpoint();
    const a = emit('asset.archived');
    const b = emit('asset.updated', { kind: 'user' }, { notes: '' });
    const c = emit('asset.deleted');
    await advance(60);
    expect(fake.received.map((r) => r.headers['webhook-id'])).toEqual([a.eventId, b.eventId, c.eventId]);
  });

  it('EVT-003: nothing is sent when the plan lacks the webhooks feature at processing time', async () => {
    endpoint();
    emit();
    acc.state.plan = { ...acc.state.plan, webhooks: false };
    await advance(60);
    expect(fake.received).toHaveLength(0);
    expect(service.deliveries(acc.state)).toEqual([]);
  });

  it('EVT-006: a change made before the plan had the feature is sent when the plan has it at processing time', async () => {
    acc.state.plan = { ...acc.state.plan, webhooks: false };
    endpoint();
    emit();
    await advance(30);
    acc.state.plan = { ...acc.state.plan, webhooks: true };
    await advance(30);
    expect(fake.received).toHaveLength(1);
  });

  it('EVT-006, EVT-007: an endpoint added before processing gets the event, one added after it gets nothing, ever', async () => {
    const event = emit();
    await advance(30);
    const early = endpoint();
    await advance(30);
    const late = endpoint();
    await advance(24 * 3600);
    expect(fake.received).toHaveLength(1);
    expect(service.deliveries(acc.state).map((r) => [r.endpointId, r.eventId])).toEqual([[early.endpoint.endpointId, event.eventId]]);
    expect(service.deliveries(acc.state, { endpointId: late.endpoint.endpointId })).toEqual([]);
  });

  it('EVT-006: with no endpoint at processing time nothing is sent', async () => {
    emit();
    await advance(3600);
    expect(fake.received).toHaveLength(0);
  });

  it('EVT-005: only the selected types are sent to an endpoint', async () => {
    const archived = endpoint({ eventTypes: ['asset.archived'] });
    const deleted = endpoint({ eventTypes: ['asset.deleted'] });
    const a = emit('asset.archived');
    const d = emit('asset.deleted');
    emit('asset.restored');
    await advance(60);
    expect(service.deliveries(acc.state).map((r) => [r.endpointId, r.eventId])).toEqual([
      [archived.endpoint.endpointId, a.eventId],
      [deleted.endpoint.endpointId, d.eventId],
    ]);
  });

  it('a disabled endpoint gets nothing; enabled again, it gets what is processed from then on', async () => {
    const { endpoint: e } = endpoint({ enabled: false });
    emit();
    await advance(60);
    expect(fake.received).toHaveLength(0);
    service.updateEndpoint(acc.state, e.endpointId, { enabled: true });
    await advance(3600);
    expect(fake.received).toHaveLength(0);
    const later = emit();
    await advance(60);
    expect(fake.received.map((r) => r.headers['webhook-id'])).toEqual([later.eventId]);
  });

  it('PATCH of the event types applies at processing time', async () => {
    const { endpoint: e } = endpoint({ eventTypes: ['asset.deleted'] });
    emit('asset.archived');
    service.updateEndpoint(acc.state, e.endpointId, { eventTypes: ['asset.archived'] });
    await advance(60);
    expect(fake.received).toHaveLength(1);
  });

  it('EVT-024: data is rendered when the notification is sent, so it shows the newer state', async () => {
    endpoint();
    emit('asset.archived');
    acc.state.assets.set(asset.assetId, { ...asset, favorited: !asset.favorited, notes: 'changed since' });
    await advance(60);
    expect(fake.received[0]!.payload.data).toMatchObject({ favorited: !asset.favorited, notes: 'changed since' });
  });

  it('nothing is sent for an account that a reset removed', async () => {
    endpoint();
    emit();
    h.mock.services.store.reset();
    await advance(60);
    expect(fake.received).toHaveLength(0);
  });
});

describe('after a restart with --state (the clock\'s tasks are not saved)', () => {
  /** The mock as `npm start -- --state FILE` brings it back: the saved state in a new store, clock and service. */
  function restart(transport: FakeTransport, downSeconds = 0) {
    const store = new Store();
    const loaded = restoreState(store, parseSnapshot(serializeState(h.mock.services.store, h.clock)));
    // downSeconds: the mock was down that long (a real clock moved on meanwhile).
    const clock = new Clock({ mode: 'manual', start: loaded.epochMs + downSeconds * 1000, wall });
    const mock = buildMock({ store, clock, webhooks: { transport: transport.transport } });
    const account = store.accounts.get(acc.accountId)!;
    return { mock, clock, account, service: mock.services.webhooks };
  }

  it('keeps the endpoints (secret included), the delivery log and the delays', async () => {
    const { endpoint: created, secret } = endpoint({ description: 'orders' });
    service.setAccountProcessingDelay(acc.state, 30);
    service.setGlobalProcessingDelay(90);
    emit();
    await advance(30);
    expect(service.deliveries(acc.state)).toHaveLength(1);

    const after = restart(fakeTransport());
    try {
      expect(after.service.listEndpoints(after.account)).toEqual([created]);
      expect(after.service.getEndpoint(after.account, created.endpointId)?.secret).toBe(secret);
      expect(after.service.deliveries(after.account)).toEqual(service.deliveries(acc.state));
      expect(after.service.settings(after.account)).toEqual({ processingDelaySeconds: 30, accountProcessingDelaySeconds: 30 });
      expect(after.service.processingDelaySeconds).toBe(90);
    } finally {
      await after.mock.app.close();
    }
  });

  it('sends what was waiting, once each: events not yet processed and retries at their time, never what was delivered', async () => {
    const { secret } = endpoint();
    fake.answer = (request) => ((JSON.parse(request.body) as { type: string }).type === 'asset.updated' ? { status: 500 } : { status: 204 });
    const delivered = emit('asset.archived');
    const failing = emit('asset.updated');
    await advance(60); // both sent: the first succeeds, the second is retried in 1 minute
    const waiting = emit('asset.deleted');
    await advance(30); // its processing is 30 s away
    expect(fake.received.map((r) => r.headers['webhook-id'])).toEqual([delivered.eventId, failing.eventId]);

    const restored = fakeTransport();
    const after = restart(restored);
    try {
      const ids = () => restored.received.map((r) => r.headers['webhook-id']);
      after.clock.advance(29);
      await after.service.idle();
      expect(ids()).toEqual([]);
      after.clock.advance(1); // the retry (due 1 minute after its first attempt) and the waiting event
      await after.service.idle();
      expect(ids().sort()).toEqual([failing.eventId, waiting.eventId].sort());
      const retry = restored.received.find((r) => r.headers['webhook-id'] === failing.eventId)!;
      expect(verifyAt(WALL, secret, retry.body, retry.headers)).toMatchObject({ type: 'asset.updated' });
      expect(after.service.deliveries(after.account, { eventId: failing.eventId }).map((r) => [r.attempt, r.status])).toEqual([
        [1, 'failed'],
        [2, 'succeeded'],
      ]);
      after.clock.advance(24 * 3600);
      await after.service.idle();
      expect(ids()).not.toContain(delivered.eventId);
      expect(restored.received).toHaveLength(2);
      expect(after.account.webhooks.open.size).toBe(0);
    } finally {
      await after.mock.app.close();
    }
  });

  it('a delivery pending at the stop is listed once after the restart, keeps its id and attempts, and is sent once (account clock ahead, delay changed since)', async () => {
    endpoint();
    fake.answer = () => ({ status: 500 }); // the first attempt fails: a retry is pending at the stop
    const event = emit();
    const own = h.clock.forAccount(acc.accountId);
    own.advance(60); // the account's own clock (D91), as the hooks' clock moves it
    await service.idle();
    service.setGlobalProcessingDelay(600); // for later changes only
    const [open] = [...acc.state.webhooks.open.values()];
    expect(open).toMatchObject({ attempts: 1 });

    // As serve.ts brings it back: the state file decoded, the account's advance restored, then the mock built.
    const store = new Store();
    const decoded = decodeSnapshot(parseSnapshot(serializeState(h.mock.services.store, h.clock)));
    const clock = new Clock({ mode: 'manual', start: decoded.clock.epochMs, wall });
    clock.restoreAccountOffsets(restoreDecoded(store, decoded).accountOffsetsMs);
    const restored = fakeTransport();
    const mock = buildMock({ store, clock, webhooks: { transport: restored.transport } });
    try {
      const pending = await mock.app.inject({ method: 'GET', url: `/__mock/accounts/${acc.accountId}/webhook-deliveries/pending` });
      expect((JSON.parse(pending.payload) as { data: unknown[] }).data).toEqual([
        { deliveryId: open!.deliveryId, eventId: event.eventId, endpointId: open!.endpointId, type: event.type, attempts: 1, dueAt: new Date(open!.nextAttemptAt!).toISOString() },
      ]);
      clock.forAccount(acc.accountId).advance(24 * 3600);
      await mock.services.webhooks.idle();
      expect(restored.received.map((r) => r.headers['webhook-id'])).toEqual([event.eventId]);
      expect(mock.services.webhooks.deliveries(store.accounts.get(acc.accountId)!).map((r) => [r.deliveryId, r.attempt, r.status])).toEqual([
        [open!.deliveryId, 1, 'failed'],
        [open!.deliveryId, 2, 'succeeded'],
      ]);
    } finally {
      await mock.app.close();
    }
  });

  describe('an event whose processing time passed while the mock was down (D296)', () => {
    it('is processed at once after the restart, and sent once', async () => {
      endpoint();
      const event = emit();
      await advance(30); // its processing is 30 s away when the mock stops
      expect(fake.received).toHaveLength(0);
      const restored = fakeTransport();
      const after = restart(restored, 120);
      try {
        expect(after.service.pendingDeliveries(after.account).map((p) => [p.eventId, p.dueAt])).toEqual([[event.eventId, after.clock.forAccount(acc.accountId).now()]]);
        after.clock.advance(0);
        await after.service.idle();
        expect(restored.received.map((r) => r.headers['webhook-id'])).toEqual([event.eventId]);
        after.clock.advance(24 * 3600);
        await after.service.idle();
        expect(restored.received).toHaveLength(1);
        expect(after.service.pendingDeliveries(after.account)).toEqual([]);
      } finally {
        await after.mock.app.close();
      }
    });

    it('an event processed before the stop with no endpoint for it stays processed: an endpoint made since gets nothing', async () => {
      emit();
      await advance(60); // processed: no endpoint, no delivery
      endpoint();
      const restored = fakeTransport();
      const after = restart(restored, 120);
      try {
        expect(after.service.pendingDeliveries(after.account)).toEqual([]);
        after.clock.advance(3600);
        await after.service.idle();
        expect(restored.received).toHaveLength(0);
      } finally {
        await after.mock.app.close();
      }
    });

    it('a state file saved before it was kept: what fell due after the save is sent once, what was processed before it never', async () => {
      const processed = emit();
      await advance(60); // processed with no endpoint: no delivery
      endpoint();
      const waiting = emit();
      await advance(30);
      delete (acc.state.webhooks as { processedThrough?: unknown }).processedThrough;
      const restored = fakeTransport();
      const after = restart(restored, 120);
      try {
        after.clock.advance(3600);
        await after.service.idle();
        expect(restored.received.map((r) => r.headers['webhook-id'])).toEqual([waiting.eventId]);
        expect(restored.received.map((r) => r.headers['webhook-id'])).not.toContain(processed.eventId);
      } finally {
        await after.mock.app.close();
      }
    });
  });

  it('an attempt still on the wire when the state was saved is sent again at once, same webhook-id, its row marked failed', async () => {
    endpoint();
    let answer: (result: DeliveryResult) => void = () => {};
    fake.answer = () => new Promise((resolve) => (answer = resolve)); // no answer before the save
    const event = emit();
    h.clock.advance(60);
    expect(service.deliveries(acc.state).map((r) => r.status)).toEqual(['pending']);

    const restored = fakeTransport();
    const after = restart(restored);
    try {
      after.service.resume(); // again: nothing is armed twice
      after.clock.advance(0);
      await after.service.idle();
      expect(restored.received.map((r) => [r.headers['webhook-id'], r.headers['webhook-timestamp']])).toEqual([[event.eventId, String(WALL / 1000)]]);
      const rows = after.service.deliveries(after.account).map((r) => [r.attempt, r.status, r.error]);
      expect(rows).toEqual([
        [1, 'failed', 'the mock stopped before the answer came (state saved mid-attempt)'],
        [2, 'succeeded', null],
      ]);
    } finally {
      answer({ status: 204 }); // the first process's request ends (its state is not the restored one)
      await after.mock.app.close();
    }
  });
});

describe('retries (EVT-039..041)', () => {
  it('a failing receiver is retried after 1, 2, 4 ... 60, 60 minutes and given up 24 hours after the change', async () => {
    const { secret } = endpoint();
    fake.answer = () => ({ status: 500 });
    const changedAt = h.clock.now();
    const event = emit();
    h.clock.advance(60);
    await runDeliveries(h.clock, service, acc.state);

    const expected = attemptTimes(DEFAULT_RETRY_POLICY, changedAt, changedAt + MIN);
    expect(expected).toHaveLength(29);
    // The schedule is the mock's clock (the log's attemptedAt); each request is signed at the wall clock.
    const sentAt = service.deliveries(acc.state).map((r) => r.attemptedAt!);
    expect(sentAt).toEqual(expected);
    expect(new Set(fake.received.map((r) => r.headers['webhook-timestamp']))).toEqual(new Set([String(WALL / 1000)]));
    expect(sentAt.slice(1, 9).map((t, i) => (t - sentAt[i]!) / MIN)).toEqual([1, 2, 4, 8, 16, 32, 60, 60]);
    expect(sentAt.at(-1)! - changedAt).toBeLessThanOrEqual(24 * 3600 * 1000);

    // EVT-039: one webhook-id on every attempt; each attempt signed afresh.
    expect(new Set(fake.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([event.eventId]));
    for (const r of fake.received) expect(verifyAt(WALL, secret, r.body, r.headers)).toEqual(r.payload);

    const rows = service.deliveries(acc.state);
    expect(rows.map((r) => r.attempt)).toEqual(expected.map((_t, i) => i + 1));
    expect(new Set(rows.map((r) => r.deliveryId)).size).toBe(1);
    expect(rows.every((r) => r.status === 'failed' && r.responseStatus === 500 && r.error === 'the receiver answered 500')).toBe(true);
    expect(rows.slice(0, -1).map((r) => r.nextAttemptAt)).toEqual(expected.slice(1));
    expect(rows.slice(0, -1).every((r) => !r.givenUp)).toBe(true);
    expect(rows.at(-1)).toMatchObject({ givenUp: true, nextAttemptAt: null });

    await advance(7 * 24 * 3600);
    expect(fake.received).toHaveLength(29);
  });

  it('a network error or timeout is a failure; the first 2xx ends the delivery', async () => {
    endpoint();
    fake.answer = (_r, i) => (i === 0 ? { error: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:4020' } : i === 1 ? { status: 302 } : { status: 200 });
    emit();
    h.clock.advance(60);
    await runDeliveries(h.clock, service, acc.state);
    expect(service.deliveries(acc.state).map((r) => [r.attempt, r.status, r.responseStatus, r.error])).toEqual([
      [1, 'failed', null, 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:4020'],
      [2, 'failed', 302, 'the receiver answered 302'],
      [3, 'succeeded', 200, null],
    ]);
    await advance(24 * 3600);
    expect(fake.received).toHaveLength(3);
  });

  it('a retry shows the state at its own sending time', async () => {
    endpoint();
    fake.answer = (_r, i) => (i === 0 ? { status: 503 } : { status: 204 });
    emit();
    await advance(60);
    acc.state.assets.set(asset.assetId, { ...asset, notes: 'after the first attempt' });
    await advance(60);
    expect(fake.received.map((r) => r.payload.data.notes)).toEqual([asset.notes ?? undefined, 'after the first attempt']);
  });

  it.each([
    ['deleted', (id: string) => service.deleteEndpoint(acc.state, id), 'the endpoint was deleted'],
    ['disabled', (id: string) => service.updateEndpoint(acc.state, id, { enabled: false }), 'the endpoint is disabled'],
    ['without the feature', () => (acc.state.plan = { ...acc.state.plan, webhooks: false }), "the account's plan no longer has the webhooks feature"],
  ])('a retry that falls due when the endpoint is %s is not sent and the delivery is given up', async (_name, change, error) => {
    const { endpoint: e } = endpoint();
    fake.answer = () => ({ status: 500 });
    emit();
    await advance(60);
    change(e.endpointId);
    await advance(60);
    expect(fake.received).toHaveLength(1);
    expect(service.deliveries(acc.state).map((r) => [r.attempt, r.status, r.attemptedAt === null, r.error, r.givenUp])).toEqual([
      [1, 'failed', false, 'the receiver answered 500', false],
      [2, 'not_sent', true, error, true],
    ]);
    await advance(24 * 3600);
    expect(fake.received).toHaveLength(1);
  });
});

describe('chaos', () => {
  it('failFirst: the first N attempts count as failed whatever the answer (they are still sent)', async () => {
    endpoint({ chaos: { failFirst: 2 } });
    const event = emit();
    h.clock.advance(60);
    await runDeliveries(h.clock, service, acc.state);
    expect(fake.received.map((r) => r.headers['webhook-id'])).toEqual([event.eventId, event.eventId, event.eventId]);
    expect(service.deliveries(acc.state).map((r) => [r.attempt, r.status, r.responseStatus, r.error])).toEqual([
      [1, 'failed', 204, 'chaos: failFirst treats attempts 1..2 as failed'],
      [2, 'failed', 204, 'chaos: failFirst treats attempts 1..2 as failed'],
      [3, 'succeeded', 204, null],
    ]);
  });

  it('duplicate as a count: every delivered event is sent that many extra times, same webhook-id and body', async () => {
    endpoint({ chaos: { duplicate: 2 } });
    const event = emit();
    await advance(60);
    expect(fake.received).toHaveLength(3);
    expect(new Set(fake.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([event.eventId]));
    expect(new Set(fake.received.map((r) => r.body)).size).toBe(1);
    expect(service.deliveries(acc.state).map((r) => [r.attempt, r.duplicate, r.status])).toEqual([
      [1, false, 'succeeded'],
      [1, true, 'succeeded'],
      [1, true, 'succeeded'],
    ]);
  });

  it('duplicate as a probability: 0 never, 1 always one copy, 0.5 some of them (deterministic per event)', async () => {
    const never = endpoint({ eventTypes: ['asset.archived'], chaos: { duplicate: 0 } }).endpoint.endpointId;
    const always = endpoint({ eventTypes: ['asset.archived'], chaos: { duplicate: 1 } }).endpoint.endpointId;
    const half = endpoint({ eventTypes: ['asset.archived'], chaos: { duplicate: 0.5 } }).endpoint.endpointId;
    for (let i = 0; i < 40; i++) emit();
    await advance(60);
    const copies = (endpointId: string) => service.deliveries(acc.state, { endpointId }).filter((r) => r.duplicate).length;
    expect(copies(never)).toBe(0);
    expect(copies(always)).toBe(40);
    expect(copies(half)).toBeGreaterThan(5);
    expect(copies(half)).toBeLessThan(35);
  });

  it('duplicates follow a successful attempt only', async () => {
    endpoint({ chaos: { duplicate: 1, failFirst: 1 } });
    emit();
    h.clock.advance(60);
    await runDeliveries(h.clock, service, acc.state);
    expect(service.deliveries(acc.state).map((r) => [r.attempt, r.duplicate, r.status])).toEqual([
      [1, false, 'failed'],
      [2, false, 'succeeded'],
      [2, true, 'succeeded'],
    ]);
  });

  it('outOfOrder: every batch goes out in reverse; other endpoints keep the order', async () => {
    const reversed = endpoint({ chaos: { outOfOrder: true } }).endpoint.endpointId;
    const ordered = endpoint().endpoint.endpointId;
    const ids = [emit('asset.archived'), emit('asset.updated', { kind: 'user' }, { favorited: true }), emit('asset.deleted')].map((e) => e.eventId);
    await advance(60);
    const sent = (endpointId: string) => service.deliveries(acc.state, { endpointId }).map((r) => r.eventId);
    expect(sent(reversed)).toEqual([...ids].reverse());
    expect(sent(ordered)).toEqual(ids);
  });

  it('PATCH of chaos merges into the current settings', () => {
    const { endpoint: e } = endpoint({ chaos: { duplicate: 3 } });
    expect(service.updateEndpoint(acc.state, e.endpointId, { chaos: { failFirst: 1 } })!.chaos).toEqual({ duplicate: 3, outOfOrder: false, failFirst: 1 });
  });
});

describe('endpoint input (EVT-004)', () => {
  it.each([
    'http://127.0.0.1:4020/hooks',
    'https://127.0.0.1/hooks',
    'http://127.9.8.7:1024/',
    'http://127.0.0.1:9/',
    'http://127.0.0.1:80/',
    'http://localhost:4020',
    'HTTP://LOCALHOST:4020/x?y=1',
    'http://[::1]:4020/hooks',
  ])('accepts the loopback URL %s', (url) => {
    expect(() => endpoint({ url })).not.toThrow();
  });

  it.each([
    ['http://example.com/hooks', 'loopback'],
    ['http://10.0.0.1/hooks', 'loopback'],
    ['http://192.168.1.10:4020/', 'loopback'],
    ['http://0.0.0.0:4020/', 'loopback'],
    ['http://[::]:4020/', 'loopback'],
    ['http://[::ffff:7f00:1]/', 'loopback'],
    ['http://localhost.example.com/', 'loopback'],
    ['http://127.0.0.1.nip.io/', 'loopback'],
    ['http://api.localhost/', 'loopback'],
    ['ftp://127.0.0.1/', 'http or https'],
    ['file:///etc/passwd', 'http or https'],
    ['http://user:secret@127.0.0.1/', 'credentials'],
    ['/relative/path', 'absolute'],
    [`http://127.0.0.1/${'x'.repeat(2048)}`, 'at most 2048'],
    // D256: system ports, and numeric hosts not written as they are read.
    ['http://127.0.0.1:22/', 'port 22'],
    ['http://127.9.8.7:1/', 'port 1'],
    ['https://localhost:25/', 'port 25'],
    ['http://2130706433:22/', 'the way it is read (127.0.0.1), not "2130706433"'],
    ['http://2130706433:4020/', 'the way it is read'],
    ['http://0x7f000001:4020/', 'the way it is read'],
    ['http://0x7f.0.0.1:4020/', 'the way it is read'],
    ['http://127.1:4020/', 'the way it is read'],
    ['http://127.000.000.001:4020/', 'the way it is read'],
    ['http://[0::1]:4020/', 'the way it is read ([::1])'],
    ['http://%31%32%37.0.0.1:4020/', 'the way it is read'],
    ['http:\\\\127.0.0.1:4020\\x', 'written plainly'],
  ])('refuses %s (%s)', (url, message) => {
    expect(() => endpoint({ url })).toThrow(WebhookInputError);
    try {
      endpoint({ url });
    } catch (error) {
      expect((error as WebhookInputError).errors).toEqual([{ field: 'url', message: expect.stringContaining(message) }]);
    }
  });

  it.each([
    [{ eventTypes: [] }, 'eventTypes', 'at least one'],
    [{ eventTypes: ['asset.created'] }, 'eventTypes[0]', 'must be one of'],
    [{ eventTypes: ['asset.deleted', 'asset.deleted'] }, 'eventTypes[1]', 'twice'],
    [{ chaos: { duplicate: 1.5 } }, 'chaos.duplicate', 'probability'],
    [{ chaos: { duplicate: 11 } }, 'chaos.duplicate', 'probability'],
    [{ chaos: { failFirst: -1 } }, 'chaos.failFirst', 'whole number'],
    [{ chaos: { failFirst: 0.5 } }, 'chaos.failFirst', 'whole number'],
    [{ chaos: { later: true } }, 'chaos.later', 'not a known field'],
    [{ secret: 'whsec_mine' }, 'secret', 'not a known field'],
    [{ description: 'x'.repeat(501) }, 'description', 'at most 500'],
  ])('refuses %j', (input, field, message) => {
    expect.assertions(1);
    try {
      endpoint(input as Partial<EndpointInput>);
    } catch (error) {
      expect((error as WebhookInputError).errors).toEqual([{ field, message: expect.stringContaining(message) }]);
    }
  });

  it('a refused change leaves the endpoint as it was', () => {
    const { endpoint: e } = endpoint();
    expect(() => service.updateEndpoint(acc.state, e.endpointId, { url: 'http://example.com/', eventTypes: [] })).toThrow(WebhookInputError);
    expect(service.getEndpoint(acc.state, e.endpointId)).toMatchObject({ url: URL_, eventTypes: ['asset.updated', 'asset.archived', 'asset.deleted'] });
  });
});
