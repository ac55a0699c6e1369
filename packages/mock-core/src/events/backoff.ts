/**
 * The webhook retry schedule (EVT-040, EVT-041), as pure functions of the document's
 * `x-webhook-delivery.retry` (read through packages/contract/spec/contract.ts's `webhookDelivery`):
 *
 * - after the n-th failed attempt (n = 1, 2, ...) the next one is `firstDelaySeconds × factor^(n-1)`
 *   later, capped at `maxDelaySeconds` (1, 2, 4, ... 32, 60, 60 ... minutes);
 * - an attempt later than `horizonSeconds` after the change is never made: the delivery is given up.
 *   An attempt falling exactly on the horizon is still made.
 *
 * Delays are counted from the clock time of the failed attempt (not from when its answer came back),
 * so the schedule is the same in manual and real time and never depends on network latency.
 */
import { webhookDelivery } from '../../../contract/spec/tables.ts';

export interface RetryPolicy {
  firstDelaySeconds: number;
  factor: number;
  maxDelaySeconds: number;
  horizonSeconds: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { ...webhookDelivery.retry };

/** Seconds between failed attempt `attempt` (1-based) and the next one. */
export function retryDelaySeconds(policy: RetryPolicy, attempt: number): number {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  // Doubling past the cap would overflow for large attempt numbers; stop multiplying once capped.
  let delay = policy.firstDelaySeconds;
  for (let n = 1; n < attempt && delay < policy.maxDelaySeconds; n++) delay *= policy.factor;
  return Math.min(delay, policy.maxDelaySeconds);
}

/**
 * When to make the next attempt after attempt `attempt` failed at `failedAt` (epoch ms), for a
 * change that happened at `changedAt`; null when that would pass the horizon (give up).
 */
export function nextAttemptAt(policy: RetryPolicy, changedAt: number, failedAt: number, attempt: number): number | null {
  const next = failedAt + retryDelaySeconds(policy, attempt) * 1000;
  return next <= changedAt + policy.horizonSeconds * 1000 ? next : null;
}

/**
 * Every attempt time of a delivery whose every attempt fails, the first at `firstAttemptAt`
 * (the processing time). For documentation and tests: the scheduler itself calls `nextAttemptAt`.
 */
export function attemptTimes(policy: RetryPolicy, changedAt: number, firstAttemptAt: number): number[] {
  const times = [firstAttemptAt];
  for (let attempt = 1; ; attempt++) {
    const next = nextAttemptAt(policy, changedAt, times[times.length - 1]!, attempt);
    if (next === null) return times;
    times.push(next);
  }
}
