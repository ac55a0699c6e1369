/**
 * Stage: preconditions (ETAG-*). Strong ETags are a hash of the resource's canonical
 * representation, so anything that changes the representation (a campaign's status or
 * creativeCount included) changes the tag. If-Match uses strong comparison: a weak tag never
 * matches; `*` matches any existing representation; a list matches if any member does. A request
 * that would be 404 anyway answers 404 (the target is loaded first), a false If-Match 412.
 */
import { sha256Base64url } from '../../../contract/platform/crypto.ts';
import { ApiError } from '../core/errors.ts';
import { canonicalJson } from './idempotency.ts';
import { parseIfMatch } from './validate.ts';

export function etagOf(representation: unknown): string {
  return `"${sha256Base64url(canonicalJson(representation)).slice(0, 27)}"`;
}

export function checkIfMatch(ifMatch: string | undefined, currentRepresentation: unknown): void {
  if (ifMatch === undefined) return;
  const parsed = parseIfMatch(ifMatch);
  if (parsed === undefined) return; // rejected earlier by validate
  if (parsed.any) return;
  const current = etagOf(currentRepresentation).slice(1, -1);
  if (parsed.tags.some((tag) => !tag.weak && tag.opaque === current)) return;
  throw new ApiError('PRECONDITION_FAILED', 'If-Match does not match the current representation; nothing changed. Read it again and retry.');
}
