/**
 * The breaking-change classifier: every difference between two OpenAPI 3.1 documents of this API
 * (and their rule ledgers), each classified breaking, non-breaking or documentation-only, located
 * and explained in one line.
 *
 * Written here because no library did the job (measured in docs/decisions.md, V7): openapi-diff
 * 0.24.1 refuses 3.1 documents; api-smart-diff 1.0.6 takes 3 s per diff of this document, leaves
 * every `x-` table "unclassified", throws on `required` inside `allOf`, and reports thousands of
 * spurious schema changes for an edit of three nodes. The catalogue follows oasdiff's checks
 * (https://github.com/oasdiff/oasdiff, checker/): the direction decides — what a client SENDS may be
 * loosened but not tightened, what it RECEIVES may be tightened but not loosened.
 *
 * Pure: documents in, changes out. Only local `$ref`s (`#/...`) are followed.
 */

export type Severity = 'breaking' | 'non-breaking' | 'documentation';

export interface Change {
  severity: Severity;
  /** A stable name of the check, e.g. `schema.required.added` (tests and waivers match on it). */
  kind: string;
  /** Where: `GET /creatives/{id} › response 200 application/json › /properties/status`. */
  location: string;
  message: string;
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };
/** `request`: the client sends it (tightening breaks); `response`: the client receives it (loosening breaks). */
export type Direction = 'request' | 'response';

export interface RuleLedger {
  version?: string;
  rules: { id: string; rule: string; status: string; observable?: boolean; section?: string }[];
}

/** Keys that are the diff's own metadata, never reported as changes. */
export const METADATA_KEYS = { info: ['version', 'x-version-history'] } as const;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const DOC_KEYS = new Set(['description', 'summary', 'title', 'example', 'examples', 'externalDocs', '$comment', 'x-assumption', 'tags']);

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Equal and without a `$ref` inside, so equal all the way down (a `$ref`'s target may differ). */
function settled(a: unknown, b: unknown): boolean {
  const text = JSON.stringify(a);
  return text === JSON.stringify(b) && (text === undefined || !text.includes('"$ref"'));
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'unset' : text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** `tighten` breaks a request, `loosen` breaks a response. */
/**
 * Whether a located schema node is a problem body's `code`: in an error response (4xx, 5xx) or a
 * problem+json body, at a pointer ending in `/properties/code` (V9).
 */
export function isProblemCode(location: string): boolean {
  const parts = location.split(' › ');
  const pointer = parts[parts.length - 1] ?? '';
  const inError = parts.some((part) => /^response [45](?:\d\d|XX)\b/.test(part) || part.includes('application/problem+json'));
  return inError && /\/properties\/code$/.test(pointer);
}

/** The variables of a path template, in order: `/a/{x}/b/{y}` → [x, y]. */
function templateNames(path: string): string[] {
  return [...path.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]!);
}

/**
 * The paths of two documents paired by URL shape (template variables unnamed, V12): an exact key
 * first, else the one path of the other side with the same shape; unpaired keys stand alone.
 */
function pairPaths(keysA: readonly string[], keysB: readonly string[]): [string | undefined, string | undefined][] {
  const shape = (k: string): string => k.replace(/\{[^{}]*\}/g, '{}');
  const inB = new Set(keysB);
  const pairs: [string | undefined, string | undefined][] = [];
  const usedB = new Set<string>();
  for (const a of keysA) {
    if (inB.has(a)) {
      pairs.push([a, a]);
      usedB.add(a);
    }
  }
  for (const a of keysA) {
    if (inB.has(a)) continue;
    const candidates = keysB.filter((b) => !usedB.has(b) && !keysA.includes(b) && shape(b) === shape(a));
    if (candidates.length === 1) {
      pairs.push([a, candidates[0]]);
      usedB.add(candidates[0]!);
    } else pairs.push([a, undefined]);
  }
  for (const b of keysB) if (!usedB.has(b)) pairs.push([undefined, b]);
  return pairs;
}

function bySense(direction: Direction, sense: 'tighten' | 'loosen'): Severity {
  return (direction === 'request') === (sense === 'tighten') ? 'breaking' : 'non-breaking';
}

class Differ {
  readonly changes: Change[] = [];
  constructor(
    readonly base: Obj,
    readonly head: Obj,
  ) {}

  add(severity: Severity, kind: string, location: string, message: string): void {
    this.changes.push({ severity, kind, location, message });
  }

  private deref(doc: Obj, node: Json | undefined): { node: Json | undefined; ref?: string } {
    let current = node;
    let ref: string | undefined;
    for (let hops = 0; isObj(current) && typeof current['$ref'] === 'string' && hops < 32; hops += 1) {
      ref = current['$ref'];
      if (!ref.startsWith('#')) return { node: current, ref };
      let target: Json | undefined = doc;
      for (const raw of ref.slice(2).split('/')) {
        if (raw === '') continue;
        const segment = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
        target = Array.isArray(target) ? target[Number(segment)] : isObj(target) ? target[segment] : undefined;
      }
      // Sibling keywords of a $ref (3.1) are kept over the target's.
      const { $ref: _ignored, ...siblings } = current;
      current = isObj(target) && Object.keys(siblings).length > 0 ? { ...target, ...siblings } : target;
    }
    return ref === undefined ? { node: current } : { node: current, ref };
  }

  /** Documentation keys (`description` and the like) changed between two nodes. */
  private docs(a: Obj, b: Obj, location: string): void {
    for (const key of DOC_KEYS) {
      if (!same(a[key], b[key])) this.add('documentation', `doc.${key}`, location, `\`${key}\` ${a[key] === undefined ? 'added' : b[key] === undefined ? 'removed' : 'changed'}`);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Schemas

  schema(a0: Json | undefined, b0: Json | undefined, direction: Direction, location: string, pointer = '', seen = new Set<string>()): void {
    const a = this.deref(this.base, a0);
    const b = this.deref(this.head, b0);
    const visit = `${a.ref ?? ''}|${b.ref ?? ''}|${direction}`;
    if (a.ref !== undefined && b.ref !== undefined) {
      if (seen.has(visit)) return;
      seen = new Set(seen).add(visit);
    }
    const at = pointer === '' ? location : `${location} › ${pointer}`;
    if (settled(a.node, b.node)) return;
    if (!isObj(a.node) || !isObj(b.node)) {
      // `true`/`false` schemas or missing ones.
      if (a.node === undefined || b.node === undefined) {
        this.add(a.node === undefined ? bySense(direction, 'tighten') : bySense(direction, 'loosen'), a.node === undefined ? 'schema.set' : 'schema.unset', at, `schema ${a.node === undefined ? 'set' : 'removed'}`);
      } else this.add('breaking', 'schema.replaced', at, `schema changed from ${show(a.node)} to ${show(b.node)}`);
      return;
    }
    const x = a.node;
    const y = b.node;
    this.docs(x, y, at);
    this.types(x, y, direction, at);
    this.enums(x, y, direction, at);
    this.constraints(x, y, direction, at);
    this.objectShape(x, y, direction, location, pointer, seen);
    if (x['items'] !== undefined || y['items'] !== undefined) this.schema(x['items'], y['items'], direction, location, `${pointer}/items`, seen);
    for (const key of ['oneOf', 'anyOf'] as const) this.branches(x, y, key, direction, location, pointer, seen);
    this.allOf(x, y, direction, location, pointer, seen);
    for (const key of ['not', 'if', 'then', 'else', 'prefixItems', 'contains', 'dependentRequired', 'dependentSchemas', 'patternProperties', 'propertyNames', 'unevaluatedProperties', 'contentMediaType', 'contentEncoding']) {
      if (!same(x[key], y[key])) this.add('breaking', `schema.${key}.changed`, at, `\`${key}\` changed from ${show(x[key])} to ${show(y[key])} (not classified finer: treated as breaking)`);
    }
    if (x['deprecated'] !== y['deprecated']) this.add('non-breaking', 'schema.deprecated', at, y['deprecated'] === true ? 'marked deprecated' : 'no longer deprecated');
    for (const key of ['readOnly', 'writeOnly', 'default']) {
      if (!same(x[key], y[key])) this.add(key === 'default' && direction === 'request' ? 'breaking' : 'non-breaking', `schema.${key}.changed`, at, `\`${key}\` changed from ${show(x[key])} to ${show(y[key])}`);
    }
  }

  private typeSet(s: Obj): Set<string> | undefined {
    const t = s['type'];
    if (typeof t === 'string') return new Set([t]);
    if (Array.isArray(t)) return new Set(t.map(String));
    return undefined;
  }

  private types(x: Obj, y: Obj, direction: Direction, at: string): void {
    const a = this.typeSet(x);
    const b = this.typeSet(y);
    if (a === undefined && b === undefined) return;
    if (a === undefined || b === undefined) {
      const sense = a === undefined ? 'tighten' : 'loosen';
      this.add(bySense(direction, sense), a === undefined ? 'schema.type.set' : 'schema.type.unset', at, a === undefined ? `type set to ${[...b!].join('|')}` : `type ${[...a].join('|')} no longer stated (any type)`);
      return;
    }
    for (const t of a) {
      if (b.has(t) || (t === 'integer' && b.has('number')) || (t === 'number' && b.has('integer'))) continue;
      if (t === 'null') this.add(bySense(direction, 'tighten'), 'schema.nullable.removed', at, 'no longer nullable');
      else this.add(bySense(direction, 'tighten'), 'schema.type.removed', at, `type \`${t}\` no longer allowed (now ${[...b].join('|')})`);
    }
    for (const t of b) {
      if (a.has(t) || (t === 'integer' && a.has('number'))) continue;
      if (t === 'null') this.add(bySense(direction, 'loosen'), 'schema.nullable.added', at, 'now nullable');
      else if (t === 'number' && a.has('integer')) this.add(bySense(direction, 'loosen'), 'schema.type.widened', at, 'type widened from integer to number');
      else this.add(bySense(direction, 'loosen'), 'schema.type.added', at, `type \`${t}\` now allowed (was ${[...a].join('|')})`);
    }
    if (a.has('number') && !b.has('number') && b.has('integer')) this.add(bySense(direction, 'tighten'), 'schema.type.narrowed', at, 'type narrowed from number to integer');
  }

  private enumValues(s: Obj): Json[] | undefined {
    if (Array.isArray(s['enum'])) return s['enum'];
    if ('const' in s) return [s['const']!];
    return undefined;
  }

  private enums(x: Obj, y: Obj, direction: Direction, at: string): void {
    const a = this.enumValues(x);
    const b = this.enumValues(y);
    if (same(a, b)) return;
    if (a === undefined) return this.add(bySense(direction, 'tighten'), 'schema.enum.set', at, `values restricted to ${show(b)}`);
    if (b === undefined) return this.add(bySense(direction, 'loosen'), 'schema.enum.unset', at, `values no longer restricted (were ${show(a)})`);
    const key = (v: Json): string => JSON.stringify(v);
    const bKeys = new Set(b.map(key));
    const aKeys = new Set(a.map(key));
    for (const v of a) if (!bKeys.has(key(v))) this.add(bySense(direction, 'tighten'), 'schema.enum.removed', at, `value ${key(v)} removed`);
    for (const v of b) {
      if (aKeys.has(key(v))) continue;
      // Sent by the client: a loosening. Received (V9, narrowing V3): a new problem `code` is
      // additive, as the interface's history added codes in minor versions (1.4.0, 1.7.0, 1.8.0)
      // and the status still classes the error; a new value anywhere else in what a client
      // receives (a resource's `status`, an item's `outcome`, a `type`) breaks the client that
      // switches over the values it was given: a poller waiting for a terminal status waits
      // forever, a generated closed enum refuses the body (Optic and api-smart-diff agree).
      if (direction === 'request') this.add('non-breaking', 'schema.enum.added', at, `value ${key(v)} added`);
      else if (isProblemCode(at)) this.add('non-breaking', 'schema.enum.added', at, `value ${key(v)} added (a new error code; the status classes it)`);
      else this.add('breaking', 'schema.enum.added', at, `value ${key(v)} added to what clients receive (a client switching over the known values meets one it was never told of)`);
    }
  }

  private constraints(x: Obj, y: Obj, direction: Direction, at: string): void {
    // Lower bounds: raising one tightens. Upper bounds: lowering one tightens.
    const lower = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties', 'minContains'];
    const upper = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties', 'maxContains', 'multipleOf'];
    for (const key of [...lower, ...upper]) {
      const a = x[key];
      const b = y[key];
      if (same(a, b)) continue;
      if (a === undefined) this.add(bySense(direction, 'tighten'), `schema.${key}.set`, at, `\`${key}\` set to ${show(b)}`);
      else if (b === undefined) this.add(bySense(direction, 'loosen'), `schema.${key}.unset`, at, `\`${key}\` ${show(a)} removed`);
      else if (typeof a === 'number' && typeof b === 'number') {
        const tighter = key === 'multipleOf' ? b % a !== 0 || b > a : lower.includes(key) ? b > a : b < a;
        const sense = key === 'multipleOf' ? (b % a === 0 ? 'tighten' : 'loosen') : tighter ? 'tighten' : 'loosen';
        this.add(bySense(direction, sense), `schema.${key}.${sense === 'tighten' ? 'tightened' : 'loosened'}`, at, `\`${key}\` ${sense === 'tighten' ? 'tightened' : 'loosened'} from ${a} to ${b}`);
      } else this.add('breaking', `schema.${key}.changed`, at, `\`${key}\` changed from ${show(a)} to ${show(b)}`);
    }
    for (const key of ['pattern', 'format']) {
      const a = x[key];
      const b = y[key];
      if (same(a, b)) continue;
      if (a === undefined) this.add(bySense(direction, 'tighten'), `schema.${key}.set`, at, `\`${key}\` set to ${show(b)}`);
      else if (b === undefined) this.add(bySense(direction, 'loosen'), `schema.${key}.unset`, at, `\`${key}\` ${show(a)} removed`);
      // A changed pattern or format is neither tighter nor looser in general: both directions break.
      else this.add('breaking', `schema.${key}.changed`, at, `\`${key}\` changed from ${show(a)} to ${show(b)}`);
    }
    const ua = x['uniqueItems'] === true;
    const ub = y['uniqueItems'] === true;
    if (ua !== ub) this.add(bySense(direction, ub ? 'tighten' : 'loosen'), ub ? 'schema.uniqueItems.set' : 'schema.uniqueItems.unset', at, ub ? 'items must now be unique' : 'items need no longer be unique');
  }

  private objectShape(x: Obj, y: Obj, direction: Direction, location: string, pointer: string, seen: Set<string>): void {
    const at = pointer === '' ? location : `${location} › ${pointer}`;
    const pa = isObj(x['properties']) ? x['properties'] : {};
    const pb = isObj(y['properties']) ? y['properties'] : {};
    const ra = new Set(Array.isArray(x['required']) ? x['required'].map(String) : []);
    const rb = new Set(Array.isArray(y['required']) ? y['required'].map(String) : []);
    for (const name of Object.keys(pa)) {
      if (name in pb) continue;
      const p = `${pointer}/properties/${name}`;
      this.add('breaking', 'schema.property.removed', `${location} › ${p}`, direction === 'response' ? `property \`${name}\` removed from what clients receive` : `property \`${name}\` no longer accepted`);
    }
    for (const name of Object.keys(pb)) {
      if (name in pa) continue;
      const p = `${location} › ${pointer}/properties/${name}`;
      if (direction === 'request' && rb.has(name)) this.add('breaking', 'schema.property.added-required', p, `new required property \`${name}\``);
      else this.add('non-breaking', 'schema.property.added', p, `new ${rb.has(name) ? 'required' : 'optional'} property \`${name}\``);
    }
    for (const name of ra) {
      if (rb.has(name) || !(name in pb)) continue;
      this.add(bySense(direction, 'loosen'), 'schema.required.removed', at, `property \`${name}\` no longer required`);
    }
    for (const name of rb) {
      if (ra.has(name) || !(name in pa)) continue;
      this.add(bySense(direction, 'tighten'), 'schema.required.added', at, `property \`${name}\` now required`);
    }
    for (const name of Object.keys(pa)) if (name in pb) this.schema(pa[name], pb[name], direction, location, `${pointer}/properties/${name}`, seen);
    const aa = x['additionalProperties'];
    const ab = y['additionalProperties'];
    if (!same(aa, ab)) {
      const openA = aa === undefined || aa === true;
      const openB = ab === undefined || ab === true;
      if (openA && ab === false) this.add(bySense(direction, 'tighten'), 'schema.additionalProperties.set', at, 'additional properties no longer allowed');
      else if (aa === false && openB) this.add(bySense(direction, 'loosen'), 'schema.additionalProperties.unset', at, 'additional properties now allowed');
      else if (openA && openB) {
        /* true ↔ unset: the same */
      } else if (isObj(aa) && isObj(ab)) this.schema(aa, ab, direction, location, `${pointer}/additionalProperties`, seen);
      else this.add(bySense(direction, isObj(ab) || ab === false ? 'tighten' : 'loosen'), 'schema.additionalProperties.changed', at, `\`additionalProperties\` changed from ${show(aa)} to ${show(ab)}`);
    }
  }

  private branchKey(node: Json): string {
    if (isObj(node) && typeof node['$ref'] === 'string') return node['$ref'];
    return JSON.stringify(node);
  }

  private branches(x: Obj, y: Obj, key: 'oneOf' | 'anyOf', direction: Direction, location: string, pointer: string, seen: Set<string>): void {
    const a = Array.isArray(x[key]) ? x[key] : [];
    const b = Array.isArray(y[key]) ? y[key] : [];
    if (settled(a, b)) return;
    const at = pointer === '' ? location : `${location} › ${pointer}`;
    const ka = a.map((n) => this.branchKey(n));
    const kb = b.map((n) => this.branchKey(n));
    // Branches found on both sides (the same $ref): their targets may still have changed.
    ka.forEach((k, i) => {
      const j = kb.indexOf(k);
      if (j >= 0) this.schema(a[i], b[j], direction, location, `${pointer}/${key}/${i}`, seen);
    });
    const unmatchedA = a.filter((_, i) => !kb.includes(ka[i]!));
    const unmatchedB = b.filter((_, i) => !ka.includes(kb[i]!));
    // The same number of unmatched branches: the same branches, edited in place.
    if (unmatchedA.length === unmatchedB.length) {
      unmatchedA.forEach((n, i) => this.schema(n, unmatchedB[i], direction, location, `${pointer}/${key}/${a.indexOf(n)}`, seen));
      return;
    }
    for (const n of unmatchedA) this.add(bySense(direction, 'tighten'), `schema.${key}.removed`, at, `\`${key}\` branch ${show(n)} removed`);
    for (const n of unmatchedB) this.add(bySense(direction, 'loosen'), `schema.${key}.added`, at, `\`${key}\` branch ${show(n)} added`);
  }

  private allOf(x: Obj, y: Obj, direction: Direction, location: string, pointer: string, seen: Set<string>): void {
    const a = Array.isArray(x['allOf']) ? x['allOf'] : [];
    const b = Array.isArray(y['allOf']) ? y['allOf'] : [];
    if (settled(a, b)) return;
    const at = pointer === '' ? location : `${location} › ${pointer}`;
    for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
      if (i >= a.length) this.add(bySense(direction, 'tighten'), 'schema.allOf.added', at, `\`allOf\` part ${show(b[i])} added`);
      else if (i >= b.length) this.add(bySense(direction, 'loosen'), 'schema.allOf.removed', at, `\`allOf\` part ${show(a[i])} removed`);
      else this.schema(a[i], b[i], direction, location, `${pointer}/allOf/${i}`, seen);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Parameters, bodies, responses, headers

  /** `webhook`: the parameters are the headers the service sends with a delivery (the receiver reads them). */
  /** `renames`: the base's path template variables renamed in the head (V12), matched by position. */
  private parameters(a: Obj, b: Obj, pathA: Obj, pathB: Obj, location: string, webhook = false, renames: ReadonlyMap<string, string> = new Map()): void {
    const collect = (doc: Obj, path: Obj, op: Obj, rename: ReadonlyMap<string, string>): Map<string, Obj> => {
      const map = new Map<string, Obj>();
      for (const list of [path['parameters'], op['parameters']]) {
        if (!Array.isArray(list)) continue;
        for (const raw of list) {
          const p = this.deref(doc, raw).node;
          if (!isObj(p)) continue;
          const name = p['in'] === 'path' ? (rename.get(String(p['name'])) ?? String(p['name'])) : String(p['name']);
          map.set(`${String(p['in'])}:${p['in'] === 'header' ? name.toLowerCase() : name}`, p);
        }
      }
      return map;
    };
    const ma = collect(this.base, pathA, a, renames);
    const mb = collect(this.head, pathB, b, new Map());
    const where = (p: Obj): string => `${location} › ${String(p['in'])} parameter \`${String(p['name'])}\``;
    if (webhook) return this.webhookHeaders(ma, mb, location);
    for (const [key, p] of ma) {
      if (mb.has(key)) continue;
      const moved = [...mb.values()].find((q) => String(q['name']).toLowerCase() === String(p['name']).toLowerCase() && q['in'] !== p['in']);
      if (moved !== undefined) this.add('breaking', 'parameter.location.changed', where(p), `moved from ${String(p['in'])} to ${String(moved['in'])}`);
      else this.add('breaking', 'parameter.removed', where(p), 'parameter removed: clients that send it are no longer described');
    }
    for (const [key, p] of mb) {
      if (ma.has(key)) continue;
      if ([...ma.values()].some((q) => String(q['name']).toLowerCase() === String(p['name']).toLowerCase())) continue;
      if (p['required'] === true) this.add('breaking', 'parameter.added-required', where(p), 'new required parameter');
      else this.add('non-breaking', 'parameter.added', where(p), 'new optional parameter');
    }
    for (const [key, p] of ma) {
      const q = mb.get(key);
      if (q === undefined) continue;
      const at = where(p);
      if ((p['required'] === true) !== (q['required'] === true)) {
        this.add(q['required'] === true ? 'breaking' : 'non-breaking', q['required'] === true ? 'parameter.required.set' : 'parameter.required.unset', at, q['required'] === true ? 'now required' : 'no longer required');
      }
      for (const k of ['style', 'explode', 'allowEmptyValue', 'allowReserved']) {
        if (!same(p[k], q[k])) this.add('breaking', `parameter.${k}.changed`, at, `\`${k}\` changed from ${show(p[k])} to ${show(q[k])}`);
      }
      if (p['deprecated'] !== q['deprecated']) this.add('non-breaking', 'parameter.deprecated', at, q['deprecated'] === true ? 'marked deprecated' : 'no longer deprecated');
      this.docs(p, q, at);
      this.schema(p['schema'], q['schema'], 'request', at);
    }
  }

  /** A delivery's headers: what the receiver gets, so removing one or making it optional breaks. */
  private webhookHeaders(ma: Map<string, Obj>, mb: Map<string, Obj>, location: string): void {
    const where = (p: Obj): string => `${location} › header \`${String(p['name'])}\``;
    for (const [key, p] of ma) {
      const q = mb.get(key);
      if (q === undefined) {
        this.add('breaking', 'webhook-header.removed', where(p), 'header no longer sent with deliveries');
        continue;
      }
      if ((p['required'] === true) !== (q['required'] === true)) {
        this.add(q['required'] === true ? 'non-breaking' : 'breaking', q['required'] === true ? 'webhook-header.required.set' : 'webhook-header.required.unset', where(p), q['required'] === true ? 'now always sent' : 'no longer always sent');
      }
      this.docs(p, q, where(p));
      this.schema(p['schema'], q['schema'], 'response', where(p));
    }
    for (const [key, q] of mb) if (!ma.has(key)) this.add('non-breaking', 'webhook-header.added', where(q), 'new header sent with deliveries');
  }

  private content(a: Json | undefined, b: Json | undefined, direction: Direction, location: string): void {
    const ca = isObj(a) ? a : {};
    const cb = isObj(b) ? b : {};
    const removed = Object.keys(ca).filter((t) => !(t in cb));
    const added = Object.keys(cb).filter((t) => !(t in ca));
    if (direction === 'response' && removed.length === 1 && added.length === 1) {
      this.add('breaking', 'media-type.changed', location, `media type changed from ${removed[0]} to ${added[0]}`);
    } else {
      for (const t of removed) this.add('breaking', 'media-type.removed', `${location} ${t}`, direction === 'request' ? `media type ${t} no longer accepted` : `media type ${t} no longer sent`);
      for (const t of added) this.add('non-breaking', 'media-type.added', `${location} ${t}`, direction === 'request' ? `media type ${t} now accepted` : `media type ${t} may now be sent`);
    }
    for (const t of Object.keys(ca)) {
      if (!(t in cb)) continue;
      const ma = this.deref(this.base, ca[t]).node;
      const mb = this.deref(this.head, cb[t]).node;
      if (isObj(ma) && isObj(mb)) {
        this.docs(ma, mb, `${location} ${t}`);
        this.schema(ma['schema'], mb['schema'], direction, `${location} ${t}`);
      }
    }
  }

  private headers(a: Json | undefined, b: Json | undefined, location: string): void {
    const norm = (doc: Obj, h: Json | undefined): Map<string, Obj> => {
      const map = new Map<string, Obj>();
      if (isObj(h)) for (const [name, raw] of Object.entries(h)) {
        const node = this.deref(doc, raw).node;
        if (isObj(node)) map.set(name.toLowerCase(), { ...node, name });
      }
      return map;
    };
    const ha = norm(this.base, a);
    const hb = norm(this.head, b);
    for (const [key, h] of ha) {
      const at = `${location} › header \`${String(h['name'])}\``;
      const g = hb.get(key);
      if (g === undefined) {
        this.add(h['required'] === true ? 'breaking' : 'non-breaking', 'response-header.removed', at, `${h['required'] === true ? 'required' : 'optional'} header removed`);
        continue;
      }
      if ((h['required'] === true) !== (g['required'] === true)) {
        this.add(g['required'] === true ? 'non-breaking' : 'breaking', g['required'] === true ? 'response-header.required.set' : 'response-header.required.unset', at, g['required'] === true ? 'now always sent' : 'no longer always sent');
      }
      this.docs(h, g, at);
      this.schema(h['schema'], g['schema'], 'response', at);
    }
    for (const [key, g] of hb) {
      if (ha.has(key)) continue;
      this.add('non-breaking', 'response-header.added', `${location} › header \`${String(g['name'])}\``, `new ${g['required'] === true ? 'required' : 'optional'} header`);
    }
  }

  /** `bodies`: the direction of the response bodies (`request` for a webhook: its receiver sends them). */
  private responses(a: Json | undefined, b: Json | undefined, location: string, bodies: Direction = 'response'): void {
    const ra = isObj(a) ? a : {};
    const rb = isObj(b) ? b : {};
    for (const status of Object.keys(ra)) {
      if (status in rb) continue;
      // V8 (replacing V4's error half): every documented status is a promise. A success status
      // removed breaks the success path; an error status removed breaks the guarantee behind it
      // (PATCH without its 412 is a PATCH without optimistic concurrency; without its 409 a client's
      // retry logic meets what it was told it never would). Azure's openapi-diff agrees.
      const success = status.startsWith('2');
      this.add('breaking', 'response.removed', `${location} › response ${status}`, success ? `success status ${status} removed` : `error status ${status} no longer documented (the guarantee it stood for is gone)`);
    }
    for (const status of Object.keys(rb)) {
      if (status in ra) continue;
      this.add('non-breaking', 'response.added', `${location} › response ${status}`, `status ${status} added`);
    }
    for (const status of Object.keys(ra)) {
      if (!(status in rb)) continue;
      const x = this.deref(this.base, ra[status]).node;
      const y = this.deref(this.head, rb[status]).node;
      if (!isObj(x) || !isObj(y) || settled(x, y)) continue;
      const at = `${location} › response ${status}`;
      this.docs(x, y, at);
      this.headers(x['headers'], y['headers'], at);
      this.content(x['content'], y['content'], bodies, at);
    }
  }

  /** `direction`: `response` for a webhook, whose request body the client receives. */
  private requestBody(a: Json | undefined, b: Json | undefined, location: string, direction: Direction = 'request'): void {
    const x = this.deref(this.base, a).node;
    const y = this.deref(this.head, b).node;
    const at = `${location} › request body`;
    if (x === undefined && y === undefined) return;
    if (direction === 'response') {
      if (!isObj(x) || !isObj(y)) return this.add(isObj(x) ? 'breaking' : 'non-breaking', isObj(x) ? 'request-body.removed' : 'request-body.added', at, isObj(x) ? 'payload removed' : 'payload added');
      this.docs(x, y, at);
      return this.content(x['content'], y['content'], 'response', at);
    }
    if (!isObj(x)) {
      if (isObj(y)) this.add(y['required'] === true ? 'breaking' : 'non-breaking', y['required'] === true ? 'request-body.added-required' : 'request-body.added', at, `${y['required'] === true ? 'required' : 'optional'} request body added`);
      return;
    }
    if (!isObj(y)) return this.add('breaking', 'request-body.removed', at, 'request body removed');
    if ((x['required'] === true) !== (y['required'] === true)) {
      this.add(y['required'] === true ? 'breaking' : 'non-breaking', y['required'] === true ? 'request-body.required.set' : 'request-body.required.unset', at, y['required'] === true ? 'now required' : 'no longer required');
    }
    this.docs(x, y, at);
    this.content(x['content'], y['content'], 'request', at);
  }

  // -------------------------------------------------------------------------------------------
  // Operations and webhooks

  /** `webhook`: the service sends the request and the client answers it, so directions swap. */
  operation(x: Obj, y: Obj, pathA: Obj, pathB: Obj, location: string, webhook = false, renames: ReadonlyMap<string, string> = new Map()): void {
    this.docs(x, y, location);
    if (x['operationId'] !== y['operationId']) this.add('documentation', 'operation.id.changed', location, `operationId changed from ${show(x['operationId'])} to ${show(y['operationId'])}`);
    if (x['deprecated'] !== y['deprecated']) this.add('non-breaking', y['deprecated'] === true ? 'operation.deprecated' : 'operation.undeprecated', location, y['deprecated'] === true ? `marked deprecated${typeof y['x-sunset'] === 'string' ? `, sunset ${y['x-sunset']}` : ''}` : 'no longer deprecated');
    else if (!same(x['x-sunset'], y['x-sunset'])) this.add('non-breaking', 'operation.sunset.changed', location, `sunset date changed from ${show(x['x-sunset'])} to ${show(y['x-sunset'])}`);
    const sa = new Set(Array.isArray(x['x-required-scopes']) ? x['x-required-scopes'].map(String) : []);
    const sb = new Set(Array.isArray(y['x-required-scopes']) ? y['x-required-scopes'].map(String) : []);
    const gained = [...sb].filter((s) => !sa.has(s));
    const lost = [...sa].filter((s) => !sb.has(s));
    if (gained.length > 0) this.add('breaking', 'security.scope.changed', location, `now requires scope ${gained.map((s) => `\`${s}\``).join(', ')}${lost.length > 0 ? ` instead of ${lost.map((s) => `\`${s}\``).join(', ')}` : ''}: keys without it are refused`);
    else if (lost.length > 0) this.add('non-breaking', 'security.scope.relaxed', location, `no longer requires scope ${lost.map((s) => `\`${s}\``).join(', ')}`);
    if (!same(x['security'], y['security'])) this.add('breaking', 'security.changed', location, `security requirement changed from ${show(x['security'])} to ${show(y['security'])}`);
    if (!same(x['x-rate-limit-group'], y['x-rate-limit-group'])) this.add('breaking', 'rate-limit.group.changed', location, `rate-limit group changed from ${show(x['x-rate-limit-group'])} to ${show(y['x-rate-limit-group'])}`);
    if (!same(x['x-event-type'], y['x-event-type'])) this.add('breaking', 'webhook.event-type.changed', location, `event type changed from ${show(x['x-event-type'])} to ${show(y['x-event-type'])}`);
    this.parameters(x, y, pathA, pathB, location, webhook, renames);
    this.requestBody(x['requestBody'], y['requestBody'], location, webhook ? 'response' : 'request');
    this.responses(x['responses'], y['responses'], location, webhook ? 'request' : 'response');
  }

  operations(group: 'paths' | 'webhooks'): void {
    const pa = isObj(this.base[group]) ? this.base[group] : {};
    const pb = isObj(this.head[group]) ? this.head[group] : {};
    const label = (key: string, method: string): string => (group === 'paths' ? `${method.toUpperCase()} ${key}` : `webhook ${key}`);
    // V12: a path is its URL shape; the names of its template variables are not on the wire.
    // `/creatives/{id}` and `/creatives/{creativeId}` are one path: paired, with the rename reported.
    const pairs = group === 'paths' ? pairPaths(Object.keys(pa), Object.keys(pb)) : [...new Set([...Object.keys(pa), ...Object.keys(pb)])].map((k) => [k, k] as const);
    for (const [keyA, keyB] of pairs) {
      const key = keyB ?? keyA!;
      const renames = new Map<string, string>();
      if (keyA !== undefined && keyB !== undefined && keyA !== keyB) {
        const namesA = templateNames(keyA);
        const namesB = templateNames(keyB);
        namesA.forEach((name, i) => {
          if (namesB[i] !== undefined && namesB[i] !== name) renames.set(name, namesB[i]!);
        });
        this.add('documentation', 'path.parameter.renamed', keyB, `path template renamed from ${keyA} (${[...renames].map(([a, b]) => `\`${a}\` → \`${b}\``).join(', ')}): not a wire change, the URLs are the same; generated SDKs rename the argument`);
      }
      const itemA = this.deref(this.base, keyA === undefined ? undefined : pa[keyA]).node;
      const itemB = this.deref(this.head, keyB === undefined ? undefined : pb[keyB]).node;
      const a = isObj(itemA) ? itemA : {};
      const b = isObj(itemB) ? itemB : {};
      for (const method of METHODS) {
        const x = a[method];
        const y = b[method];
        if (!isObj(x) && !isObj(y)) continue;
        const where = label(key, method);
        if (!isObj(y)) {
          const what = group === 'webhooks' ? `event type \`${key}\` no longer delivered` : isObj(itemB) ? `method ${method.toUpperCase()} removed from ${key}` : `path ${key} removed`;
          this.add('breaking', group === 'webhooks' ? 'webhook.removed' : 'operation.removed', where, what);
        } else if (!isObj(x)) {
          const what = group === 'webhooks' ? `new event type \`${key}\`` : isObj(itemA) ? `new method ${method.toUpperCase()} on ${key}` : `new path ${key}`;
          this.add('non-breaking', group === 'webhooks' ? 'webhook.added' : 'operation.added', where, what);
        } else this.operation(x, y, a, b, where, group === 'webhooks', renames);
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // The document's own tables

  /**
   * An entitlement-like table (quotas, plan features, caps): a number lowered, a feature turned
   * off, a list entry or a key removed takes something away (breaking); the reverse gives (non-breaking).
   */
  table(a: Json | undefined, b: Json | undefined, location: string, lowerIsLess = true): void {
    if (same(a, b)) return;
    if (isObj(a) && isObj(b)) {
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
        const at = `${location}.${key}`;
        if (DOC_KEYS.has(key) || key === 'appliesTo') {
          if (!same(a[key], b[key])) this.add('documentation', `table.doc`, at, `\`${key}\` changed`);
        } else if (!(key in b)) this.add('breaking', 'table.entry.removed', at, `entry removed (was ${show(a[key])})`);
        else if (!(key in a)) this.add('non-breaking', 'table.entry.added', at, `entry added: ${show(b[key])}`);
        else this.table(a[key], b[key], at, lowerIsLess);
      }
      return;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      const kb = new Set(b.map((v) => JSON.stringify(v)));
      const ka = new Set(a.map((v) => JSON.stringify(v)));
      for (const v of a) if (!kb.has(JSON.stringify(v))) this.add('breaking', 'table.value.removed', location, `${show(v)} removed`);
      for (const v of b) if (!ka.has(JSON.stringify(v))) this.add('non-breaking', 'table.value.added', location, `${show(v)} added`);
      return;
    }
    if (typeof a === 'number' && typeof b === 'number') {
      const less = lowerIsLess ? b < a : b > a;
      this.add(less ? 'breaking' : 'non-breaking', less ? 'table.value.decreased' : 'table.value.increased', location, `${lowerIsLess ? (less ? 'lowered' : 'raised') : less ? 'raised' : 'lowered'} from ${a} to ${b}`);
      return;
    }
    if (typeof a === 'boolean' && typeof b === 'boolean') {
      this.add(b ? 'non-breaking' : 'breaking', b ? 'table.feature.on' : 'table.feature.off', location, b ? 'turned on' : 'turned off');
      return;
    }
    this.add('breaking', 'table.value.changed', location, `changed from ${show(a)} to ${show(b)}`);
  }

  /**
   * A nested table walked key by key: descriptions are documentation, and `leaf` classifies every
   * other value that differs (one side may be missing).
   */
  private walk(a: Json | undefined, b: Json | undefined, location: string, leaf: (a: Json | undefined, b: Json | undefined, location: string) => void): void {
    if (same(a, b)) return;
    if (isObj(a) && isObj(b)) {
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
        if (DOC_KEYS.has(key)) {
          if (!same(a[key], b[key])) this.add('documentation', 'table.doc', `${location}.${key}`, `\`${key}\` changed`);
        } else this.walk(a[key], b[key], `${location}.${key}`, leaf);
      }
      return;
    }
    leaf(a, b, location);
  }

  /** Schedules: any changed figure changes what receivers must cope with; descriptions are documentation. */
  schedule(a: Json | undefined, b: Json | undefined, location: string): void {
    this.walk(a, b, location, (x, y, at) => this.add('breaking', 'table.schedule.changed', at, `changed from ${show(x)} to ${show(y)}`));
  }

  /**
   * The answers to requests outside every operation (`x-unmatched-request`: a code per status, the
   * headers per status): like an operation's responses, a status or header added is one more answer
   * a client may meet (non-breaking, as a new error status is); one removed or changed breaks what a
   * client relied on.
   */
  answers(a: Json | undefined, b: Json | undefined, location: string): void {
    this.walk(a, b, location, (x, y, at) => {
      if (x === undefined) this.add('non-breaking', 'table.answer.added', at, `${show(y)} added`);
      else if (y === undefined) this.add('breaking', 'table.answer.removed', at, `${show(x)} removed`);
      else this.add('breaking', 'table.answer.changed', at, `changed from ${show(x)} to ${show(y)}`);
    });
  }

  documentLevel(): void {
    const infoA = isObj(this.base['info']) ? { ...this.base['info'] } : {};
    const infoB = isObj(this.head['info']) ? { ...this.head['info'] } : {};
    for (const key of METADATA_KEYS.info) {
      delete infoA[key];
      delete infoB[key];
    }
    for (const key of new Set([...Object.keys(infoA), ...Object.keys(infoB)])) {
      if (!same(infoA[key], infoB[key])) this.add('documentation', 'info.changed', `info.${key}`, `\`info.${key}\` changed`);
    }
    for (const key of ['tags', 'externalDocs', 'servers', 'jsonSchemaDialect', 'openapi']) {
      if (!same(this.base[key], this.head[key])) this.add(key === 'openapi' || key === 'jsonSchemaDialect' ? 'non-breaking' : 'documentation', `document.${key}.changed`, key, `\`${key}\` changed`);
    }
    if (!same(this.base['security'], this.head['security'])) this.add('breaking', 'security.changed', 'security', 'the document-wide security requirement changed');
    const compA = isObj(this.base['components']) ? this.base['components'] : {};
    const compB = isObj(this.head['components']) ? this.head['components'] : {};
    const schemesA = isObj(compA['securitySchemes']) ? compA['securitySchemes'] : {};
    const schemesB = isObj(compB['securitySchemes']) ? compB['securitySchemes'] : {};
    for (const name of new Set([...Object.keys(schemesA), ...Object.keys(schemesB)])) {
      const x = schemesA[name];
      const y = schemesB[name];
      const at = `security scheme \`${name}\``;
      if (!isObj(y)) this.add('breaking', 'security.scheme.removed', at, 'security scheme removed');
      else if (!isObj(x)) this.add('non-breaking', 'security.scheme.added', at, 'security scheme added');
      else {
        this.docs(x, y, at);
        for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
          if (DOC_KEYS.has(key) || same(x[key], y[key])) continue;
          if (key === 'x-scope-implies') this.table(x[key], y[key], `${at} x-scope-implies`);
          else this.add('breaking', 'security.scheme.changed', at, `\`${key}\` changed from ${show(x[key])} to ${show(y[key])}`);
        }
      }
    }
    this.table(this.base['x-rate-limits'], this.head['x-rate-limits'], 'x-rate-limits');
    this.table(this.base['x-plans'], this.head['x-plans'], 'x-plans');
    this.schedule(this.base['x-webhook-delivery'], this.head['x-webhook-delivery'], 'x-webhook-delivery');
    this.answers(this.base['x-unmatched-request'], this.head['x-unmatched-request'], 'x-unmatched-request');
    const known = new Set(['openapi', 'info', 'jsonSchemaDialect', 'servers', 'security', 'tags', 'externalDocs', 'paths', 'webhooks', 'components', 'x-rate-limits', 'x-plans', 'x-webhook-delivery', 'x-unmatched-request']);
    for (const key of new Set([...Object.keys(this.base), ...Object.keys(this.head)])) {
      if (known.has(key) || same(this.base[key], this.head[key])) continue;
      this.add(key.startsWith('x-') ? 'non-breaking' : 'breaking', 'document.other.changed', key, `\`${key}\` ${this.base[key] === undefined ? 'added' : this.head[key] === undefined ? 'removed' : 'changed'} (not classified finer)`);
    }
  }
}

/** The rule ledger: a guarantee removed breaks; a rule added, reworded or re-decided does not. */
export function diffRules(base: RuleLedger | undefined, head: RuleLedger | undefined): Change[] {
  if (base === undefined || head === undefined) return [];
  const changes: Change[] = [];
  const a = new Map(base.rules.map((r) => [r.id, r]));
  const b = new Map(head.rules.map((r) => [r.id, r]));
  for (const [id, r] of a) {
    const s = b.get(id);
    const at = `rule ${id}`;
    if (s === undefined) {
      changes.push({ severity: 'breaking', kind: 'rule.removed', location: at, message: `${r.status} rule removed: "${r.rule.slice(0, 60)}${r.rule.length > 60 ? '...' : ''}"` });
      continue;
    }
    if (r.rule !== s.rule) changes.push({ severity: 'documentation', kind: 'rule.reworded', location: at, message: 'reworded' });
    if (r.status !== s.status) changes.push({ severity: 'non-breaking', kind: `rule.${s.status}`, location: at, message: `moved from ${r.status} to ${s.status}` });
    if (r.observable !== s.observable) changes.push({ severity: 'documentation', kind: 'rule.observable', location: at, message: `observable ${String(r.observable)} → ${String(s.observable)}` });
    if (r.section !== s.section) changes.push({ severity: 'documentation', kind: 'rule.section', location: at, message: `section "${r.section ?? ''}" → "${s.section ?? ''}"` });
  }
  for (const [id, s] of b) if (!a.has(id)) changes.push({ severity: 'non-breaking', kind: 'rule.added', location: `rule ${id}`, message: `${s.status} rule added: "${s.rule.slice(0, 60)}${s.rule.length > 60 ? '...' : ''}"` });
  return changes;
}

const ORDER: Record<Severity, number> = { breaking: 0, 'non-breaking': 1, documentation: 2 };

/** Every classified difference from `base` to `head` (documents as parsed, not mutated). */
export function diffDocuments(base: unknown, head: unknown, rules?: { base?: RuleLedger; head?: RuleLedger }): Change[] {
  if (!isObj(base) || !isObj(head)) throw new Error('both documents must be mappings');
  const differ = new Differ(base, head);
  differ.documentLevel();
  differ.operations('paths');
  differ.operations('webhooks');
  const all = [...differ.changes, ...diffRules(rules?.base, rules?.head)];
  // One line per (kind, location, message): a component shared by many operations is reported once per operation.
  const unique = new Map(all.map((c) => [`${c.severity}|${c.kind}|${c.location}|${c.message}`, c]));
  return [...unique.values()].sort((p, q) => ORDER[p.severity] - ORDER[q.severity]);
}
