/**
 * The schema part of the classifier: two schemas compared node by node (types, enums, constraints,
 * object shapes, oneOf/anyOf/allOf), each change breaking or not by the direction it travels
 * (packages/contract/spec/diff/classify.ts).
 */
import { bySense, DifferBase, isObj, isProblemCode, same, settled, show, type Direction, type Json, type Obj } from './change.ts';

export class SchemaDiffer extends DifferBase {

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
}
