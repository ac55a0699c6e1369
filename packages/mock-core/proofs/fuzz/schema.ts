/**
 * JSON Schema → fast-check arbitrary, for the subset packages/contract/spec/openapi.yaml uses in requests: objects
 * (properties, required, additionalProperties as `false` or a schema, propertyNames,
 * min/maxProperties), arrays (items, min/maxItems, uniqueItems), strings (enum, const, pattern,
 * min/maxLength), integers and numbers (minimum, maximum), booleans, nulls, type arrays, oneOf,
 * anyOf, allOf (object parts merged; `if`/`then` parts are left to the validator) and internal
 * `$ref`. Every value generated is meant to be valid by the node it was generated from; callers
 * that need certainty check it with the document's own validator (`validatorFor`).
 *
 * Ids: a string the document types as an id of a resource (the property or parameter is named
 * `productId`, `brandId`, `assetId`, ...) is generated as a `Ref` into a pool of the account's
 * state, resolved only when the request is sent, so that valid requests reach the success paths
 * instead of 404s. The pools are named after the property, never listed per operation.
 */
import fc from 'fast-check';
import { resolvePointer } from '../../../contract/spec/contract.ts';

export type Schema = Readonly<Record<string, unknown>>;

/** A schema node and the pointer it was read from (for `validatorFor`). */
export interface SchemaNode {
  schema: Schema;
  pointer: string;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapeSegment(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

export function childPointer(pointer: string, ...segments: (string | number)[]): string {
  return pointer + segments.map((s) => `/${escapeSegment(String(s))}`).join('');
}

/**
 * The node with its `$ref` followed, and the pointer of the target (so that child pointers such as
 * `.../oneOf/0` exist). Annotations beside a `$ref` (`description`, `x-assumption`) are kept; in
 * this document nothing beside a `$ref` constrains.
 */
export function deref(node: SchemaNode): SchemaNode {
  let schema = node.schema;
  let pointer = node.pointer;
  const seen = new Set<string>();
  while (typeof schema['$ref'] === 'string') {
    const ref = schema['$ref'];
    if (seen.has(ref)) throw new Error(`$ref cycle at ${ref}`);
    seen.add(ref);
    const target = resolvePointer(ref);
    if (!isRecord(target)) throw new Error(`${node.pointer}: $ref ${ref} does not resolve`);
    const { $ref: _ignored, ...siblings } = schema;
    schema = { ...target, ...siblings };
    pointer = ref;
  }
  return { schema, pointer };
}

export function nodeAt(pointer: string): SchemaNode {
  const schema = resolvePointer(pointer);
  if (!isRecord(schema)) throw new Error(`no schema at ${pointer}`);
  return { schema, pointer };
}

// ---------------------------------------------------------------------------------------------
// Pools of ids

const POOLS = ['product', 'brand', 'preset', 'creative', 'campaign', 'asset', 'run', 'upscale', 'delivery', 'sku', 'rateCardVersion'] as const;
export type Pool = (typeof POOLS)[number];

/** The pool a property or parameter name draws from (`productIds` → product). */
export function poolOfName(name: string): Pool | undefined {
  const base = name.replace(/Ids$/, 'Id');
  const table: Record<string, Pool> = {
    productId: 'product',
    brandId: 'brand',
    presetId: 'preset',
    creativeId: 'creative',
    campaignId: 'campaign',
    assetId: 'asset',
    runId: 'run',
    upscaleId: 'upscale',
    deliveryId: 'delivery',
    sku: 'sku',
    expectedRateCardVersion: 'rateCardVersion',
  };
  return table[base];
}

/** The pool of a path parameter: named after it, or (`{id}`) after the collection segment before it. */
export function poolOfPathParam(template: string, name: string): Pool | undefined {
  const byName = poolOfName(name);
  if (byName) return byName;
  const segments = template.split('/').filter(Boolean);
  const index = segments.indexOf(`{${name}}`);
  const collection = index > 0 ? segments[index - 1]! : '';
  const singular = collection.endsWith('ies') ? `${collection.slice(0, -3)}y` : collection.replace(/s$/, '');
  return (POOLS as readonly string[]).includes(singular) ? (singular as Pool) : undefined;
}

/** An id taken from a pool of the account's state when the request is sent: the n-th (mod size). */
export class Ref {
  constructor(
    readonly pool: Pool,
    readonly n: number,
  ) {}
  toJSON(): string {
    return `<${this.pool}#${this.n}>`;
  }
  [fc.toStringMethod](): string {
    return `ref(${this.pool}#${this.n})`;
  }
}

/** Distinct ids from one pool (for `uniqueItems` arrays of ids). */
export class RefList {
  constructor(
    readonly pool: Pool,
    readonly ns: readonly number[],
  ) {}
  toJSON(): string[] {
    return this.ns.map((n) => `<${this.pool}#${n}>`);
  }
  [fc.toStringMethod](): string {
    return `refs(${this.pool}#${this.ns.join(',')})`;
  }
}

const refIndex = fc.oneof({ weight: 4, arbitrary: fc.nat({ max: 12 }) }, { weight: 1, arbitrary: fc.nat({ max: 400 }) });

export function refArb(pool: Pool): fc.Arbitrary<Ref> {
  return refIndex.map((n) => new Ref(pool, n));
}

// ---------------------------------------------------------------------------------------------
// Strings

/** Length as JSON Schema counts it: code points. */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Characters for boundary strings: ASCII, Latin-1, CJK, astral (two UTF-16 units), emoji. */
export const BOUNDARY_CHARS = ['a', 'é', '中', '𝕏', '😀'] as const;

export interface StringOptions {
  /** Where the string goes: header values must stay printable ASCII. */
  location: 'body' | 'path' | 'query' | 'header';
}

export function stringArb(schema: Schema, options: StringOptions): fc.Arbitrary<string> {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : 64;
  const inRange = (s: string): boolean => {
    const n = codePoints(s);
    return n >= min && n <= max;
  };
  if (typeof schema.pattern === 'string') {
    const re = new RegExp(schema.pattern);
    const matching = fc.stringMatching(re).filter(inRange);
    if (options.location === 'header') return matching;
    // Unicode that still matches (the document's patterns are mostly negated classes).
    const unicode = fc.string({ unit: 'grapheme', minLength: Math.max(1, min), maxLength: Math.min(max, 12) }).filter((s) => re.test(s) && inRange(s));
    return fc.oneof({ weight: 4, arbitrary: matching }, { weight: 1, arbitrary: unicode });
  }
  const short = Math.min(max, 24);
  const arbitraries: fc.WeightedArbitrary<string>[] = [
    { weight: 8, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: min, maxLength: short }) },
  ];
  if (options.location !== 'header') {
    arbitraries.push({ weight: 3, arbitrary: fc.string({ unit: 'grapheme', minLength: min, maxLength: short }).filter(inRange) });
    // Exactly at the bound, in characters that are 1 to 4 UTF-8 bytes and 1 or 2 UTF-16 units.
    arbitraries.push({ weight: 1, arbitrary: fc.constantFrom(...BOUNDARY_CHARS).map((ch) => ch.repeat(max)) });
    if (min > 0) arbitraries.push({ weight: 1, arbitrary: fc.constantFrom(...BOUNDARY_CHARS).map((ch) => ch.repeat(min)) });
  }
  return fc.oneof(...arbitraries);
}

// ---------------------------------------------------------------------------------------------
// Any node

export interface ValueOptions extends StringOptions {
  /** The pool this value's ids come from (from the property name). */
  pool?: Pool;
}

function typesOf(schema: Schema): string[] | undefined {
  const t = schema.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  return undefined;
}

/** An arbitrary of values valid by the node (see the module comment for the subset). */
export function valueArb(input: SchemaNode, options: ValueOptions): fc.Arbitrary<unknown> {
  const { schema, pointer } = deref(input);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) {
      const base = { ...schema };
      delete base[keyword];
      return fc.oneof(...branches.map((b, i) => valueArb({ schema: mergeSchemas(base, b as Schema), pointer: childPointer(pointer, keyword, i) }, options)));
    }
  }
  if (Array.isArray(schema.allOf)) {
    // Object parts merge; `if`/`then` parts constrain only, and the caller's validator decides.
    let merged: Schema = { ...schema };
    delete (merged as Record<string, unknown>).allOf;
    for (const part of schema.allOf as Schema[]) {
      if ('if' in part) continue;
      merged = mergeSchemas(merged, deref({ schema: part, pointer }).schema);
    }
    return valueArb({ schema: merged, pointer }, options);
  }
  const types = typesOf(schema) ?? (schema.properties || schema.additionalProperties !== undefined ? ['object'] : ['string']);
  const arbitraries = types.map((type) => ({ weight: type === 'null' ? 1 : 4, arbitrary: typedArb(type, { schema, pointer }, options) }));
  return arbitraries.length === 1 ? arbitraries[0]!.arbitrary : fc.oneof(...arbitraries);
}

function mergeSchemas(a: Schema, b: Schema): Schema {
  const out: Record<string, unknown> = { ...a, ...b };
  if (isRecord(a.properties) || isRecord(b.properties)) out.properties = { ...(isRecord(a.properties) ? a.properties : {}), ...(isRecord(b.properties) ? b.properties : {}) };
  if (Array.isArray(a.required) || Array.isArray(b.required)) out.required = [...new Set([...((a.required as string[]) ?? []), ...((b.required as string[]) ?? [])])];
  return out;
}

function typedArb(type: string, node: SchemaNode, options: ValueOptions): fc.Arbitrary<unknown> {
  const { schema, pointer } = node;
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -1_000_000;
      const max = typeof schema.maximum === 'number' ? schema.maximum : min + 2_000_000;
      return fc.oneof({ weight: 4, arbitrary: fc.integer({ min, max }) }, { weight: 1, arbitrary: fc.constantFrom(min, max) });
    }
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -1e9;
      const max = typeof schema.maximum === 'number' ? schema.maximum : 1e9;
      return fc.oneof(
        fc.integer({ min: Math.ceil(Math.max(min, -1e6)), max: Math.floor(Math.min(max, 1e6)) }),
        fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
        fc.constantFrom(min, max),
      );
    }
    case 'string':
      if (options.pool) return fc.oneof({ weight: 6, arbitrary: refArb(options.pool) }, { weight: 1, arbitrary: stringArb(schema, options) });
      return stringArb(schema, options);
    case 'array':
      return arrayArb(node, options);
    case 'object':
      return objectArb(node, options);
    default:
      throw new Error(`${pointer}: type ${type} is not supported by the generator`);
  }
}

function arrayArb(node: SchemaNode, options: ValueOptions): fc.Arbitrary<unknown> {
  const { schema, pointer } = node;
  const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const maxLength = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 8, Math.max(minLength, 8));
  if (!isRecord(schema.items)) return fc.constant([]);
  const items: SchemaNode = { schema: schema.items, pointer: childPointer(pointer, 'items') };
  if (options.pool) {
    // Distinct ids of the pool, resolved when sent (mostly), or plain strings.
    // Mostly short lists: a long one is rarely consistent (one brand, a total within bounds).
    const length = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: minLength, max: Math.min(maxLength, Math.max(minLength, 2)) }) }, { weight: 1, arbitrary: fc.integer({ min: minLength, max: maxLength }) });
    const refs = length.chain((n) => fc.uniqueArray(refIndex, { minLength: n, maxLength: n })).map((ns) => new RefList(options.pool!, ns));
    const plain = fc.uniqueArray(valueArb(items, { ...options, pool: undefined }), { minLength, maxLength, selector: (v) => JSON.stringify(v) });
    return fc.oneof({ weight: 6, arbitrary: refs }, { weight: 1, arbitrary: plain });
  }
  const element = valueArb(items, options);
  if (schema.uniqueItems === true) return fc.uniqueArray(element, { minLength, maxLength, selector: (v) => JSON.stringify(v) });
  return fc.array(element, { minLength, maxLength });
}

function objectArb(node: SchemaNode, options: ValueOptions): fc.Arbitrary<unknown> {
  const { schema, pointer } = node;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  const maxProperties = typeof schema.maxProperties === 'number' ? schema.maxProperties : Infinity;
  const names = Object.keys(properties);
  if (names.length > 0) {
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const name of names) {
      model[name] = valueArb({ schema: properties[name] as Schema, pointer: childPointer(pointer, 'properties', name) }, { location: options.location, pool: poolOfName(name) });
    }
    return fc
      .record(model, { requiredKeys: required.filter((r) => names.includes(r)) })
      .map((value) => ({ ...value }) as Record<string, unknown>)
      .filter((value) => Object.keys(value).length >= minProperties && Object.keys(value).length <= maxProperties);
  }
  if (isRecord(schema.additionalProperties)) {
    // A map (metadata): keys from propertyNames, values from additionalProperties.
    const keys = isRecord(schema.propertyNames)
      ? (valueArb({ schema: schema.propertyNames, pointer: childPointer(pointer, 'propertyNames') }, { location: options.location }) as fc.Arbitrary<string>)
      : fc.string({ minLength: 1, maxLength: 12 });
    const values = valueArb({ schema: schema.additionalProperties, pointer: childPointer(pointer, 'additionalProperties') }, { location: options.location });
    const maxKeys = Math.min(maxProperties, 6);
    return fc
      .dictionary(keys, values, { minKeys: Math.min(minProperties, maxKeys), maxKeys })
      .map((value) => ({ ...value }) as Record<string, unknown>);
  }
  return fc.constant({});
}

/** A copy of a generated value with every Ref replaced by a string that is a valid id (for validation before resolving). */
export function placeholders(value: unknown): unknown {
  if (value instanceof Ref) return `ref_${value.pool}_${value.n}`;
  if (value instanceof RefList) return value.ns.map((n) => `ref_${value.pool}_${n}`);
  if (Array.isArray(value)) return value.map(placeholders);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, placeholders(v)]));
  return value;
}
