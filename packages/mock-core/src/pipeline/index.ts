/**
 * The request pipeline, in order, on one screen:
 *
 *   route → authenticate → rate-limit → authorize → validate → faults → idempotency
 *         → preconditions → operate (a cacheable read: the kept bytes while the account is
 *           unchanged, response-cache.ts) → respond (+ RateLimit headers on every response)
 *         → journal (the account's request journal, journal.ts)
 *
 * Each stage is a plain function in this folder; it either returns what the next stage needs or
 * throws an ApiError, which `respond` turns into problem+json (or the plain-text 429).
 */
import { allowedMethods, matchOperation } from '../../../contract/spec/routes.ts';
import { type OperationInfo } from '../../../contract/spec/contract.ts';
import { monotonicMs, type Clock } from '../core/clock.ts';
import type { Actor } from '../domain/accounts/model.ts';
import { ApiError } from '../core/errors.ts';
import type { EventLog } from '../events/log.ts';
import type { Decision, Limiter } from '../ratelimit/limiter.ts';
import type { AccountState, Store } from '../domain/store.ts';
import type { ApiKeyRecord } from '../domain/accounts/model.ts';
import { hashKey } from '../domain/accounts/keys.ts';
import { authenticate, authorize, bearerToken } from './authenticate.ts';
import { scenariosOf } from '../domain/shared.ts';
import { applyFaults, isWrite } from './faults.ts';
import { beginIdempotent, finishIdempotent, fingerprint } from './idempotency.ts';
import { checkIfMatch } from './preconditions.ts';
import { forcedRateLimit, rateLimit, rateLimited } from './rate-limit.ts';
import type { RequestJournal } from './journal.ts';
import { errorResponse, jsonResponse, withRateLimitHeaders } from './respond.ts';
import { internalErrorResponse } from '../core/problem.ts';
import { accountStamp, ResponseCache } from './response-cache.ts';
import { ExamSession, SLOW_MS, type ExamPlan, type ExamRegistry } from '../exam/session.ts';
import { nextRequestId, requestContext } from './context.ts';
import type { HandlerTable } from '../domain/operation.ts';
import type { RawRequest, RawResponse } from './types.ts';
import { validateRequest } from './validate.ts';

export interface PipelineServices {
  store: Store;
  clock: Clock;
  limiter: Limiter;
  events: EventLog;
  handlers: HandlerTable;
  /** Kept bytes of cacheable reads (response-cache.ts). */
  responses: ResponseCache;
  /** Where unexpected errors are reported (they answer 500, which client input must never cause). */
  logError: (error: unknown, context: string) => void;
  /** The request journal every answer is recorded in (journal.ts); none: nothing is recorded. */
  journal?: RequestJournal;
  /** The client exams running (packages/mock-core/src/exam/): their accounts meet the exam's adversity. */
  exams?: ExamRegistry;
}

export { nextRequestId } from './context.ts';

/** Who a request turned out to be, filled in as the stages learn it (for the journal). */
interface Trace {
  requestId: string;
  account: AccountState | undefined;
  keyId: string | undefined;
}

/**
 * Runs the stages and records the answer in the account's request journal (journal.ts): the one
 * place every API answer passes. A request no account can be named for (no key, an unknown key)
 * is not journaled.
 */
export async function runPipeline(services: PipelineServices, raw: RawRequest): Promise<RawResponse> {
  const journal = services.journal;
  if (!journal) return stages(services, raw, { requestId: nextRequestId(), account: undefined, keyId: undefined });
  const started = monotonicMs();
  const at = services.clock.now();
  const trace: Trace = { requestId: nextRequestId(), account: undefined, keyId: undefined };
  let response = await stages(services, raw, trace);
  // A key that did not authenticate (revoked, expired, suspended): its 401 is journaled on its account, under its id.
  const refused = trace.account ? undefined : presentedKey(services.store, raw);
  const account = trace.account ?? (refused && services.store.accounts.get(refused.accountId));
  const keyId = trace.keyId ?? refused?.keyId;
  // The journal's time is the account's (D91).
  const accountAt = account ? at + services.clock.forAccount(account.accountId).offsetMs : at;
  // An exam's account: its answers gain the unknown members the exam serves, and are recorded for its judges.
  const exam = account ? services.exams?.get(account.accountId) : undefined;
  if (exam) response = exam.shape(trace.requestId, response);
  if (account) journal.record(account, trace.requestId, accountAt, monotonicMs() - started, keyId, raw, response);
  if (exam) exam.record(journal.total(account!), trace.requestId, accountAt, accountAt + (services.clock.now() - at), keyId, raw, response);
  return response;
}

/** The stored key a request presented (known to the mock, whether or not it authenticated). */
function presentedKey(store: Store, raw: RawRequest): ApiKeyRecord | undefined {
  const token = bearerToken(raw.headers.authorization);
  return token ? store.keysByHash.get(hashKey(token)) : undefined;
}

async function stages(services: PipelineServices, raw: RawRequest, trace: Trace): Promise<RawResponse> {
  const { store, clock, limiter } = services;
  const requestId = trace.requestId;
  const now = clock.now();
  // The per-IP caps count on real elapsed time (D274).
  const wallNow = clock.wallNow();
  let operation: OperationInfo | undefined;
  let decision: Decision | undefined;
  try {
    // route
    const matched = matchOperation(raw.method, raw.path);
    if (!matched) {
      decision = rateLimit(limiter, store, { operation: undefined, ip: raw.ip, tokenHash: tokenHashOf(raw) }, now, wallNow);
      if (raw.refused) throw raw.refused;
      const allow = allowedMethods(raw.path);
      if (allow.length > 0) throw new ApiError('METHOD_NOT_ALLOWED', `${raw.method} is not allowed on ${raw.fullPath}.`, { allow });
      throw new ApiError('NOT_FOUND', `No operation at ${raw.fullPath}.`);
    }
    operation = matched.operation;

    // authenticate (a 401 still counts against the per-IP cap and the presented token's limit)
    let auth: ReturnType<typeof authenticate>;
    try {
      auth = authenticate(store, operation, raw.headers.authorization, (accountId) => clock.forAccount(accountId).now());
    } catch (error) {
      decision = rateLimit(limiter, store, { operation, ip: raw.ip, tokenHash: tokenHashOf(raw) }, now, wallNow);
      if (!decision.allowed) throw rateLimited(decision);
      throw error;
    }
    const { key, account } = auth;
    trace.account = account;
    trace.keyId = key.keyId;
    // From here on, the account's own clock (D91): its idempotency records, its changes, its schedule.
    const time = clock.forAccount(account.accountId);

    // the client exam's adversity for this request, if its account sits an exam (packages/mock-core/src/exam/session.ts)
    const plan: ExamPlan | undefined = services.exams?.get(account.accountId)?.plan(requestId, operation, raw, matched.pathParams);

    // rate-limit (a forced 429 is a fault on demand)
    const scenarios = scenariosOf(raw.headers.prefer);
    const examLimited = plan && ExamSession.rateLimited(plan);
    decision = rateLimit(limiter, store, { operation, ip: raw.ip, keyId: key.keyId, account, offsetMs: time.offsetMs }, now, wallNow, examLimited !== undefined || forcedRateLimit(account, scenarios));
    if (!decision.allowed) throw examLimited ?? rateLimited(decision);

    // authorize
    authorize(operation, key);

    // validate (what the front refused first: a URL it cannot decode, an oversized body)
    if (raw.refused) throw raw.refused;
    const input = validateRequest(operation, raw, matched.pathParams);

    // faults (before idempotency: a 503 never consumes a key)
    const examFault = plan && ExamSession.fault(plan);
    if (examFault && examFault.code !== 'PRECONDITION_FAILED') throw examFault;
    applyFaults(store, account, operation, scenarios, input.idempotencyKey);

    // idempotency
    // (the fingerprint hashes the body: only a request with a key needs it)
    const print = input.idempotencyKey === undefined ? '' : fingerprint(operation, raw.path, input.body);
    const start = beginIdempotent(account, input.idempotencyKey, print, time.now());
    if ('replay' in start) {
      // IDEM-013, D72: a replay answers what a fresh request would while the plan no longer
      // grants the operation (authentication, scope and writes paused were checked above)
      services.handlers[operation.operationId]?.entitle?.(account, input.body);
      const replay = start.replay;
      // D51, D73: a replayed problem is a new answer with its own requestId; the rest is the stored answer
      const body = (replay.headers['content-type'] ?? '').includes('problem+json') ? withRequestId(replay.body, requestId) : replay.body;
      return withRateLimitHeaders({ status: replay.status, headers: { ...replay.headers, 'idempotent-replayed': 'true' }, body }, decision, operation);
    }
    const record = start.begun;

    const actor: Actor = { kind: 'api_key', apiKeyId: key.keyId };
    let response: RawResponse;
    let code: string | undefined;
    let resource: { kind: string; id: string } | undefined;
    try {
      // A slow write holds its key in progress until the clock moves (IDEMPOTENCY_IN_PROGRESS drills).
      const slowMs = scenarios.has('slow') ? 5000 : plan?.adversity === 'slow' ? SLOW_MS : account.faults.slowWritesMs;
      if (slowMs > 0 && (isWrite(operation) || plan?.adversity === 'slow')) await new Promise<void>((resolve) => time.after(slowMs / 1000, resolve));
      const handler = services.handlers[operation.operationId];
      if (!handler) throw new Error(`no handler for ${operation.operationId}`);

      // operate, for a cacheable read: the kept bytes while the account is unchanged (response-cache.ts)
      const cache = services.responses;
      const cacheKey = handler.cacheable && cache.enabled && !operation.ifMatch ? ResponseCache.keyOf(account, operation.operationId, raw.path, input.query) : undefined;
      const kept = cacheKey === undefined ? undefined : cache.get(cacheKey, account);
      if (kept && !cache.verify) return withRateLimitHeaders(kept, decision, operation);
      const stamp = cacheKey === undefined ? 0 : accountStamp(account);

      // `now` is read after any wait: the change happens now
      const ctx = requestContext(services.events, { requestId, operation, pathParams: matched.pathParams, query: input.query, headers: raw.headers, body: input.body, account, key, actor, clock: time, store });

      // preconditions: the target is loaded first, so a missing resource answers 404, not 412
      if (operation.ifMatch && raw.headers['if-match'] !== undefined && handler.target) {
        checkIfMatch(raw.headers['if-match'], handler.target(ctx));
        // the exam's 412, as if someone else had edited (after the 404 check above: nothing changes)
        if (examFault) throw examFault;
      }
      // operate
      const result = await handler.run(ctx);
      response = jsonResponse(result);
      if (kept) {
        cache.check(cacheKey!, kept, response);
        response = kept;
      } else if (cacheKey !== undefined) response = cache.put(cacheKey, account, stamp, response);
      resource = result.resource;
    } catch (error) {
      if (!(error instanceof ApiError)) {
        if (record && input.idempotencyKey !== undefined) account.idempotency.delete(input.idempotencyKey);
        throw error;
      }
      response = errorResponse(error, operation, raw.fullPath, requestId);
      code = error.code;
    }
    finishIdempotent(account, input.idempotencyKey, record, response, code, resource);
    return withRateLimitHeaders(response, decision, operation);
  } catch (error) {
    if (error instanceof ApiError) return withRateLimitHeaders(errorResponse(error, operation, raw.fullPath, requestId), decision, operation);
    services.logError(error, `${raw.method} ${raw.fullPath}`);
    return withRateLimitHeaders(internalErrorResponse(raw.fullPath, requestId), decision);
  }
}

/** A stored problem body with `requestId` set to this answer's own (D51, D73). */
function withRequestId(body: string, requestId: string): string {
  const problem = JSON.parse(body) as Record<string, unknown>;
  return JSON.stringify({ ...problem, requestId });
}

function tokenHashOf(raw: RawRequest): string | undefined {
  const token = bearerToken(raw.headers.authorization);
  return token ? hashKey(token).slice(0, 16) : undefined;
}
