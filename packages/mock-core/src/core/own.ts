/**
 * Lookups and writes keyed by a name that came from a request (a URL segment, a query name, a body's
 * member): an object literal also finds what it inherits (`constructor`, `toString`, `__proto__`),
 * and a write to `__proto__` replaces its prototype instead of adding a member (issue #34).
 */

/** The record's own value for `name`, never an inherited one. */
export function ownValue<T>(record: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

/** Sets `name` as an own, enumerable member (`__proto__` included, as JSON.parse makes it). */
export function putOwn<T>(record: Record<string, T>, name: string, value: T): void {
  Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
}
