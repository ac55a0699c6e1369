/**
 * The webhook delivery scheduler (Events / Enabling, Delivery, Signature headers; EVT-002..047).
 * How it works and what it decides: docs/internals.md, "packages/mock-core/src/events/webhooks.ts".
 */
import { randomHex, sha256 } from '../../../contract/platform/crypto.ts';
import { webhookDelivery } from '../../../contract/spec/tables.ts';
import { monotonicMs, type Clock, type TimeSource } from '../core/clock.ts';
import { retryWithDefects, signedWithDefects, withPayloadDefects } from './defects.ts';
import type { AccountState, Store } from '../domain/store.ts';
import type { AccountWebhooks, AttemptRecord, OpenDelivery, SentRequest } from './state.ts';
import { DEFAULT_RETRY_POLICY, nextAttemptAt, type RetryPolicy } from './backoff.ts';
import {
  checkEndpointInput,
  checkEndpointPatch,
  duplicateCopies,
  NO_CHAOS,
  WebhookInputError,
  type EndpointInput,
  type EndpointPatch,
  type WebhookEndpoint,
} from './endpoints.ts';
import type { EventLog } from './log.ts';
import type { DomainEvent, EventType } from './model.ts';
import { renderPayload } from './payload.ts';
import { newSigningSecret } from './signing.ts';
import type { DeliveryResult, OutgoingDelivery, Transport } from './transport.ts';

/** What the service needs of the mock's services (buildMock passes its own). */
export interface WebhookDeps {
  store: Store;
  clock: Clock;
  events: EventLog;
  logError?: (error: unknown, context: string) => void;
  /** Injected contract violations (`--defect NAME`, packages/mock-core/src/events/defects.ts); default none. */
  defects?: ReadonlySet<string>;
}

export interface WebhookOptions {
  /**
   * How deliveries go out: the node adapter (packages/mock/src/node/app.ts) passes real HTTP to loopback
   * (transport.ts), the MSW adapter a callback or fetch, unit tests a fake. None: every attempt fails.
   */
  transport?: Transport;
  /** Socket timeout of one request, real milliseconds (default 5000). */
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** Global processing delay in seconds (default: the document's, 60). */
  processingDelaySeconds?: number;
  /** Delivery-log rows kept per account, oldest dropped first (default 10,000). */
  maxLogRows?: number;
}

export type { AttemptRecord, AttemptStatus } from './state.ts';

export type { SentRequest } from './state.ts';

/** Told of every delivery-log row when it is written and when it settles (the control plane's stream). */
export type AttemptListener = (account: AccountState, row: AttemptRecord) => void;

/** A delivery not yet done (listPendingDeliveries): open (with its id) or waiting for its event's processing (id null). */
export interface PendingDelivery {
  deliveryId: string | null;
  eventId: string;
  endpointId: string;
  type: EventType;
  attempts: number;
  /** When its next attempt is due (account clock ms), or null while an attempt is on the wire. */
  dueAt: number | null;
}

export interface DeliveryFilter {
  endpointId?: string;
  eventId?: string;
  type?: string;
}

export interface WebhookSettings {
  /** The delay in effect for the account. */
  processingDelaySeconds: number;
  /** The account's own value, or null when it follows the global one. */
  accountProcessingDelaySeconds: number | null;
}

export const MAX_PROCESSING_DELAY_SECONDS = 86_400;
const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_LOG_ROWS = 10_000;

/** A prepared request: rendered at the attempt's clock time, signed when it is sent. */
interface Prepared {
  /** The request as sent now: signed with the wall clock's second. */
  request(): OutgoingDelivery;
  attemptedAt: number;
}

function processingDelayProblem(seconds: number): WebhookInputError | undefined {
  return Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_PROCESSING_DELAY_SECONDS
    ? undefined
    : new WebhookInputError([{ field: 'processingDelaySeconds', message: `must be a number of seconds 0..${MAX_PROCESSING_DELAY_SECONDS}` }]);
}

/** A deterministic draw in [0, 1) for one event at one endpoint (the `duplicate` probability). */
function draw(eventId: string, endpointId: string): number {
  const d = sha256(`${eventId}|${endpointId}`);
  return (d[0]! * 2 ** 24 + (d[1]! << 16) + (d[2]! << 8) + d[3]!) / 2 ** 32;
}

/** Events that have a delivery (open or in the log): processed, whatever the clock or the delay say now. */
function processedEvents(state: AccountWebhooks): Set<string> {
  const ids = new Set<string>();
  for (const delivery of state.open.values()) ids.add(delivery.event.eventId);
  for (const row of state.log) ids.add(row.eventId);
  return ids;
}

function isSuccess(result: DeliveryResult): boolean {
  return 'status' in result && result.status >= 200 && result.status < 300;
}

export class WebhookService {
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly logError: (error: unknown, context: string) => void;
  private readonly defects: ReadonlySet<string>;
  private readonly transport: Transport;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly maxLogRows: number;
  private readonly defaultDelaySeconds: number;
  /** Events waiting to be processed, per account by due time (one clock task per instant). */
  private readonly batches = new WeakMap<AccountState, Map<number, DomainEvent[]>>();
  /** The tail of each endpoint's send queue. */
  private readonly queues = new Map<string, Promise<void>>();
  private readonly inFlight = new Set<Promise<void>>();
  /** The same jobs by account: an account's advance waits only for its own (D252). */
  private readonly inFlightOf = new Map<string, Set<Promise<void>>>();
  /** Events already waiting for (or past) processing, so that resume() never schedules one twice. */
  private readonly scheduled = new WeakSet<DomainEvent>();
  /** Open deliveries whose next attempt is on the clock or on the wire (resume() leaves them be). */
  private readonly armed = new WeakSet<OpenDelivery>();
  private readonly attemptListeners: AttemptListener[] = [];

  constructor(deps: WebhookDeps, options: WebhookOptions = {}) {
    this.store = deps.store;
    this.clock = deps.clock;
    this.defects = deps.defects ?? new Set();
    this.logError = deps.logError ?? ((error, context) => console.error(`[mock] ${context}:`, error));
    this.transport = options.transport ?? (async () => ({ error: 'no webhook transport: the way in that built this mock gave none' }));
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retry = retryWithDefects(this.defects, options.retry ?? DEFAULT_RETRY_POLICY);
    this.maxLogRows = options.maxLogRows ?? DEFAULT_MAX_LOG_ROWS;
    this.defaultDelaySeconds = options.processingDelaySeconds ?? webhookDelivery.processingDelaySeconds;
    const problem = processingDelayProblem(this.defaultDelaySeconds);
    if (problem) throw problem;
    deps.events.onEvent((account, event) => this.onEvent(account, event));
    this.resume();
  }

  /**
   * Re-arms what a restored state left waiting (the clock's tasks are not saved): the processing of
   * every event whose processing time is still to come, and every open delivery (a retry at its due
   * time; an attempt whose answer never came, once more at once). Idempotent; buildMock's
   * construction calls it.
   */
  resume(): void {
    for (const account of this.store.accounts.values()) {
      const now = this.timeOf(account).now();
      const processed = processedEvents(account.webhooks);
      for (const event of account.events) {
        if (this.scheduled.has(event)) continue;
        // An event with a delivery was processed already, whatever its processing time says now; one
        // whose processing time passed while the mock was down is processed at once (D296).
        if (this.waitsForProcessing(account, event, processed, now)) this.onEvent(account, event, this.processingAt(account, event, now));
        else this.scheduled.add(event);
      }
      const state = account.webhooks;
      for (const delivery of state.open.values()) {
        if (this.armed.has(delivery)) continue;
        if (delivery.nextAttemptAt === null) {
          for (const row of state.log) {
            if (row.deliveryId === delivery.deliveryId && row.status === 'pending') {
              row.status = 'failed';
              row.error = 'the mock stopped before the answer came (state saved mid-attempt)';
            }
          }
        }
        this.armed.add(delivery);
        this.timeOf(account).schedule(delivery.nextAttemptAt ?? now, () => this.attempt(account, state, delivery));
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // Endpoints

  /** Registers an endpoint; the answer carries the secret, which is never shown again. */
  createEndpoint(account: AccountState, input: EndpointInput): { endpoint: WebhookEndpoint; secret: string } {
    const checked = checkEndpointInput(input);
    const now = this.timeOf(account).now();
    const endpoint: WebhookEndpoint = {
      endpointId: `whe_${randomHex(8)}`,
      url: checked.url,
      description: checked.description ?? null,
      eventTypes: [...checked.eventTypes] as EventType[],
      enabled: checked.enabled ?? true,
      chaos: { ...NO_CHAOS, ...checked.chaos },
      secret: newSigningSecret(),
      createdAt: now,
      updatedAt: now,
    };
    account.webhooks.endpoints.set(endpoint.endpointId, endpoint);
    return { endpoint, secret: endpoint.secret };
  }

  /** The account's endpoints, in creation order. */
  listEndpoints(account: AccountState): WebhookEndpoint[] {
    return [...account.webhooks.endpoints.values()];
  }

  getEndpoint(account: AccountState, endpointId: string): WebhookEndpoint | undefined {
    return account.webhooks.endpoints.get(endpointId);
  }

  /** Applies a change (absent fields stay; `chaos` fields merge); undefined when there is no such endpoint. */
  updateEndpoint(account: AccountState, endpointId: string, patch: EndpointPatch): WebhookEndpoint | undefined {
    const endpoint = account.webhooks.endpoints.get(endpointId);
    if (!endpoint) return undefined;
    const checked = checkEndpointPatch(patch);
    if (checked.url !== undefined) endpoint.url = checked.url;
    if (checked.eventTypes !== undefined) endpoint.eventTypes = [...checked.eventTypes] as EventType[];
    if (checked.description !== undefined) endpoint.description = checked.description;
    if (checked.enabled !== undefined) endpoint.enabled = checked.enabled;
    if (checked.chaos !== undefined) endpoint.chaos = { ...endpoint.chaos, ...checked.chaos };
    endpoint.updatedAt = this.timeOf(account).now();
    return endpoint;
  }

  /** Removes an endpoint (its pending retries are not sent); false when there is no such endpoint. */
  deleteEndpoint(account: AccountState, endpointId: string): boolean {
    return account.webhooks.endpoints.delete(endpointId);
  }

  // -------------------------------------------------------------------------------------------
  // Delivery log and settings

  /** Listen to the delivery log: each row when written and again when it settles. */
  onAttempt(listener: AttemptListener): () => void {
    this.attemptListeners.push(listener);
    return () => {
      const at = this.attemptListeners.indexOf(listener);
      if (at >= 0) this.attemptListeners.splice(at, 1);
    };
  }

  /** What a row's attempt sent (kept on the row, so a restored state still shows it). */
  sentRequest(row: AttemptRecord): SentRequest | undefined {
    return row.request ?? undefined;
  }

  /**
   * Sends the event of a logged delivery to its endpoint again, now, as a new delivery (same event
   * id, a new delivery id and retry schedule). Undefined when the row or its event is not kept.
   */
  resend(account: AccountState, deliveryId: string): OpenDelivery | undefined {
    const state = account.webhooks;
    const row = state.log.find((r) => r.deliveryId === deliveryId);
    const event = row && account.events.find((e) => e.eventId === row.eventId);
    if (!row || !event) return undefined;
    const delivery: OpenDelivery = { deliveryId: `whd_${randomHex(8)}`, event, endpointId: row.endpointId, attempts: 0, nextAttemptAt: null };
    state.open.set(delivery.deliveryId, delivery);
    this.armed.add(delivery);
    this.attempt(account, state, delivery);
    return delivery;
  }

  /**
   * Deliveries not yet done: every open one, then one per enabled endpoint taking the type for each
   * event still in its processing time on the account's clock (D91) and not yet processed (an
   * event with a delivery in the log or open is never listed again as waiting).
   */
  pendingDeliveries(account: AccountState): PendingDelivery[] {
    const state = account.webhooks;
    const now = this.timeOf(account).now();
    const processed = processedEvents(state);
    const endpoints = [...state.endpoints.values()].filter((e) => e.enabled);
    const open = [...state.open.values()].map((d) => ({ deliveryId: d.deliveryId, eventId: d.event.eventId, endpointId: d.endpointId, type: d.event.type, attempts: d.attempts, dueAt: d.nextAttemptAt }));
    const waiting = account.events
      .filter((event) => this.waitsForProcessing(account, event, processed, now))
      .flatMap((event) => endpoints.filter((e) => e.eventTypes.includes(event.type)).map((e) => ({ deliveryId: null, eventId: event.eventId, endpointId: e.endpointId, type: event.type, attempts: 0, dueAt: this.processingAt(account, event, now) })));
    return [...open, ...waiting];
  }

  /** The account's delivery log, oldest first. */
  deliveries(account: AccountState, filter: DeliveryFilter = {}): AttemptRecord[] {
    return account.webhooks.log.filter(
      (row) =>
        (filter.endpointId === undefined || row.endpointId === filter.endpointId) &&
        (filter.eventId === undefined || row.eventId === filter.eventId) &&
        (filter.type === undefined || row.type === filter.type),
    );
  }

  settings(account: AccountState): WebhookSettings {
    const own = account.webhooks.processingDelaySeconds;
    return { processingDelaySeconds: own ?? this.processingDelaySeconds, accountProcessingDelaySeconds: own };
  }

  /** The account's own processing delay, or null to follow the global one. Applies to later changes. */
  setAccountProcessingDelay(account: AccountState, seconds: number | null): WebhookSettings {
    if (seconds !== null) {
      const problem = processingDelayProblem(seconds);
      if (problem) throw problem;
    }
    account.webhooks.processingDelaySeconds = seconds;
    return this.settings(account);
  }

  /** The global processing delay (saved with the Store), or the service's default. */
  get processingDelaySeconds(): number {
    return this.store.webhooks.processingDelaySeconds ?? this.defaultDelaySeconds;
  }

  get retryPolicy(): Readonly<RetryPolicy> {
    return this.retry;
  }

  get requestTimeoutMs(): number {
    return this.timeoutMs;
  }

  /** The global processing delay (accounts without their own). Applies to later changes. */
  setGlobalProcessingDelay(seconds: number): void {
    const problem = processingDelayProblem(seconds);
    if (problem) throw problem;
    this.store.webhooks.processingDelaySeconds = seconds === this.defaultDelaySeconds ? null : seconds;
  }

  /** Back to the defaults (the control plane's reset, after the Store's: the state went with it). */
  reset(): void {
    this.store.webhooks.processingDelaySeconds = null;
  }

  /** Whether a request is on the wire (or queued behind one). */
  get busy(): boolean {
    return this.inFlight.size > 0;
  }

  /** Resolves once no request is on the wire (retries still scheduled on the clock do not count). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Whether a request of this account is on the wire (or queued behind one). */
  busyFor(accountId: string): boolean {
    return (this.inFlightOf.get(accountId)?.size ?? 0) > 0;
  }

  /** Resolves once no request of this account is on the wire; other accounts' requests do not count (D252). */
  async idleFor(accountId: string): Promise<void> {
    for (let jobs = this.inFlightOf.get(accountId); jobs && jobs.size > 0; jobs = this.inFlightOf.get(accountId)) await Promise.allSettled([...jobs]);
  }

  // -------------------------------------------------------------------------------------------
  // Scheduling

  /** The account's own clock (D91): its processing delay, attempts and retries follow it. */
  private timeOf(account: AccountState): TimeSource {
    return this.clock.forAccount(account.accountId);
  }

  /** The account is still the store's (not dropped by a reset). */
  private isLive(account: AccountState): boolean {
    return this.store.accounts.get(account.accountId) === account;
  }

  private dueOf(account: AccountState, event: DomainEvent): number {
    return event.timestamp + Math.round(this.settings(account).processingDelaySeconds * 1000);
  }

  /**
   * An event not processed yet: no delivery of it (D293), and either its processing time is still to
   * come on the account's clock, or it came while the mock was down: after the last batch processed
   * (`processedThrough`, D296).
   */
  private waitsForProcessing(account: AccountState, event: DomainEvent, processed: ReadonlySet<string>, now: number): boolean {
    if (processed.has(event.eventId)) return false;
    const due = this.dueOf(account, event);
    if (due > now) return true;
    const through = account.webhooks.processedThrough;
    return through === null || due > through;
  }

  /** When a waiting event is processed: its processing time, or now when that passed while the mock was down (D296). */
  private processingAt(account: AccountState, event: DomainEvent, now: number): number {
    return Math.max(now, this.dueOf(account, event));
  }

  /** Schedules an event's processing at its processing time (`at`: a restart's, when that time passed). */
  private onEvent(account: AccountState, event: DomainEvent, at?: number): void {
    if (this.scheduled.has(event)) return;
    this.scheduled.add(event);
    const state = account.webhooks;
    let batches = this.batches.get(account);
    if (!batches) this.batches.set(account, (batches = new Map()));
    const due = at ?? this.dueOf(account, event);
    const waiting = batches.get(due);
    if (waiting) return void waiting.push(event);
    const batch = [event];
    batches.set(due, batch);
    this.timeOf(account).schedule(due, () => {
      batches.delete(due);
      this.process(account, state, batch, due);
    });
  }

  /** Processing time of a batch (EVT-003, EVT-005..007), due at `due`. */
  private process(account: AccountState, state: AccountWebhooks, batch: readonly DomainEvent[], due: number): void {
    if (!this.isLive(account)) return;
    state.processedThrough = Math.max(state.processedThrough ?? due, due);
    if (!account.plan.webhooks) return;
    for (const endpoint of state.endpoints.values()) {
      if (!endpoint.enabled) continue;
      const selected = batch.filter((event) => endpoint.eventTypes.includes(event.type));
      if (endpoint.chaos.outOfOrder) selected.reverse();
      for (const event of selected) {
        const delivery: OpenDelivery = { deliveryId: `whd_${randomHex(8)}`, event, endpointId: endpoint.endpointId, attempts: 0, nextAttemptAt: null };
        state.open.set(delivery.deliveryId, delivery);
        this.armed.add(delivery);
        this.attempt(account, state, delivery);
      }
    }
  }

  /** Why an attempt due now cannot be made, or undefined. */
  private blocked(account: AccountState, endpoint: WebhookEndpoint | undefined): string | undefined {
    if (!endpoint) return 'the endpoint was deleted';
    if (!endpoint.enabled) return 'the endpoint is disabled';
    if (!account.plan.webhooks) return "the account's plan no longer has the webhooks feature";
    return undefined;
  }

  private record(account: AccountState, state: AccountWebhooks, row: AttemptRecord): AttemptRecord {
    state.log.push(row);
    if (state.log.length > this.maxLogRows) state.log.splice(0, state.log.length - this.maxLogRows);
    this.told(account, row);
    return row;
  }

  private told(account: AccountState, row: AttemptRecord): void {
    for (const listener of this.attemptListeners) listener(account, row);
  }

  /** One attempt, due now (inside a clock task): prepared synchronously, sent on the endpoint's queue. */
  private attempt(account: AccountState, state: AccountWebhooks, delivery: OpenDelivery): void {
    if (!this.isLive(account)) return;
    const now = this.timeOf(account).now();
    delivery.nextAttemptAt = null; // on the wire from here until settled
    const close = () => void state.open.delete(delivery.deliveryId);
    const base = { deliveryId: delivery.deliveryId, eventId: delivery.event.eventId, endpointId: delivery.endpointId, type: delivery.event.type, duplicate: false, scheduledAt: now };
    const notSent = (error: string) => {
      close();
      this.record(account, state, { ...base, attempt: delivery.attempts + 1, attemptedAt: null, status: 'not_sent', responseStatus: null, error, nextAttemptAt: null, givenUp: true, request: null });
    };

    const endpoint = state.endpoints.get(delivery.endpointId);
    const reason = this.blocked(account, endpoint);
    if (reason !== undefined || !endpoint) return void notSent(reason ?? 'the endpoint was deleted');
    const payload = withPayloadDefects(this.defects, renderPayload(account, delivery.event, now, this.store.publicOrigin));
    if (!payload) return void notSent(`the ${delivery.event.resource.kind} ${delivery.event.resource.id} has no public representation any more`);

    const body = JSON.stringify(payload);
    const attempt = delivery.attempts + 1;
    const { url, secret } = endpoint;
    const prepared: Prepared = {
      attemptedAt: now,
      request: () => ({ url, headers: { 'content-type': 'application/json', ...signedWithDefects(this.defects, secret, delivery.event.eventId, this.clock.wallNow(), body, attempt) }, body, timeoutMs: this.timeoutMs }),
    };
    delivery.attempts = attempt;
    const { failFirst } = endpoint.chaos; // chaos as it is when the attempt is made
    const forcedFailure = attempt <= failFirst ? `chaos: failFirst treats attempts 1..${failFirst} as failed` : undefined;
    const copies = duplicateCopies(endpoint.chaos.duplicate, draw(delivery.event.eventId, endpoint.endpointId));
    const row = this.record(account, state, { ...base, attempt, attemptedAt: now, status: 'pending', responseStatus: null, error: null, nextAttemptAt: null, givenUp: false, request: null });

    this.enqueue(account.accountId, endpoint.endpointId, async () => {
      const result = await this.timed(row, prepared.request());
      this.settle(row, result, forcedFailure);
      if (row.status === 'succeeded') {
        close();
        this.told(account, row);
        for (let copy = 0; copy < copies; copy++) {
          const duplicate = this.record(account, state, { ...row, duplicate: true, status: 'pending', responseStatus: null, error: null });
          this.settle(duplicate, await this.timed(duplicate, prepared.request()), undefined);
          this.told(account, duplicate);
        }
        return;
      }
      const next = nextAttemptAt(this.retry, delivery.event.timestamp, prepared.attemptedAt, attempt);
      if (next === null) {
        close();
        row.givenUp = true;
        this.told(account, row);
        return;
      }
      row.nextAttemptAt = next;
      delivery.nextAttemptAt = next;
      this.told(account, row);
      this.timeOf(account).schedule(next, () => this.attempt(account, state, delivery));
    });
  }

  /** Sends and notes the real milliseconds the answer took on the row's sent request. */
  private async timed(row: AttemptRecord, request: OutgoingDelivery): Promise<DeliveryResult> {
    const sent: SentRequest = { url: request.url, headers: request.headers, body: request.body, latencyMs: null };
    row.request = sent; // as signed when it goes out
    const started = monotonicMs();
    const result = await this.send(request);
    sent.latencyMs = Math.round((monotonicMs() - started) * 1000) / 1000;
    return result;
  }

  /**
   * One request through the transport, bounded in real time whatever the transport does: a transport
   * that never settles (a hung receiver the transport's own timeout missed, a stub) counts as no answer
   * after the request's timeout plus a second, so no advance waits on it longer (D252).
   */
  private async send(request: OutgoingDelivery): Promise<DeliveryResult> {
    const limitMs = request.timeoutMs + 1_000;
    let timer: { cancel(): void } | undefined;
    const bound = new Promise<DeliveryResult>((resolve) => {
      timer = this.clock.wallTimer(limitMs, () => resolve({ error: `no answer within ${limitMs} ms` }));
    });
    try {
      return await Promise.race([this.transport(request), bound]);
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    } finally {
      timer?.cancel();
    }
  }

  private settle(row: AttemptRecord, result: DeliveryResult, forcedFailure: string | undefined): void {
    row.responseStatus = 'status' in result ? result.status : null;
    if ('error' in result) row.error = result.error;
    else if (forcedFailure !== undefined) row.error = forcedFailure;
    else if (!isSuccess(result)) row.error = `the receiver answered ${result.status}`;
    row.status = isSuccess(result) && forcedFailure === undefined ? 'succeeded' : 'failed';
  }

  /** Runs `job` after every earlier job of the endpoint (one request at a time per endpoint). */
  private enqueue(accountId: string, endpointId: string, job: () => Promise<void>): void {
    const previous = this.queues.get(endpointId) ?? Promise.resolve();
    const next = previous.then(job).catch((error: unknown) => this.logError(error, `webhook delivery to ${endpointId}`));
    this.queues.set(endpointId, next);
    this.inFlight.add(next);
    let own = this.inFlightOf.get(accountId);
    if (!own) this.inFlightOf.set(accountId, (own = new Set()));
    own.add(next);
    void next.finally(() => {
      this.inFlight.delete(next);
      own.delete(next);
      if (own.size === 0 && this.inFlightOf.get(accountId) === own) this.inFlightOf.delete(accountId);
      if (this.queues.get(endpointId) === next) this.queues.delete(endpointId);
    });
  }
}
