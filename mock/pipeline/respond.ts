/**
 * Stage: respond. JSON bodies, problem+json errors (RFC 9457 with `code` and `requestId`), the
 * plain-text 429 of the read plane and every write, and the headers every response carries.
 */
import type { OperationInfo } from '../../spec/contract.ts';
import { ApiError, problemBody } from '../errors.ts';
import { rateLimitHeader, type Decision } from '../ratelimit/limiter.ts';
import { etagOf } from './preconditions.ts';
import { isGenerationPlane } from './rate-limit.ts';
import type { OperationResult, RawResponse } from './types.ts';

// The media types as sent: with the charset, as fastify would add it to a text body, so that the
// kept bytes of a cached read (a Buffer, which fastify leaves alone) carry the same header.
export const JSON_TYPE = 'application/json; charset=utf-8';
export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** A response body as the bytes sent (text is UTF-8). */
export function bodyBytes(body: string | Buffer): Buffer {
  return typeof body === 'string' ? Buffer.from(body) : body;
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
  if (error.status === 429 && !isGenerationPlane(operation)) {
    // RATE-*: plain text on the read plane and every write; clients must not parse it.
    headers['content-type'] = 'text/plain; charset=utf-8';
    return { status: 429, headers, body: 'Too Many Requests. Retry after the number of seconds in the Retry-After header.\n' };
  }
  headers['content-type'] = PROBLEM_TYPE;
  return { status: error.status, headers, body: JSON.stringify(problemBody(error, instance, requestId)) };
}

export function withRateLimitHeaders(response: RawResponse, decision: Decision | undefined): RawResponse {
  if (!decision) return response;
  response.headers.ratelimit = rateLimitHeader(decision.reported);
  response.headers['ratelimit-policy'] = decision.policy;
  return response;
}
