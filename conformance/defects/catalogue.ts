/**
 * The defect catalogue: named contract violations, each injected into an otherwise correct mock,
 * that the conformance suite must notice (scripts/prove-defects.ts runs it against each one).
 *
 * Most are injected by the fault-injecting proxy (proxy.ts) as pure functions over one exchange:
 * `request` changes what the mock receives, `response` changes what the client receives. Only
 * defects the proxy cannot see (webhook deliveries go from the mock straight to the receiver) are
 * injected by the mock itself (`via: 'mock'`, started with `--defect NAME`; mock/core/defects.ts).
 *
 * `grep` selects the tests that must catch the defect (a Playwright --grep over "file title
 * tags"): the tests naming the rules it breaks, so each defect runs only those.
 */
import { matchOperation, rateLimits, type OperationInfo } from '../../spec/contract.ts';
import {
  apiPath,
  editBody,
  isEnvelope,
  isGenerationPlane,
  isObject,
  isProblem,
  isReadPlane,
  mediaTypeOf,
  objectBody,
  query,
  REASON,
  resourcesOf,
  withBody,
  withHeaders,
  withRequestHeaders,
  type Json,
  type JsonObject,
  type ProxyRequest,
  type ProxyResponse,
  bodyOf,
} from './exchange.ts';
import type { DefectMemory } from './memory.ts';

export const DEFECT_KINDS = [
  'headers',
  'envelope',
  'status',
  'error-body',
  'idempotency',
  'precondition',
  'ownership',
  'pagination',
  'rate-limit',
  'runs',
  'webhooks',
] as const;
export type DefectKind = (typeof DEFECT_KINDS)[number];

/** What a defect sees of the exchange besides the message it changes. */
export interface DefectContext {
  /** The request as the client sent it. */
  request: ProxyRequest;
  /** Its path below the API base (`/runs/run_1/items`). */
  path: string;
  /** The operation of the document it addresses, when there is one. */
  operation: OperationInfo | undefined;
  memory: DefectMemory;
}

export interface Defect {
  name: string;
  kind: DefectKind;
  description: string;
  /** Rule ids of spec/rules.yaml the defect breaks. */
  rules: string[];
  /** Playwright --grep (a regular expression's source) selecting the tests that must catch it. */
  grep: string;
  /** Where it is injected: by the proxy, or by the mock started with `--defect NAME`. */
  via: 'proxy' | 'mock';
  request?: (request: ProxyRequest, context: DefectContext) => ProxyRequest;
  response?: (response: ProxyResponse, context: DefectContext) => ProxyResponse;
}

/** A --grep selecting the tests whose title (or describe title) names any of these rule ids. */
export function byRules(...ids: string[]): string {
  return `\\b(?:${ids.map((id) => id.replace(/[-]/g, '\\-')).join('|')})\\b`;
}

/** A --grep selecting, in one spec file only, the tests that `grep` selects. */
export function inFile(file: string, grep: string): string {
  return `\\b${file.replace(/[.]/g, '\\.')}\\b.*${grep}`;
}

/** The context of a request (operation matched against the document). */
export function contextOf(request: ProxyRequest, memory: DefectMemory): DefectContext | undefined {
  const path = apiPath(request);
  if (path === undefined) return undefined;
  return { request, path, operation: matchOperation(request.method, path)?.operation, memory };
}

// ---------------------------------------------------------------------------------------------
// Helpers

const ok = (response: ProxyResponse): boolean => response.status >= 200 && response.status < 300;

/** Change every resource object of a 2xx body (the body itself, or each row of a list). */
function eachResource(response: ProxyResponse, edit: (resource: JsonObject) => void): ProxyResponse {
  if (!ok(response)) return response;
  const body = bodyOf(response);
  const resources = resourcesOf(body);
  if (resources.length === 0) return response;
  resources.forEach(edit);
  return withBody(response, body!);
}

/** Objects of a 2xx body (or its rows) whose `object` tag is `tag`. */
function eachTagged(response: ProxyResponse, tag: string, edit: (resource: JsonObject) => void): ProxyResponse {
  return eachResource(response, (resource) => {
    if (resource['object'] === tag) edit(resource);
  });
}

/** A problem answer re-labelled with another status, its body kept consistent with it. */
function restatus(response: ProxyResponse, status: number, extra: Record<string, Json> = {}): ProxyResponse {
  const moved = { ...response, status };
  return isProblem(response) ? editBody(moved, (p) => ({ ...p, status, title: REASON[status] ?? String(status), ...extra })) : moved;
}

function problemCode(response: ProxyResponse): string | undefined {
  const code = isProblem(response) ? objectBody(response)?.['code'] : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * A request whose JSON object body `rewrite` changes: the new body, or the request as it was when
 * `rewrite` returns undefined or the body is not a JSON object.
 */
function rewriteJsonBody(request: ProxyRequest, rewrite: (body: JsonObject) => JsonObject | undefined): ProxyRequest {
  let body: Json;
  try {
    body = JSON.parse(request.body) as Json;
  } catch {
    return request; // not JSON: left alone
  }
  const changed = isObject(body) ? rewrite(body) : undefined;
  return changed === undefined ? request : { ...request, body: JSON.stringify(changed) };
}

/** A well-formed Idempotency-Key (bare or quoted) with `suffix` appended (within 255 characters). */
function saltKey(key: string, suffix: string): string {
  const quoted = /^".*"$/.test(key);
  const bare = quoted ? key.slice(1, -1) : key;
  if (!/^[A-Za-z0-9\-_.:~]{1,255}$/.test(bare)) return key; // malformed stays malformed
  const salted = `${bare.slice(0, 255 - suffix.length - 1)}-${suffix}`;
  return quoted ? `"${salted}"` : salted;
}

function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(36);
}

const TERMINAL_RUN = new Set(['SUCCEEDED', 'PARTIAL', 'FAILED', 'REFUSED', 'STOPPED', 'EXPIRED']);
const UTC_TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)Z$/;

/** Every UTC timestamp string of a JSON value, rewritten to the same instant at +01:00. */
function offsetTimestamps(value: Json): Json {
  if (typeof value === 'string') {
    if (!UTC_TIMESTAMP.test(value)) return value;
    const local = new Date(Date.parse(value) + 3_600_000).toISOString().replace('Z', '+01:00');
    return local;
  }
  if (Array.isArray(value)) return value.map(offsetTimestamps);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, offsetTimestamps(v)]));
  return value;
}

/** A JSON value without its null members (except inside `pagination`, which is left alone). */
function dropNulls(value: Json): Json {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, k === 'pagination' ? v : dropNulls(v)]),
  );
}

function rateLimitFields(raw: string | undefined): { limit: number; remaining: number; reset: number } | undefined {
  if (raw === undefined) return undefined;
  const fields = Object.fromEntries(raw.split(',').map((part) => part.trim().split('=').map((s) => s.trim()) as [string, string]));
  const limit = Number(fields['limit']);
  const remaining = Number(fields['remaining']);
  const reset = Number(fields['reset']);
  return [limit, remaining, reset].every(Number.isInteger) ? { limit, remaining, reset } : undefined;
}

function pathOfUrl(url: string): string {
  return url.split('?')[0] ?? url;
}

function isRetryable(response: ProxyResponse): boolean {
  return response.status === 429 || response.status === 503;
}

// ---------------------------------------------------------------------------------------------
// The catalogue

export const DEFECTS: readonly Defect[] = [
  // headers -----------------------------------------------------------------------------------
  {
    name: 'etag-weak',
    kind: 'headers',
    description: 'every ETag is sent weak (W/"…") instead of strong',
    rules: ['ETAG-002', 'ETAG-003'],
    grep: byRules('ETAG-002', 'ETAG-003'),
    via: 'proxy',
    response: (r) => (r.headers['etag'] && !r.headers['etag'].startsWith('W/') ? withHeaders(r, { etag: `W/${r.headers['etag']}` }) : r),
  },
  {
    name: 'etag-missing',
    kind: 'headers',
    description: 'no response carries an ETag',
    rules: ['ETAG-002', 'ETAG-003', 'ETAG-004'],
    grep: byRules('ETAG-002', 'ETAG-003', 'ETAG-004'),
    via: 'proxy',
    response: (r) => withHeaders(r, { etag: undefined }),
  },
  {
    name: 'location-elsewhere',
    kind: 'headers',
    description: 'Location of a create points at the collection, not at the created resource',
    rules: ['CAMP-022', 'RUN-035', 'UPSC-009'],
    grep: byRules('CAMP-022', 'RUN-035', 'UPSC-009'),
    via: 'proxy',
    response: (r) => (r.headers['location'] ? withHeaders(r, { location: r.headers['location'].replace(/\/[^/]+$/, '') }) : r),
  },
  {
    name: 'json-as-text',
    kind: 'headers',
    description: 'successful JSON answers are labelled text/plain',
    rules: ['GEN-001'],
    grep: byRules('GEN-001', 'PROD-005', 'PROD-008'),
    via: 'proxy',
    response: (r) => (ok(r) && mediaTypeOf(r.headers) === 'application/json' ? withHeaders(r, { 'content-type': 'text/plain; charset=utf-8' }) : r),
  },

  // envelopes and fields ----------------------------------------------------------------------
  {
    name: 'object-tag-dropped',
    kind: 'envelope',
    description: 'resource objects lose their `object` tag',
    rules: ['GEN-005', 'RUN-008', 'CAMP-003', 'RUN-015'],
    grep: byRules('GEN-005', 'RUN-008', 'CAMP-003', 'RUN-015'),
    via: 'proxy',
    response: (r) =>
      eachResource(r, (resource) => {
        if (typeof resource['object'] === 'string' && resource['object'] !== 'list') delete resource['object'];
      }),
  },
  {
    name: 'null-fields-omitted',
    kind: 'envelope',
    description: 'members whose value is null are left out (sku, approvedAt, finalizedAt, deletedAt …)',
    rules: ['PROD-002', 'PROD-001', 'PAGE-011', 'RUN-011'],
    grep: byRules('PROD-002', 'PROD-001', 'PAGE-011', 'RUN-011'),
    via: 'proxy',
    response: (r) => {
      const body = ok(r) ? bodyOf(r) : undefined;
      return body === undefined ? r : withBody(r, dropNulls(body));
    },
  },
  {
    name: 'media-url-relative',
    kind: 'envelope',
    description: 'media locations (`url`, `thumbnailUrl`, `playerUrl`) are sent as paths without scheme and host',
    rules: ['MEDIA-001'],
    grep: byRules('MEDIA-001'),
    via: 'proxy',
    response: (r) =>
      eachResource(r, (resource) => {
        if (!['creative', 'asset', 'delivery'].includes(String(resource['object']))) return;
        for (const field of ['url', 'thumbnailUrl', 'playerUrl']) {
          const value = resource[field];
          if (typeof value === 'string' && /^https?:\/\//.test(value)) resource[field] = new URL(value).pathname;
        }
      }),
  },
  {
    name: 'embed-code-wrong-ratio',
    kind: 'envelope',
    description: "a video's embedCode iframe is twice as wide as the creative's ratio (#17 item 10: a 4:5 video embedded as 9:16)",
    rules: ['MEDIA-003'],
    grep: byRules('MEDIA-003'),
    via: 'proxy',
    response: (r) =>
      eachResource(r, (resource) => {
        const code = resource['embedCode'];
        if (typeof code === 'string') resource['embedCode'] = code.replace(/\bwidth="(\d+)"/, (_m, w: string) => `width="${Number(w) * 2}"`);
      }),
  },
  {
    name: 'list-envelope-object',
    kind: 'envelope',
    description: 'read-plane list envelopes carry `object: "list"`',
    rules: ['GEN-006'],
    grep: byRules('GEN-006'),
    via: 'proxy',
    response: (r, { path }) => {
      const body = ok(r) && isReadPlane(path) ? bodyOf(r) : undefined;
      return isEnvelope(body) ? withBody(r, { object: 'list', ...body }) : r;
    },
  },
  {
    name: 'timestamp-offset',
    kind: 'envelope',
    description: 'timestamps are sent with a +01:00 offset instead of in UTC (same instant)',
    rules: ['GEN-007'],
    grep: byRules('GEN-007', 'CAMP-003', 'RUN-008'),
    via: 'proxy',
    response: (r) => {
      const body = ok(r) ? bodyOf(r) : undefined;
      return body === undefined ? r : withBody(r, offsetTimestamps(body));
    },
  },

  // status codes -------------------------------------------------------------------------------
  {
    name: 'create-201-as-200',
    kind: 'status',
    description: 'POST /campaigns answers 200 instead of 201',
    rules: ['CAMP-022'],
    grep: byRules('CAMP-022', 'CAMP-019', 'CAMP-001'),
    via: 'proxy',
    response: (r) => (r.status === 201 ? { ...r, status: 200 } : r),
  },
  {
    name: 'accepted-202-as-200',
    kind: 'status',
    description: 'POST /runs, POST /runs/{id}/stop and POST /upscales answer 200 instead of 202',
    rules: ['RUN-002', 'RUN-035', 'RUN-023', 'UPSC-009'],
    grep: byRules('RUN-002', 'RUN-035', 'RUN-023', 'UPSC-009'),
    via: 'proxy',
    response: (r) => (r.status === 202 ? { ...r, status: 200 } : r),
  },
  {
    name: 'not-found-as-403',
    kind: 'status',
    description: 'a 404 is answered as 403 (problem body consistent with 403)',
    rules: ['ERR-019', 'PROD-010'],
    grep: byRules('ERR-019', 'PROD-010'),
    via: 'proxy',
    response: (r) => (r.status === 404 ? restatus(r, 403) : r),
  },
  {
    name: 'bad-request-as-422',
    kind: 'status',
    description: 'a 400 VALIDATION_ERROR is answered as 422',
    rules: ['ERR-039', 'ERR-013', 'PAGE-013'],
    grep: byRules('ERR-039', 'ERR-013', 'PAGE-013'),
    via: 'proxy',
    response: (r) =>
      r.status === 400 && problemCode(r) === 'VALIDATION_ERROR'
        ? restatus(r, 422, { errors: (objectBody(r)?.['errors'] as Json | undefined) ?? [{ field: 'request', message: 'is invalid' }] })
        : r,
  },

  // error bodies -------------------------------------------------------------------------------
  {
    name: 'problem-as-json',
    kind: 'error-body',
    description: 'problem bodies are labelled application/json instead of application/problem+json',
    rules: ['ERR-001'],
    grep: byRules('ERR-001'),
    via: 'proxy',
    response: (r) => (isProblem(r) ? withHeaders(r, { 'content-type': 'application/json' }) : r),
  },
  {
    name: 'problem-type-mismatch',
    kind: 'error-body',
    description: 'a problem `type` does not match its `code` (`/errors/not-found` style)',
    rules: ['ERR-002'],
    grep: byRules('ERR-002'),
    via: 'proxy',
    response: (r) => (isProblem(r) ? editBody(r, (p) => ({ ...p, type: `/errors/${String(p['code']).toLowerCase().replace(/_/g, '-')}` })) : r),
  },
  {
    name: 'problem-request-id-missing',
    kind: 'error-body',
    description: 'problem bodies carry no requestId',
    rules: ['ERR-007'],
    grep: byRules('ERR-007'),
    via: 'proxy',
    response: (r) =>
      isProblem(r)
        ? editBody(r, (p) => {
            delete p['requestId'];
          })
        : r,
  },
  {
    name: 'problem-422-without-errors',
    kind: 'error-body',
    description: 'a 422 problem carries no errors[]',
    rules: ['ERR-008', 'ERR-040'],
    grep: byRules('ERR-008', 'ERR-040', 'ERR-024'),
    via: 'proxy',
    response: (r) =>
      r.status === 422 && isProblem(r)
        ? editBody(r, (p) => {
            delete p['errors'];
          })
        : r,
  },
  {
    name: 'problem-instance-wrong',
    kind: 'error-body',
    description: 'a problem `instance` is its type URI instead of the request path',
    rules: ['ERR-006'],
    grep: byRules('ERR-006'),
    via: 'proxy',
    response: (r) => (isProblem(r) ? editBody(r, (p) => ({ ...p, instance: `/errors/${String(p['code'])}` })) : r),
  },

  // idempotency --------------------------------------------------------------------------------
  {
    name: 'idempotency-replay-executes',
    kind: 'idempotency',
    description: 'a retry under the same Idempotency-Key executes again (the key is never matched)',
    rules: ['IDEM-006', 'IDEM-007'],
    grep: byRules('IDEM-006', 'IDEM-007'),
    via: 'proxy',
    request: (q, { memory }) => {
      const key = q.headers['idempotency-key'];
      return key === undefined ? q : withRequestHeaders(q, { 'idempotency-key': saltKey(key, `r${memory.next()}`) });
    },
  },
  {
    name: 'idempotency-reuse-accepted',
    kind: 'idempotency',
    description: 'the same Idempotency-Key with another body executes instead of 409 IDEMPOTENCY_KEY_REUSED',
    rules: ['IDEM-008'],
    grep: byRules('IDEM-008'),
    via: 'proxy',
    request: (q) => {
      const key = q.headers['idempotency-key'];
      return key === undefined ? q : withRequestHeaders(q, { 'idempotency-key': saltKey(key, `b${shortHash(`${q.url} ${q.body}`)}`) });
    },
  },
  {
    name: 'idempotency-key-not-required',
    kind: 'idempotency',
    description: 'a write that requires an Idempotency-Key succeeds without one',
    rules: ['IDEM-005', 'IDEM-001', 'IDEM-002'],
    grep: byRules('IDEM-005', 'IDEM-001', 'IDEM-002'),
    via: 'proxy',
    request: (q, { operation, memory }) =>
      operation?.idempotencyKey === 'required' && q.headers['idempotency-key'] === undefined
        ? withRequestHeaders(q, { 'idempotency-key': `proxy-added-${Date.now().toString(36)}-${memory.next()}` })
        : q,
  },
  {
    name: 'idempotency-replay-status',
    kind: 'idempotency',
    description: 'a replayed answer comes back 200 instead of the stored 201/202',
    rules: ['IDEM-006'],
    grep: byRules('IDEM-006'),
    via: 'proxy',
    response: (r) => (r.headers['idempotent-replayed'] === 'true' && (r.status === 201 || r.status === 202) ? { ...r, status: 200 } : r),
  },

  // preconditions ------------------------------------------------------------------------------
  {
    name: 'if-match-ignored',
    kind: 'precondition',
    description: 'If-Match is ignored: a stale ETag does not answer 412',
    rules: ['ETAG-005', 'ERR-034'],
    grep: byRules('ETAG-005', 'ERR-034'),
    via: 'proxy',
    request: (q) => withRequestHeaders(q, { 'if-match': undefined }),
  },
  {
    name: 'precondition-as-409',
    kind: 'precondition',
    description: 'a failed precondition answers 409 instead of 412',
    rules: ['ETAG-005', 'ERR-034'],
    grep: byRules('ETAG-005', 'ERR-034'),
    via: 'proxy',
    response: (r) => (r.status === 412 ? restatus(r, 409) : r),
  },
  {
    name: 'precondition-before-existence',
    kind: 'precondition',
    description: "If-Match is judged before ownership and deletion: a write with If-Match on another account's or a deleted item answers 412 (revealing that it exists), not the uniform 404",
    rules: ['ERR-020', 'GEN-004', 'ETAG-005'],
    grep: byRules('ERR-020', 'GEN-004', 'ETAG-005'),
    via: 'proxy',
    response: (r, { request, memory }) =>
      r.status === 404 && request.method !== 'GET' && request.headers['if-match'] !== undefined && request.headers['if-match'] !== '*' && memory.exists(request)
        ? editBody(restatus(r, 412), (p) => ({ ...p, code: 'PRECONDITION_FAILED', type: '/errors/PRECONDITION_FAILED', detail: 'The If-Match value does not match the current ETag.' }))
        : r,
  },

  // ownership ----------------------------------------------------------------------------------
  {
    name: 'foreign-404-leaks-detail',
    kind: 'ownership',
    description: "another account's resource answers 404 whose detail says it belongs to another account",
    rules: ['GEN-004', 'ERR-020'],
    grep: byRules('GEN-004', 'ERR-020'),
    via: 'proxy',
    response: (r, { request, memory }) =>
      r.status === 404 && memory.isForeign(request) ? editBody(r, (p) => ({ ...p, detail: 'This resource belongs to another account.' })) : r,
  },
  {
    name: 'foreign-403',
    kind: 'ownership',
    description: "another account's resource answers 403 API_TOKEN_SCOPE_DENIED instead of the uniform 404",
    rules: ['GEN-004', 'ERR-020'],
    grep: byRules('GEN-004', 'ERR-020'),
    via: 'proxy',
    response: (r, { request, memory }) =>
      r.status === 404 && memory.isForeign(request)
        ? editBody(restatus(r, 403), (p) => ({ ...p, code: 'API_TOKEN_SCOPE_DENIED', type: '/errors/API_TOKEN_SCOPE_DENIED' }))
        : r,
  },
  {
    name: 'foreign-readable',
    kind: 'ownership',
    description: "another account's resource is readable: a GET answers the owner's representation",
    rules: ['GEN-004'],
    grep: byRules('GEN-004'),
    via: 'proxy',
    response: (r, { request, memory }) => {
      if (r.status !== 404 || request.method !== 'GET' || !memory.isForeign(request)) return r;
      const owners = memory.readByOther(request);
      return owners ? { ...owners, headers: { ...owners.headers, ratelimit: r.headers['ratelimit'] ?? '', 'ratelimit-policy': r.headers['ratelimit-policy'] ?? '' } } : r;
    },
  },

  // pagination ---------------------------------------------------------------------------------
  {
    name: 'has-more-inverted',
    kind: 'pagination',
    description: '`pagination.hasMore` says the opposite of `nextCursor !== null`',
    rules: ['PAGE-007'],
    grep: byRules('PAGE-007'),
    via: 'proxy',
    response: (r) => {
      const body = ok(r) ? bodyOf(r) : undefined;
      if (!isEnvelope(body)) return r;
      body.pagination.hasMore = !body.pagination.hasMore;
      return withBody(r, body);
    },
  },
  {
    name: 'page-size-understated',
    kind: 'pagination',
    description: '`pagination.pageSize` is one less than the rows of a full page',
    rules: ['PAGE-008'],
    grep: byRules('PAGE-008', 'PAGE-012'),
    via: 'proxy',
    response: (r) => {
      const body = ok(r) ? bodyOf(r) : undefined;
      if (!isEnvelope(body) || body.data.length < 2) return r;
      body.pagination.pageSize = body.data.length - 1;
      return withBody(r, body);
    },
  },
  {
    name: 'walk-truncated',
    kind: 'pagination',
    description: 'the first page says it is the last (nextCursor null, hasMore false) while more rows remain',
    rules: ['PAGE-005', 'PAGE-003'],
    grep: byRules('PAGE-005', 'PAGE-003'),
    via: 'proxy',
    response: (r, { request }) => {
      const body = ok(r) ? bodyOf(r) : undefined;
      if (!isEnvelope(body) || body.pagination.nextCursor === null || query(request).has('cursor')) return r;
      body.pagination.nextCursor = null;
      body.pagination.hasMore = false;
      return withBody(r, body);
    },
  },
  {
    name: 'row-dropped',
    kind: 'pagination',
    description: 'the last row of every page with two or more rows is left out',
    rules: ['PAGE-005'],
    grep: byRules('PAGE-005'),
    via: 'proxy',
    response: (r) => {
      const body = ok(r) ? bodyOf(r) : undefined;
      if (!isEnvelope(body) || body.data.length < 2) return r;
      body.data.pop();
      return withBody(r, body);
    },
  },
  {
    name: 'row-repeated',
    kind: 'pagination',
    description: "each next page starts with the previous page's last row (and drops its own last)",
    rules: ['PAGE-005'],
    grep: byRules('PAGE-005'),
    via: 'proxy',
    response: (r, { request, memory }) => {
      const body = ok(r) ? bodyOf(r) : undefined;
      if (!isEnvelope(body)) return r;
      const cursor = query(request).get('cursor');
      const carried = cursor === null ? undefined : memory.lastRowBehind.get(cursor);
      const last = body.data.at(-1);
      if (body.pagination.nextCursor !== null && last !== undefined) memory.lastRowBehind.set(body.pagination.nextCursor, last);
      if (carried === undefined || body.data.length === 0) return r;
      body.data = [carried, ...body.data.slice(0, -1)];
      return withBody(r, body);
    },
  },

  // rate limits --------------------------------------------------------------------------------
  {
    name: 'ratelimit-remaining-above-limit',
    kind: 'rate-limit',
    description: 'RateLimit reports remaining = limit + 1',
    rules: ['RATE-021'],
    grep: byRules('RATE-021'),
    via: 'proxy',
    response: (r) => {
      const value = rateLimitFields(r.headers['ratelimit']);
      return value ? withHeaders(r, { ratelimit: `limit=${value.limit}, remaining=${value.limit + 1}, reset=${value.reset}` }) : r;
    },
  },
  {
    name: 'ratelimit-draft-8',
    kind: 'rate-limit',
    description: 'RateLimit and RateLimit-Policy use the draft-8 named-policy syntax',
    rules: ['RATE-020', 'RATE-021', 'RATE-024'],
    grep: byRules('RATE-020', 'RATE-021', 'RATE-024'),
    via: 'proxy',
    response: (r) => {
      const value = rateLimitFields(r.headers['ratelimit']);
      return value
        ? withHeaders(r, { ratelimit: `"default";r=${value.remaining};t=${value.reset}`, 'ratelimit-policy': `"default";q=${value.limit};w=60` })
        : r;
    },
  },
  {
    name: 'ratelimit-reset-timestamp',
    kind: 'rate-limit',
    description: 'RateLimit `reset` is a Unix timestamp instead of delay-seconds',
    rules: ['RATE-021'],
    grep: byRules('RATE-021'),
    via: 'proxy',
    response: (r) => {
      const value = rateLimitFields(r.headers['ratelimit']);
      return value ? withHeaders(r, { ratelimit: `limit=${value.limit}, remaining=${value.remaining}, reset=${1_767_225_600 + value.reset}` }) : r;
    },
  },
  {
    name: 'ratelimit-policy-duplicate',
    kind: 'rate-limit',
    description: 'RateLimit-Policy lists its first quota twice',
    rules: ['RATE-024'],
    grep: byRules('RATE-024'),
    via: 'proxy',
    response: (r) => {
      const policy = r.headers['ratelimit-policy'];
      const first = policy?.split(',')[0]?.trim();
      return policy && first ? withHeaders(r, { 'ratelimit-policy': `${policy}, ${first}` }) : r;
    },
  },
  {
    name: 'ratelimit-429-remaining',
    kind: 'rate-limit',
    description: 'a 429 reports the rejecting limit with remaining=1 instead of 0',
    rules: ['RATE-023'],
    grep: byRules('RATE-023'),
    via: 'proxy',
    response: (r) => {
      const value = r.status === 429 ? rateLimitFields(r.headers['ratelimit']) : undefined;
      return value ? withHeaders(r, { ratelimit: `limit=${value.limit}, remaining=1, reset=${value.reset}` }) : r;
    },
  },
  {
    name: 'retry-after-missing',
    kind: 'rate-limit',
    description: 'a 429 or 503 carries no Retry-After',
    rules: ['RATE-026', 'ERR-025'],
    grep: byRules('RATE-026', 'ERR-025'),
    via: 'proxy',
    response: (r) => (isRetryable(r) ? withHeaders(r, { 'retry-after': undefined }) : r),
  },
  {
    name: 'retry-after-http-date',
    kind: 'rate-limit',
    description: 'Retry-After is an HTTP-date instead of delay-seconds',
    rules: ['RATE-026', 'ERR-025'],
    grep: byRules('RATE-026', 'ERR-025'),
    via: 'proxy',
    response: (r) => {
      const seconds = Number(r.headers['retry-after']);
      return r.headers['retry-after'] !== undefined && Number.isInteger(seconds)
        ? withHeaders(r, { 'retry-after': new Date(Date.UTC(2026, 0, 1) + seconds * 1000).toUTCString() })
        : r;
    },
  },
  {
    name: 'read-429-as-problem',
    kind: 'rate-limit',
    description: 'a read-plane 429 is problem+json instead of plain text',
    rules: ['RATE-003'],
    grep: byRules('RATE-003'),
    via: 'proxy',
    response: (r, { path }) =>
      r.status === 429 && !isGenerationPlane(path) && !isProblem(r)
        ? {
            ...withHeaders(r, { 'content-type': 'application/problem+json' }),
            body: JSON.stringify({ type: '/errors/RATE_LIMITED', title: 'Too Many Requests', status: 429, code: 'RATE_LIMITED', instance: path, requestId: 'req_proxy' }),
          }
        : r,
  },
  {
    name: 'generation-429-as-text',
    kind: 'rate-limit',
    description: 'a generation-plane 429 is plain text instead of problem+json RATE_LIMITED',
    rules: ['RATE-001', 'RATE-002'],
    grep: byRules('RATE-001', 'RATE-002'),
    via: 'proxy',
    response: (r, { path }) =>
      r.status === 429 && isGenerationPlane(path) && isProblem(r)
        ? { ...withHeaders(r, { 'content-type': 'text/plain; charset=utf-8' }), body: 'Too Many Requests\n' }
        : r,
  },

  {
    name: 'rate-limited-far-too-early',
    kind: 'rate-limit',
    description: 'a read-plane GET is refused with 429 (plain text, RateLimit limit=200 remaining=0, Retry-After) while the key has used only a few of its 200 requests',
    rules: ['RATE-007'],
    // Caught by the paced client in any test that reads a few pages with one key (QuotaWitness).
    grep: byRules('PAGE-005', 'RATE-007'),
    via: 'proxy',
    response: (r, { request, path }) => {
      const value = request.method === 'GET' && isReadPlane(path) && r.status === 200 ? rateLimitFields(r.headers['ratelimit']) : undefined;
      if (!value || value.limit !== 200 || value.remaining > 195 || value.remaining < 100) return r;
      return {
        status: 429,
        headers: { ...withHeaders(r, { 'content-type': 'text/plain; charset=utf-8', etag: undefined, 'retry-after': String(value.reset), ratelimit: `limit=200, remaining=0, reset=${value.reset}` }).headers },
        body: 'Too Many Requests\n',
      };
    },
  },
  {
    name: 'ratelimit-farther-limit',
    kind: 'rate-limit',
    description: 'RateLimit reports the farthest limit of the policy (the per-IP cap) instead of the one closest to exhaustion',
    rules: ['RATE-021'],
    grep: byRules('RATE-021'),
    via: 'proxy',
    response: (r) => {
      const value = r.status === 429 ? undefined : rateLimitFields(r.headers['ratelimit']);
      const quotas = (r.headers['ratelimit-policy'] ?? '').split(',').map((item) => Number(item.trim().split(';')[0]));
      const farthest = Math.max(...quotas.filter(Number.isInteger));
      if (!value || !Number.isInteger(farthest) || farthest <= value.limit) return r;
      return withHeaders(r, { ratelimit: `limit=${farthest}, remaining=${farthest - (value.limit - value.remaining)}, reset=${value.reset}` });
    },
  },
  {
    name: 'retry-after-missing-on-409',
    kind: 'rate-limit',
    description: 'a 409 IDEMPOTENCY_IN_PROGRESS or CAMPAIGN_CASCADE_PENDING carries no Retry-After',
    rules: ['IDEM-009', 'CAMP-017', 'ERR-028'],
    grep: byRules('IDEM-009', 'CAMP-017', 'ERR-028'),
    via: 'proxy',
    response: (r) => (r.status === 409 && ['IDEMPOTENCY_IN_PROGRESS', 'CAMPAIGN_CASCADE_PENDING'].includes(problemCode(r) ?? '') ? withHeaders(r, { 'retry-after': undefined }) : r),
  },
  {
    name: 'upscales-own-counter',
    kind: 'rate-limit',
    description: 'POST /upscales and GET /upscales/{id} count on counters of their own, not on those of runs (RateLimit shows a fresh counter)',
    rules: ['RATE-014'],
    grep: byRules('RATE-014'),
    via: 'proxy',
    response: (r, { path }) => {
      const value = /^\/upscales(\/|$)/.test(path) && r.status !== 429 ? rateLimitFields(r.headers['ratelimit']) : undefined;
      return value && value.limit > 0 ? withHeaders(r, { ratelimit: `limit=${value.limit}, remaining=${value.limit - 1}, reset=${value.reset}` }) : r;
    },
  },

  {
    name: 'generation-counted-in-read-cap',
    kind: 'rate-limit',
    description: 'generation traffic is counted against the read-plane account cap: once a read-plane 429 reports a limit other than the read quota (the account cap) exhausted, generation requests are refused with that cap too, until a read succeeds again',
    rules: ['RATE-018'],
    grep: byRules('RATE-018'),
    via: 'proxy',
    response: (r, { request, path, memory }) => {
      if (isReadPlane(path)) {
        const value = r.status === 429 ? rateLimitFields(r.headers['ratelimit']) : undefined;
        if (value && value.limit !== rateLimits.groups['read']?.limit) memory.readCapExhausted = { limit: value.limit, reset: value.reset };
        else if (ok(r)) memory.readCapExhausted = undefined;
        return r;
      }
      const cap = memory.readCapExhausted;
      if (!cap || !isGenerationPlane(path) || r.status === 429) return r;
      const policy = [`${cap.limit};w=60`, ...(r.headers['ratelimit-policy'] ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '' && item !== `${cap.limit};w=60`)].join(', ');
      return {
        status: 429,
        headers: withHeaders(r, { 'content-type': 'application/problem+json', etag: undefined, location: undefined, 'retry-after': String(cap.reset), ratelimit: `limit=${cap.limit}, remaining=0, reset=${cap.reset}`, 'ratelimit-policy': policy }).headers,
        body: JSON.stringify({ type: '/errors/RATE_LIMITED', title: 'Too Many Requests', status: 429, code: 'RATE_LIMITED', instance: pathOfUrl(request.url), requestId: 'req_proxy' }),
      };
    },
  },

  // one defect per pinned rule that only @assumed tests named before (issue #18) ---------------
  {
    name: 'has-more-inverted-off-products',
    kind: 'pagination',
    description: '`pagination.hasMore` says the opposite of `nextCursor !== null` on every list but /products',
    rules: ['PAGE-007'],
    grep: byRules('PAGE-007'),
    via: 'proxy',
    response: (r, { path }) => {
      const body = ok(r) && !path.startsWith('/products') ? bodyOf(r) : undefined;
      if (!isEnvelope(body)) return r;
      body.pagination.hasMore = !body.pagination.hasMore;
      return withBody(r, body);
    },
  },
  {
    name: 'expand-product-ignored',
    kind: 'envelope',
    description: '`?expand=product` is ignored: creatives come without their product',
    rules: ['PAGE-001'],
    grep: byRules('PAGE-001'),
    via: 'proxy',
    request: (q) => (query(q).get('expand') === 'product' ? { ...q, url: q.url.replace(/([?&])expand=product(&|$)/, (_, pre: string, post: string) => (post ? pre : '')) } : q),
  },
  {
    name: 'run-estimated-completion-dropped',
    kind: 'runs',
    description: 'a run carries no estimatedCompletion (completesAt, durationSeconds)',
    rules: ['RUN-012'],
    grep: byRules('RUN-012'),
    via: 'proxy',
    response: (r) =>
      eachTagged(r, 'run', (run) => {
        delete run['estimatedCompletion'];
      }),
  },
  {
    name: 'run-item-object-wrong',
    kind: 'runs',
    description: 'a run item carries `object` = `item` instead of `run_item`',
    rules: ['RUN-015'],
    grep: byRules('RUN-015'),
    via: 'proxy',
    response: (r) => eachTagged(r, 'run_item', (item) => (item['object'] = 'item')),
  },
  {
    name: 'run-price-not-the-quote',
    kind: 'runs',
    description: "a run's credits.estimated is one credit more than the estimate quoted",
    rules: ['RUN-043'],
    grep: byRules('RUN-043'),
    via: 'proxy',
    response: (r, { path }) =>
      path.startsWith('/runs/estimate')
        ? r
        : eachTagged(r, 'run', (run) => {
            const credits = run['credits'];
            if (isObject(credits) && typeof credits['estimated'] === 'number') credits['estimated'] += 1;
          }),
  },
  {
    name: 'idempotency-malformed-accepted',
    kind: 'idempotency',
    description: 'a malformed Idempotency-Key is accepted (as if it were a well-formed one)',
    rules: ['IDEM-004'],
    grep: byRules('IDEM-004'),
    via: 'proxy',
    request: (q) => {
      const key = q.headers['idempotency-key'];
      return key !== undefined && !/^(?:[A-Za-z0-9\-_.:~]{1,255}|"[A-Za-z0-9\-_.:~]{1,255}")$/.test(key) ? withRequestHeaders(q, { 'idempotency-key': `fixed-${shortHash(key)}` }) : q;
    },
  },
  {
    name: 'preset-unlisted-accepted',
    kind: 'runs',
    description: 'a presetId GET /presets does not list is accepted on POST /runs and the estimate (run with a listed one)',
    rules: ['RUN-040'],
    grep: byRules('RUN-040'),
    via: 'proxy',
    request: (q, { path, memory }) => {
      if (q.method !== 'POST' || (path !== '/runs' && path !== '/runs/estimate')) return q;
      const listed = [...memory.presets];
      return rewriteJsonBody(q, (body) => (typeof body['presetId'] !== 'string' || listed.length === 0 || memory.presets.has(body['presetId']) ? undefined : { ...body, presetId: listed[0]! }));
    },
  },
  {
    name: 'upscale-target-unchecked',
    kind: 'status',
    description: 'POST /upscales accepts any target (another one is taken as 4K)',
    rules: ['UPSC-011'],
    grep: byRules('UPSC-011'),
    via: 'proxy',
    request: (q, { path }) => {
      if (q.method !== 'POST' || path !== '/upscales') return q;
      return rewriteJsonBody(q, (body) => (body['target'] !== '2K' && body['target'] !== '4K' ? { ...body, target: '4K' } : undefined));
    },
  },
  {
    name: 'insufficient-credits-as-403',
    kind: 'status',
    description: '402 INSUFFICIENT_CREDITS on POST /upscales is answered 403',
    rules: ['ERR-015'],
    grep: byRules('ERR-015'),
    via: 'proxy',
    response: (r) => (r.status === 402 && problemCode(r) === 'INSUFFICIENT_CREDITS' ? restatus(r, 403) : r),
  },
  {
    name: 'upscale-not-entitled-as-tier-required',
    kind: 'error-body',
    description: '403 IMAGE_UPSCALE_NOT_ENTITLED is sent with the code TIER_REQUIRED',
    rules: ['ERR-017'],
    grep: byRules('ERR-017'),
    via: 'proxy',
    response: (r) => (problemCode(r) === 'IMAGE_UPSCALE_NOT_ENTITLED' ? editBody(r, (p) => ({ ...p, code: 'TIER_REQUIRED', type: '/errors/TIER_REQUIRED' })) : r),
  },
  {
    name: 'target-not-larger-as-400',
    kind: 'status',
    description: '422 IMAGE_UPSCALE_TARGET_NOT_LARGER is answered 400 VALIDATION_ERROR',
    rules: ['ERR-023'],
    grep: byRules('ERR-023'),
    via: 'proxy',
    response: (r) =>
      problemCode(r) === 'IMAGE_UPSCALE_TARGET_NOT_LARGER' ? editBody(restatus(r, 400), (p) => ({ ...p, code: 'VALIDATION_ERROR', type: '/errors/VALIDATION_ERROR' })) : r,
  },
  {
    name: 'creative-ratio-refused-as-400',
    kind: 'status',
    description: 'PATCH of a creative with an aspectRatio outside the delivery ratios answers 400 instead of 422',
    rules: ['ERR-024'],
    grep: byRules('ERR-024'),
    via: 'proxy',
    response: (r, { request, path }) => {
      if (request.method !== 'PATCH' || !/^\/creatives\/[^/]+$/.test(path) || r.status !== 422 || !request.body.includes('aspectRatio')) return r;
      return restatus(r, 400);
    },
  },

  // one defect per weak test of issue #18 -----------------------------------------------------
  {
    name: 'image-size-unchecked',
    kind: 'runs',
    description: 'any imageSize is accepted, also on a video run (it is dropped before the run is planned)',
    rules: ['RUN-041'],
    grep: byRules('RUN-041'),
    via: 'proxy',
    request: (q, { path }) => {
      if (q.method !== 'POST' || (path !== '/runs' && path !== '/runs/estimate')) return q;
      return rewriteJsonBody(q, (body) => {
        if (!('imageSize' in body) || (body['modality'] !== 'video' && ['1K', '2K', '4K'].includes(String(body['imageSize'])))) return undefined;
        const { imageSize: _dropped, ...rest } = body;
        return rest;
      });
    },
  },
  {
    name: 'creative-undelete-scope-denied',
    kind: 'status',
    description: 'a creatives:write key is refused the undelete of a creative (403 API_TOKEN_SCOPE_DENIED)',
    rules: ['AUTH-013'],
    grep: byRules('AUTH-013'),
    via: 'proxy',
    response: (r, { request, path }) =>
      request.method === 'POST' && /^\/creatives\/[^/]+\/undelete$/.test(path) && r.status === 200
        ? {
            status: 403,
            headers: withHeaders(r, { 'content-type': 'application/problem+json', etag: undefined }).headers,
            body: JSON.stringify({ type: '/errors/API_TOKEN_SCOPE_DENIED', title: 'Forbidden', status: 403, code: 'API_TOKEN_SCOPE_DENIED', detail: 'The API key lacks the scope this operation needs.', instance: pathOfUrl(request.url), requestId: 'req_proxy' }),
          }
        : r,
  },
  {
    name: 'lapsed-plan-told-apart',
    kind: 'error-body',
    description: 'the 401 of a key that works but whose plan lapsed says so in its detail (a bad key\'s does not)',
    rules: ['AUTH-035'],
    grep: byRules('AUTH-035'),
    via: 'proxy',
    response: (r, { request, memory }) =>
      r.status === 401 && isProblem(r) && memory.workingKeys.has(request.headers['authorization'] ?? '') ? editBody(r, (p) => ({ ...p, detail: 'Your plan no longer includes this feature.' })) : r,
  },
  {
    name: 'write-429-as-problem',
    kind: 'rate-limit',
    description: 'a 429 on a review, creative, asset or campaign write is problem+json instead of plain text',
    rules: ['RATE-003'],
    grep: byRules('RATE-003'),
    via: 'proxy',
    response: (r, { request, path }) =>
      r.status === 429 && request.method !== 'GET' && !isGenerationPlane(path) && !isProblem(r)
        ? {
            ...withHeaders(r, { 'content-type': 'application/problem+json' }),
            body: JSON.stringify({ type: '/errors/RATE_LIMITED', title: 'Too Many Requests', status: 429, code: 'RATE_LIMITED', instance: pathOfUrl(request.url), requestId: 'req_proxy' }),
          }
        : r,
  },
  {
    name: 'creative-undelete-own-counter',
    kind: 'rate-limit',
    description: 'the undelete of a creative counts on a counter of its own, not on the creative write counter (RateLimit shows a fresh counter)',
    rules: ['RATE-011'],
    grep: byRules('RATE-011'),
    via: 'proxy',
    response: (r, { request, path }) => {
      const value = request.method === 'POST' && /^\/creatives\/[^/]+\/undelete$/.test(path) && r.status === 200 ? rateLimitFields(r.headers['ratelimit']) : undefined;
      return value ? withHeaders(r, { ratelimit: `limit=${value.limit}, remaining=${value.limit - 1}, reset=${value.reset}` }) : r;
    },
  },
  {
    name: 'bad-key-401-lists-account-cap',
    kind: 'rate-limit',
    description: 'a 401 for a bad key lists the key limit and the account-wide cap instead of the per-IP cap',
    rules: ['RATE-025'],
    grep: byRules('RATE-025'),
    via: 'proxy',
    response: (r, { request, memory }) => {
      if (r.status !== 401 || memory.workingKeys.has(request.headers['authorization'] ?? '')) return r;
      const [first] = (r.headers['ratelimit-policy'] ?? '').split(',');
      return first ? withHeaders(r, { 'ratelimit-policy': `${first.trim()}, 1000;w=60` }) : r;
    },
  },
  {
    name: 'sku-lists-one-product',
    kind: 'pagination',
    description: 'GET /products?sku= answers only the first product of a shared sku',
    rules: ['PROD-003'],
    grep: byRules('PROD-003'),
    via: 'proxy',
    response: (r, { request, path }) => {
      const body = ok(r) && path === '/products' && query(request).has('sku') ? bodyOf(r) : undefined;
      if (!isEnvelope(body) || body.data.length < 2) return r;
      body.data = body.data.slice(0, 1);
      return withBody(r, body);
    },
  },

  // runs ---------------------------------------------------------------------------------------
  {
    name: 'run-counts-off',
    kind: 'runs',
    description: "a run's counts add one pending item that does not exist (they no longer sum to total)",
    rules: ['RUN-009', 'RUN-036'],
    grep: byRules('RUN-009', 'RUN-036'),
    via: 'proxy',
    response: (r) =>
      eachTagged(r, 'run', (run) => {
        const counts = run['counts'];
        if (isObject(counts) && typeof counts['pending'] === 'number') counts['pending'] += 1;
      }),
  },
  {
    name: 'run-total-off',
    kind: 'runs',
    description: "a run's total is one more than products × creativesPerProduct",
    rules: ['RUN-001'],
    grep: byRules('RUN-001', 'RUN-014'),
    via: 'proxy',
    response: (r) =>
      eachTagged(r, 'run', (run) => {
        if (typeof run['total'] === 'number') run['total'] += 1;
      }),
  },
  {
    name: 'run-items-reversed',
    kind: 'runs',
    description: "a run's items are listed in reverse request order",
    rules: ['RUN-014'],
    grep: byRules('RUN-014'),
    via: 'proxy',
    response: (r, { path }) => {
      const body = ok(r) && /^\/runs\/[^/]+\/items$/.test(path) ? bodyOf(r) : undefined;
      if (!isEnvelope(body)) return r;
      body.data.reverse();
      return withBody(r, body);
    },
  },
  {
    name: 'run-finalized-at-moving',
    kind: 'runs',
    description: "a final run's finalizedAt moves forward on every poll",
    rules: ['RUN-011', 'RUN-021'],
    grep: byRules('RUN-011', 'RUN-021'),
    via: 'proxy',
    response: (r, { memory }) =>
      eachTagged(r, 'run', (run) => {
        const at = run['finalizedAt'];
        if (typeof at === 'string') run['finalizedAt'] = new Date(Date.parse(at) + memory.next() * 1000).toISOString();
      }),
  },
  {
    name: 'run-final-without-finalized-at',
    kind: 'runs',
    description: 'a run in a terminal status still has finalizedAt null',
    rules: ['RUN-011', 'RUN-021'],
    grep: byRules('RUN-011', 'RUN-021'),
    via: 'proxy',
    response: (r) =>
      eachTagged(r, 'run', (run) => {
        if (typeof run['status'] === 'string' && TERMINAL_RUN.has(run['status'])) run['finalizedAt'] = null;
      }),
  },

  // runs (injected by the mock: the proxy cannot see what a settling item is charged) ------------
  {
    name: 'run-charges-unproduced',
    kind: 'runs',
    description: 'a run item that settles failed or refused is charged like a produced creative (every started item is charged)',
    rules: ['RUN-003'],
    grep: inFile('runs.spec.ts', byRules('RUN-003')),
    via: 'mock',
  },

  // webhooks (injected by the mock: deliveries do not pass the proxy) ----------------------------
  {
    name: 'webhook-bad-signature',
    kind: 'webhooks',
    description: 'webhook-signature is computed over another content than `${id}.${timestamp}.${body}`',
    rules: ['EVT-046', 'EVT-043'],
    grep: byRules('EVT-046', 'EVT-043'),
    via: 'mock',
  },
  {
    name: 'webhook-id-unstable',
    kind: 'webhooks',
    description: 'every delivery attempt of an event carries a new webhook-id',
    rules: ['EVT-039', 'EVT-044'],
    grep: byRules('EVT-039', 'EVT-044'),
    via: 'mock',
  },
  {
    name: 'webhook-campaign-data-stale',
    kind: 'webhooks',
    description: '`data` of campaign.created and campaign.updated is not the Campaign: its name is the one before the change',
    rules: ['EVT-015'],
    grep: inFile('webhooks.spec.ts', byRules('EVT-015')),
    via: 'mock',
  },
  {
    name: 'webhook-previous-ratio-shown',
    kind: 'webhooks',
    description: 'previousAttributes.aspectRatio is the ratio the creative showed (its campaign\'s) instead of null when it had none of its own',
    rules: ['EVT-033'],
    grep: inFile('webhooks.spec.ts', byRules('EVT-033')),
    via: 'mock',
  },
  {
    name: 'webhook-campaign-created-as-creative',
    kind: 'webhooks',
    description: 'creating a campaign sends creative.updated (about creatives nobody can read) instead of campaign.created',
    rules: ['EVT-017', 'EVT-018'],
    grep: inFile('webhooks.spec.ts', byRules('EVT-017', 'EVT-018')),
    via: 'mock',
  },
  {
    name: 'webhook-actor-leaks-key',
    kind: 'webhooks',
    description: 'the actor of a change not made with an API key carries an apiKeyId',
    rules: ['EVT-035', 'EVT-036'],
    // The event log of the control plane shows actors too, but only deliveries carry the defect.
    grep: inFile('webhooks.spec.ts', byRules('EVT-035', 'EVT-036')),
    via: 'mock',
  },
];

export function defectNamed(name: string): Defect | undefined {
  return DEFECTS.find((d) => d.name === name);
}
