/**
 * Checks against packages/contract/spec/openapi.yaml, read only through packages/contract/spec/contract.ts: the status is declared by
 * the operation, the content type is one the declared response lists, the body validates (Ajv,
 * JSON Schema 2020-12) against the declared schema, and declared headers match their schemas.
 *
 * Pinned or assumed: the document holds the interface's pinned statements and the decisions on its
 * gaps, each decision marked with `x-assumption` on its node. A violation is classified `assumed`
 * when the failed expectation lies under such a mark, so that a real implementation's CI can tell
 * a broken promise from a disagreement with a guess. For bodies this is decided by validating a
 * second time against a copy of the document in which every marked schema node accepts anything:
 * when only the full document fails, the violation rests on an assumption.
 */
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv, document, resolvePointer, toPointer, validatorFor, type OperationInfo, type ResponseInfo } from '../../../contract/spec/contract.ts';
import { matchOperation } from '../../../contract/spec/routes.ts';
import { isJsonMediaType, mediaType } from './grammar.ts';
import { headerRulesOf, successStatusRules } from './status-rules.ts';
import type { Violation } from './types.ts';

// ---------------------------------------------------------------------------------------------
// Pointers and assumption marks

function segmentsOf(pointer: string): string[] {
  const body = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (body === '') return [];
  return body
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The nearest node at or above any of the pointers that carries `x-assumption`, as a pointer; the
 * first pointer that has one wins. Undefined when every node on the way to the root is pinned.
 */
export function assumptionAbove(...pointers: readonly string[]): string | undefined {
  for (const pointer of pointers) {
    const segments = segmentsOf(pointer);
    for (let length = segments.length; length > 0; length -= 1) {
      const at = toPointer(segments.slice(0, length));
      const node = resolvePointer(at);
      if (isObject(node) && node['x-assumption'] !== undefined) return at;
    }
  }
  return undefined;
}

/** `#/paths/<template>/<method>/responses/<status>`: the operation's own entry for a status. */
export function responsePointer(operation: OperationInfo, statusKey: string): string {
  return toPointer(['paths', operation.path, operation.method, 'responses', statusKey]);
}

// ---------------------------------------------------------------------------------------------
// The pinned-only copy of the document

const PINNED_ID = 'urn:cgs:openapi:pinned-only';

function isSchemaPosition(path: readonly string[]): boolean {
  return (path[0] === 'components' && path[1] === 'schemas' && path.length >= 3) || path.includes('schema');
}

/**
 * A copy of `node` in which every schema carrying `x-assumption` is `{}`, and every schema below a
 * non-schema node carrying it (a response, an operation, a header) is `{}` too.
 */
function withoutAssumptions(node: unknown, path: string[], blankSchemas: boolean): unknown {
  if (Array.isArray(node)) return node.map((child, index) => withoutAssumptions(child, [...path, String(index)], blankSchemas));
  if (!isObject(node)) return node;
  const marked = node['x-assumption'] !== undefined;
  if (marked && isSchemaPosition(path)) return {};
  const blank = blankSchemas || marked;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = blank && key === 'schema' && isObject(value) ? {} : withoutAssumptions(value, [...path, key], blank);
  }
  return out;
}

let pinnedAjv: Ajv2020 | undefined;
const pinnedValidators = new Map<string, ValidateFunction>();

function pinnedValidatorFor(pointer: string): ValidateFunction {
  const cached = pinnedValidators.get(pointer);
  if (cached) return cached;
  if (!pinnedAjv) {
    pinnedAjv = createAjv();
    pinnedAjv.addSchema({
      $id: PINNED_ID,
      components: withoutAssumptions(document.components, ['components'], false),
      paths: withoutAssumptions(document.paths, ['paths'], false),
      webhooks: withoutAssumptions(document.webhooks, ['webhooks'], false),
    });
  }
  const fragment = segmentsOf(pointer)
    .map((s) => `/${encodeURIComponent(s.replaceAll('~', '~0').replaceAll('/', '~1'))}`)
    .join('');
  const validate = pinnedAjv.compile({ $ref: `${PINNED_ID}#${fragment}` });
  pinnedValidators.set(pointer, validate);
  return validate;
}

function describeErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`)
    .join('; ');
}

/**
 * Validate a value against the schema node at `pointer`; undefined when it conforms. The violation
 * is `assumed` when the value conforms to the pinned-only copy of the document.
 */
export function schemaViolation(check: 'body-schema' | 'header-schema', pointer: string, value: unknown, what: string): Violation | undefined {
  const validate = validatorFor(pointer);
  if (validate(value)) return undefined;
  const message = `${what} does not match ${pointer}: ${describeErrors(validate)}`;
  const pinned = pinnedValidatorFor(pointer);
  if (pinned(value)) {
    const mark =
      assumptionAbove(pointer) ??
      (validate.errors ?? []).map((e) => markAlong(pointer, segmentsOf(`#${e.instancePath}`), 0)).find((m) => m !== undefined) ??
      `a node marked x-assumption below ${pointer}`;
    return { check, rules: [], message, assumption: mark };
  }
  return { check, rules: [], message };
}

/** The first node marked `x-assumption` met while following an instance path down a schema. */
function markAlong(pointer: string, instancePath: readonly string[], depth: number): string | undefined {
  if (depth > 40) return undefined;
  const node = resolvePointer(pointer);
  if (!isObject(node)) return undefined;
  if (node['x-assumption'] !== undefined) return pointer;
  const segments = segmentsOf(pointer);
  const at = (...more: string[]) => toPointer([...segments, ...more]);
  if (typeof node['$ref'] === 'string' && node['$ref'].startsWith('#')) {
    const found = markAlong(node['$ref'], instancePath, depth + 1);
    if (found) return found;
  }
  for (const combinator of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = node[combinator];
    if (!Array.isArray(branches)) continue;
    for (let i = 0; i < branches.length; i += 1) {
      const found = markAlong(at(combinator, String(i)), instancePath, depth + 1);
      if (found) return found;
    }
  }
  const [head, ...rest] = instancePath;
  if (head === undefined) return undefined;
  const properties = node['properties'];
  if (isObject(properties) && properties[head] !== undefined) return markAlong(at('properties', head), rest, depth + 1);
  if (/^\d+$/.test(head) && node['items'] !== undefined) return markAlong(at('items'), rest, depth + 1);
  if (isObject(node['additionalProperties'])) return markAlong(at('additionalProperties'), rest, depth + 1);
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Operation, status, content type

export interface Declared {
  operation: OperationInfo;
  /** The key under which the status is declared ('404', '4XX', 'default'). */
  statusKey: string;
  response: ResponseInfo;
}

/** The operation a request reaches, from its method and its path below the base path. */
export function operationFor(method: string, url: string, basePath: string): OperationInfo | undefined {
  const { pathname } = new URL(url);
  const base = basePath.replace(/\/$/, '');
  if (!pathname.startsWith(`${base}/`) && pathname !== base) return undefined;
  return matchOperation(method, pathname.slice(base.length) || '/')?.operation;
}

/** The response the operation declares for a status: exact, then `4XX`, then `default`. */
export function declaredResponse(operation: OperationInfo, status: number): Declared | undefined {
  for (const key of [String(status), `${String(status)[0]}XX`, 'default']) {
    const response = operation.responses[key];
    if (response) return { operation, statusKey: key, response };
  }
  return undefined;
}

export function checkStatusDeclared(operation: OperationInfo, status: number): Violation | undefined {
  if (declaredResponse(operation, status)) return undefined;
  const declared = Object.keys(operation.responses).join(', ');
  // A success status other than the declared one breaks the rule pinning the operation's (D160).
  const rules = status >= 200 && status < 300 ? successStatusRules(operation) : [];
  return { check: 'status-declared', rules, message: `status ${status} is not declared for ${operation.operationId} (declared: ${declared})` };
}

/** Rule ids the content type of a response states. */
export function contentTypeRules(operation: OperationInfo, status: number): string[] {
  if (status === 429) return operation.rateLimitGroup.startsWith('generation') ? ['RATE-001'] : ['RATE-003'];
  if (status >= 400) return ['ERR-001'];
  return ['GEN-001'];
}

export function checkContentType(declared: Declared, status: number, contentType: string | undefined, body: string): Violation | undefined {
  const type = mediaType(contentType);
  const allowed = declared.response.contentTypes;
  const rules = contentTypeRules(declared.operation, status);
  const assumption = assumptionAbove(responsePointer(declared.operation, declared.statusKey), declared.response.pointer);
  if (allowed.length === 0) {
    if (body.length === 0) return undefined;
    return { check: 'content-type', rules, message: `status ${status} declares no body, but one of ${body.length} bytes (${type || 'no content type'}) was sent`, ...(assumption ? { assumption } : {}) };
  }
  if (allowed.includes(type)) return undefined;
  return {
    check: 'content-type',
    rules,
    message: `content type ${type || '(none)'} is not one of ${allowed.join(', ')} declared for ${declared.operation.operationId} ${status}`,
    ...(assumption ? { assumption } : {}),
  };
}

/** Parse a JSON body of a JSON media type; a violation when it does not parse. */
export function parseJsonBody(type: string, body: string): { value: unknown; violation?: Violation } {
  if (!isJsonMediaType(type)) return { value: undefined };
  try {
    return { value: JSON.parse(body) as unknown };
  } catch (error) {
    return { value: undefined, violation: { check: 'body-json', rules: ['GEN-001'], message: `the ${type} body is not JSON (${(error as Error).message}): ${body.slice(0, 200)}` } };
  }
}

export function checkBodySchema(declared: Declared, type: string, value: unknown): Violation | undefined {
  const pointer = declared.response.schemaPointers[type];
  if (pointer === undefined || !isJsonMediaType(type)) return undefined;
  return schemaViolation('body-schema', pointer, value, `the ${declared.operation.operationId} ${declared.statusKey} body`);
}

/** Headers checked on every response by checkChallenges (headers.ts), declared or not. */
const CHECKED_ELSEWHERE = new Set(['www-authenticate', 'allow']);

/** Declared headers: present when required, and matching their schema. */
export function checkDeclaredHeaders(declared: Declared, headers: Readonly<Record<string, readonly string[]>>): Violation[] {
  const out: Violation[] = [];
  for (const [name, header] of Object.entries(declared.response.headers)) {
    if (CHECKED_ELSEWHERE.has(name)) continue;
    const values = headers[name];
    const ruleIds = headerRules(name, declared);
    if (values === undefined || values.length === 0) {
      if (header.required) {
        const assumption = assumptionAbove(header.schemaPointer);
        out.push({ check: 'header-schema', rules: ruleIds, message: `required header ${name} is missing (${declared.operation.operationId} ${declared.statusKey})`, ...(assumption ? { assumption } : {}) });
      }
      continue;
    }
    const violation = schemaViolation('header-schema', header.schemaPointer, values.join(', '), `header ${name}: ${values.join(', ')}`);
    if (violation) out.push({ ...violation, rules: ruleIds });
  }
  return out;
}

/**
 * The rules a declared header's failure breaks: those the header states on every operation, then
 * those of the ledger that own it on this operation's success response (headerRulesOf: `Location`
 * of createCampaign 201 is CAMP-022's, D267). A header no rule names breaks the document alone.
 */
function headerRules(name: string, declared: Declared): string[] {
  const general = generalHeaderRules(name, declared.operation.method);
  const owned = /^2/.test(declared.statusKey) ? headerRulesOf(declared.operation, name) : [];
  return [...general, ...owned.filter((id) => !general.includes(id))];
}

function generalHeaderRules(name: string, method: string): string[] {
  switch (name) {
    // A single-resource read's ETag (ETAG-002), a write's that returns the resource (ETAG-003):
    // missing or not a strong entity-tag, the test is stopped at that rule (blocked for its own).
    case 'etag':
      return method === 'get' || method === 'head' ? ['ETAG-002'] : ['ETAG-003'];
    case 'ratelimit':
      return ['RATE-020', 'RATE-021'];
    case 'ratelimit-policy':
      return ['RATE-020', 'RATE-024'];
    case 'retry-after':
      return ['RATE-026'];
    default:
      return [];
  }
}
