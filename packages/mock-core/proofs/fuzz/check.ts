/**
 * The properties one exchange must satisfy:
 * How it works and what it decides: docs/internals.md, "packages/mock-core/proofs/fuzz/check.ts".
 */
import { operations } from '../../../contract/spec/contract.ts';
import { sentRequest, violations, type TestResponse } from '../../src/testkit/harness.ts';
import { namesFieldOrParent } from './mutate.ts';
import type { Defect, RequestPlan } from './plan.ts';
import type { ConcreteRequest } from './world.ts';

export type CheckName = 'no-5xx' | 'conforms' | 'defect-refused' | 'defect-not-refused' | 'valid-value-refused' | 'replay' | 'state-invariant' | 'mock-error';

export interface Problem {
  check: CheckName;
  message: string;
  request?: ConcreteRequest;
  response?: TestResponse;
  plan?: RequestPlan;
  defect?: Defect;
  /** For valid-value-refused: where and what. */
  location?: 'path' | 'query' | 'header';
  value?: string;
}

interface ProblemBody {
  code?: string;
  errors?: { field?: string }[];
}

function problemOf(response: TestResponse): ProblemBody {
  return response.body && typeof response.body === 'object' ? (response.body as ProblemBody) : {};
}

function named(response: TestResponse): string[] {
  return (problemOf(response).errors ?? []).map((e) => String(e.field ?? ''));
}

/** Checks 1-4 on one exchange of a plan. */
export function checkExchange(plan: RequestPlan | undefined, request: ConcreteRequest, response: TestResponse): Problem[] {
  const problems: Problem[] = [];
  const base = { request, response, ...(plan ? { plan } : {}) };
  if (response.status >= 500) problems.push({ check: 'no-5xx', message: `answered ${response.status}`, ...base });
  const broken = violations(request.operationId, response.request ? response : { ...response, request: sentRequest(request.method, request.path) });
  if (broken.length > 0) problems.push({ check: 'conforms', message: `the response breaks the document: ${broken.join('; ')}`, ...base });
  if (!plan) return problems;
  const body = problemOf(response);
  // A value the document allows, refused: the root cause, whatever else the request carries.
  const refused = validValuesRefused(plan, request, response, base);
  if (refused.length > 0) return [...problems, ...refused];
  const defect = plan.defect;
  // Rate limits are decided before validation (route, authenticate, rate-limit, ..., validate).
  if (defect && response.status === 429) return problems;
  // A body over the size limit is refused as it arrives (D24), before the request is authenticated
  // or read, so 413 is the earliest refusal of a huge body whatever else it carries.
  if (defect && response.status === 413 && plan.body?.kind === 'huge') return problems;
  if (defect) {
    const fail = (message: string) => problems.push({ check: 'defect-not-refused', message: `${defect.target} defect (${defect.kind}${defect.fields.length ? `, ${defect.fields.join(' or ')}` : ''}): ${message}`, ...base, defect });
    switch (defect.target) {
      case 'auth':
        if (![401, 403].includes(response.status)) fail(`expected 401 or 403, got ${response.status}`);
        else if (defect.kind !== 'wrong-scope' && response.status !== 401) fail(`expected 401, got ${response.status}`);
        break;
      case 'idempotency-key': {
        const codes = defect.kind === 'missing' ? ['IDEMPOTENCY_KEY_REQUIRED'] : defect.kind === 'empty' ? ['IDEMPOTENCY_KEY_REQUIRED', 'INVALID_IDEMPOTENCY_KEY'] : ['INVALID_IDEMPOTENCY_KEY'];
        if (response.status !== 400 || !codes.includes(body.code ?? '')) fail(`expected 400 ${codes.join(' or ')}, got ${response.status} ${body.code ?? ''}`);
        break;
      }
      case 'content-type':
        if (response.status !== 415) fail(`expected 415, got ${response.status} ${body.code ?? ''}`);
        break;
      case 'body-too-large':
        if (response.status !== 413) fail(`expected 413, got ${response.status} ${body.code ?? ''}`);
        break;
      default: {
        if (!defect.bySchema && !(response.status === 400 || response.status === 422)) {
          // Refused by the prose only (a cursor this API did not issue, If-Match syntax): an earlier
          // check (the 404 of the resource) may answer first, but never a success.
          if (response.status < 300) fail(`expected a refusal, got ${response.status}`);
          break;
        }
        if (![400, 422].includes(response.status) || body.code !== 'VALIDATION_ERROR') {
          fail(`expected 400 or 422 VALIDATION_ERROR, got ${response.status} ${body.code ?? ''}`);
          break;
        }
        const fields = named(response);
        if (defect.fields.length > 0 && !fields.some((f) => defect.fields.some((expected) => namesFieldOrParent(f, expected)))) {
          fail(`errors[] names ${JSON.stringify(fields)}, not the field broken (${defect.fields.join(' or ')}) nor a parent`);
        }
      }
    }
  }
  return problems;
}

/** 4: the parameters the answer names as invalid, when the document allows their values (the defect's own field excepted). */
function validValuesRefused(plan: RequestPlan, request: ConcreteRequest, response: TestResponse, base: Pick<Problem, 'request' | 'response' | 'plan'>): Problem[] {
  const problems: Problem[] = [];
  if (response.status !== 400) return problems;
  const body = problemOf(response);
  const op = operations.get(request.operationId)!;
  const defectFields = new Set(plan.defect?.fields ?? []);
  const params = new Map(op.parameters.map((p) => [p.in === 'header' ? p.name.toLowerCase() : p.name, p]));
  if (body.code === 'INVALID_IDEMPOTENCY_KEY' && op.idempotencyKey !== 'none' && plan.defect?.target !== 'idempotency-key') {
    problems.push({ check: 'valid-value-refused', message: `the Idempotency-Key ${JSON.stringify(request.headers['idempotency-key'])} matches the document's pattern but was refused`, ...base, location: 'header', value: request.headers['idempotency-key'] ?? '' });
  }
  if (body.code === 'VALIDATION_ERROR') {
    for (const field of named(response)) {
      const p = params.get(field) ?? params.get(field.toLowerCase());
      if (!p || p.name === 'cursor' || p.in === 'cookie' || defectFields.has(p.name)) continue;
      const value = p.in === 'path' ? decodedPathParam(request, op.path, p.name) : p.in === 'query' ? queryValue(request, p.name) : request.headers[p.name.toLowerCase()];
      problems.push({ check: 'valid-value-refused', message: `${p.in} parameter ${p.name} = ${JSON.stringify(cut(value))} is valid by the document but was refused`, ...base, location: p.in === 'path' ? 'path' : p.in === 'query' ? 'query' : 'header', ...(value !== undefined ? { value } : {}) });
    }
  }
  return problems;
}

function cut(value: string | undefined): string | undefined {
  return value !== undefined && value.length > 80 ? `${value.slice(0, 80)}… (${value.length} UTF-16 units)` : value;
}

function decodedPathParam(request: ConcreteRequest, template: string, name: string): string | undefined {
  const index = template.split('/').indexOf(`{${name}}`);
  const part = request.path.split('?')[0]!.split('/')[index];
  try {
    return part === undefined ? undefined : decodeURIComponent(part);
  } catch {
    return part;
  }
}

function queryValue(request: ConcreteRequest, name: string): string | undefined {
  const q = request.path.split('?')[1];
  return q === undefined ? undefined : (new URLSearchParams(q).get(name) ?? undefined);
}

/**
 * 5: the repeat of `first` (the same bytes, the same Idempotency-Key) replays it: after a 2xx it
 * must, and whenever it says it replayed, status and body are the original's.
 */
export function checkReplay(request: ConcreteRequest, first: TestResponse, repeat: TestResponse): Problem[] {
  const problems: Problem[] = [];
  if (request.headers['idempotency-key'] === undefined || !operations.get(request.operationId) || operations.get(request.operationId)!.idempotencyKey === 'none') return problems;
  const replayed = repeat.headers['idempotent-replayed'] === 'true';
  // A 429 is decided before the key is looked at (and is safe to retry): not a replay, not a new request.
  if (first.status >= 200 && first.status < 300 && !replayed && repeat.status !== 429) {
    problems.push({ check: 'replay', message: `a retry with the same Idempotency-Key after ${first.status} was not replayed (got ${repeat.status})`, request, response: repeat });
  }
  const sameBody = withoutRequestId(repeat) === withoutRequestId(first);
  if (replayed && (repeat.status !== first.status || !sameBody)) {
    problems.push({ check: 'replay', message: `the replay differs from the original: ${first.status} → ${repeat.status}${!sameBody ? ', body changed' : ''}`, request, response: repeat });
  }
  return problems;
}

/** The body as text, a problem's `requestId` left out: a replayed problem has its own (D51, D73). */
function withoutRequestId(response: TestResponse): string {
  if (!(response.headers['content-type'] ?? '').includes('problem+json')) return response.text;
  try {
    const { requestId: _requestId, ...rest } = JSON.parse(response.text) as Record<string, unknown>;
    return JSON.stringify(rest);
  } catch {
    return response.text;
  }
}
