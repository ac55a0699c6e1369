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
 * Pure: documents in, changes out. Only local `$ref`s (`#/...`) are followed. This file compares
 * operations, parameters, bodies, responses and the `x-` tables; schema.ts compares schemas;
 * change.ts holds what both share.
 */
import { DOC_KEYS, isObj, same, settled, show, type Change, type Direction, type Json, type Obj, type Severity } from './change.ts';
import { SchemaDiffer } from './schema.ts';

export interface RuleLedger {
  version?: string;
  rules: { id: string; rule: string; status: string; observable?: boolean; section?: string }[];
}

/** Keys that are the diff's own metadata, never reported as changes. */
export const METADATA_KEYS = { info: ['version', 'x-version-history'] } as const;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

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

class Differ extends SchemaDiffer {
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

