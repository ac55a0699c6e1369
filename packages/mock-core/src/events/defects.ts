/**
 * Injected defects: named contract violations the mock can be started with (`--defect NAME`,
 * repeatable), so that the conformance suite can prove it catches each one
 * (packages/conformance/proofs/prove-defects.ts; the catalogue is packages/conformance/suite/defects/catalogue.ts).
 *
 * Almost every defect of the catalogue is injected by a fault-injecting proxy in front of a correct
 * mock. Only what the proxy cannot see is injected here: webhook deliveries go from the mock
 * straight to the receiver. The webhook service (packages/mock-core/src/events/webhooks.ts) applies them through the
 * two functions below, which do nothing without a defect:
 *
 *   withPayloadDefects(defects, payload)                                 the envelope
 *   signedWithDefects(defects, secret, msgId, nowMs, body, attempt)      the Standard Webhooks headers
 *   retryWithDefects(defects, policy)                                    the retry schedule
 */
import type { WebhookPayload } from './payload.ts';
import { signatureHeaders, type SignatureHeaders } from './signing.ts';
import type { RetryPolicy } from './backoff.ts';

/** A defect's name: lower-case words joined by `-`, `_` or `.` (e.g. `etag-weak`). */
export type DefectName = string;

/** The defects a mock process runs with (empty: a conforming mock). */
export type Defects = Set<DefectName>;

/** The defects the mock itself implements, with what each breaks. */
export const MOCK_DEFECTS = {
  'webhook-bad-signature': 'webhook-signature is computed over another content than `${webhook-id}.${webhook-timestamp}.${body}` (EVT-046)',
  'webhook-id-unstable': 'a retried delivery carries a new webhook-id instead of the event id (EVT-039)',
  'webhook-actor-leaks-key': 'the actor of a change not made with an API key carries an apiKeyId (EVT-035)',
  'webhook-campaign-data-stale': '`data` of campaign.updated carries the name before the change (EVT-015)',
  'webhook-previous-ratio-shown': 'previousAttributes.aspectRatio is a ratio instead of null when the creative had none of its own (EVT-033)',
  'webhook-campaign-created-as-creative': 'creating a campaign sends creative.updated (about its unreadable creatives) instead of campaign.created (EVT-017, EVT-018)',
  'run-charges-unproduced': 'a run item that settles failed or refused is charged its hold like a produced creative (RUN-003); applied in packages/mock-core/src/domain/runs/scheduler.ts',
  'estimate-creates-run': 'POST /runs/estimate answers the quote and also creates the run it priced (RUN-004); applied in packages/mock-core/src/domain/runs/operations.ts',
  'run-completed-twice': 'a run that reaches a final status records run.completed twice, two events with ids of their own (EVT-008); applied in packages/mock-core/src/domain/runs/scheduler.ts',
  'webhook-retry-fixed': 'a failed delivery is retried every 5 minutes instead of after 1, 2, 4 ... minutes capped at an hour (EVT-040)',
} as const satisfies Record<string, string>;

export type MockDefect = keyof typeof MOCK_DEFECTS;

const NAME = /^[a-z0-9]+(?:[-_.][a-z0-9]+)*$/;

export class DefectNameError extends Error {}

/**
 * The set of defects from `--defect` values; each value may also list several, comma-separated.
 * A name the mock does not implement is refused, so that a typo never starts a correct mock that
 * claims to be defective.
 */
export function parseDefects(values: readonly string[]): Set<DefectName> {
  const out = new Set<DefectName>();
  for (const value of values) {
    for (const part of value.split(',')) {
      const name = part.trim();
      if (name === '') continue;
      if (!NAME.test(name)) throw new DefectNameError(`--defect ${JSON.stringify(name)}: a defect name is lower-case letters and digits joined by -, _ or .`);
      if (!Object.hasOwn(MOCK_DEFECTS, name)) {
        throw new DefectNameError(
          `--defect ${name}: the mock implements ${Object.keys(MOCK_DEFECTS).join(', ')} (the other defects of packages/conformance/suite/defects/catalogue.ts are injected by its proxy)`,
        );
      }
      out.add(name);
    }
  }
  return out;
}

export function hasDefect(defects: ReadonlySet<DefectName> | undefined, name: MockDefect): boolean {
  return defects?.has(name) ?? false;
}

/** The apiKeyId the `webhook-actor-leaks-key` defect puts on a change nobody made with an API key. */
export const LEAKED_KEY_ID = 'key_dashboard_session';

/** The webhook envelope as sent (webhook-actor-leaks-key: an apiKeyId on a user, share link ... actor). */
export function withPayloadDefects<P extends WebhookPayload | undefined>(defects: ReadonlySet<DefectName> | undefined, payload: P): P {
  if (!payload || !defects || defects.size === 0) return payload;
  let out: WebhookPayload = payload;
  if (hasDefect(defects, 'webhook-actor-leaks-key') && out.actor && out.actor.kind !== 'api_key') out = { ...out, actor: { ...out.actor, apiKeyId: LEAKED_KEY_ID } as unknown as WebhookPayload['actor'] };
  const previous = out.previousAttributes;
  if (hasDefect(defects, 'webhook-campaign-data-stale') && out.type === 'campaign.updated' && previous && typeof previous['name'] === 'string' && typeof out.data === 'object' && out.data !== null) {
    out = { ...out, data: { ...(out.data as Record<string, unknown>), name: previous['name'] } };
  }
  if (hasDefect(defects, 'webhook-campaign-created-as-creative') && out.type === 'campaign.created') out = { ...out, type: 'creative.updated' };
  if (hasDefect(defects, 'webhook-previous-ratio-shown') && previous && Object.hasOwn(previous, 'aspectRatio') && previous['aspectRatio'] === null) {
    out = { ...out, previousAttributes: { ...previous, aspectRatio: STAND_IN_RATIO } };
  }
  return out as P;
}

/** The ratio `webhook-previous-ratio-shown` reports as the previous one (a campaign's, in the defect's story). */
export const STAND_IN_RATIO = '4:5';

/**
 * The Standard Webhooks headers of attempt `attempt` (1-based) of one delivery:
 * webhook-id-unstable gives a retry its own webhook-id (still `msg_…`, correctly signed);
 * webhook-bad-signature signs the body with a trailing newline, which is not what is sent.
 */
export function signedWithDefects(defects: ReadonlySet<DefectName> | undefined, secret: string, msgId: string, nowMs: number, body: string, attempt: number): SignatureHeaders {
  const id = hasDefect(defects, 'webhook-id-unstable') && attempt > 1 ? `${msgId}r${attempt}` : msgId;
  const headers = signatureHeaders(secret, id, nowMs, body);
  if (!hasDefect(defects, 'webhook-bad-signature')) return headers;
  return { ...headers, 'webhook-signature': signatureHeaders(secret, id, nowMs, `${body}\n`)['webhook-signature'] };
}

/** The fixed delay of `webhook-retry-fixed`: every retry 5 minutes after the failed attempt. */
export const FIXED_RETRY_SECONDS = 300;

/** The retry schedule as applied (webhook-retry-fixed: 5 minutes every time, the horizon kept). */
export function retryWithDefects(defects: ReadonlySet<DefectName> | undefined, policy: RetryPolicy): RetryPolicy {
  if (!hasDefect(defects, 'webhook-retry-fixed')) return policy;
  return { ...policy, firstDelaySeconds: FIXED_RETRY_SECONDS, factor: 1, maxDelaySeconds: FIXED_RETRY_SECONDS };
}
