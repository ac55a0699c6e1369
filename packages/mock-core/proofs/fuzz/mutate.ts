/**
 * Deliberately invalid bodies: walk a valid value alongside its schema, list every place where a
 * single change makes it invalid by the document (a mutation site), and apply one. Each mutation
 * remembers the field it broke, so the answer can be checked for naming it (`errors[].field`, in
 * the document's path notation: `metadata.color`, `productIds[2]`, `source.assetId`).
 *
 * Sites come from the schema, not from a list per operation: a required property can be dropped,
 * a closed object takes an unknown field, any value can take another JSON type, strings can be too
 * long, too short, off their enum or pattern, numbers off their range or not integers, arrays too
 * short, too long or with duplicates, maps take an invalid key or too many keys.
 */
import { validatorFor } from '../../../contract/spec/contract.ts';
import { BOUNDARY_CHARS, childPointer, deref, isRecord, placeholders, Ref, RefList, type Schema, type SchemaNode } from './schema.ts';

export type PathSegment = string | number;

const MUTATION_KINDS = [
  'drop-required',
  'unknown-field',
  'wrong-type',
  'too-long',
  'huge-string',
  'too-short',
  'bad-enum',
  'bad-pattern',
  'below-minimum',
  'above-maximum',
  'not-integer',
  'too-few-items',
  'too-many-items',
  'duplicate-items',
  'bad-key',
  'too-many-keys',
  'empty-object',
] as const;
export type MutationKind = (typeof MUTATION_KINDS)[number];

export interface Site {
  kind: MutationKind;
  /** Where the change is made (the object holding a dropped or added field, or the value replaced). */
  at: PathSegment[];
  node: SchemaNode;
  /** The dropped field (drop-required). */
  name?: string;
}

export interface Mutation {
  kind: MutationKind;
  value: unknown;
  /** The field that was broken, as a path. */
  field: PathSegment[];
}

/** The document's path notation: `a.b[2].c`; the root is `body`. */
export function formatField(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) out += typeof segment === 'number' ? `[${segment}]` : out ? `.${segment}` : segment;
  return out || 'body';
}

/** Whether `named` is the field `broken` or one of its parents (`source` for `source.assetId`). */
export function namesFieldOrParent(named: string, broken: string): boolean {
  return named === broken || broken.startsWith(`${named}.`) || broken.startsWith(`${named}[`);
}

function valid(pointer: string, value: unknown): boolean {
  return validatorFor(pointer)(placeholders(value)) === true;
}

/** The branch of a oneOf/anyOf the value validates against (the first), or undefined. */
function effective(node: SchemaNode, value: unknown): SchemaNode {
  const d = deref(node);
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const branches = d.schema[keyword];
    if (Array.isArray(branches)) {
      for (let i = 0; i < branches.length; i++) {
        const branch = deref({ schema: branches[i] as Schema, pointer: childPointer(d.pointer, keyword, i) });
        if (valid(branch.pointer, value)) return effective(branch, value);
      }
    }
  }
  return d;
}

/** Every mutation site of `value` (valid by `root`). */
export function mutationSites(root: SchemaNode, value: unknown): Site[] {
  const sites: Site[] = [];
  const walk = (input: SchemaNode, v: unknown, at: PathSegment[]): void => {
    const node = effective(input, v);
    const s = node.schema;
    // The value's own node, not the oneOf branch it matched: another type may be another branch's.
    sites.push({ kind: 'wrong-type', at, node: input });
    if (v instanceof RefList) {
      const list = v;
      v = list.ns.map((n) => new Ref(list.pool, n));
    }
    if (typeof v === 'string' || v instanceof Ref) {
      if (typeof s.maxLength === 'number') sites.push({ kind: 'too-long', at, node }, { kind: 'huge-string', at, node });
      if (typeof s.minLength === 'number' && s.minLength > 0) sites.push({ kind: 'too-short', at, node });
      if (Array.isArray(s.enum)) sites.push({ kind: 'bad-enum', at, node });
      if (typeof s.pattern === 'string') sites.push({ kind: 'bad-pattern', at, node });
    } else if (typeof v === 'number') {
      if (typeof s.minimum === 'number') sites.push({ kind: 'below-minimum', at, node });
      if (typeof s.maximum === 'number') sites.push({ kind: 'above-maximum', at, node });
      if (s.type === 'integer') sites.push({ kind: 'not-integer', at, node });
    } else if (Array.isArray(v)) {
      if (typeof s.minItems === 'number' && s.minItems > 0) sites.push({ kind: 'too-few-items', at, node });
      if (typeof s.maxItems === 'number') sites.push({ kind: 'too-many-items', at, node });
      if (s.uniqueItems === true && v.length > 0) sites.push({ kind: 'duplicate-items', at, node });
      if (isRecord(s.items)) v.forEach((item, i) => walk({ schema: s.items as Schema, pointer: childPointer(node.pointer, 'items') }, item, [...at, i]));
    } else if (isRecord(v)) {
      const properties = isRecord(s.properties) ? s.properties : {};
      const required = Array.isArray(s.required) ? (s.required as string[]) : [];
      for (const name of required) if (name in v) sites.push({ kind: 'drop-required', at, node, name });
      if (s.additionalProperties === false) sites.push({ kind: 'unknown-field', at, node });
      if (typeof s.minProperties === 'number' && s.minProperties > 0 && required.length === 0) sites.push({ kind: 'empty-object', at, node });
      if (isRecord(s.propertyNames)) sites.push({ kind: 'bad-key', at, node });
      if (typeof s.maxProperties === 'number' && s.additionalProperties !== false) sites.push({ kind: 'too-many-keys', at, node });
      for (const [name, child] of Object.entries(v)) {
        const sub = isRecord(properties[name])
          ? { schema: properties[name] as Schema, pointer: childPointer(node.pointer, 'properties', name) }
          : isRecord(s.additionalProperties)
            ? { schema: s.additionalProperties, pointer: childPointer(node.pointer, 'additionalProperties') }
            : undefined;
        if (sub) walk(sub, child, [...at, name]);
      }
    }
  };
  walk(root, value, []);
  return sites;
}

function getAt(value: unknown, path: readonly PathSegment[]): unknown {
  let v = value;
  for (const segment of path) v = (v as Record<string | number, unknown>)[segment];
  return v;
}

/** A deep copy in which the node at `path` is replaced by `replace(old)`; RefLists on the way become arrays of Refs. */
function setAt(value: unknown, path: readonly PathSegment[], replace: (old: unknown) => unknown): unknown {
  if (path.length === 0) return replace(value);
  const [head, ...rest] = path;
  let container = value;
  if (container instanceof RefList) container = container.ns.map((n) => new Ref((value as RefList).pool, n));
  if (Array.isArray(container)) {
    const copy = [...container];
    copy[head as number] = setAt(copy[head as number], rest, replace);
    return copy;
  }
  const copy: Record<string, unknown> = { ...(container as Record<string, unknown>) };
  Object.defineProperty(copy, head as string, { value: setAt(copy[head as string], rest, replace), enumerable: true, writable: true, configurable: true });
  return copy;
}

function jsonType(v: unknown): string {
  if (v instanceof Ref) return 'string';
  if (v instanceof RefList || Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

const WRONG_TYPES: readonly unknown[] = [42, 'text', true, null, [], {}, 1.5, ['x'], { a: 1 }];

function pick<T>(candidates: readonly T[], variant: number): T | undefined {
  return candidates.length === 0 ? undefined : candidates[variant % candidates.length];
}

/** Apply the site's mutation (variant chooses among the ways to break it), or undefined when none applies. */
export function applySite(value: unknown, site: Site, variant: number): Mutation | undefined {
  const { node, at } = site;
  const s = node.schema;
  const invalidFor = (candidate: unknown): boolean => !valid(node.pointer, candidate);
  const replaceWith = (replacement: unknown, field: PathSegment[] = at): Mutation => ({ kind: site.kind, value: setAt(value, at, () => replacement), field });
  const ch = BOUNDARY_CHARS[variant % BOUNDARY_CHARS.length]!;
  switch (site.kind) {
    case 'wrong-type': {
      const current = jsonType(getAt(value, at));
      const candidate = pick(WRONG_TYPES.filter((c) => jsonType(c) !== current && invalidFor(c)), variant);
      return candidate === undefined ? undefined : replaceWith(candidate);
    }
    case 'too-long':
      return replaceWith(ch.repeat((s.maxLength as number) + 1 + (variant % 3)));
    case 'huge-string':
      return replaceWith(ch.repeat(Math.max((s.maxLength as number) + 1, 100_000)));
    case 'too-short':
      return replaceWith(''.padEnd((s.minLength as number) - 1, 'a'));
    case 'bad-enum': {
      const candidate = pick(['', 'NOT_IN_ENUM', 'ümlaut', String((s.enum as unknown[])[0]).toLowerCase() + 'x', ' '].filter(invalidFor), variant);
      return candidate === undefined ? undefined : replaceWith(candidate);
    }
    case 'bad-pattern': {
      const candidate = pick(['', ' ', 'a\u0000b', '[x]', '\u007f', 'tab\there', 'a b c'].filter(invalidFor), variant);
      return candidate === undefined ? undefined : replaceWith(candidate);
    }
    case 'below-minimum': {
      const min = s.minimum as number;
      return replaceWith(pick([min - 1, min - 1000, -1e12], variant));
    }
    case 'above-maximum': {
      const max = s.maximum as number;
      return replaceWith(pick([max + 1, max + 1000, 1e15], variant));
    }
    case 'not-integer':
      return replaceWith(pick([1.5, 2.25, 1e-7], variant));
    case 'too-few-items':
      return replaceWith([]);
    case 'too-many-items': {
      const n = (s.maxItems as number) + 1;
      return replaceWith(Array.from({ length: n }, (_, i) => `fz_item_${i}`));
    }
    case 'duplicate-items': {
      const current = getAt(value, at);
      const list = current instanceof RefList ? current.ns.map((n) => new Ref(current.pool, n)) : (current as unknown[]);
      return replaceWith([...list, list[0]]);
    }
    case 'drop-required': {
      const name = site.name!;
      return {
        kind: site.kind,
        value: setAt(value, at, (old) => {
          const copy: Record<string, unknown> = { ...(old as Record<string, unknown>) };
          delete copy[name];
          return copy;
        }),
        field: [...at, name],
      };
    }
    case 'unknown-field': {
      const name = pick(['unknownField', 'ünknown', 'x-extra', '__proto_x', 'Nested.Field'], variant)!;
      return {
        kind: site.kind,
        value: setAt(value, at, (old) => {
          const copy: Record<string, unknown> = { ...(old as Record<string, unknown>) };
          copy[name] = pick(['x', 1, null, { a: 1 }], variant >> 3);
          return copy;
        }),
        field: [...at, name],
      };
    }
    case 'empty-object':
      return replaceWith({});
    case 'bad-key': {
      const keySchema: SchemaNode = { schema: s.propertyNames as Schema, pointer: childPointer(node.pointer, 'propertyNames') };
      const key = pick(['k'.repeat(41), `${ch.repeat(41)}`, 'ctl\u0001key', 'br[ack]et', 'del\u007f', ''].filter((k) => !valid(deref(keySchema).pointer, k)), variant);
      if (key === undefined) return undefined;
      const valueSchema = isRecord(s.additionalProperties) ? s.additionalProperties : {};
      const entryValue = Array.isArray(valueSchema.type) && valueSchema.type.includes('null') && variant % 2 === 1 ? null : 'v';
      return {
        kind: site.kind,
        value: setAt(value, at, (old) => {
          const copy: Record<string, unknown> = { ...(old as Record<string, unknown>) };
          Object.defineProperty(copy, key, { value: entryValue, enumerable: true, writable: true, configurable: true });
          return copy;
        }),
        field: [...at, key],
      };
    }
    case 'too-many-keys': {
      const max = s.maxProperties as number;
      return replaceWith(Object.fromEntries(Array.from({ length: max + 1 }, (_, i) => [`key${i}`, `value ${i}`])));
    }
  }
}

/**
 * One mutation of `value`: site `siteIndex` (mod the number of sites), way `variant`. Undefined
 * when the chosen change leaves the value valid (then it is not a defect). The result is checked
 * with the document's validator of the whole body.
 */
export function mutate(root: SchemaNode, value: unknown, siteIndex: number, variant: number): Mutation | undefined {
  const sites = mutationSites(root, value);
  if (sites.length === 0) return undefined;
  const site = sites[siteIndex % sites.length]!;
  const mutation = applySite(value, site, variant);
  if (!mutation) return undefined;
  if (valid(deref(root).pointer, mutation.value)) return undefined;
  return mutation;
}

/** Field names a schema's conditional rules (`allOf: [{ if, then }]`) can refuse. */
export function conditionalFields(root: SchemaNode): string[] {
  const { schema } = deref(root);
  const out = new Set<string>();
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(collect);
    else if (isRecord(node)) {
      if (Array.isArray(node.required)) for (const r of node.required) if (typeof r === 'string') out.add(r);
      for (const [k, v] of Object.entries(node)) if (k !== 'required') collect(v);
    }
  };
  for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) if (isRecord(part) && part.then) collect(part.then);
  return [...out];
}
