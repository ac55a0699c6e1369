/**
 * Header grammars the interface leans on (../shared/standards.md), as pure parsers. Each returns
 * the parsed value or an error message; none of them knows about the document or the network.
 *
 * - RateLimit, IETF draft-ietf-httpapi-ratelimit-headers-07: a Structured-Field Dictionary of
 *   `key=Integer` members (lowercase keys, comma-separated, optional spaces); the interface always
 *   sends `limit`, `remaining` and `reset`.
 * - RateLimit-Policy, draft-7: a Structured-Field List of Integer items, each with a `w` parameter.
 * - Retry-After, RFC 9110 10.2.3, restricted by the interface to delay-seconds.
 * - ETag, RFC 9110 8.8.3: a strong entity-tag has no `W/` prefix.
 */

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = <T>(error: string): Parsed<T> => ({ ok: false, error });

/** RFC 8941 sf-integer, restricted to non-negative values (every number in these fields is). */
const SF_NON_NEGATIVE_INTEGER = /^\d{1,15}$/;
/** RFC 8941 key. */
const SF_KEY = /^[a-z*][a-z0-9_\-.*]*$/;
/** RFC 8941 OWS around list and dictionary separators: spaces and tabs. */
const OWS = /^[ \t]*|[ \t]*$/g;

export interface RateLimitValue {
  limit: number;
  remaining: number;
  reset: number;
}

/** `limit=100, remaining=50, reset=5` (draft-7). Unknown keys are tolerated, as Structured Fields allow. */
export function parseRateLimit(value: string): Parsed<RateLimitValue> {
  if (value.trim() === '') return fail('is empty');
  const members = new Map<string, number>();
  for (const rawMember of value.split(',')) {
    const member = rawMember.replace(OWS, '');
    const eq = member.indexOf('=');
    if (eq < 0) return fail(`member "${member}" is not key=Integer`);
    const key = member.slice(0, eq);
    const raw = member.slice(eq + 1);
    if (!SF_KEY.test(key)) return fail(`"${key}" is not a Structured-Field key (lowercase)`);
    if (!SF_NON_NEGATIVE_INTEGER.test(raw)) return fail(`${key}=${raw} is not a non-negative Integer of at most 15 digits`);
    if (members.has(key)) return fail(`key ${key} appears twice`);
    members.set(key, Number(raw));
  }
  const limit = members.get('limit');
  const remaining = members.get('remaining');
  const reset = members.get('reset');
  if (limit === undefined || remaining === undefined || reset === undefined) {
    const missing = (['limit', 'remaining', 'reset'] as const).filter((k) => !members.has(k));
    return fail(`lacks ${missing.join(', ')} (the interface always sends limit, remaining and reset)`);
  }
  return ok({ limit, remaining, reset });
}

export interface PolicyItem {
  quota: number;
  window: number;
}

/** `100;w=60, 1000;w=60` (draft-7). Other parameters are tolerated; `w` is required. */
export function parseRateLimitPolicy(value: string): Parsed<PolicyItem[]> {
  if (value.trim() === '') return fail('is empty');
  const items: PolicyItem[] = [];
  for (const rawItem of value.split(',')) {
    const item = rawItem.replace(OWS, '');
    const [quotaText = '', ...params] = item.split(';');
    if (!SF_NON_NEGATIVE_INTEGER.test(quotaText)) return fail(`item "${item}" does not start with a non-negative Integer quota`);
    let window: number | undefined;
    for (const param of params) {
      const eq = param.indexOf('=');
      const key = eq < 0 ? param : param.slice(0, eq);
      if (!SF_KEY.test(key)) return fail(`item "${item}" has a malformed parameter "${param}"`);
      if (key === 'w') {
        const raw = eq < 0 ? '' : param.slice(eq + 1);
        if (!SF_NON_NEGATIVE_INTEGER.test(raw)) return fail(`item "${item}": w=${raw} is not a non-negative Integer`);
        window = Number(raw);
      }
    }
    if (window === undefined) return fail(`item "${item}" has no w (window) parameter`);
    items.push({ quota: Number(quotaText), window });
  }
  return ok(items);
}

/** delay-seconds = 1*DIGIT (the interface never uses the HTTP-date form). */
export function parseDelaySeconds(value: string): Parsed<number> {
  const trimmed = value.trim();
  if (!/^\d+$/.test(trimmed)) return fail(`"${value}" is not delay-seconds (1*DIGIT)`);
  return ok(Number(trimmed));
}

/** entity-tag = DQUOTE *etagc DQUOTE with etagc = %x21 / %x23-7E / obs-text; strong = no `W/`. */
export function parseStrongETag(value: string): Parsed<string> {
  if (/^W\//i.test(value)) return fail(`${value} is a weak entity-tag; the interface promises strong ones`);
  if (!/^"[\x21\x23-\x7E\x80-\xFF]*"$/.test(value)) return fail(`${value} is not an entity-tag (a quoted string of etagc)`);
  return ok(value);
}

/** `application/problem+json; charset=utf-8` → `application/problem+json`. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Whether a media type carries JSON (`application/json`, `application/problem+json`, `+json`). */
export function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}
