/**
 * Stage: rate limits (RATE-*). Builds the limits a request counts against from the document's
 * `x-rate-limits` (with runtime overrides) and asks the limiter. Headers are decided here and sent
 * on every response, errors included.
 */
import { rateLimits, type OperationInfo } from '../../spec/contract.ts';
import { ApiError } from '../errors.ts';
import { type Decision, type LimitCheck, type Limiter } from '../ratelimit/limiter.ts';
import type { AccountState, Store } from '../store.ts';

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
}

export function limitsFor(store: Store, subject: RateSubject): LimitCheck[] {
  const { group, traffic } = groupOf(subject.operation);
  const window = rateLimits.windowSeconds;
  const caps = rateLimits.caps[traffic]!;
  const account = subject.account;
  const groupQuota = quota(store, account, `group:${group}`, rateLimits.groups[group]!.limit);
  const ipCheck: LimitCheck = { counter: `ip:${subject.ip}:${traffic}`, quota: quota(store, account, `ip:${traffic}`, caps.ip), windowSeconds: window };
  if (subject.keyId && account) {
    return [
      { counter: `key:${subject.keyId}:${group}`, quota: groupQuota, windowSeconds: window },
      { counter: `account:${account.accountId}:${traffic}`, quota: quota(store, account, `account:${traffic}`, caps.account), windowSeconds: window },
      ipCheck,
    ];
  }
  // D36: a bad key counts against the presented token's group limit and the per-IP cap only.
  return [{ counter: `token:${subject.tokenHash ?? 'none'}:${group}`, quota: groupQuota, windowSeconds: window }, ipCheck];
}

export function rateLimit(limiter: Limiter, store: Store, subject: RateSubject, now: number, force = false): Decision {
  const checks = limitsFor(store, subject);
  return force ? limiter.forceReject(checks, now) : limiter.hit(checks, now);
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
