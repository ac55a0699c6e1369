/**
 * Rate limits (interface: Limits / Rate limits; IETF RateLimit draft-7 headers).
 *
 * Each request is checked against every limit that applies to it: its group's limit for the key,
 * the account-wide cap and the per-source-IP cap of its kind of traffic. Windows are fixed 60-second
 * windows aligned on the injected clock. A request counts against all its limits only when all of
 * them admit it (a rejected request consumes nothing).
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
}

export class Limiter {
  private readonly counters = new Map<string, Counter>();

  /** Check and, when every limit admits the request, count it. */
  hit(checks: readonly LimitCheck[], now: number): Decision {
    if (checks.length === 0) throw new Error('a request is always checked against at least one limit');
    const states = checks.map((check) => {
      const windowMs = check.windowSeconds * 1000;
      const windowStart = Math.floor(now / windowMs) * windowMs;
      const counter = this.counters.get(check.counter);
      const used = counter && counter.windowStart === windowStart ? counter.count : 0;
      const reset = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
      return { check, windowStart, used, reset };
    });
    const rejecting = states.filter((s) => s.used >= s.check.quota).sort((a, b) => a.check.quota - b.check.quota)[0];
    if (rejecting) {
      const ordered = orderClosest(states.map((s) => ({ check: s.check, remaining: Math.max(0, s.check.quota - s.used), reset: s.reset })));
      return {
        allowed: false,
        reported: { limit: rejecting.check.quota, remaining: 0, reset: rejecting.reset },
        policy: policyOf(ordered),
        retryAfter: rejecting.reset,
      };
    }
    for (const s of states) this.counters.set(s.check.counter, { windowStart: s.windowStart, count: s.used + 1 });
    const ordered = orderClosest(states.map((s) => ({ check: s.check, remaining: s.check.quota - (s.used + 1), reset: s.reset })));
    const top = ordered[0]!;
    return { allowed: true, reported: { limit: top.check.quota, remaining: top.remaining, reset: top.reset }, policy: policyOf(ordered) };
  }

  /**
   * A forced 429 (faults on demand): the request is refused by its first limit (the group limit)
   * as if that limit were exhausted, counting nothing.
   */
  forceReject(checks: readonly LimitCheck[], now: number): Decision {
    const first = checks[0];
    if (!first) throw new Error('a request is always checked against at least one limit');
    const windowMs = first.windowSeconds * 1000;
    const reset = Math.max(1, Math.ceil((Math.floor(now / windowMs) * windowMs + windowMs - now) / 1000));
    const ordered = checks.map((check, i) => ({ check, remaining: i === 0 ? 0 : Math.max(0, check.quota - this.used(check, now)), reset }));
    return { allowed: false, reported: { limit: first.quota, remaining: 0, reset }, policy: policyOf(orderClosest(ordered)), retryAfter: reset };
  }

  private used(check: LimitCheck, now: number): number {
    const windowMs = check.windowSeconds * 1000;
    const counter = this.counters.get(check.counter);
    return counter && counter.windowStart === Math.floor(now / windowMs) * windowMs ? counter.count : 0;
  }

  /** Forget every counter (control-plane reset). */
  clear(): void {
    this.counters.clear();
  }

  /** Drop counters of past windows (bounded memory on a long-running shared mock). */
  sweep(now: number): void {
    for (const [name, counter] of this.counters) {
      if (counter.windowStart + 3_600_000 < now) this.counters.delete(name);
    }
  }
}

interface Ranked {
  check: LimitCheck;
  remaining: number;
  reset: number;
}

/** Closest to exhaustion first: lowest remaining, a tie to the smaller limit. */
function orderClosest(items: Ranked[]): Ranked[] {
  return [...items].sort((a, b) => a.remaining - b.remaining || a.check.quota - b.check.quota);
}

function policyOf(ordered: Ranked[]): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const item of ordered) {
    const part = `${item.check.quota};w=${item.check.windowSeconds}`;
    if (seen.has(part)) continue;
    seen.add(part);
    parts.push(part);
  }
  return parts.join(', ');
}

export function rateLimitHeader(state: LimitState): string {
  return `limit=${state.limit}, remaining=${state.remaining}, reset=${state.reset}`;
}
