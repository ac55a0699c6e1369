/**
 * Request plans: what the fuzz sends, generated from each operation of packages/contract/spec/openapi.yaml (its path,
 * query and header parameters and its request body), either valid or with exactly one deliberate
 * defect that names what it broke. A plan holds `Ref`s instead of ids (see schema.ts); world.ts
 * turns a plan into a concrete request against the account's current state.
 * How it works and what it decides: docs/internals.md, "packages/mock-core/proofs/fuzz/plan.ts".
 */
import fc from 'fast-check';
import { operationsList, validatorFor, type OperationInfo, type ParameterInfo } from '../../../contract/spec/contract.ts';
import { conditionalFields, formatField, mutate, type MutationKind } from './mutate.ts';
import { deref, nodeAt, placeholders, poolOfName, poolOfPathParam, refArb, stringArb, valueArb, type Ref, type SchemaNode } from './schema.ts';

export type AuthChoice = 'valid' | 'none' | 'malformed' | 'unknown' | 'wrong-scope';

export type KeyChoice =
  | { kind: 'fresh'; stem: string; quoted: boolean }
  | { kind: 'reuse'; n: number; quoted: boolean }
  | { kind: 'literal'; value: string };

export type IfMatchChoice =
  | { kind: 'current' }
  | { kind: 'weak-current' }
  | { kind: 'list-with-current' }
  | { kind: 'stale' }
  | { kind: 'any' }
  | { kind: 'literal'; value: string };

export type CursorChoice = { kind: 'real' } | { kind: 'forged'; index: number } | { kind: 'foreign' } | { kind: 'literal'; value: string };

export type QueryValue = { kind: 'value'; value: unknown } | { kind: 'cursor'; cursor: CursorChoice } | { kind: 'raw'; value: string };

export type BodyChoice = { kind: 'json'; value: unknown; contentType: string } | { kind: 'raw'; text: string; contentType?: string } | { kind: 'huge'; bytes: number };

export type DefectTarget = 'auth' | 'path' | 'query' | 'idempotency-key' | 'if-match' | 'body' | 'content-type' | 'malformed-json' | 'missing-body' | 'body-too-large';

export interface Defect {
  target: DefectTarget;
  /** What was done (`too-long`, `drop-required`, `duplicate`, `garbage-cursor`, ...). */
  kind: MutationKind | string;
  /** Fields one of which the answer's `errors[]` must name (or a parent of it). Empty: no field to name. */
  fields: string[];
  /** Whether the input is invalid by the document's own schema (otherwise by its prose: cursors, If-Match syntax). */
  bySchema: boolean;
}

export interface RequestPlan {
  operationId: string;
  auth: AuthChoice;
  pathParams: Record<string, Ref | string>;
  query: [string, QueryValue][];
  /** Absent: no Idempotency-Key header. */
  idempotencyKey?: KeyChoice;
  /** Absent: no If-Match header. */
  ifMatch?: IfMatchChoice;
  body?: BodyChoice;
  defect?: Defect;
}

export type DashboardActionName = 'generateCreatives' | 'removeProductFromCampaign' | 'regenerateCreative' | 'startGeneration' | 'finishGeneration';

export type Step =
  | { kind: 'request'; plan: RequestPlan }
  /** Send the previous request again, byte for byte (same Idempotency-Key). */
  | { kind: 'repeat' }
  | { kind: 'advance'; seconds: number }
  /** A change made in the dashboard (the control plane's actions): generation, removing a product. */
  | { kind: 'dashboard'; action: DashboardActionName; campaign: Ref; product: Ref; creative: Ref; mediaType: 'image' | 'video' };

// ---------------------------------------------------------------------------------------------
// Parameters

function paramNode(p: ParameterInfo): SchemaNode {
  return deref({ schema: p.schema, pointer: p.schemaPointer });
}

/** A value valid by the query parameter's schema (a `Ref` when the parameter names an id). */
function queryValueArb(op: OperationInfo, p: ParameterInfo): fc.Arbitrary<QueryValue> {
  if (p.name === 'cursor') {
    return fc.oneof({ weight: 4, arbitrary: fc.constant<CursorChoice>({ kind: 'real' }) }, { weight: 1, arbitrary: fc.nat({ max: 100_000 }).map((index): CursorChoice => ({ kind: 'forged', index })) }).map((cursor) => ({ kind: 'cursor', cursor }));
  }
  return valueArb(paramNode(p), { location: 'query', pool: poolOfName(p.name) }).map((value) => ({ kind: 'value', value }));
}

const EXAMPLES_BAD_INTEGER = ['0', '101', '-3', '2.5', 'abc', 'ten', '1_0'];
const EXAMPLES_BAD_BOOLEAN = ['yes', 'maybe', 'on', 'tru', 'True '];

/** A raw query value outside the parameter's schema (or a cursor this API did not issue). */
function badQueryValueArb(p: ParameterInfo): fc.Arbitrary<{ value: QueryValue; defect: Defect }> {
  const { schema } = paramNode(p);
  const field = [p.name];
  const bySchema = (value: string, kind: string) => ({ value: { kind: 'raw', value } as QueryValue, defect: { target: 'query', kind, fields: field, bySchema: true } as Defect });
  const candidates: fc.Arbitrary<{ value: QueryValue; defect: Defect }>[] = [];
  if (schema.type === 'integer') {
    const min = typeof schema.minimum === 'number' ? schema.minimum : -Infinity;
    const max = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
    const bad = EXAMPLES_BAD_INTEGER.filter((v) => !/^-?\d+$/.test(v) || Number(v) < min || Number(v) > max);
    candidates.push(fc.constantFrom(...bad).map((v) => bySchema(v, 'bad-integer')));
  } else if (schema.type === 'boolean') {
    candidates.push(fc.constantFrom(...EXAMPLES_BAD_BOOLEAN).map((v) => bySchema(v, 'bad-boolean')));
  } else if (Array.isArray(schema.enum)) {
    const allowed = schema.enum as unknown[];
    candidates.push(fc.constantFrom('products', 'PRODUCT', 'ü', ' product').filter((v) => !allowed.includes(v)).map((v) => bySchema(v, 'bad-enum')));
  }
  if (typeof schema.maxLength === 'number') {
    const max = schema.maxLength;
    candidates.push(fc.constantFrom('a', 'é', '中', '😀').map((ch) => bySchema(ch.repeat(max + 1), 'too-long')));
  }
  if (typeof schema.minLength === 'number' && schema.minLength > 0) candidates.push(fc.constant(bySchema('', 'too-short')));
  if (p.name === 'cursor') {
    // Valid by the schema (a string), refused by the prose: "pass pagination.nextCursor back verbatim".
    const prose = (cursor: CursorChoice, kind: string) => ({ value: { kind: 'cursor', cursor } as QueryValue, defect: { target: 'query', kind, fields: field, bySchema: false } as Defect });
    candidates.push(fc.constantFrom('not-a-cursor', 'eyJ2IjoxfQ', 'eyJ2IjoxLCJsIjoieCIsImkiOi0xLCJwIjowfQ', '%%%', '😀', 'null').map((value) => prose({ kind: 'literal', value }, 'garbage-cursor')));
    candidates.push(fc.constant(prose({ kind: 'foreign' }, 'foreign-cursor')));
  }
  return fc.oneof(...candidates);
}

// ---------------------------------------------------------------------------------------------
// Headers

const IDEMPOTENCY_KEY_NODE = nodeAt('#/components/schemas/IdempotencyKey');
const IF_MATCH_MAX = (() => {
  const p = operationsList.flatMap((op) => op.parameters).find((x) => x.in === 'header' && x.name.toLowerCase() === 'if-match');
  return p && typeof paramNode(p).schema.maxLength === 'number' ? (paramNode(p).schema.maxLength as number) : 2048;
})();

/** A key stem valid by the document's pattern (quotes stripped: the plan adds them). */
const keyStem = stringArb(IDEMPOTENCY_KEY_NODE.schema, { location: 'header' })
  .map((k) => k.replace(/^"|"$/g, ''))
  .map((k) => k.slice(0, 200));

const validKeyArb: fc.Arbitrary<KeyChoice> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('fresh' as const), stem: keyStem, quoted: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reuse' as const), n: fc.nat({ max: 20 }), quoted: fc.boolean() }) },
);

const BAD_KEYS = ['has space', 'slash/key', 'at@sign', 'comma,key', '"unterminated', 'end"', 'q"uo"te', '(paren)', 'a;b', 'x'.repeat(256), '"' + 'y'.repeat(256) + '"', 'tab\tkey'];

const badKeyArb: fc.Arbitrary<KeyChoice> = fc.constantFrom(...BAD_KEYS).map((value) => ({ kind: 'literal', value }));

const validIfMatchArb: fc.Arbitrary<IfMatchChoice> = fc.constantFrom<IfMatchChoice>(
  { kind: 'current' },
  { kind: 'current' },
  { kind: 'weak-current' },
  { kind: 'list-with-current' },
  { kind: 'stale' },
  { kind: 'any' },
);

/** Not `*` nor a list of entity tags (the prose), or longer than the schema's maxLength. */
const badIfMatchArb: fc.Arbitrary<{ value: IfMatchChoice; defect: Defect }> = fc.oneof(
  fc.constantFrom('abc', 'W/abc', '"a" "b"', '"a",,"b"', '""x', '*,"a"', 'W/', '"unterminated', ' ').map((value) => ({
    value: { kind: 'literal', value } as IfMatchChoice,
    defect: { target: 'if-match', kind: 'not-an-entity-tag', fields: ['If-Match'], bySchema: false } as Defect,
  })),
  fc.constantFrom('a', 'b').map((ch) => ({
    value: { kind: 'literal', value: `"${ch.repeat(IF_MATCH_MAX)}"` } as IfMatchChoice,
    defect: { target: 'if-match', kind: 'too-long', fields: ['If-Match'], bySchema: true } as Defect,
  })),
  fc.constant({ value: { kind: 'literal', value: '' } as IfMatchChoice, defect: { target: 'if-match', kind: 'too-short', fields: ['If-Match'], bySchema: true } as Defect }),
);

// ---------------------------------------------------------------------------------------------
// Bodies

const JSON_CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'Application/JSON'];

function bodyNode(op: OperationInfo): SchemaNode | undefined {
  return op.requestBody ? nodeAt(op.requestBody.schemaPointer) : undefined;
}

function validBodyArb(op: OperationInfo): fc.Arbitrary<unknown> | undefined {
  const node = bodyNode(op);
  return node ? valueArb(node, { location: 'body' }) : undefined;
}

/** The body is invalid by the schema (only the conditional rules can make a generated body so): its defect. */
function naturalDefect(op: OperationInfo, value: unknown): Defect | undefined {
  const node = bodyNode(op);
  if (!node) return undefined;
  if (validatorFor(node.pointer)(placeholders(value))) return undefined;
  return { target: 'body', kind: 'conditional', fields: conditionalFields(node), bySchema: true };
}

// ---------------------------------------------------------------------------------------------
// Plans

function pathParamsArb(op: OperationInfo): fc.Arbitrary<Record<string, Ref | string>> {
  const model: Record<string, fc.Arbitrary<Ref | string>> = {};
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    const pool = poolOfPathParam(op.path, p.name);
    // `.` and `..` are dot-segments: a URL cannot address them as ids (clients and servers
    // normalize them away), so they are not sent.
    const plain = stringArb(paramNode(p).schema, { location: 'path' }).filter((v) => v !== '.' && v !== '..');
    model[p.name] = pool ? fc.oneof({ weight: 12, arbitrary: refArb(pool) }, { weight: 1, arbitrary: plain }) : plain;
  }
  return fc.record(model);
}

function queryArb(op: OperationInfo): fc.Arbitrary<[string, QueryValue][]> {
  const params = op.parameters.filter((p) => p.in === 'query');
  const entries = params.map((p) => fc.option(queryValueArb(op, p), { nil: undefined, freq: 2 }).map((v) => (v === undefined ? [] : [[p.name, v] as [string, QueryValue]])));
  const unknown = fc.option(fc.constantFrom<[string, QueryValue]>(['unknownParam', { kind: 'raw', value: '1' }], ['LIMIT', { kind: 'raw', value: 'x' }]), { nil: undefined, freq: 8 });
  return fc.tuple(fc.tuple(...entries), unknown).map(([lists, extra]) => [...lists.flat(), ...(extra ? [extra] : [])]);
}

function headersArb(op: OperationInfo): fc.Arbitrary<{ idempotencyKey?: KeyChoice; ifMatch?: IfMatchChoice }> {
  const key: fc.Arbitrary<KeyChoice | undefined> =
    op.idempotencyKey === 'required'
      ? validKeyArb
      : op.idempotencyKey === 'optional'
        ? fc.option(validKeyArb, { nil: undefined, freq: 2 })
        : fc.option(badKeyArb, { nil: undefined, freq: 12 }); // ignored where the operation reads no key
  const ifMatch: fc.Arbitrary<IfMatchChoice | undefined> = op.ifMatch
    ? fc.option(validIfMatchArb, { nil: undefined, freq: 2 })
    : fc.option(fc.constant<IfMatchChoice>({ kind: 'literal', value: 'not-read-here' }), { nil: undefined, freq: 12 });
  return fc.record({ idempotencyKey: key, ifMatch }).map((h) => ({
    ...(h.idempotencyKey !== undefined ? { idempotencyKey: h.idempotencyKey } : {}),
    ...(h.ifMatch !== undefined ? { ifMatch: h.ifMatch } : {}),
  }));
}

function bodyArb(op: OperationInfo): fc.Arbitrary<BodyChoice | undefined> {
  const valid = validBodyArb(op);
  if (!valid) {
    // No body is read here: one sent anyway (a body on a GET or a DELETE, even a large one) is ignored.
    return fc.option(
      fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom<BodyChoice>({ kind: 'json', value: { ignored: true }, contentType: 'application/json' }, { kind: 'raw', text: 'not json', contentType: 'text/plain' }) },
        { weight: 1, arbitrary: fc.constant<BodyChoice>({ kind: 'huge', bytes: 1024 * 1024 + 64 }) },
      ),
      { nil: undefined, freq: 10 },
    );
  }
  const json = fc.tuple(valid, fc.constantFrom(...JSON_CONTENT_TYPES)).map(([value, contentType]): BodyChoice => ({ kind: 'json', value, contentType }));
  return op.requestBody!.required ? json : fc.option(json, { nil: undefined, freq: 2 });
}

/** A valid plan of the operation (no defect, except a conditional rule the body happened to break). */
function validPlanArb(op: OperationInfo): fc.Arbitrary<RequestPlan> {
  return fc.record({ pathParams: pathParamsArb(op), query: queryArb(op), headers: headersArb(op), body: bodyArb(op) }).map(({ pathParams, query, headers, body }) => {
    const plan: RequestPlan = { operationId: op.operationId, auth: 'valid', pathParams, query, ...headers };
    if (body) plan.body = body;
    const natural = body?.kind === 'json' ? naturalDefect(op, body.value) : undefined;
    if (natural) plan.defect = natural;
    return plan;
  });
}

type Modifier = fc.Arbitrary<(plan: RequestPlan) => RequestPlan>;

/** One defect of each kind the operation admits, as a change to a valid plan. */
function defectModifiers(op: OperationInfo): { weight: number; arbitrary: Modifier }[] {
  const out: { weight: number; arbitrary: Modifier }[] = [];
  const withDefect = (defect: Defect, change: Partial<RequestPlan>) => (plan: RequestPlan): RequestPlan => ({ ...plan, ...change, defect });

  // Path: an id longer than the schema allows.
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  if (pathParams.length > 0) {
    out.push({
      weight: 30,
      arbitrary: fc.tuple(fc.constantFrom(...pathParams), fc.constantFrom('a', 'é', '中'), fc.nat({ max: 50 })).map(([p, ch, extra]) => {
        const max = typeof paramNode(p).schema.maxLength === 'number' ? (paramNode(p).schema.maxLength as number) : 200;
        return (plan: RequestPlan) => ({ ...plan, pathParams: { ...plan.pathParams, [p.name]: ch.repeat(max + 1 + extra) }, defect: { target: 'path', kind: 'too-long', fields: [p.name], bySchema: true } });
      }),
    });
  }

  // Query: a bad value, or a parameter sent twice.
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  if (queryParams.length > 0) {
    out.push({
      weight: 60,
      arbitrary: fc.constantFrom(...queryParams).chain((p) =>
        badQueryValueArb(p).map(({ value, defect }) => (plan: RequestPlan) => ({ ...plan, query: [...plan.query.filter(([n]) => n !== p.name), [p.name, value]], defect })),
      ),
    });
  }
  const repeatable = queryParams.filter((p) => p.name !== 'cursor');
  if (repeatable.length > 0) {
    out.push({
      weight: 10,
      arbitrary: fc.constantFrom(...repeatable).chain((p) =>
        fc.tuple(queryValueArb(op, p), queryValueArb(op, p)).map(([a, b]) => (plan: RequestPlan) => ({
          ...plan,
          query: [...plan.query.filter(([n]) => n !== p.name), [p.name, a], [p.name, b]],
          defect: { target: 'query', kind: 'duplicate', fields: [p.name], bySchema: true },
        })),
      ),
    });
  }

  // Idempotency-Key.
  if (op.idempotencyKey !== 'none') {
    const missing = op.idempotencyKey === 'required' ? [fc.constant(withDefect({ target: 'idempotency-key', kind: 'missing', fields: [], bySchema: true }, { idempotencyKey: undefined }))] : [];
    out.push({
      weight: 40,
      arbitrary: fc.oneof(
        ...missing,
        fc.constant(withDefect({ target: 'idempotency-key', kind: 'empty', fields: [], bySchema: true }, { idempotencyKey: { kind: 'literal', value: '' } })),
        badKeyArb.map((key) => withDefect({ target: 'idempotency-key', kind: 'malformed', fields: [], bySchema: true }, { idempotencyKey: key })),
      ),
    });
  }

  // If-Match.
  if (op.ifMatch) out.push({ weight: 30, arbitrary: badIfMatchArb.map(({ value, defect }) => withDefect(defect, { ifMatch: value })) });

  // Authentication and scope.
  out.push({
    weight: 20,
    arbitrary: fc.constantFrom<AuthChoice>('none', 'malformed', 'unknown', 'wrong-scope').map((auth) => withDefect({ target: 'auth', kind: auth, fields: [], bySchema: false }, { auth })),
  });

  // Body.
  const node = bodyNode(op);
  const valid = validBodyArb(op);
  if (node && valid) {
    out.push({
      weight: 140,
      arbitrary: fc.tuple(valid, fc.nat(), fc.nat()).map(([value, site, variant]) => {
        const mutation = mutate(node, value, site, variant);
        return (plan: RequestPlan): RequestPlan => {
          if (!mutation) return plan; // the change left the body valid: not a defect
          return { ...plan, body: { kind: 'json', value: mutation.value, contentType: 'application/json' }, defect: { target: 'body', kind: mutation.kind, fields: [formatField(mutation.field)], bySchema: true } };
        };
      }),
    });
    out.push({
      weight: 20,
      arbitrary: fc.constantFrom('{', '{"a":', '{,}', 'nul', '[1,]', "{'a':1}", '{"a":1}}', '\u00ff\u00fe').map((text) => withDefect({ target: 'malformed-json', kind: 'malformed-json', fields: ['body'], bySchema: true }, { body: { kind: 'raw', text, contentType: 'application/json' } })),
    });
    out.push({
      weight: 20,
      arbitrary: fc.tuple(valid, fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined)).map(([value, contentType]) =>
        withDefect({ target: 'content-type', kind: contentType ?? 'unlabelled', fields: [], bySchema: false }, { body: { kind: 'raw', text: JSON.stringify(placeholders(value)), ...(contentType ? { contentType } : {}) } }),
      ),
    });
    if (op.requestBody!.required) out.push({ weight: 10, arbitrary: fc.constant((plan: RequestPlan): RequestPlan => { const { body: _b, ...rest } = plan; return { ...rest, defect: { target: 'missing-body', kind: 'missing-body', fields: ['body'], bySchema: true } }; }) });
    out.push({ weight: 2, arbitrary: fc.constant(withDefect({ target: 'body-too-large', kind: 'over-1-MiB', fields: [], bySchema: false }, { body: { kind: 'huge', bytes: 1024 * 1024 + 64 } })) });
  }
  return out;
}

/** Plans of one operation: mostly valid, about a third with one defect. */
function planArb(op: OperationInfo): fc.Arbitrary<RequestPlan> {
  const valid = validPlanArb(op);
  const modifiers = defectModifiers(op);
  const defective = fc.tuple(valid, fc.oneof(...modifiers)).map(([plan, modify]) => {
    const { defect: _natural, ...clean } = plan;
    return modify(clean);
  });
  return fc.oneof({ weight: 2, arbitrary: valid }, { weight: 1, arbitrary: defective });
}

const planArbs = new Map<string, fc.Arbitrary<RequestPlan>>();

function planArbFor(operationId: string): fc.Arbitrary<RequestPlan> {
  let arb = planArbs.get(operationId);
  if (!arb) {
    const op = operationsList.find((o) => o.operationId === operationId);
    if (!op) throw new Error(`no operation ${operationId}`);
    arb = planArb(op);
    planArbs.set(operationId, arb);
  }
  return arb;
}

/** Any step of a fuzz sequence; `operations` limits the requests to some operations (default: all). */
export function stepArb(operations: readonly string[] = operationsList.map((o) => o.operationId)): fc.Arbitrary<Step> {
  const request = fc.oneof(...operations.map((id) => planArbFor(id))).map((plan): Step => ({ kind: 'request', plan }));
  const advance = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 30 }) }, { weight: 2, arbitrary: fc.integer({ min: 31, max: 900 }) }, { weight: 1, arbitrary: fc.constant(25 * 3600) }).map((seconds): Step => ({ kind: 'advance', seconds }));
  const dashboard = fc
    .record({
      action: fc.constantFrom<DashboardActionName>('generateCreatives', 'generateCreatives', 'removeProductFromCampaign', 'regenerateCreative', 'startGeneration', 'finishGeneration'),
      campaign: refArb('campaign'),
      product: refArb('product'),
      creative: refArb('creative'),
      mediaType: fc.constantFrom<'image' | 'video'>('image', 'video'),
    })
    .map((d): Step => ({ kind: 'dashboard', ...d }));
  return fc.oneof({ weight: 40, arbitrary: request }, { weight: 3, arbitrary: fc.constant<Step>({ kind: 'repeat' }) }, { weight: 4, arbitrary: advance }, { weight: 3, arbitrary: dashboard });
}

