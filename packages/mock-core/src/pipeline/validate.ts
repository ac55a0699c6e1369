/**
 * Stage: validate the request against the document (compiled once per operation with Ajv).
 * - Idempotency-Key: missing where required → 400 IDEMPOTENCY_KEY_REQUIRED; malformed → 400
 *   INVALID_IDEMPOTENCY_KEY (IDEM-*, D22).
 * - Query and path parameters: coerced from strings, out of schema → 400 VALIDATION_ERROR (D23).
 * - Body: not JSON → 415 (D24); malformed JSON → 400; out of schema → 422 VALIDATION_ERROR where the
 *   operation declares 422 (creative, asset and campaign writes), else 400 (generation plane, D23).
 *   `errors[]` names every offending field.
 */
import { utf8 } from '../../../contract/platform/bytes.ts';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { resolvePointer, validatorFor, type OperationInfo } from '../../../contract/spec/contract.ts';
import { ApiError, type FieldError } from '../core/errors.ts';
import type { RawRequest } from './types.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const IDEMPOTENCY_KEY = new RegExp(String((resolvePointer('#/components/schemas/IdempotencyKey') as { pattern: string }).pattern));

/** Both forms of a key name the same key: strip the Structured-Field quotes. */
export function normalizeIdempotencyKey(raw: string): string {
  return raw.startsWith('"') ? raw.slice(1, -1) : raw;
}

/** The If-Match parameter's maxLength in the document. */
const IF_MATCH_MAX_LENGTH = Number((resolvePointer('#/components/parameters/IfMatch/schema') as { maxLength: number }).maxLength);

export interface ValidatedInput {
  query: Record<string, unknown>;
  body: unknown;
  idempotencyKey: string | undefined;
}

// Query parameters arrive as strings: a separate Ajv with type coercion, for the inline
// parameter schemas of the document (they hold no $ref; path ids are checked as plain strings).
const queryAjv = addFormats(new Ajv2020({ allErrors: true, coerceTypes: true, useDefaults: true, strict: false }));

interface QueryPlan {
  /** The operation's query parameter names (others are ignored). */
  known: ReadonlySet<string>;
  validate: ValidateFunction;
}
const queryPlans = new Map<string, QueryPlan>();

/** Compiled once per operation: the names it knows and the coercing validator. */
function queryPlan(operation: OperationInfo): QueryPlan {
  let plan = queryPlans.get(operation.operationId);
  if (!plan) {
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    const known = new Set<string>();
    for (const p of operation.parameters) {
      if (p.in !== 'query') continue;
      known.add(p.name);
      properties[p.name] = p.schema;
      if (p.required) required.push(p.name);
    }
    plan = { known, validate: queryAjv.compile({ type: 'object', properties, required }) };
    queryPlans.set(operation.operationId, plan);
  }
  return plan;
}

export function validateRequest(operation: OperationInfo, raw: RawRequest, pathParams: Record<string, string>): ValidatedInput {
  // Idempotency-Key first: its codes are the interface's own.
  const rawKey = raw.headers['idempotency-key'];
  // D73: an empty header is present but malformed (INVALID_IDEMPOTENCY_KEY below), not missing
  if (operation.idempotencyKey === 'required' && rawKey === undefined) {
    throw new ApiError('IDEMPOTENCY_KEY_REQUIRED', 'This operation requires an Idempotency-Key header.');
  }
  let idempotencyKey: string | undefined;
  if (operation.idempotencyKey !== 'none' && rawKey !== undefined) {
    if (!IDEMPOTENCY_KEY.test(rawKey)) {
      throw new ApiError('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1-255 characters of A-Z a-z 0-9 - _ . : ~, bare or in double quotes.');
    }
    idempotencyKey = normalizeIdempotencyKey(rawKey);
  }

  // Path parameters.
  const pathErrors: FieldError[] = [];
  for (const [name, value] of Object.entries(pathParams)) {
    // `Id` counts characters (code points), not UTF-16 units.
    const length = [...value].length;
    if (length === 0 || length > 200) pathErrors.push({ field: name, message: 'must be 1-200 characters' });
  }
  if (pathErrors.length) throw new ApiError('VALIDATION_ERROR', 'A path parameter is invalid.', { extensions: { errors: pathErrors } });

  // Query parameters (unknown ones are ignored, like most HTTP APIs do).
  const { known, validate: validateQuery } = queryPlan(operation);
  const query: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw.query)) if (known.has(name)) query[name] = value;
  if (!validateQuery(query)) {
    throw new ApiError('VALIDATION_ERROR', 'A query parameter is invalid.', { extensions: { errors: fieldErrors(validateQuery.errors ?? [], query) } });
  }

  // If-Match must be `*` or a list of entity tags.
  const ifMatch = raw.headers['if-match'];
  if (operation.ifMatch && ifMatch !== undefined && (ifMatch.length > IF_MATCH_MAX_LENGTH || parseIfMatch(ifMatch) === undefined)) {
    throw new ApiError('VALIDATION_ERROR', 'If-Match must be * or a comma-separated list of entity tags.', {
      extensions: { errors: [{ field: 'If-Match', message: 'must be * or a list of quoted entity tags' }] },
    });
  }

  return { query, body: parseBody(operation, raw), idempotencyKey };
}

function parseBody(operation: OperationInfo, raw: RawRequest): unknown {
  const spec = operation.requestBody;
  const bytes = raw.body;
  const empty = bytes === undefined || bytes.length === 0;
  // Operations without a body ignore one (a client sending `{}` to an action loses nothing).
  if (!spec) return undefined;
  if (empty) {
    if (!spec.required) return undefined;
    throw bodyError(operation, [{ field: 'body', message: 'a JSON body is required' }], 'A JSON body is required.');
  }
  const contentType = (raw.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (contentType !== 'application/json' && !contentType.endsWith('+json')) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `Request bodies must be application/json, not ${contentType || 'unlabelled'}.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8(bytes));
  } catch (error) {
    throw new ApiError('VALIDATION_ERROR', `The body is not valid JSON: ${(error as Error).message}`, {
      extensions: { errors: [{ field: 'body', message: 'malformed JSON' }] },
    });
  }
  const validate = validatorFor(spec.schemaPointer);
  if (!validate(parsed)) throw bodyError(operation, nameConditionalFields(spec.schemaPointer, parsed, fieldErrors(validate.errors ?? [], parsed)), 'The body does not match the operation\'s schema.');
  return parsed;
}

/**
 * Conditional rules (`if`/`then`/`not`) fail as a whole and Ajv cannot say which field broke them;
 * name the fields for the conditional rules the document has.
 */
const CONDITIONAL_FIELDS: Record<string, (body: Record<string, unknown>) => FieldError[]> = {
  // RUN: imageSize and referenceSource are image-run fields; with modality video they answer 400.
  '#/components/schemas/RunCreate': (body) =>
    body.modality === 'video'
      ? ['imageSize', 'referenceSource'].filter((f) => f in body).map((field) => ({ field, message: 'is not allowed with modality video' }))
      : [],
};

function nameConditionalFields(pointer: string, body: unknown, errors: FieldError[]): FieldError[] {
  const rule = CONDITIONAL_FIELDS[pointer];
  if (!rule || !body || typeof body !== 'object' || Array.isArray(body)) return errors;
  const named = rule(body as Record<string, unknown>);
  if (named.length === 0) return errors;
  return [...named, ...errors.filter((e) => e.field !== 'body')];
}

/**
 * D23: 422 on the creative, asset and campaign writes (approve and reject included) that declare
 * it; 400 elsewhere (the generation plane, whose 422s carry their own codes).
 */
function bodyError(operation: OperationInfo, errors: FieldError[], detail: string): ApiError {
  const status = operation.tag === 'writes' && operation.responses['422'] ? 422 : 400;
  return new ApiError('VALIDATION_ERROR', detail, { status, extensions: { errors } });
}

/** Turn Ajv errors into one `{ field, message }` per offending field, most specific first. */
/** `data` is the validated value: a numeric segment is an array index only where the data holds an array. */
export function fieldErrors(errors: readonly ErrorObject[], data?: unknown): FieldError[] {
  const byField = new Map<string, string>();
  const structural = new Set(['oneOf', 'anyOf', 'allOf', 'if', 'not', 'then', 'else']);
  const ordered = [...errors].sort((a, b) => Number(structural.has(a.keyword)) - Number(structural.has(b.keyword)));
  for (const error of ordered) {
    let field = pointerToField(error.instancePath, data);
    let message = error.message ?? 'is invalid';
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'required') {
      field = join(field, String(params.missingProperty));
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      field = join(field, String(params.additionalProperty));
      message = 'is not a known field';
    } else if (error.keyword === 'propertyNames' || (error as { propertyName?: string }).propertyName !== undefined || (params && 'propertyName' in params)) {
      // Ajv reports a bad key twice: the key's own failure (propertyName on the error) and the
      // propertyNames wrapper (propertyName in params); both name the same field.
      const name = (error as { propertyName?: string }).propertyName ?? params.propertyName;
      if (name !== undefined) field = join(field, String(name));
      message = 'is not a valid key (1-40 characters, no control characters or brackets)';
    } else if (error.keyword === 'enum') {
      message = `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    }
    if (!field) field = 'body';
    if (structural.has(error.keyword) && [...byField.keys()].some((f) => f === field || f.startsWith(`${field}.`) || f.startsWith(`${field}[`))) continue;
    if (!byField.has(field)) byField.set(field, message);
  }
  return [...byField].map(([field, message]) => ({ field, message }));
}

function pointerToField(pointer: string, data: unknown): string {
  if (!pointer) return '';
  let out = '';
  let node = data;
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    // an index into an array (`productIds[2]`), else a key, numeric or not (`metadata.0`)
    const index = Array.isArray(node) || (node === undefined && /^\d+$/.test(part));
    out += index ? `[${part}]` : out ? `.${part}` : part;
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  }
  return out;
}

function join(base: string, name: string): string {
  return base ? `${base}.${name}` : name;
}

export type IfMatch = { any: true } | { any: false; tags: { weak: boolean; opaque: string }[] };

/** RFC 9110 If-Match: `*` or `#entity-tag`. Undefined when malformed. */
export function parseIfMatch(value: string): IfMatch | undefined {
  const trimmed = value.trim();
  if (trimmed === '*') return { any: true };
  const tags: { weak: boolean; opaque: string }[] = [];
  const re = /\s*(W\/)?"([\x21\x23-\x7E\x80-\xFF]*)"\s*(,|$)/y;
  let index = 0;
  while (index < trimmed.length) {
    re.lastIndex = index;
    const match = re.exec(trimmed);
    if (!match) return undefined;
    tags.push({ weak: match[1] !== undefined, opaque: match[2]! });
    index = re.lastIndex;
    if (match[3] === '' && index < trimmed.length) return undefined;
  }
  return tags.length ? { any: false, tags } : undefined;
}
