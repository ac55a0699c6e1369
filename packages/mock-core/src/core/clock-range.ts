/** The times the clocks keep and the length of an advance (packages/mock-core/src/core/clock.ts; D251, D252). */

/**
 * The latest time any clock of the mock may read (D251): 9998-01-01T00:00:00Z. Every timestamp the
 * mock renders is a clock reading plus at most its longest horizon (a key's 365-day expiry; the
 * 24-hour webhook retry horizon, a day's budget, run and upscale times are shorter), so it stays a
 * four-digit year, a valid RFC 3339 date-time (`toISOString` past 9999 gives `+010000-...`).
 */
export const LATEST_TIME_MS: number = Date.UTC(9998, 0, 1, 0, 0, 0);

/**
 * The latest reading a state file may hold (D251): 9998-12-31T00:00:00Z. No advance goes past
 * LATEST_TIME_MS, but a real clock keeps running after one stopped there: a state saved by a mock left
 * running at the bound still loads for 364 days of real time (a 365-day horizon from here still ends
 * in 9999).
 */
export const LATEST_READING_MS: number = Date.UTC(9998, 11, 31, 0, 0, 0);

/** Why `ms` cannot be a clock reading (a state file's), or undefined when it can: 1970..LATEST_READING_MS. */
export function clockReadingProblem(ms: unknown): string | undefined {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return 'is not a finite number of epoch milliseconds';
  if (ms < 0 || ms > LATEST_READING_MS) return `is outside 1970-01-01T00:00:00Z..${new Date(LATEST_READING_MS).toISOString()}, the times the mock keeps (no advance goes past ${new Date(LATEST_TIME_MS).toISOString()}; a real clock may run on from there for 364 days, D251)`;
  return undefined;
}

/** An advance refused before anything moved: it would take a clock past LATEST_TIME_MS (D251). */
export class ClockRangeError extends RangeError {
  constructor(
    /** Milliseconds that clock (and every account ahead of it) can still move. */
    readonly roomMs: number,
  ) {
    super(`would move the clock past ${new Date(LATEST_TIME_MS).toISOString()}, the latest time the mock keeps (D251); at most ${Math.max(0, Math.floor(roomMs / 1000))} seconds remain`);
  }
}

/** Tasks an advance runs before it lets the event loop answer other requests (D252). */
export const SLICE_TASKS = 256;

/** The checked length of an advance in milliseconds, or a RangeError (negative, not finite). */
export function advanceMs(seconds: number): number {
  if (!(seconds >= 0) || !Number.isFinite(seconds)) throw new RangeError('advance takes a finite, non-negative number of seconds');
  return Math.round(seconds * 1000);
}

/**
 * One queue of advances (D252): each runs after the one before it, and the milliseconds accepted and
 * not yet done are reserved, so that two queued advances cannot pass LATEST_TIME_MS together. The
 * mock's clock has one; each account's clock has its own.
 */
export class AdvanceQueue {
  private tail: Promise<void> = Promise.resolve();
  /** Milliseconds of advances accepted and not yet done. */
  reservedMs = 0;

  /** Checks `seconds` (`checkRoom` throws before anything is queued), then runs `step` after the advances before it. */
  enqueue(seconds: number, checkRoom: (ms: number) => void, step: (ms: number) => Promise<void>): Promise<void> {
    let ms: number;
    try {
      ms = advanceMs(seconds);
      checkRoom(ms);
    } catch (error) {
      return Promise.reject(error);
    }
    this.reservedMs += ms;
    const run = this.tail.then(() => step(ms)).finally(() => (this.reservedMs -= ms));
    this.tail = run.catch(() => undefined);
    return run;
  }
}
