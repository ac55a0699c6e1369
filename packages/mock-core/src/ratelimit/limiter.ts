/**
 * Rate limits (interface: Limits / Rate limits; IETF RateLimit draft-7 headers).
 *
 * Each request is checked against every limit that applies to it: its group's limit for the key,
 * the account-wide cap and the per-source-IP cap of its kind of traffic. Windows are fixed 60-second
 * windows aligned on a reading of the injected clock: a key's and an account's on the account's time
 * (D91), a per-source-IP cap on real elapsed time, the clock's wall reading (D274: a protection of
 * the service, not account state, so no advance ends its window and a manual clock does not freeze
 * it). A request counts against all its limits only when all of them admit it (a rejected request
 * consumes nothing).
 *
 * Headers: `RateLimit` reports the limit closest to exhaustion (lowest remaining; a tie goes to the
 * smaller limit); on a 429 it reports the limit that rejected, with remaining=0. `RateLimit-Policy`
 * lists every limit checked, closest first, identical limits once.
 */

export interface LimitCheck {
  /** Counter identity, e.g. `key:<keyId>:read`, `account:<id>:writes`, `ip:<addr>:read`. */
  counter: string;
  quota: number;
  windowSeconds: number;
  /** The account's own clock advance (ms) for a key's or an account's limit (D91); absent: none. */
  offsetMs?: number;
  /**
   * Counted on real elapsed time, the clock's wall reading (`wallNow`), whatever the mock's or an
   * account's clock does: the per-source-IP caps (D274).
   */
  wall?: true;
}

export interface LimitState {
  limit: number;
  remaining: number;
  reset: number;
}

export interface Decision {
  allowed: boolean;
  /** The limit the RateLimit header reports. */
  reported: LimitState;
  /** RateLimit-Policy value. */
  policy: string;
  /** Seconds until the rejecting limit's window resets (on a 429). */
  retryAfter?: number;
}

interface Counter {
  windowStart: number;
  count: number;
  /** Its windows are on the wall reading (`LimitCheck.wall`). */
  wall: boolean;
}

/**
 * One limit as evaluated for the request at hand. The limiter keeps a few of these and reuses them
 * on every request (this stage runs on every HTTP request, so it allocates only the Decision).
 */
interface Slot {
  check: LimitCheck;
  /** The stored counter, when there is one (updated in place when the request is admitted). */
  counter: Counter | undefined;
  windowStart: number;
  /** Requests already counted in the current window. */
  used: number;
  /** Remaining after this request: what the headers report. */
  remaining: number;
  /** Delay-seconds to the end of the current window. */
  reset: number;
}

export class Limiter {
  private readonly counters = new Map<string, Counter>();
  /** Scratch: slots[i] is checks[i] of the current request; `order` the same slots, closest first. */
  private readonly slots: Slot[] = [];
  private readonly order: Slot[] = [];

  /**
   * Check and, when every limit admits the request, count it. `now` is the mock's clock, `wallNow`
   * its wall reading (the per-IP caps' time, D274; default `now`, for a caller without one).
   */
  hit(checks: readonly LimitCheck[], now: number, wallNow: number = now): Decision {
    const n = checks.length;
    if (n === 0) throw new Error('a request is always checked against at least one limit');
    // The limit that rejects, if any: of the exhausted limits, the smallest (the first listed on a tie).
    let rejecting: Slot | undefined;
    for (let i = 0; i < n; i++) {
      const slot = this.evaluate(i, checks[i]!, now, wallNow);
      if (slot.used >= slot.check.quota && (rejecting === undefined || slot.check.quota < rejecting.check.quota)) rejecting = slot;
    }
    if (rejecting) {
      // A rejected request consumes nothing: every limit reports what is left without it.
      for (let i = 0; i < n; i++) {
        const slot = this.slots[i]!;
        slot.remaining = Math.max(0, slot.check.quota - slot.used);
      }
      const policy = policyOf(this.orderClosest(n), n);
      return {
        allowed: false,
        reported: { limit: rejecting.check.quota, remaining: 0, reset: rejecting.reset },
        policy,
        retryAfter: rejecting.reset,
      };
    }
    // Admitted: the request counts against every one of its limits.
    for (let i = 0; i < n; i++) {
      const slot = this.slots[i]!;
      const count = slot.used + 1;
      slot.remaining = slot.check.quota - count;
      if (slot.counter) {
        slot.counter.windowStart = slot.windowStart;
        slot.counter.count = count;
      } else {
        this.counters.set(slot.check.counter, { windowStart: slot.windowStart, count, wall: slot.check.wall === true });
      }
    }
    const order = this.orderClosest(n);
    const top = order[0]!;
    return { allowed: true, reported: { limit: top.check.quota, remaining: top.remaining, reset: top.reset }, policy: policyOf(order, n) };
  }

  /**
   * A forced 429 (faults on demand): the request is refused by its first limit (the group limit)
   * as if that limit were exhausted, counting nothing.
   */
  forceReject(checks: readonly LimitCheck[], now: number, wallNow: number = now): Decision {
    const first = checks[0];
    if (!first) throw new Error('a request is always checked against at least one limit');
    const n = checks.length;
    for (let i = 0; i < n; i++) {
      const slot = this.evaluate(i, checks[i]!, now, wallNow);
      slot.remaining = i === 0 ? 0 : Math.max(0, slot.check.quota - slot.used);
    }
    const reset = this.slots[0]!.reset;
    return { allowed: false, reported: { limit: first.quota, remaining: 0, reset }, policy: policyOf(this.orderClosest(n), n), retryAfter: reset };
  }

  /** Fill slot i with `check` in the window that holds its reading (windows are aligned on it). */
  private evaluate(i: number, check: LimitCheck, mockNow: number, wallNow: number): Slot {
    // A key's and an account's windows run on the account's clock (D91); the per-IP caps on real time (D274).
    const now = check.wall ? wallNow : check.offsetMs === undefined ? mockNow : mockNow + check.offsetMs;
    const windowMs = check.windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const counter = this.counters.get(check.counter);
    let slot = this.slots[i];
    if (slot === undefined) {
      slot = { check, counter: undefined, windowStart: 0, used: 0, remaining: 0, reset: 0 };
      this.slots.push(slot);
      this.order.push(slot);
    }
    slot.check = check;
    slot.counter = counter;
    slot.windowStart = windowStart;
    slot.used = counter && counter.windowStart === windowStart ? counter.count : 0;
    slot.reset = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
    return slot;
  }

  /**
   * The first n slots closest to exhaustion first: lowest remaining, a tie to the smaller limit,
   * otherwise in the order checked (a stable insertion sort: a request has 2 or 3 limits).
   */
  private orderClosest(n: number): readonly Slot[] {
    const order = this.order;
    for (let i = 0; i < n; i++) {
      const slot = this.slots[i]!;
      let j = i;
      while (j > 0 && closerFirst(order[j - 1]!, slot) > 0) {
        order[j] = order[j - 1]!;
        j--;
      }
      order[j] = slot;
    }
    return order;
  }

  /** Forget every counter (control-plane reset). */
  clear(): void {
    this.counters.clear();
  }

  /** Drop counters of past windows, each by its own reading (bounded memory on a long-running shared mock). */
  sweep(now: number, wallNow: number = now): void {
    for (const [name, counter] of this.counters) {
      if (counter.windowStart + 3_600_000 < (counter.wall ? wallNow : now)) this.counters.delete(name);
    }
  }
}

/** Sort comparator: lowest remaining first, a tie to the smaller limit. */
function closerFirst(a: Slot, b: Slot): number {
  return a.remaining - b.remaining || a.check.quota - b.check.quota;
}

/**
 * RateLimit-Policy: every limit checked, closest first, identical `quota;w=window` parts once.
 * It depends only on the ordered (quota, window) sequence, which is nearly always one of a handful
 * (the same group and caps request after request), so recent values are remembered and reused
 * (by every limiter: the value is a function of that sequence alone).
 */
interface PolicyEntry {
  /** quota, window, quota, window, ... in order. */
  limits: number[];
  policy: string;
}

/** At most this many remembered policies (replaced round-robin). */
const POLICY_MEMO_SIZE = 16;
const policyMemo: PolicyEntry[] = [];
let policyMemoNext = 0;

function policyOf(ordered: readonly Slot[], n: number): string {
  for (const entry of policyMemo) if (sameLimits(entry.limits, ordered, n)) return entry.policy;
  const limits: number[] = [];
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const { quota, windowSeconds } = ordered[i]!.check;
    limits.push(quota, windowSeconds);
    const part = `${quota};w=${windowSeconds}`;
    if (!parts.includes(part)) parts.push(part);
  }
  const entry = { limits, policy: parts.join(', ') };
  policyMemo[policyMemoNext] = entry;
  policyMemoNext = (policyMemoNext + 1) % POLICY_MEMO_SIZE;
  return entry.policy;
}

function sameLimits(limits: readonly number[], ordered: readonly Slot[], n: number): boolean {
  if (limits.length !== 2 * n) return false;
  for (let i = 0; i < n; i++) {
    const check = ordered[i]!.check;
    if (limits[2 * i] !== check.quota || limits[2 * i + 1] !== check.windowSeconds) return false;
  }
  return true;
}

export function rateLimitHeader(state: LimitState): string {
  return `limit=${state.limit}, remaining=${state.remaining}, reset=${state.reset}`;
}
