/**
 * An account's webhook state, kept on the account (`AccountState.webhooks`) so that the `--state`
 * file carries it like every other collection: a team's shared mock keeps its endpoints (with their
 * signing secrets: the mock must go on signing with them), its delivery log, its processing delay
 * and the deliveries still open across a restart. The scheduler (webhooks.ts) works on it; the
 * clock's tasks are not saved, so after a load `WebhookService.resume` re-arms every open delivery.
 * Each log row keeps what its attempt sent (headers, signature, payload, latency), saved with it.
 */
import type { WebhookEndpoint } from './endpoints.ts';
import type { DomainEvent, EventType } from './model.ts';

export type AttemptStatus = 'pending' | 'succeeded' | 'failed' | 'not_sent';

/** The request an attempt sent, and the real milliseconds its answer took (null while pending). */
export interface SentRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  latencyMs: number | null;
}

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
  /** When it was made (clock ms; its `webhook-timestamp` is the wall clock's second when sent); null when not sent. */
  attemptedAt: number | null;
  status: AttemptStatus;
  responseStatus: number | null;
  error: string | null;
  /** When the next attempt is due after this failed one (clock ms), or null. */
  nextAttemptAt: number | null;
  /** This was the last attempt: the delivery was given up. */
  givenUp: boolean;
  /**
   * What the attempt sent (the headers with the signature, the payload) and its latency, kept on
   * the row so that the `--state` file carries it; null when nothing was sent. Absent on rows of
   * state files saved before it was kept (read as null).
   */
  request?: SentRequest | null;
}

/** One event to one endpoint, from its processing until it succeeds or is given up. */
export interface OpenDelivery {
  deliveryId: string;
  /** The account's event itself (the state file keeps the shared identity). */
  event: DomainEvent;
  endpointId: string;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due (clock ms), or null while an attempt is on the wire. */
  nextAttemptAt: number | null;
}

export interface AccountWebhooks {
  /** Endpoints by id, in creation order. */
  endpoints: Map<string, WebhookEndpoint>;
  /** The delivery log, oldest first (bounded by the service's `maxLogRows`). */
  log: AttemptRecord[];
  /** The account's own processing delay, or null to follow the global one. */
  processingDelaySeconds: number | null;
  /** Deliveries neither succeeded nor given up, by id. */
  open: Map<string, OpenDelivery>;
  /**
   * The latest processing time (clock ms) whose batch was processed (null: none yet): an event due
   * at or before it was processed, deliveries or none. A restart processes at once an event due
   * after it whose time passed while the mock was down (D296); events come only from the API's
   * changes, never from a seed, so an account starts with none waiting. A state file saved before
   * it was kept reads as its save's clock reading for the account (persistence.ts).
   */
  processedThrough: number | null;
}

export function newAccountWebhooks(): AccountWebhooks {
  return { endpoints: new Map(), log: [], processingDelaySeconds: null, open: new Map(), processedThrough: null };
}
