/**
 * Header checks that go beyond a schema: RateLimit and RateLimit-Policy grammar and arithmetic
 * (RATE-019..026), Retry-After on every 429 and 503 (RATE-026, ERR-025), strong ETags
 * (ETAG-002/003), a Location that points at the created resource (CAMP-022, RUN-035, UPSC-009),
 * and Deprecation (RFC 9745) and Sunset (RFC 8594) exactly on the operations the document deprecates.
 */
import { rateLimits } from '../../../contract/spec/tables.ts';
import { type OperationInfo } from '../../../contract/spec/contract.ts';
import { parseDelaySeconds, parseRateLimit, parseRateLimitPolicy, parseStrongETag, type PolicyItem, type RateLimitValue } from './grammar.ts';
import type { Violation } from './types.ts';
import { headerRulesOf } from './status-rules.ts';

type Headers = Readonly<Record<string, readonly string[]>>;

/** Headers that may appear once only (a second field line makes the value ambiguous). */
const SINGLETON_HEADERS = ['content-type', 'etag', 'location', 'retry-after'] as const;

export function checkDuplicates(headers: Headers): Violation[] {
  return SINGLETON_HEADERS.filter((name) => (headers[name]?.length ?? 0) > 1).map((name) => ({
    check: 'header-duplicate' as const,
    rules: [],
    message: `header ${name} is sent ${headers[name]!.length} times: ${headers[name]!.join(' | ')}`,
  }));
}

function joined(headers: Headers, name: string): string | undefined {
  const values = headers[name];
  return values === undefined || values.length === 0 ? undefined : values.join(', ');
}

export interface RateLimitFindings {
  violations: Violation[];
  rateLimit?: RateLimitValue;
  policy?: PolicyItem[];
}

/**
 * RATE-020 present on every response; RATE-021 grammar and `remaining <= limit`, `reset` within the
 * window; RATE-024 policy grammar, distinct quotas, and the reported limit among them; RATE-019
 * every window 60 seconds; RATE-023 on a 429 `remaining=0`.
 */
export function checkRateLimit(status: number, headers: Headers): RateLimitFindings {
  const violations: Violation[] = [];
  const rawLimit = joined(headers, 'ratelimit');
  const rawPolicy = joined(headers, 'ratelimit-policy');
  if (rawLimit === undefined) violations.push({ check: 'ratelimit-present', rules: ['RATE-020'], message: 'the RateLimit header is missing (every response carries it)' });
  if (rawPolicy === undefined) violations.push({ check: 'ratelimit-present', rules: ['RATE-020'], message: 'the RateLimit-Policy header is missing (every response carries it)' });

  let rateLimit: RateLimitValue | undefined;
  if (rawLimit !== undefined) {
    const parsed = parseRateLimit(rawLimit);
    if (!parsed.ok) violations.push({ check: 'ratelimit-grammar', rules: ['RATE-021'], message: `RateLimit: ${rawLimit} ${parsed.error}` });
    else rateLimit = parsed.value;
  }
  let policy: PolicyItem[] | undefined;
  if (rawPolicy !== undefined) {
    const parsed = parseRateLimitPolicy(rawPolicy);
    if (!parsed.ok) violations.push({ check: 'ratelimit-policy-grammar', rules: ['RATE-024'], message: `RateLimit-Policy: ${rawPolicy} ${parsed.error}` });
    else policy = parsed.value;
  }

  if (policy) {
    const quotas = policy.map((p) => p.quota);
    const repeated = quotas.filter((q, i) => quotas.indexOf(q) !== i);
    if (repeated.length > 0) {
      violations.push({ check: 'ratelimit-policy-arithmetic', rules: ['RATE-024'], message: `RateLimit-Policy: ${rawPolicy} lists quota ${[...new Set(repeated)].join(', ')} more than once (identical limits are listed once; draft-7 forbids two items with one quota)` });
    }
    const otherWindows = policy.filter((p) => p.window !== rateLimits.windowSeconds);
    if (otherWindows.length > 0) {
      violations.push({ check: 'ratelimit-policy-arithmetic', rules: ['RATE-019'], message: `RateLimit-Policy: ${rawPolicy} has a window other than ${rateLimits.windowSeconds} seconds` });
    }
  }
  if (rateLimit) {
    if (rateLimit.remaining > rateLimit.limit) {
      violations.push({ check: 'ratelimit-arithmetic', rules: ['RATE-021'], message: `RateLimit: ${rawLimit} has remaining ${rateLimit.remaining} above limit ${rateLimit.limit}` });
    }
    const window = policy ? Math.max(...policy.map((p) => p.window)) : rateLimits.windowSeconds;
    if (rateLimit.reset > window) {
      violations.push({ check: 'ratelimit-arithmetic', rules: ['RATE-021'], message: `RateLimit: ${rawLimit} has reset ${rateLimit.reset}, beyond the ${window}-second window (reset is delay-seconds, never a timestamp)` });
    }
    if (policy && !policy.some((p) => p.quota === rateLimit!.limit)) {
      violations.push({ check: 'ratelimit-policy-arithmetic', rules: ['RATE-021', 'RATE-024'], message: `RateLimit: ${rawLimit} reports limit ${rateLimit.limit}, which RateLimit-Policy: ${rawPolicy} does not list (the policy lists every limit checked)` });
    }
    if (policy && status !== 429) violations.push(...checkClosest(rateLimit, policy, rawLimit!, rawPolicy!));
    if (status === 429 && rateLimit.remaining !== 0) {
      violations.push({ check: 'ratelimit-429', rules: ['RATE-023'], message: `a 429 reports RateLimit: ${rawLimit}; the limit that rejected is reported with remaining=0` });
    }
  }
  return { violations, ...(rateLimit ? { rateLimit } : {}), ...(policy ? { policy } : {}) };
}

/**
 * RATE-021 and RATE-024 as far as one response decides them (not on a 429, which reports the limit
 * that rejected). The policy shows each limit's quota, not its remaining; yet every other limit has
 * remaining <= its quota. So the reported limit (the one with the lowest remaining, a tie going to
 * the smaller limit) cannot report more remaining than another listed quota, nor as much as a
 * smaller one. And the policy lists closest first: an item before the reported limit is at least
 * as close, so it ties with it, and then the smaller of the two is reported: only a larger quota
 * may come before the reported one. A correct implementation never fails either; one that reports
 * a farther limit, or orders the policy otherwise, fails as soon as the remaining counts show it.
 */
export function checkClosest(rateLimit: RateLimitValue, policy: readonly PolicyItem[], rawLimit: string, rawPolicy: string): Violation[] {
  const violations: Violation[] = [];
  const { limit, remaining } = rateLimit;
  const closer = policy.filter((p) => p.quota !== limit && (remaining > p.quota || (remaining === p.quota && p.quota < limit)));
  if (closer.length > 0) {
    violations.push({
      check: 'ratelimit-closest',
      rules: ['RATE-021'],
      message: `RateLimit: ${rawLimit} reports ${remaining} remaining of ${limit}, but RateLimit-Policy: ${rawPolicy} lists ${closer.map((p) => p.quota).join(', ')}, whose remaining cannot be higher than its quota: that limit is closer to exhaustion (a tie goes to the smaller limit) and is the one to report`,
    });
  }
  const at = policy.findIndex((p) => p.quota === limit);
  const before = at < 0 ? [] : policy.slice(0, at).filter((p) => p.quota < limit);
  if (before.length > 0) {
    violations.push({
      check: 'ratelimit-closest',
      rules: ['RATE-024'],
      message: `RateLimit-Policy: ${rawPolicy} lists ${before.map((p) => p.quota).join(', ')} before the reported limit ${limit} (RateLimit: ${rawLimit}); closest first, an item before the reported limit ties with it, and a tie reports the smaller limit`,
    });
  }
  return violations;
}

/** Problem codes of a 409 that carry Retry-After, with the rules that say so. */
export const RETRY_AFTER_409: Readonly<Record<string, readonly string[]>> = {
  IDEMPOTENCY_IN_PROGRESS: ['IDEM-009'],
  CAMPAIGN_CASCADE_PENDING: ['CAMP-017', 'ERR-028'],
};

/**
 * Retry-After: required on every 429 (RATE-026) and 503 (ERR-025), and on the 409s whose code
 * carries it (IDEM-009, CAMP-017, ERR-028); delay-seconds wherever sent.
 */
export function checkRetryAfter(status: number, headers: Headers, code?: string): Violation[] {
  const on409 = status === 409 && code !== undefined ? RETRY_AFTER_409[code] : undefined;
  const rules = status === 503 ? ['ERR-025'] : on409 ? [...on409] : ['RATE-026'];
  const raw = joined(headers, 'retry-after');
  if (raw === undefined) {
    if (status === 429 || status === 503) return [{ check: 'retry-after', rules, message: `a ${status} without Retry-After` }];
    if (on409) return [{ check: 'retry-after', rules, message: `a 409 ${code} without Retry-After (this code always carries it)` }];
    return [];
  }
  const parsed = parseDelaySeconds(raw);
  return parsed.ok ? [] : [{ check: 'retry-after', rules, message: `Retry-After: ${parsed.error}` }];
}

const AUTH_CHALLENGE_POINTER = '#/components/headers/WWW-Authenticate';
const ALLOW_POINTER = '#/components/headers/Allow';

/**
 * What HTTP requires of a 401 and a 405 (RFC 9110 11.6.1, 15.5.6; D50): a 401 carries a
 * `WWW-Authenticate` challenge of the Bearer scheme (AUTH-040); a 405 an `Allow` list of methods
 * that does not name the refused one (ERR-043). Both rest on the document's x-assumption.
 */
export function checkChallenges(method: string, status: number, headers: Headers): Violation[] {
  if (status === 401) {
    const challenge = joined(headers, 'www-authenticate');
    if (challenge === undefined || !/^bearer(?:[ ,]|$)/i.test(challenge.trim())) {
      return [{ check: 'auth-challenge', rules: ['AUTH-040'], message: `a 401 with WWW-Authenticate ${JSON.stringify(challenge ?? null)}; expected the Bearer challenge`, assumption: AUTH_CHALLENGE_POINTER }];
    }
  }
  if (status === 405) {
    const allow = joined(headers, 'allow');
    const methods = allow?.split(',').map((m) => m.trim()) ?? [];
    if (allow === undefined || methods.some((m) => !/^[A-Z]+$/.test(m))) {
      return [{ check: 'allow', rules: ['ERR-043'], message: `a 405 with Allow ${JSON.stringify(allow ?? null)}; expected the list of the path's methods`, assumption: ALLOW_POINTER }];
    }
    if (methods.includes(method.toUpperCase())) {
      return [{ check: 'allow', rules: ['ERR-043'], message: `a 405 to ${method.toUpperCase()} whose Allow (${allow}) names ${method.toUpperCase()}`, assumption: ALLOW_POINTER }];
    }
  }
  return [];
}

/** A strong ETag wherever the operation declares one (ETAG-002 on reads, ETAG-003 on writes). */
export function checkETag(operation: OperationInfo, declaresETag: boolean, headers: Headers): Violation[] {
  const raw = joined(headers, 'etag');
  if (raw === undefined || !declaresETag) return [];
  const parsed = parseStrongETag(raw);
  if (parsed.ok) return [];
  return [{ check: 'etag', rules: [operation.method === 'get' ? 'ETAG-002' : 'ETAG-003'], message: `ETag: ${parsed.error}` }];
}


/**
 * Location, where the response declares it: resolved against the request URL, its path is the base
 * path, the collection of the created resource, then the id the body carries
 * (`/api/public/v1/campaigns/{campaignId}`).
 */
export function checkLocation(operation: OperationInfo, declaresLocation: boolean, requestUrl: string, basePath: string, headers: Headers, body: unknown): Violation[] {
  const raw = joined(headers, 'location');
  if (!declaresLocation || raw === undefined) return [];
  // The rules of the ledger that own the operation's Location (CAMP-022, RUN-035, UPSC-009; D267).
  const rules = headerRulesOf(operation, 'Location');
  let resolved: URL;
  try {
    resolved = new URL(raw, requestUrl);
  } catch {
    return [{ check: 'location', rules, message: `Location: ${raw} is not a URI reference` }];
  }
  const request = new URL(requestUrl);
  if (resolved.origin !== request.origin) return [{ check: 'location', rules, message: `Location: ${raw} points at another origin than ${request.origin}` }];
  const collection = operation.path.split('/')[1] ?? '';
  const idField = `${collection.replace(/s$/, '')}Id`;
  const id = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[idField] : undefined;
  if (typeof id !== 'string') return [{ check: 'location', rules, message: `Location: ${raw} cannot be matched: the body carries no string ${idField}` }];
  const expected = `${basePath.replace(/\/$/, '')}/${collection}/${encodeURIComponent(id)}`;
  if (resolved.pathname !== expected) {
    return [{ check: 'location', rules, message: `Location: ${raw} does not point at the created resource ${expected} (${idField} ${id} in the body)` }];
  }
  return [];
}

/**
 * Deprecation and Sunset: on an operation the document marks deprecated, `Deprecation: @<Unix time
 * of x-deprecated-at>` (RFC 9745, a structured-field Date) and `Sunset: <HTTP-date of x-sunset>`
 * (RFC 8594); on any other operation neither header.
 */
export function checkDeprecation(operation: OperationInfo, headers: Headers): Violation[] {
  const violations: Violation[] = [];
  const dates = operation.deprecation;
  const deprecation = joined(headers, 'deprecation');
  const sunset = joined(headers, 'sunset');
  const violation = (message: string): Violation => ({ check: 'deprecation', rules: [], message: `${operation.operationId}: ${message}` });
  const day = (date: string): number => Date.parse(`${date}T00:00:00Z`);
  if (dates?.deprecatedAt === undefined) {
    if (deprecation !== undefined) violations.push(violation(`Deprecation: ${deprecation} on an operation the document does not deprecate`));
  } else if (deprecation === undefined) violations.push(violation(`no Deprecation header; the document deprecates it as of ${dates.deprecatedAt}`));
  else {
    const m = /^@(-?\d+)$/.exec(deprecation.trim());
    if (m === null) violations.push(violation(`Deprecation: ${deprecation} is not a structured-field Date (@<Unix seconds>, RFC 9745)`));
    else if (Number(m[1]) * 1000 !== day(dates.deprecatedAt)) violations.push(violation(`Deprecation: ${deprecation} is ${new Date(Number(m[1]) * 1000).toISOString()}, the document says ${dates.deprecatedAt}`));
  }
  if (dates?.sunset === undefined) {
    if (sunset !== undefined) violations.push(violation(`Sunset: ${sunset} on an operation without a sunset date`));
  } else if (sunset === undefined) violations.push(violation(`no Sunset header; the document sets the sunset at ${dates.sunset}`));
  else {
    const parsed = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(sunset.trim()) ? Date.parse(sunset) : Number.NaN;
    if (Number.isNaN(parsed)) violations.push(violation(`Sunset: ${sunset} is not an HTTP-date (RFC 8594, IMF-fixdate)`));
    else if (parsed !== day(dates.sunset)) violations.push(violation(`Sunset: ${sunset} is not ${dates.sunset}, the document's sunset`));
  }
  return violations;
}
