/**
 * Mock bugs the fuzz has found and reported, not yet fixed. Each is matched by what the property
 * saw; a match is counted and printed instead of failing the run, unless the run is strict
 * (`npm run fuzz -- --strict`). Delete an entry once the mock is fixed: the property then enforces
 * the rule again. Nothing else is tolerated.
 */
import { operations } from '../../../spec/contract.ts';
import type { Problem } from './check.ts';

export interface KnownBug {
  id: string;
  title: string;
  /** What the mock does, what the document says. */
  detail: string;
  matches(problem: Problem): boolean;
}

const codePointLength = (s: string): number => [...s].length;

export const KNOWN_BUGS: readonly KnownBug[] = [
  {
    id: 'KB1-path-id-length-in-utf16',
    title: 'path ids are measured in UTF-16 units, not characters',
    detail:
      'mock/pipeline/validate.ts checks path parameters with `value.length > 200` (UTF-16 code units). The document (`Id`: maxLength 200) counts characters (JSON Schema counts code points), so an id of 101-200 characters outside the BMP (e.g. 150 × "𝕏") is valid by the document but answers 400 VALIDATION_ERROR naming the parameter.',
    matches: (p) =>
      p.check === 'valid-value-refused' &&
      p.location === 'path' &&
      p.value !== undefined &&
      p.value.length > 200 &&
      codePointLength(p.value) <= 200,
  },
  {
    id: 'KB2-if-match-max-length-not-enforced',
    title: 'If-Match longer than 2048 characters is not refused',
    detail:
      'The document gives If-Match `maxLength: 2048` (components/parameters/IfMatch); the mock parses any length, so an over-long, well-formed entity tag answers 412 PRECONDITION_FAILED (or passes) instead of 400 VALIDATION_ERROR naming If-Match.',
    matches: (p) => p.check === 'defect-not-refused' && p.defect?.target === 'if-match' && p.defect.kind === 'too-long',
  },
  {
    id: 'KB3-numeric-object-keys-named-as-indexes',
    title: 'a numeric metadata key is named as an array index in errors[]',
    detail:
      'mock/pipeline/validate.ts (pointerToField) turns every all-digit JSON-pointer segment into `[n]`, so a bad value under the metadata key "0" is reported as `metadata[0]` (an array index) instead of `metadata.0`, the document\'s notation for a key (FieldError: `metadata.color`, `productIds[2]`).',
    matches: (p) => {
      if (p.check !== 'defect-not-refused' || !p.defect || !p.response) return false;
      const named = ((p.response.body as { errors?: { field?: string }[] } | undefined)?.errors ?? []).map((e) => String(e.field));
      return p.defect.fields.some((field) => {
        const asIndexes = field.replace(/\.(\d+)(?=[.[]|$)/g, '[$1]');
        return asIndexes !== field && named.some((n) => n === asIndexes || asIndexes.startsWith(`${n}.`) || asIndexes.startsWith(`${n}[`));
      });
    },
  },
];

export function knownBugOf(problem: Problem): KnownBug | undefined {
  return KNOWN_BUGS.find((bug) => bug.matches(problem));
}
