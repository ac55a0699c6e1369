/**
 * What the classifier reports (Change, Severity) and what its differs share: the JSON of a document,
 * the direction that decides a change's severity, and DifferBase (the changes found so far, `$ref`s
 * followed, documentation keys compared). packages/contract/spec/diff/classify.ts explains the classifier.
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
export type Obj = { [key: string]: Json };
/** `request`: the client sends it (tightening breaks); `response`: the client receives it (loosening breaks). */
export type Direction = 'request' | 'response';

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Equal and without a `$ref` inside, so equal all the way down (a `$ref`'s target may differ). */
export function settled(a: unknown, b: unknown): boolean {
  const text = JSON.stringify(a);
  return text === JSON.stringify(b) && (text === undefined || !text.includes('"$ref"'));
}

export function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'unset' : text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** `tighten` breaks a request, `loosen` breaks a response. */
export function bySense(direction: Direction, sense: 'tighten' | 'loosen'): Severity {
  return (direction === 'request') === (sense === 'tighten') ? 'breaking' : 'non-breaking';
}

export const DOC_KEYS = new Set(['description', 'summary', 'title', 'example', 'examples', 'externalDocs', '$comment', 'x-assumption', 'tags']);

/** The two documents, the changes found so far, and what every part of the classifier needs. */
export class DifferBase {
  readonly changes: Change[] = [];
  constructor(
    readonly base: Obj,
    readonly head: Obj,
  ) {}

  add(severity: Severity, kind: string, location: string, message: string): void {
    this.changes.push({ severity, kind, location, message });
  }

  protected deref(doc: Obj, node: Json | undefined): { node: Json | undefined; ref?: string } {
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
  protected docs(a: Obj, b: Obj, location: string): void {
    for (const key of DOC_KEYS) {
      if (!same(a[key], b[key])) this.add('documentation', `doc.${key}`, location, `\`${key}\` ${a[key] === undefined ? 'added' : b[key] === undefined ? 'removed' : 'changed'}`);
    }
  }
}

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
