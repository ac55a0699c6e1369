/**
 * Mock bugs the fuzz has found and reported, not yet fixed. Each is matched by what the property
 * saw; a match is counted and printed instead of failing the run, unless the run is strict
 * (`npm run fuzz -- --strict`). Delete an entry once the mock is fixed: the property then enforces
 * the rule again. Nothing else is tolerated.
 */
import type { Problem } from './check.ts';

export interface KnownBug {
  id: string;
  title: string;
  /** What the mock does, what the document says. */
  detail: string;
  matches(problem: Problem): boolean;
}

// KB1-KB4 (path id length in UTF-16 units, If-Match over 2048 characters accepted, a numeric
// metadata key named as an array index, an undeclared 413) are fixed; the property enforces them.
export const KNOWN_BUGS: readonly KnownBug[] = [];

export function knownBugOf(problem: Problem): KnownBug | undefined {
  return KNOWN_BUGS.find((bug) => bug.matches(problem));
}
