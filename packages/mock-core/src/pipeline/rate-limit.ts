/**
 * Stage: rate limits (RATE-*). Builds the limits a request counts against from the document's
 * `x-rate-limits` (with runtime overrides) and asks the limiter. Headers are decided here and sent
 * on every response, errors included.
 */
import { rateLimits } from '../../../contract/spec/tables.ts';
import { type OperationInfo } from '../../../contract/spec/contract.ts';
import { ApiError } from '../core/errors.ts';
import { type Decision, type LimitCheck, type Limiter } from '../ratelimit/limiter.ts';
import type { AccountState, Store } from '../domain/store.ts';

export type Traffic = 'read' | 'generation' | 'writes';

export function groupOf(operation: OperationInfo | undefined): { group: string; traffic: Traffic } {
  const group = operation?.rateLimitGroup ?? 'read';
  const spec = rateLimits.groups[group];
  if (!spec) throw new Error(`unknown rate-limit group ${group}`);
  return { group, traffic: spec.traffic as Traffic };
}

/** Effective quota: account override, then global override, then the document's default. */
function quota(store: Store, account: AccountState | undefined, name: string, fallback: number): number {
  return account?.limitOverrides[name] ?? store.limitOverrides[name] ?? fallback;
}

export interface RateSubject {
  operation: OperationInfo | undefined;
  ip: string;
  /** The authenticated key and account, or, for a 401, the presented token's hash. */
  keyId?: string;
  account?: AccountState;
  tokenHash?: string;
  /** The account's own clock advance in ms (D91): the key's and the account's windows follow it. */
  offsetMs?: number;
}

/**
 * Counter names (`<kind>:<id>:<group or traffic>`) by id, remembered so that the same key, account
 * or address does not rebuild (and rehash) the same string on every request. Bounded: when full it
 * is forgotten wholesale and refills with the ids in use.
 */
class CounterNames {
  private static readonly MAX = 1024;
  private readonly names = new Map<string, string>();
  constructor(
    private readonly kind: string,
    private readonly scope: string,
  ) {}

  of(id: string): string {
    let name = this.names.get(id);
    if (name === undefined) {
      if (this.names.size >= CounterNames.MAX) this.names.clear();
      name = `${this.kind}:${id}:${this.scope}`;
      this.names.set(id, name);
    }
    return name;
  }
}

/** The limits of one group, resolved once from the document (quotas stay live: overrides change). */
interface GroupLimits {
  /** Override names and the document's defaults: the group limit, the account and IP caps. */
  groupLimit: { name: string; quota: number };
  accountCap: { name: string; quota: number };
  ipCap: { name: string; quota: number };
  keyCounters: CounterNames;
  tokenCounters: CounterNames;
  accountCounters: CounterNames;
  ipCounters: CounterNames;
}

const groupLimitsCache = new Map<string, GroupLimits>();
/** Account and IP counter names are per traffic, shared by its groups. */
const trafficCounters = new Map<string, { accountCounters: CounterNames; ipCounters: CounterNames }>();

function groupLimits(operation: OperationInfo | undefined): GroupLimits {
  const cached = groupLimitsCache.get(operation?.rateLimitGroup ?? 'read');
  if (cached) return cached;
  const { group, traffic } = groupOf(operation);
  const caps = rateLimits.caps[traffic]!;
  let counters = trafficCounters.get(traffic);
  if (!counters) {
    counters = { accountCounters: new CounterNames('account', traffic), ipCounters: new CounterNames('ip', traffic) };
    trafficCounters.set(traffic, counters);
  }
  const limits: GroupLimits = {
    groupLimit: { name: `group:${group}`, quota: rateLimits.groups[group]!.limit },
    accountCap: { name: `account:${traffic}`, quota: caps.account },
    ipCap: { name: `ip:${traffic}`, quota: caps.ip },
    keyCounters: new CounterNames('key', group),
    tokenCounters: new CounterNames('token', group),
    ...counters,
  };
  groupLimitsCache.set(group, limits);
  return limits;
}

/**
 * The limits a request counts against, its group limit first: for an authenticated request the
 * key's group limit, the account cap and the IP cap of its traffic (counters `key:<keyId>:<group>`,
 * `account:<accountId>:<traffic>`, `ip:<addr>:<traffic>`).
 */
export function limitsFor(store: Store, subject: RateSubject): LimitCheck[] {
  const limits = groupLimits(subject.operation);
  const window = rateLimits.windowSeconds;
  const account = subject.account;
  const groupQuota = quota(store, account, limits.groupLimit.name, limits.groupLimit.quota);
  // A per-IP cap protects the service, whoever's account: counted on real elapsed time (D274).
  const ipCheck: LimitCheck = { counter: limits.ipCounters.of(subject.ip), quota: quota(store, account, limits.ipCap.name, limits.ipCap.quota), windowSeconds: window, wall: true };
  if (subject.keyId && account) {
    const offset = subject.offsetMs ? { offsetMs: subject.offsetMs } : {};
    return [
      { counter: limits.keyCounters.of(subject.keyId), quota: groupQuota, windowSeconds: window, ...offset },
      { counter: limits.accountCounters.of(account.accountId), quota: quota(store, account, limits.accountCap.name, limits.accountCap.quota), windowSeconds: window, ...offset },
      ipCheck,
    ];
  }
  // D36: a bad key counts against the presented token's group limit and the per-IP cap only.
  return [{ counter: limits.tokenCounters.of(subject.tokenHash ?? 'none'), quota: groupQuota, windowSeconds: window }, ipCheck];
}

/** `now`: the mock's clock; `wallNow`: its wall reading, the per-IP caps' time (D274). */
export function rateLimit(limiter: Limiter, store: Store, subject: RateSubject, now: number, wallNow: number, force = false): Decision {
  const checks = limitsFor(store, subject);
  return force ? limiter.forceReject(checks, now, wallNow) : limiter.hit(checks, now, wallNow);
}

/**
 * Faults on demand: a forced 429 for this request (`Prefer: scenario=rate_limited`) or for the
 * account's next N requests (`faults.forcedRateLimits` from the control plane).
 */
export function forcedRateLimit(account: AccountState, scenarios: ReadonlySet<string>): boolean {
  if (scenarios.has('rate_limited')) return true;
  if (account.faults.forcedRateLimits > 0) {
    account.faults.forcedRateLimits--;
    return true;
  }
  return false;
}

/** The 429 for a rejected decision: problem+json on the generation plane, plain text elsewhere. */
export function rateLimited(decision: Decision): ApiError {
  return new ApiError('RATE_LIMITED', 'Rate limit exceeded; retry after the number of seconds in Retry-After.', { retryAfter: decision.retryAfter ?? 1 });
}

export function isGenerationPlane(operation: OperationInfo | undefined): boolean {
  return groupOf(operation).traffic === 'generation';
}
