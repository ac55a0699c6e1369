/**
 * The client exam's mock side (#24; docs/client-check.md): for ONE account, a seeded schedule of
 * the adversity the contract allows, decided per request at the pipeline's stages, and the record
 * of what the client did, judged by packages/mock-core/src/exam/judge.ts.
 *
 * The schedule (D125, D258): a request is known by its method, path, query, Idempotency-Key and
 * body; the first time one is seen it may meet adversity, a repeat of it never does (so a client
 * that retries correctly always gets through). Each kind of adversity is served to the first
 * request eligible for it, the kinds few requests are eligible for first (so a short program, in
 * any order, still meets each kind once), later ones by a draw hashed from the seed and the request
 * (the same client traffic meets the same schedule). A request the document does not allow
 * (D257) meets none: it gets its 400 or 422 straight. `Retry-After` is seconds (the document's
 * delay-seconds, never an HTTP-date), 2 or 3 on a kind's first serving and 1 to 3 on a draw (D258):
 *
 * - a read-plane read: 429 with `Retry-After` (plain text: respond.ts decides by plane);
 * - a generation-plane read: 429 (problem+json `RATE_LIMITED`);
 * - a write with If-Match: 412 `PRECONDITION_FAILED`, as if someone else had edited it (nothing changes);
 * - a write: 429, 503 `WRITES_PAUSED`, 409 `IDEMPOTENCY_IN_PROGRESS` (with a key), 503
 *   `SERVICE_UNAVAILABLE` (campaign create or restore), each before idempotency: nothing consumed;
 * - every list: sparse and empty pages before the last (the account's `sparsePages` drill);
 * - every JSON answer: an unknown member on each resource object, and on campaigns a `status`
 *   the client cannot know (D122);
 * - a slow answer now and then (held on the mock's clock);
 * - a write with an Idempotency-Key: applied, then its connection dropped before the answer (D170:
 *   the node server destroys the socket, the in-process mock answers a network error), so the
 *   client must send it again with the same key and body to learn the answer (a replay).
 *
 * Nothing here reads the wall clock: times come from the pipeline (the injected clock).
 */
import type { OperationInfo } from '../../../contract/spec/contract.ts';
import { ApiError } from '../core/errors.ts';
import type { RawRequest, RawResponse } from '../pipeline/types.ts';
import { validateRequest } from '../pipeline/validate.ts';
import { utf8 } from '../../../contract/platform/bytes.ts';

/**
 * The `Retry-After` seconds the exam serves (D258): from 1 to EXAM_RETRY_AFTER_MAX, at least 2 on
 * a kind's first serving, so a client that waits a fixed or growing 1 s instead of the value is told
 * apart on every seed. Kept short: a client waits them for real.
 */
export const EXAM_RETRY_AFTER_MAX = 3;
/** The unknown member added to resource objects, and the unknown campaign status (D122). */
export const UNKNOWN_FIELD = 'examUnannouncedField';
export const UNKNOWN_STATUS = 'EXAM_UNANNOUNCED_STATUS';
/** How long a slow answer is held, in the mock clock's milliseconds. */
export const SLOW_MS = 300;

export type Adversity = 'rate_limited' | 'precondition_failed' | 'writes_paused' | 'in_progress' | 'lost_race' | 'dropped' | 'slow';

export interface ExamOptions {
  seed: number;
  /** Probability of adversity for a request seen for the first time, once each kind was served (default 0.3). */
  rate?: number;
}

/** What the exam decided for one request (kept by request id for the judges). */
export interface ExamPlan {
  adversity?: Adversity;
  /** The `Retry-After` seconds of the adversity's answer (429, 503, 409). */
  retryAfter?: number;
  /**
   * What the document does not allow in the request (D257: its parameters, headers and body against
   * the operation, as the pipeline validates them, and a query parameter the operation does not list).
   */
  disallowed?: string;
  /** The answer was rewritten with unknown members (and a campaign's unknown status). */
  shaped?: 'field' | 'status';
  /** The write was applied and its connection dropped before the answer (adversity `dropped`, D170). */
  dropped?: true;
}

/** Answers the adapters do not send: they drop the connection instead (D170; see `connectionDropped`). */
const DROPPED = new WeakSet<RawResponse>();

/**
 * Whether the adapter must drop this answer's connection instead of sending it: the write was
 * applied (its idempotency record holds the answer), the client never hears it. The node server
 * destroys the socket; the in-process mock answers a network error (HttpResponse.error()).
 */
export function connectionDropped(response: RawResponse): boolean {
  return DROPPED.has(response);
}

/** One request of the exam account as the judges see it. */
export interface ExamRecord {
  seq: number;
  requestId: string;
  /** The mock clock's reading when it arrived (epoch ms). */
  at: number;
  /** The mock clock's reading when it was answered (epoch ms): a retry is sent after it. */
  answeredAt: number;
  method: string;
  /** Below the API base: `/creatives/abc`. */
  path: string;
  query: Record<string, string | string[]>;
  idempotencyKey: string | undefined;
  ifMatch: string | undefined;
  /** The id of the key the request presented, whether it authenticated or was refused (a 401 names it too). */
  keyId: string | undefined;
  body: string;
  status: number;
  code: string | undefined;
  retryAfter: number | undefined;
  etag: string | undefined;
  /** The parsed JSON answer (undefined for plain text or no body). */
  json: unknown;
  plan: ExamPlan;
}

const RACING = new Set(['createCampaign', 'undeleteCampaign']);
/** The kinds whose answer carries `Retry-After`. */
const WAITED = new Set<Adversity>(['rate_limited', 'writes_paused', 'in_progress', 'lost_race']);
const isWrite = (operation: OperationInfo) => operation.method !== 'get' && operation.operationId !== 'estimateRun';

/** FNV-1a of the seed and a text, as a number in [0, 1). */
function draw(seed: number, text: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d) >>> 0;
  h ^= h >>> 12;
  return (h >>> 0) / 4294967296;
}

/**
 * What the document does not allow in a request (D257), as a validating proxy would say it: the
 * pipeline's own validation (packages/mock-core/src/pipeline/validate.ts: Ajv compiled from packages/contract/spec/openapi.yaml; its
 * Idempotency-Key, path, query, If-Match and body checks), and a query parameter the operation does
 * not list (the mock ignores one; the document does not describe it). A missing required
 * Idempotency-Key is CLIENT-017's, not this. Undefined: the document allows it.
 */
export function disallowedBy(operation: OperationInfo, raw: RawRequest, pathParams: Record<string, string>): string | undefined {
  const listed = new Set(operation.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  const unknown = Object.keys(raw.query).filter((name) => !listed.has(name));
  if (unknown.length) return `query parameter${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')} not in the document's ${operation.operationId}`;
  try {
    validateRequest(operation, raw, pathParams);
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError) || error.code === 'IDEMPOTENCY_KEY_REQUIRED') return undefined;
    const errors = (error.extensions?.errors as { field: string; message: string }[] | undefined) ?? [];
    return `${error.code}: ${errors.length ? errors.map((e) => `${e.field} ${e.message}`).join('; ') : error.message}`;
  }
}

function bodyText(raw: RawRequest): string {
  return raw.body === undefined ? '' : utf8(raw.body);
}

export class ExamSession {
  readonly records: ExamRecord[] = [];
  private readonly seen = new Set<string>();
  private readonly served = new Set<string>();
  private readonly plans = new Map<string, ExamPlan>();
  /** First-seen requests per content (method, path, query, body: the key left out), for the draws. */
  private readonly contents = new Map<string, number>();
  private readonly rate: number;

  constructor(
    readonly accountId: string,
    readonly options: ExamOptions,
  ) {
    this.rate = options.rate ?? 0.3;
  }

  /** The adversity for one request, decided once (pipeline: after authenticate). */
  plan(requestId: string, operation: OperationInfo, raw: RawRequest, pathParams: Record<string, string> = {}): ExamPlan {
    const identity = `${raw.method} ${raw.path} ${JSON.stringify(raw.query)} ${raw.headers['idempotency-key'] ?? ''} ${bodyText(raw)}`;
    const plan: ExamPlan = {};
    this.plans.set(requestId, plan);
    const disallowed = disallowedBy(operation, raw, pathParams);
    if (disallowed !== undefined) plan.disallowed = disallowed;
    if (this.seen.has(identity) || disallowed !== undefined) return plan;
    this.seen.add(identity);
    // The kinds this request is eligible for, those few requests are eligible for first (D258): a
    // campaign create's lost race, a keyed write's drop and 409, then any write's 429 and 503.
    const kinds: Adversity[] = [];
    if (!isWrite(operation)) kinds.push('rate_limited');
    else {
      const keyed = raw.headers['idempotency-key'] !== undefined;
      if (operation.ifMatch && raw.headers['if-match'] !== undefined) kinds.push('precondition_failed');
      if (RACING.has(operation.operationId)) kinds.push('lost_race');
      // D170: applied, then the connection dropped (only with a key: the retry replays the answer)
      if (keyed) kinds.push('dropped', 'in_progress');
      kinds.push('rate_limited', 'writes_paused');
    }
    const group = isWrite(operation) ? 'write' : operation.rateLimitGroup;
    // The first request eligible for a kind not served yet in its group meets it.
    const fresh = kinds.find((k) => !this.served.has(`${group}:${k}`));
    if (fresh) {
      this.served.add(`${group}:${fresh}`);
      plan.adversity = fresh;
      // at least 2 s on a first serving (D258), seeded: a 1 s wait does not pass for honouring it
      if (WAITED.has(fresh)) plan.retryAfter = 2 + Math.floor(draw(this.options.seed, `${group}:${fresh}`) * (EXAM_RETRY_AFTER_MAX - 1));
      return plan;
    }
    // The draw leaves the key out (a client's keys are random) but counts the contents seen, so the
    // same traffic meets the same draws, and a write sent again under a new key meets a new one.
    const content = `${raw.method} ${raw.path} ${JSON.stringify(raw.query)} ${bodyText(raw)}`;
    const n = this.contents.get(content) ?? 0;
    this.contents.set(content, n + 1);
    const r = draw(this.options.seed, `${content} #${n}`);
    if (r < this.rate) plan.adversity = kinds[Math.floor((r / this.rate) * kinds.length)] ?? kinds[0];
    else if (r > 1 - this.rate / 3) plan.adversity = 'slow';
    if (plan.adversity !== undefined && WAITED.has(plan.adversity)) plan.retryAfter = 1 + Math.floor(draw(this.options.seed, `${content} #${n} wait`) * EXAM_RETRY_AFTER_MAX);
    return plan;
  }

  /** The error a planned adversity answers with at the rate-limit stage, if any. */
  static rateLimited(plan: ExamPlan): ApiError | undefined {
    if (plan.adversity !== 'rate_limited') return undefined;
    return new ApiError('RATE_LIMITED', 'Rate limit exceeded; retry after the number of seconds in Retry-After.', { retryAfter: plan.retryAfter ?? 1 });
  }

  /** The error a planned adversity answers with at the faults stage (before idempotency: nothing consumed). */
  static fault(plan: ExamPlan): ApiError | undefined {
    switch (plan.adversity) {
      case 'writes_paused':
        return new ApiError('WRITES_PAUSED', 'API writes are paused. Nothing changed and the Idempotency-Key was not consumed; retry the identical request after Retry-After.', { retryAfter: plan.retryAfter ?? 1 });
      case 'in_progress':
        return new ApiError('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still running.', { retryAfter: plan.retryAfter ?? 1 });
      case 'lost_race':
        return new ApiError('SERVICE_UNAVAILABLE', 'Other changes on the account were in flight and this one lost the race. Nothing changed; retry with the same Idempotency-Key.', { retryAfter: plan.retryAfter ?? 1 });
      case 'precondition_failed':
        return new ApiError('PRECONDITION_FAILED', 'If-Match does not match the current representation; nothing changed. Read it again and retry.');
      default:
        return undefined;
    }
  }

  /**
   * A 2xx JSON answer with unknown members added (D122); anything else unchanged. A write planned
   * `dropped` that was applied (2xx) is marked for the adapter to drop (`connectionDropped`); one
   * that was not (an error answered) is sent, and the next eligible write meets the drop instead.
   */
  shape(requestId: string, response: RawResponse): RawResponse {
    const plan = this.plans.get(requestId) ?? {};
    if (plan.adversity === 'dropped') {
      if (response.status >= 200 && response.status < 300) {
        plan.dropped = true;
        const dropped = { ...response };
        DROPPED.add(dropped);
        return dropped;
      }
      this.served.delete(`write:dropped`);
    }
    if (response.status < 200 || response.status >= 300 || !(response.headers['content-type'] ?? '').startsWith('application/json')) return response;
    let body: unknown;
    try {
      body = JSON.parse(typeof response.body === 'string' ? response.body : utf8(response.body));
    } catch {
      return response;
    }
    let status = false;
    const touch = (value: unknown): void => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
      const object = value as Record<string, unknown>;
      object[UNKNOWN_FIELD] = { note: 'an unknown member: ignore it' };
      if (object.object === 'campaign' || (typeof object.campaignId === 'string' && typeof object.creativeCount === 'number')) {
        object.status = UNKNOWN_STATUS;
        status = true;
      }
    };
    const top = body as Record<string, unknown>;
    if (Array.isArray(top.data)) for (const row of top.data) touch(row);
    else touch(top);
    plan.shaped = status ? 'status' : 'field';
    return { ...response, body: JSON.stringify(body) };
  }

  /** Records one answered request (pipeline: with the journal). */
  record(seq: number, requestId: string, at: number, answeredAt: number, keyId: string | undefined, raw: RawRequest, response: RawResponse): void {
    const text = typeof response.body === 'string' ? response.body : utf8(response.body);
    let json: unknown;
    if ((response.headers['content-type'] ?? '').includes('json')) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    const retryAfter = response.headers['retry-after'];
    this.records.push({
      seq,
      requestId,
      at,
      answeredAt,
      method: raw.method,
      path: raw.path,
      query: raw.query,
      idempotencyKey: raw.headers['idempotency-key'],
      ifMatch: raw.headers['if-match'],
      keyId,
      body: bodyText(raw),
      status: response.status,
      code: response.status === 429 ? 'RATE_LIMITED' : typeof (json as { code?: unknown } | undefined)?.code === 'string' ? (json as { code: string }).code : undefined,
      retryAfter: retryAfter === undefined ? undefined : Number(retryAfter),
      etag: response.headers.etag,
      json,
      plan: this.plans.get(requestId) ?? {},
    });
    this.plans.delete(requestId);
  }
}

/** The exams running in one mock, by account id. */
export class ExamRegistry {
  private readonly sessions = new Map<string, ExamSession>();

  start(accountId: string, options: ExamOptions): ExamSession {
    const session = new ExamSession(accountId, options);
    this.sessions.set(accountId, session);
    return session;
  }

  get(accountId: string): ExamSession | undefined {
    return this.sessions.get(accountId);
  }

  stop(accountId: string): void {
    this.sessions.delete(accountId);
  }
}
