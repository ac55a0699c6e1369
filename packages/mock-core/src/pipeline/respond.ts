/**
 * Stage: respond. JSON bodies, problem+json errors (RFC 9457 with `code` and `requestId`), the
 * plain-text 429 of the read plane and every write, and the headers every response carries.
 */
import { utf8Bytes } from '../../../contract/platform/bytes.ts';
import { operationsList, type OperationInfo } from '../../../contract/spec/contract.ts';
import type { ApiError } from '../core/errors.ts';
import { problemResponse } from '../core/problem.ts';
import { rateLimitHeader, type Decision } from '../ratelimit/limiter.ts';
import { etagOf } from './preconditions.ts';
import type { OperationResult } from '../domain/operation.ts';
import type { RawResponse } from './types.ts';

// The media type as sent: with the charset, as fastify would add it to a text body, so that the
// kept bytes of a cached read carry the same header (problem+json's: packages/mock-core/src/core/problem.ts).
export const JSON_TYPE = 'application/json; charset=utf-8';

/** A response body as the bytes sent (text is UTF-8). */
export function bodyBytes(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? utf8Bytes(body) : body;
}

export function jsonResponse(result: OperationResult): RawResponse & { body: string } {
  const headers: Record<string, string> = { 'content-type': JSON_TYPE, ...(result.headers ?? {}) };
  if (result.etagOf !== undefined) headers.etag = etagOf(result.etagOf);
  return { status: result.status, headers, body: JSON.stringify(result.body) };
}

/** The challenge of every 401 (RFC 9110 11.6.1): the scheme alone, so every 401 stays uniform (D50). */
export const BEARER_CHALLENGE = 'Bearer';

export function errorResponse(error: ApiError, operation: OperationInfo | undefined, instance: string, requestId: string): RawResponse {
  const headers: Record<string, string> = {};
  if (error.retryAfter !== undefined) headers['retry-after'] = String(Math.max(0, Math.ceil(error.retryAfter)));
  // AUTH-040, ERR-043 (D50): what HTTP requires of a 401 and a 405.
  if (error.status === 401) headers['www-authenticate'] = BEARER_CHALLENGE;
  if (error.allow !== undefined) headers.allow = error.allow.join(', ');
  if (error.status === 429 && plainText429(operation)) {
    // RATE-003: plain text on the read plane and every write; clients must not parse it.
    headers['content-type'] = 'text/plain; charset=utf-8';
    return { status: 429, headers, body: 'Too Many Requests. Retry after the number of seconds in the Retry-After header.\n' };
  }
  return problemResponse({ status: error.status, code: error.code, detail: error.message, extensions: error.extensions }, instance, requestId, headers);
}

/**
 * Whether the document declares this operation's 429 as text/plain (the read plane and every write
 * in 1.9.0; none in the pending version, `--api-version next`). A request matching no operation
 * answers like the read plane.
 */
function plainText429(operation: OperationInfo | undefined): boolean {
  const declared = operation === undefined ? unmatched429 : operation.responses['429'];
  return declared !== undefined && declared.contentTypes.includes('text/plain') && !declared.contentTypes.includes('application/problem+json');
}
const unmatched429 = operationsList.find((o) => o.operationId === 'listProducts')?.responses['429'];

/**
 * `Deprecation` (RFC 9745: `@` and the Unix time of the announcement) and `Sunset` (RFC 8594: an
 * HTTP-date) for an operation the document marks deprecated with those dates; nothing otherwise.
 */
export function deprecationHeaders(operation: OperationInfo | undefined): Record<string, string> {
  const dates = operation?.deprecation;
  if (dates === undefined) return {};
  const at = (date: string): number => Date.parse(`${date}T00:00:00Z`);
  return {
    ...(dates.deprecatedAt === undefined ? {} : { deprecation: `@${at(dates.deprecatedAt) / 1000}` }),
    ...(dates.sunset === undefined ? {} : { sunset: new Date(at(dates.sunset)).toUTCString() }),
  };
}

/**
 * The headers every answer of the API ends with, in one place: RateLimit and RateLimit-Policy
 * (when a limit was consulted), and Deprecation and Sunset on a deprecated operation.
 */
export function withRateLimitHeaders(response: RawResponse, decision: Decision | undefined, operation?: OperationInfo): RawResponse {
  if (operation?.deprecation !== undefined) Object.assign(response.headers, deprecationHeaders(operation));
  if (!decision) return response;
  response.headers.ratelimit = rateLimitHeader(decision.reported);
  response.headers['ratelimit-policy'] = decision.policy;
  return response;
}
