/**
 * References in a scenario's strings (D130): `${name.path}` names what an earlier part of the file
 * made: a step's answer body (`${launch.campaignId}`, `${generated.creativeIds.0}`), a key
 * (`${writer.keyId}`), an endpoint, or the current account's own `account` (`${account.accountId}`,
 * `${account.keys.all.keyId}`), `brands` and `products` (their ids in the catalog's order) and
 * `catalog` (each brand with its products: `${catalog.0.brandId}`, `${catalog.0.productIds.0:3}`),
 * and `assets` (as they are before the step: `${assets.-1}` is the newest). A path segment is a
 * property, an index (negative from the end), or a slice `a:b` of an array (`${products.0:3}`).
 *
 * A string that is exactly one reference becomes the value itself (an array stays an array); a
 * reference inside a longer string is written into it. `$${` is a literal `${`.
 */
import { putOwn } from '../core/own.ts';
import type { ScenarioPath } from './source.ts';

export class ScenarioReferenceError extends Error {
  constructor(
    message: string,
    readonly path: ScenarioPath,
  ) {
    super(message);
  }
}

const WHOLE = /^\$\{([^{}]+)\}$/;
const INSIDE = /\$?\$\{([^{}]+)\}/g;

function step(value: unknown, segment: string): unknown {
  if (Array.isArray(value)) {
    const slice = /^(-?\d*):(-?\d*)$/.exec(segment);
    if (slice) return value.slice(slice[1] === '' ? 0 : Number(slice[1]), slice[2] === '' ? undefined : Number(slice[2]));
    if (/^-?\d+$/.test(segment)) return value.at(Number(segment));
    return undefined;
  }
  if (typeof value === 'object' && value !== null && Object.hasOwn(value, segment)) return (value as Record<string, unknown>)[segment];
  return undefined;
}

/** The value an expression names, or a ScenarioReferenceError at `path`. */
export function lookup(names: ReadonlyMap<string, unknown>, expression: string, path: ScenarioPath): unknown {
  const [head = '', ...rest] = expression.trim().split('.');
  if (!names.has(head)) {
    const known = [...names.keys()].join(', ');
    throw new ScenarioReferenceError(`\${${expression}} names nothing: ${JSON.stringify(head)} is not made above (known here: ${known || 'none'})`, path);
  }
  let value = names.get(head);
  const walked = [head];
  for (const segment of rest) {
    const next = step(value, segment);
    if (next === undefined) {
      const size = Array.isArray(value) ? ` (${value.length} items)` : '';
      throw new ScenarioReferenceError(`\${${expression}}: ${walked.join('.')}${size} has no ${JSON.stringify(segment)}`, path);
    }
    value = next;
    walked.push(segment);
  }
  return value;
}

/** `value` with every reference in its strings resolved (a new value; the input is not changed). */
export function resolveReferences(value: unknown, names: ReadonlyMap<string, unknown>, path: ScenarioPath = []): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return lookup(names, whole[1]!, path);
    if (!value.includes('${')) return value;
    return value.replace(INSIDE, (match, expression: string) => {
      if (match.startsWith('$$')) return match.slice(1);
      const found = lookup(names, expression, path);
      return typeof found === 'object' && found !== null ? JSON.stringify(found) : String(found);
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => resolveReferences(item, names, [...path, index]));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) putOwn(out, key, resolveReferences(item, names, [...path, key]));
    return out;
  }
  return value;
}

/** Each reference in `value`'s strings (a `$${` literal is none): the name it starts with, the expression, and where it is. */
export function referencesIn(value: unknown, path: ScenarioPath = []): { head: string; expression: string; path: ScenarioPath }[] {
  const out: { head: string; expression: string; path: ScenarioPath }[] = [];
  const walk = (node: unknown, at: ScenarioPath): void => {
    if (typeof node === 'string') {
      const whole = WHOLE.exec(node);
      const expressions = whole ? [whole[1]!] : [...node.matchAll(INSIDE)].filter((m) => !m[0].startsWith('$$')).map((m) => m[1]!);
      for (const expression of expressions) out.push({ head: expression.trim().split('.')[0] ?? '', expression, path: at });
    } else if (Array.isArray(node)) node.forEach((item, index) => walk(item, [...at, index]));
    else if (typeof node === 'object' && node !== null) for (const [key, item] of Object.entries(node)) walk(item, [...at, key]);
  };
  walk(value, path);
  return out;
}
