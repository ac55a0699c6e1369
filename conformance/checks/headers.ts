/**
 * Header checks that go beyond a schema: RateLimit and RateLimit-Policy grammar and arithmetic
 * (RATE-019..026), Retry-After on every 429 and 503 (RATE-026, ERR-025), strong ETags
 * (ETAG-002/003), and a Location that points at the created resource (CAMP-022, RUN-035, UPSC-009).
 */
import { rateLimits, type OperationInfo } from '../../spec/contract.ts';
import { parseDelaySeconds, parseRateLimit, parseRateLimitPolicy, parseStrongETag, type PolicyItem, type RateLimitValue } from './grammar.ts';
import type { Violation } from './types.ts';

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
    if (status === 429 && rateLimit.remaining !== 0) {
      violations.push({ check: 'ratelimit-429', rules: ['RATE-023'], message: `a 429 reports RateLimit: ${rawLimit}; the limit that rejected is reported with remaining=0` });
    }
  }
  return { violations, ...(rateLimit ? { rateLimit } : {}), ...(policy ? { policy } : {}) };
}

/** Retry-After: required on every 429 (RATE-026) and 503 (ERR-025); delay-seconds wherever sent. */
export function checkRetryAfter(status: number, headers: Headers): Violation[] {
  const rules = status === 503 ? ['ERR-025'] : ['RATE-026'];
  const raw = joined(headers, 'retry-after');
  if (raw === undefined) {
    if (status === 429 || status === 503) return [{ check: 'retry-after', rules, message: `a ${status} without Retry-After` }];
    return [];
  }
  const parsed = parseDelaySeconds(raw);
  return parsed.ok ? [] : [{ check: 'retry-after', rules, message: `Retry-After: ${parsed.error}` }];
}

/** A strong ETag wherever the operation declares one (ETAG-002 on reads, ETAG-003 on writes). */
export function checkETag(operation: OperationInfo, declaresETag: boolean, headers: Headers): Violation[] {
  const raw = joined(headers, 'etag');
  if (raw === undefined || !declaresETag) return [];
  const parsed = parseStrongETag(raw);
  if (parsed.ok) return [];
  return [{ check: 'etag', rules: [operation.method === 'get' ? 'ETAG-002' : 'ETAG-003'], message: `ETag: ${parsed.error}` }];
}

export const LOCATION_RULES: Readonly<Record<string, string>> = { createCampaign: 'CAMP-022', createRun: 'RUN-035', createUpscale: 'UPSC-009' };

/**
 * Location, where the response declares it: resolved against the request URL, its path is the base
 * path, the collection of the created resource, then the id the body carries
 * (`/api/public/v1/campaigns/{campaignId}`).
 */
export function checkLocation(operation: OperationInfo, declaresLocation: boolean, requestUrl: string, basePath: string, headers: Headers, body: unknown): Violation[] {
  const raw = joined(headers, 'location');
  if (!declaresLocation || raw === undefined) return [];
  const rule = LOCATION_RULES[operation.operationId];
  const rules = rule ? [rule] : [];
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
