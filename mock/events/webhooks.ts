/**
 * The webhook delivery scheduler (Events / Enabling, Delivery, Signature headers; EVT-002..047).
 *
 * It learns of every recorded event through `EventLog.onEvent`, and works on the injected clock:
 *
 * 1. Processing. An event is processed `processingDelaySeconds` after the change (the document's
 *    `x-webhook-delivery.processingDelaySeconds`, 60 s; adjustable globally and per account). All
 *    events of an account due at the same instant are processed together, as one batch. At
 *    processing time nothing is sent unless the account's plan has the webhooks feature (EVT-003)
 *    and an enabled endpoint selected the type (EVT-005, EVT-006). An endpoint added later gets
 *    nothing of earlier changes (EVT-007).
 * 2. Attempts. Each matching endpoint gets one delivery per event. An attempt is prepared inside a
 *    clock task, at the attempt's clock time: `data` rendered from the current state (EVT-024),
 *    `webhook-timestamp` that time, signed with the endpoint's secret. Only the network I/O happens
 *    afterwards, in real time, one request at a time per endpoint (so the order a receiver sees is
 *    the order of sending, and `outOfOrder` chaos is observable).
 * 3. Outcome. A 2xx answer is success. Anything else, a network error or a timeout is retried on the
 *    backoff of backoff.ts (1, 2, 4 ... 60 minutes), until 24 hours after the change (EVT-040,
 *    EVT-041). The `webhook-id` is the event id on every attempt and copy (EVT-039).
 *
 * Decided here:
 * - An attempt that falls due when the endpoint was deleted or disabled, or the plan lost the
 *   webhooks feature, is not sent and the delivery is given up (logged `not_sent`).
 * - `failFirst` counts the attempts of each delivery: its first N attempts are sent but count as
 *   failed whatever the answer. `duplicate` copies are sent right after a successful attempt.
 * - Webhook state (endpoints, the delivery log) lives beside the account (a WeakMap keyed by the
 *   account's state object): a control-plane reset drops it with the account, and tasks scheduled
 *   for an account that was reset do nothing. It is not part of the `--state` file.
 * - The clock's tasks are not saved either. Like runs (mock/domain/runs/resume.ts), processing picks
 *   up after a state load: the constructor (and `resume()`) re-arms every event of the store whose
 *   processing time has not come, from `account.events`. Retries of deliveries already made are lost
 *   with the delivery log.
 */
import { createHash, randomBytes } from 'node:crypto';
import { webhookDelivery } from '../../spec/contract.ts';
import type { Clock } from '../clock.ts';
import { signedWithDefects, withPayloadDefects } from '../defects.ts';
import type { AccountState, Store } from '../store.ts';
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
import { httpTransport, type DeliveryResult, type OutgoingDelivery, type Transport } from './transport.ts';

/** What the service needs of the mock's services (buildMock passes its own). */
export interface WebhookDeps {
  store: Store;
  clock: Clock;
  events: EventLog;
  logError?: (error: unknown, context: string) => void;
  /** Injected contract violations (`--defect NAME`, mock/defects.ts); default none. */
  defects?: ReadonlySet<string>;
}

export interface WebhookOptions {
  /** How deliveries go out (default: real HTTP to loopback). Unit tests pass a fake. */
  transport?: Transport;
  /** Socket timeout of one request, real milliseconds (default 5000). */
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** Global processing delay in seconds (default: the document's, 60). */
  processingDelaySeconds?: number;
  /** Delivery-log rows kept per account, oldest dropped first (default 10,000). */
  maxLogRows?: number;
}

export type AttemptStatus = 'pending' | 'succeeded' | 'failed' | 'not_sent';

/** One row of the delivery log: one attempt (or one duplicate copy) of one event to one endpoint. */
export interface AttemptRecord {
  deliveryId: string;
  eventId: string;
  endpointId: string;
  type: EventType;
  /** 1-based attempt number of the delivery; a duplicate copy carries the number of the attempt it copies. */
  attempt: number;
  duplicate: boolean;
  /** When the attempt fell due (clock ms). */
  scheduledAt: number;
  /** When it was made (clock ms; also its `webhook-timestamp`); null when not sent. */
  attemptedAt: number | null;
  status: AttemptStatus;
  responseStatus: number | null;
  error: string | null;
  /** When the next attempt is due after this failed one (clock ms), or null. */
  nextAttemptAt: number | null;
  /** This was the last attempt: the delivery was given up. */
  givenUp: boolean;
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

interface Delivery {
  deliveryId: string;
  event: DomainEvent;
  endpointId: string;
  /** Attempts made so far. */
  attempts: number;
}

interface AccountWebhooks {
  endpoints: Map<string, WebhookEndpoint>;
  log: AttemptRecord[];
  processingDelaySeconds: number | null;
  /** Events waiting to be processed, by due time (one clock task per instant). */
  batches: Map<number, DomainEvent[]>;
}

/** A prepared request: rendered and signed at the attempt's clock time, sent later. */
interface Prepared {
  request: OutgoingDelivery;
  attemptedAt: number;
}

function processingDelayProblem(seconds: number): WebhookInputError | undefined {
  return Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_PROCESSING_DELAY_SECONDS
    ? undefined
    : new WebhookInputError([{ field: 'processingDelaySeconds', message: `must be a number of seconds 0..${MAX_PROCESSING_DELAY_SECONDS}` }]);
}

/** A deterministic draw in [0, 1) for one event at one endpoint (the `duplicate` probability). */
function draw(eventId: string, endpointId: string): number {
  return createHash('sha256').update(`${eventId}|${endpointId}`).digest().readUInt32BE(0) / 2 ** 32;
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
  private globalDelaySeconds: number;
  private readonly accounts = new WeakMap<AccountState, AccountWebhooks>();
  /** The tail of each endpoint's send queue. */
  private readonly queues = new Map<string, Promise<void>>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Events already waiting for (or past) processing, so that resume() never schedules one twice. */
  private readonly scheduled = new WeakSet<DomainEvent>();

  constructor(deps: WebhookDeps, options: WebhookOptions = {}) {
    this.store = deps.store;
    this.clock = deps.clock;
    this.defects = deps.defects ?? new Set();
    this.logError = deps.logError ?? ((error, context) => console.error(`[mock] ${context}:`, error));
    this.transport = options.transport ?? httpTransport;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
    this.maxLogRows = options.maxLogRows ?? DEFAULT_MAX_LOG_ROWS;
    this.defaultDelaySeconds = options.processingDelaySeconds ?? webhookDelivery.processingDelaySeconds;
    const problem = processingDelayProblem(this.defaultDelaySeconds);
    if (problem) throw problem;
    this.globalDelaySeconds = this.defaultDelaySeconds;
    deps.events.onEvent((account, event) => this.onEvent(account, event));
    this.resume();
  }

  /**
   * Re-arms the processing of every event of the store whose processing time is still to come (a
   * restored state: the clock's tasks are not saved). Idempotent; buildMock's construction calls it.
   */
  resume(): void {
    const now = this.clock.now();
    for (const account of this.store.accounts.values()) {
      for (const event of account.events) {
        if (this.scheduled.has(event)) continue;
        if (this.dueOf(account, event) > now) this.onEvent(account, event);
        else this.scheduled.add(event);
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // Endpoints

  /** Registers an endpoint; the answer carries the secret, which is never shown again. */
  createEndpoint(account: AccountState, input: EndpointInput): { endpoint: WebhookEndpoint; secret: string } {
    const checked = checkEndpointInput(input);
    const now = this.clock.now();
    const endpoint: WebhookEndpoint = {
      endpointId: `whe_${randomBytes(8).toString('hex')}`,
      url: checked.url,
      description: checked.description ?? null,
      eventTypes: [...checked.eventTypes] as EventType[],
      enabled: checked.enabled ?? true,
      chaos: { ...NO_CHAOS, ...checked.chaos },
      secret: newSigningSecret(),
      createdAt: now,
      updatedAt: now,
    };
    this.stateOf(account).endpoints.set(endpoint.endpointId, endpoint);
    return { endpoint, secret: endpoint.secret };
  }

  /** The account's endpoints, in creation order. */
  listEndpoints(account: AccountState): WebhookEndpoint[] {
    return [...this.stateOf(account).endpoints.values()];
  }

  getEndpoint(account: AccountState, endpointId: string): WebhookEndpoint | undefined {
    return this.stateOf(account).endpoints.get(endpointId);
  }

  /** Applies a change (absent fields stay; `chaos` fields merge); undefined when there is no such endpoint. */
  updateEndpoint(account: AccountState, endpointId: string, patch: EndpointPatch): WebhookEndpoint | undefined {
    const endpoint = this.stateOf(account).endpoints.get(endpointId);
    if (!endpoint) return undefined;
    const checked = checkEndpointPatch(patch);
    if (checked.url !== undefined) endpoint.url = checked.url;
    if (checked.eventTypes !== undefined) endpoint.eventTypes = [...checked.eventTypes] as EventType[];
    if (checked.description !== undefined) endpoint.description = checked.description;
    if (checked.enabled !== undefined) endpoint.enabled = checked.enabled;
    if (checked.chaos !== undefined) endpoint.chaos = { ...endpoint.chaos, ...checked.chaos };
    endpoint.updatedAt = this.clock.now();
    return endpoint;
  }

  /** Removes an endpoint (its pending retries are not sent); false when there is no such endpoint. */
  deleteEndpoint(account: AccountState, endpointId: string): boolean {
    return this.stateOf(account).endpoints.delete(endpointId);
  }

  // -------------------------------------------------------------------------------------------
  // Delivery log and settings

  /** The account's delivery log, oldest first. */
  deliveries(account: AccountState, filter: DeliveryFilter = {}): AttemptRecord[] {
    return this.stateOf(account).log.filter(
      (row) =>
        (filter.endpointId === undefined || row.endpointId === filter.endpointId) &&
        (filter.eventId === undefined || row.eventId === filter.eventId) &&
        (filter.type === undefined || row.type === filter.type),
    );
  }

  settings(account: AccountState): WebhookSettings {
    const own = this.stateOf(account).processingDelaySeconds;
    return { processingDelaySeconds: own ?? this.globalDelaySeconds, accountProcessingDelaySeconds: own };
  }

  /** The account's own processing delay, or null to follow the global one. Applies to later changes. */
  setAccountProcessingDelay(account: AccountState, seconds: number | null): WebhookSettings {
    if (seconds !== null) {
      const problem = processingDelayProblem(seconds);
      if (problem) throw problem;
    }
    this.stateOf(account).processingDelaySeconds = seconds;
    return this.settings(account);
  }

  get processingDelaySeconds(): number {
    return this.globalDelaySeconds;
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
    this.globalDelaySeconds = seconds;
  }

  /** Back to the defaults (the control plane's reset; per-account state goes with the accounts). */
  reset(): void {
    this.globalDelaySeconds = this.defaultDelaySeconds;
  }

  /** Resolves once no request is on the wire (retries still scheduled on the clock do not count). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  // -------------------------------------------------------------------------------------------
  // Scheduling

  private stateOf(account: AccountState): AccountWebhooks {
    let state = this.accounts.get(account);
    if (!state) {
      state = { endpoints: new Map(), log: [], processingDelaySeconds: null, batches: new Map() };
      this.accounts.set(account, state);
    }
    return state;
  }

  /** The account is still the store's (not dropped by a reset). */
  private isLive(account: AccountState): boolean {
    return this.store.accounts.get(account.accountId) === account;
  }

  private dueOf(account: AccountState, event: DomainEvent): number {
    return event.timestamp + Math.round(this.settings(account).processingDelaySeconds * 1000);
  }

  private onEvent(account: AccountState, event: DomainEvent): void {
    if (this.scheduled.has(event)) return;
    this.scheduled.add(event);
    const state = this.stateOf(account);
    const due = this.dueOf(account, event);
    const waiting = state.batches.get(due);
    if (waiting) return void waiting.push(event);
    const batch = [event];
    state.batches.set(due, batch);
    this.clock.schedule(due, () => {
      state.batches.delete(due);
      this.process(account, state, batch);
    });
  }

  /** Processing time of a batch (EVT-003, EVT-005..007). */
  private process(account: AccountState, state: AccountWebhooks, batch: readonly DomainEvent[]): void {
    if (!this.isLive(account) || !account.plan.webhooks) return;
    for (const endpoint of state.endpoints.values()) {
      if (!endpoint.enabled) continue;
      const selected = batch.filter((event) => endpoint.eventTypes.includes(event.type));
      if (endpoint.chaos.outOfOrder) selected.reverse();
      for (const event of selected) {
        const delivery: Delivery = { deliveryId: `whd_${randomBytes(8).toString('hex')}`, event, endpointId: endpoint.endpointId, attempts: 0 };
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

  private record(state: AccountWebhooks, row: AttemptRecord): AttemptRecord {
    state.log.push(row);
    if (state.log.length > this.maxLogRows) state.log.splice(0, state.log.length - this.maxLogRows);
    return row;
  }

  /** One attempt, due now (inside a clock task): prepared synchronously, sent on the endpoint's queue. */
  private attempt(account: AccountState, state: AccountWebhooks, delivery: Delivery): void {
    if (!this.isLive(account)) return;
    const now = this.clock.now();
    const base = { deliveryId: delivery.deliveryId, eventId: delivery.event.eventId, endpointId: delivery.endpointId, type: delivery.event.type, duplicate: false, scheduledAt: now };
    const notSent = (error: string) =>
      this.record(state, { ...base, attempt: delivery.attempts + 1, attemptedAt: null, status: 'not_sent', responseStatus: null, error, nextAttemptAt: null, givenUp: true });

    const endpoint = state.endpoints.get(delivery.endpointId);
    const reason = this.blocked(account, endpoint);
    if (reason !== undefined || !endpoint) return void notSent(reason ?? 'the endpoint was deleted');
    const payload = withPayloadDefects(this.defects, renderPayload(account, delivery.event, now));
    if (!payload) return void notSent(`the ${delivery.event.resource.kind} ${delivery.event.resource.id} has no public representation any more`);

    const body = JSON.stringify(payload);
    const prepared: Prepared = {
      attemptedAt: now,
      request: { url: endpoint.url, headers: { 'content-type': 'application/json', ...signedWithDefects(this.defects, endpoint.secret, delivery.event.eventId, now, body, delivery.attempts + 1) }, body, timeoutMs: this.timeoutMs },
    };
    delivery.attempts += 1;
    const attempt = delivery.attempts;
    const { failFirst } = endpoint.chaos; // chaos as it is when the attempt is made
    const forcedFailure = attempt <= failFirst ? `chaos: failFirst treats attempts 1..${failFirst} as failed` : undefined;
    const copies = duplicateCopies(endpoint.chaos.duplicate, draw(delivery.event.eventId, endpoint.endpointId));
    const row = this.record(state, { ...base, attempt, attemptedAt: now, status: 'pending', responseStatus: null, error: null, nextAttemptAt: null, givenUp: false });

    this.enqueue(endpoint.endpointId, async () => {
      const result = await this.send(prepared.request);
      this.settle(row, result, forcedFailure);
      if (row.status === 'succeeded') {
        for (let copy = 0; copy < copies; copy++) {
          const duplicate = this.record(state, { ...row, duplicate: true, status: 'pending', responseStatus: null, error: null });
          this.settle(duplicate, await this.send(prepared.request), undefined);
        }
        return;
      }
      const next = nextAttemptAt(this.retry, delivery.event.timestamp, prepared.attemptedAt, attempt);
      if (next === null) {
        row.givenUp = true;
        return;
      }
      row.nextAttemptAt = next;
      this.clock.schedule(next, () => this.attempt(account, state, delivery));
    });
  }

  private async send(request: OutgoingDelivery): Promise<DeliveryResult> {
    try {
      return await this.transport(request);
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
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
  private enqueue(endpointId: string, job: () => Promise<void>): void {
    const previous = this.queues.get(endpointId) ?? Promise.resolve();
    const next = previous.then(job).catch((error: unknown) => this.logError(error, `webhook delivery to ${endpointId}`));
    this.queues.set(endpointId, next);
    this.inFlight.add(next);
    void next.finally(() => {
      this.inFlight.delete(next);
      if (this.queues.get(endpointId) === next) this.queues.delete(endpointId);
    });
  }
}
