/**
 * Stage: Idempotency-Key (IDEM-*, D22, D35, D37). Keys are scoped per account and kept 24 hours.
 * - same key, same request, completed: replay the stored status, headers and body;
 * - same key, different request: 409 IDEMPOTENCY_KEY_REUSED;
 * - same key, still running: 409 IDEMPOTENCY_IN_PROGRESS with Retry-After;
 * - outcomes that leave the key free (`leavesKeyFree`, D72): every refusal decided before the
 *   operation runs (plan, limits, credits, prices, pauses, ...), and everything refused before this
 *   stage, so "retry the same request" works once the condition is fixed.
 * A replay still passes authentication, scope, writes paused and the operation's plan entitlement
 * (`OperationHandler.entitle`, packages/mock-core/src/pipeline/index.ts) first.
 */
import { sha256Base64url } from '../../../contract/platform/crypto.ts';
import { utf8 } from '../../../contract/platform/bytes.ts';
import type { OperationInfo } from '../../../contract/spec/contract.ts';
import { ApiError } from '../core/errors.ts';
import type { AccountState, IdempotencyRecord, StoredResponse } from '../domain/store.ts';
import type { RawResponse } from './types.ts';

export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;

const REPLAYED_HEADERS = ['content-type', 'location', 'etag', 'retry-after'];

/** D35: spelling out the defaults of POST /runs is the same request as omitting them. */
const DEFAULTS: Record<string, Record<string, unknown>> = {
  createRun: { modality: 'image', imageSize: '1K', referenceSource: 'PRIMARY' },
};

export function fingerprint(operation: OperationInfo, path: string, body: unknown): string {
  let normalized = body ?? null;
  const defaults = DEFAULTS[operation.operationId];
  if (defaults && normalized && typeof normalized === 'object' && !Array.isArray(normalized)) {
    const copy: Record<string, unknown> = { ...(normalized as Record<string, unknown>) };
    for (const [field, value] of Object.entries(defaults)) if (copy[field] === value) delete copy[field];
    normalized = copy;
  }
  return sha256Base64url(`${operation.operationId} ${path}\n${canonicalJson(normalized)}`);
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export type IdempotencyStart = { replay: StoredResponse } | { begun: IdempotencyRecord | undefined };

export function beginIdempotent(account: AccountState, key: string | undefined, print: string, now: number): IdempotencyStart {
  if (key === undefined) return { begun: undefined };
  const existing = account.idempotency.get(key);
  if (existing && existing.createdAt + IDEMPOTENCY_RETENTION_MS <= now) account.idempotency.delete(key);
  const record = account.idempotency.get(key);
  if (record) {
    if (record.fingerprint !== print) {
      throw new ApiError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for a different request.');
    }
    if (record.state === 'in_progress' || !record.response) {
      throw new ApiError('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still running.', { retryAfter: 1 });
    }
    return { replay: record.response };
  }
  const begun: IdempotencyRecord = { fingerprint: print, state: 'in_progress', createdAt: now };
  account.idempotency.set(key, begun);
  return { begun };
}

/**
 * IDEM-014, D72: the 409s that are about the account's standing, the service's prices or something
 * still running, not about the request or the state of the resource it acts on.
 */
const KEY_FREE_CONFLICTS: ReadonlySet<string> = new Set([
  'ACCOUNT_SPEND_CAP_EXCEEDED',
  'PRICE_CHANGED',
  'PRICE_EXCEEDS_MAX',
  'IMAGE_SIZE_UNPRICED',
  'IMAGE_UPSCALE_UNPRICED',
  'IMAGE_UPSCALE_IN_PROGRESS',
  'CAMPAIGN_CASCADE_PENDING',
  'IDEMPOTENCY_IN_PROGRESS',
]);

/**
 * D37, D72 (IDEM-010, IDEM-014): an answer stores nothing, and the key stays free for the identical
 * request once the condition is fixed, when it is a refusal decided before the operation runs:
 * who asks and what the plan grants or allows (401, 403: scope, TIER_REQUIRED, LIMIT_EXCEEDED,
 * IMAGE_SIZE_NOT_ENTITLED, IMAGE_UPSCALE_NOT_ENTITLED), what the account can spend and what things
 * cost (402, the 409s above), a stale If-Match (412), and whether the service takes the request now
 * (429, 5xx). Stored: successes, and the answers about the request itself or the resource it acts
 * on (400/422 field failures, 404, the 409s of a resource's state).
 */
export function leavesKeyFree(status: number, code: string | undefined): boolean {
  return status >= 500 || status === 429 || status === 412 || status === 401 || status === 402 || status === 403 || (code !== undefined && KEY_FREE_CONFLICTS.has(code));
}

export function finishIdempotent(
  account: AccountState,
  key: string | undefined,
  record: IdempotencyRecord | undefined,
  response: RawResponse,
  code: string | undefined,
  resource: IdempotencyRecord['resource'],
): void {
  if (key === undefined || record === undefined) return;
  if (leavesKeyFree(response.status, code)) {
    if (account.idempotency.get(key) === record) account.idempotency.delete(key);
    return;
  }
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) if (response.headers[name] !== undefined) headers[name] = response.headers[name]!;
  record.state = 'done';
  record.response = { status: response.status, headers, body: typeof response.body === 'string' ? response.body : utf8(response.body) };
  if (resource) record.resource = resource;
}

/** Drop expired records (bounded memory on a long-running shared mock). */
export function sweepIdempotency(account: AccountState, now: number): void {
  for (const [key, record] of account.idempotency) {
    if (record.state === 'done' && record.createdAt + IDEMPOTENCY_RETENTION_MS <= now) account.idempotency.delete(key);
  }
}
