/** What the catalogue's entries share: small edits of a proxied exchange. */
import { editBody, isObject, isProblem, objectBody, REASON, resourcesOf, withBody, type Json, type JsonObject, type ProxyRequest, type ProxyResponse, bodyOf } from '../exchange.ts';

export const ok = (response: ProxyResponse): boolean => response.status >= 200 && response.status < 300;

/** Change every resource object of a 2xx body (the body itself, or each row of a list). */
export function eachResource(response: ProxyResponse, edit: (resource: JsonObject) => void): ProxyResponse {
  if (!ok(response)) return response;
  const body = bodyOf(response);
  const resources = resourcesOf(body);
  if (resources.length === 0) return response;
  resources.forEach(edit);
  return withBody(response, body!);
}

/** Objects of a 2xx body (or its rows) whose `object` tag is `tag`. */
export function eachTagged(response: ProxyResponse, tag: string, edit: (resource: JsonObject) => void): ProxyResponse {
  return eachResource(response, (resource) => {
    if (resource['object'] === tag) edit(resource);
  });
}

/** A problem answer re-labelled with another status, its body kept consistent with it. */
export function restatus(response: ProxyResponse, status: number, extra: Record<string, Json> = {}): ProxyResponse {
  const moved = { ...response, status };
  return isProblem(response) ? editBody(moved, (p) => ({ ...p, status, title: REASON[status] ?? String(status), ...extra })) : moved;
}

export function problemCode(response: ProxyResponse): string | undefined {
  const code = isProblem(response) ? objectBody(response)?.['code'] : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * A request whose JSON object body `rewrite` changes: the new body, or the request as it was when
 * `rewrite` returns undefined or the body is not a JSON object.
 */
export function rewriteJsonBody(request: ProxyRequest, rewrite: (body: JsonObject) => JsonObject | undefined): ProxyRequest {
  let body: Json;
  try {
    body = JSON.parse(request.body) as Json;
  } catch {
    return request; // not JSON: left alone
  }
  const changed = isObject(body) ? rewrite(body) : undefined;
  return changed === undefined ? request : { ...request, body: JSON.stringify(changed) };
}

/** A well-formed Idempotency-Key (bare or quoted) with `suffix` appended (within 255 characters). */
export function saltKey(key: string, suffix: string): string {
  const quoted = /^".*"$/.test(key);
  const bare = quoted ? key.slice(1, -1) : key;
  if (!/^[A-Za-z0-9\-_.:~]{1,255}$/.test(bare)) return key; // malformed stays malformed
  const salted = `${bare.slice(0, 255 - suffix.length - 1)}-${suffix}`;
  return quoted ? `"${salted}"` : salted;
}

export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(36);
}

export const TERMINAL_RUN = new Set(['SUCCEEDED', 'PARTIAL', 'FAILED', 'REFUSED', 'STOPPED', 'EXPIRED']);
export const UTC_TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)Z$/;

/** Every UTC timestamp string of a JSON value, rewritten to the same instant at +01:00. */
export function offsetTimestamps(value: Json): Json {
  if (typeof value === 'string') {
    if (!UTC_TIMESTAMP.test(value)) return value;
    const local = new Date(Date.parse(value) + 3_600_000).toISOString().replace('Z', '+01:00');
    return local;
  }
  if (Array.isArray(value)) return value.map(offsetTimestamps);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, offsetTimestamps(v)]));
  return value;
}

/** A JSON value without its null members (except inside `pagination`, which is left alone). */
export function dropNulls(value: Json): Json {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, k === 'pagination' ? v : dropNulls(v)]),
  );
}

export function rateLimitFields(raw: string | undefined): { limit: number; remaining: number; reset: number } | undefined {
  if (raw === undefined) return undefined;
  const fields = Object.fromEntries(raw.split(',').map((part) => part.trim().split('=').map((s) => s.trim()) as [string, string]));
  const limit = Number(fields['limit']);
  const remaining = Number(fields['remaining']);
  const reset = Number(fields['reset']);
  return [limit, remaining, reset].every(Number.isInteger) ? { limit, remaining, reset } : undefined;
}

export function pathOfUrl(url: string): string {
  return url.split('?')[0] ?? url;
}

export function isRetryable(response: ProxyResponse): boolean {
  return response.status === 429 || response.status === 503;
}

// ---------------------------------------------------------------------------------------------
// The catalogue
