/** EVT-040, EVT-041: the retry schedule as a table. */
import { describe, expect, it } from 'vitest';
import { webhookDelivery } from '../../../contract/spec/tables.ts';
import { attemptTimes, DEFAULT_RETRY_POLICY, nextAttemptAt, retryDelaySeconds } from './backoff.ts';

const MIN = 60_000;
const p = DEFAULT_RETRY_POLICY;

describe('the retry policy', () => {
  it('is the document\'s x-webhook-delivery.retry', () => {
    expect(p).toEqual(webhookDelivery.retry);
    expect(p).toEqual({ firstDelaySeconds: 60, factor: 2, maxDelaySeconds: 3600, horizonSeconds: 86400 });
  });

  it.each([
    [1, 1],
    [2, 2],
    [3, 4],
    [4, 8],
    [5, 16],
    [6, 32],
    [7, 60],
    [8, 60],
    [29, 60],
    [10_000, 60],
  ])('EVT-040: after failed attempt %i the next one is %i minutes later', (attempt, minutes) => {
    expect(retryDelaySeconds(p, attempt)).toBe(minutes * 60);
  });

  it('refuses an attempt number below 1', () => {
    expect(() => retryDelaySeconds(p, 0)).toThrow(RangeError);
  });

  it('EVT-041: the attempt on the 24-hour horizon is made, the one after it is not', () => {
    const changedAt = 0;
    expect(nextAttemptAt(p, changedAt, 1440 * MIN - 60 * MIN, 7)).toBe(1440 * MIN);
    expect(nextAttemptAt(p, changedAt, 1440 * MIN - 59 * MIN, 7)).toBeNull();
  });

  it('EVT-040, EVT-041: a delivery that always fails is attempted 29 times from processing (+1 min) to the horizon', () => {
    const changedAt = Date.UTC(2026, 0, 1);
    const minutes = attemptTimes(p, changedAt, changedAt + MIN).map((t) => (t - changedAt) / MIN);
    expect(minutes.slice(0, 9)).toEqual([1, 2, 4, 8, 16, 32, 64, 124, 184]);
    const gaps = minutes.slice(1).map((m, i) => m - minutes[i]!);
    expect(gaps.slice(0, 8)).toEqual([1, 2, 4, 8, 16, 32, 60, 60]);
    expect(gaps.every((g) => g <= 60)).toBe(true);
    expect(minutes).toHaveLength(29);
    expect(minutes.at(-1)).toBe(1384);
    expect(minutes.at(-1)! + 60).toBeGreaterThan(1440);
  });
});
