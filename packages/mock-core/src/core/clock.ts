/**
 * The injected clock. This is the ONLY file in mock/ that may read the wall clock
 * (`Date.now()` in real-time mode and for `wallNow`, `setTimeout` to wake the scheduler). Everything
 * else takes `now` from a Clock, so tests advance time instead of sleeping; a test injects the wall
 * clock itself with the `wall` option.
 * How it works and what it decides: docs/internals.md, "packages/mock-core/src/core/clock.ts".
 */

import { AdvanceQueue, advanceMs, ClockRangeError, clockReadingProblem, LATEST_TIME_MS, SLICE_TASKS } from './clock-range.ts';
import { TaskHeap, type Scheduled } from './task-heap.ts';

export { ClockRangeError, clockReadingProblem, LATEST_READING_MS, LATEST_TIME_MS, SLICE_TASKS } from './clock-range.ts';
export type { Scheduled } from './task-heap.ts';

export type ClockMode = 'real' | 'manual';

/**
 * Real elapsed milliseconds on the process's monotonic timer (never the mock's time): how long
 * the mock took to answer (the request journal's latency). Kept here with the other real-time reads.
 */
export function monotonicMs(): number {
  return performance.now();
}

/**
 * A repeating timer in real time (a live stream's keep-alive), whatever the mock's clock does. It
 * does not keep the process alive. Returns the function that stops it.
 */
export function realInterval(ms: number, run: () => void): () => void {
  const timer = setInterval(run, ms);
  timer.unref?.();
  return () => clearInterval(timer);
}

export interface ClockOptions {
  mode?: ClockMode;
  /** Start time in epoch milliseconds (manual mode default: 2026-01-01T00:00:00Z). */
  start?: number;
  /** Where errors thrown by scheduled tasks go (default: console.error). */
  onTaskError?: (error: unknown) => void;
  /** The wall clock, epoch milliseconds (default `Date.now`; tests inject their own). */
  wall?: () => number;
}

/** Work a task leaves under way outside the clock (requests on the wire), for `advanceSettled`. */
export interface OutsideWork {
  /** Whether some is under way now. */
  busy(): boolean;
  /** Resolves once none is under way. */
  settle(): Promise<void>;
}

export const DEFAULT_MANUAL_START: number = Date.UTC(2026, 0, 1, 0, 0, 0);

/** Lets the event loop run what waits (I/O, other requests) before the next slice of an advance. */
function yieldToLoop(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (run: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}

/**
 * What a service reads time from and schedules on: the mock's clock, or one account's
 * (`Clock.forAccount`). A service that works for one account takes that account's clock.
 */
export interface TimeSource {
  readonly mode: ClockMode;
  now(): number;
  nowIso(): string;
  wallNow(): number;
  wallTimer(ms: number, run: () => void): { cancel(): void };
  schedule(at: number, run: () => void): Scheduled;
  after(seconds: number, run: () => void): Scheduled;
}

export class Clock implements TimeSource {
  private modeValue: ClockMode;
  /** Manual mode: the current time. Real mode: the reading when real mode was entered. */
  private base: number;
  /** Real mode: the wall-clock time when real mode was entered. */
  private wallBase = 0;
  private readonly heap = new TaskHeap();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** While a task runs in manual mode, now() reads its due time. */
  private running: number | undefined;
  private draining = false;
  /** The mock-wide advances, one after another (D252), their milliseconds reserved within LATEST_TIME_MS. */
  private readonly advances = new AdvanceQueue();
  /** Mock-wide advances under way: the real-time timer waits for them (they run what falls due). */
  private advancesUnderWay = 0;
  /** Set by dispose(): an advance under way ends at its next step. */
  private stopped = false;
  private readonly stopWaiters = new Set<() => void>();
  /** Slices of advances so far, each ended by a turn of the event loop (D252; tests count them). */
  slices = 0;
  private readonly onTaskError: (error: unknown) => void;
  private readonly wall: () => number;
  /** The per-account clocks made so far (forAccount). */
  private readonly accounts = new Map<string, AccountClock>();

  constructor(options: ClockOptions = {}) {
    this.wall = options.wall ?? Date.now;
    this.modeValue = options.mode ?? 'manual';
    this.base = options.start ?? (this.modeValue === 'real' ? this.wall() : DEFAULT_MANUAL_START);
    this.wallBase = this.wall();
    this.onTaskError = options.onTaskError ?? ((error) => console.error('scheduled task failed', error));
  }

  get mode(): ClockMode {
    return this.modeValue;
  }

  /** Current time in epoch milliseconds. */
  now(): number {
    if (this.running !== undefined) return this.running;
    if (this.modeValue === 'manual') return this.base;
    return this.base + (this.wall() - this.wallBase);
  }

  /** The wall clock's time (epoch ms) whatever the mode: for what is checked against real time. */
  wallNow(): number {
    return this.wall();
  }

  /**
   * Runs `run` once after `ms` of real time whatever the mode (a bound on network waits, such as a
   * lingering close, packages/mock/src/node/front.ts); `cancel` stops it. It never keeps the process alive.
   */
  wallTimer(ms: number, run: () => void): { cancel(): void } {
    const timer = setTimeout(run, ms);
    timer.unref?.();
    return { cancel: () => clearTimeout(timer) };
  }

  nowIso(): string {
    return new Date(this.now()).toISOString();
  }

  setMode(mode: ClockMode): void {
    if (mode === this.modeValue) return;
    const current = this.now();
    this.modeValue = mode;
    this.base = current;
    this.wallBase = this.wall();
    this.rearm();
  }

  /**
   * Manual mode: move time forward and run every task that falls due, in order. An advance that
   * would take the mock or an account past LATEST_TIME_MS throws ClockRangeError before anything moves.
   */
  advance(seconds: number): void {
    const ms = advanceMs(seconds);
    this.checkRoom(ms);
    const target = this.now() + ms;
    if (this.modeValue === 'real') {
      // Jump the real clock forward by the same amount, then run what fell due.
      this.base += ms;
      this.drain(target);
      this.rearm();
      return;
    }
    this.drain(target);
    this.base = target;
  }

  /**
   * `advance` for tasks that start work outside the clock: after each task, while `work.busy()`,
   * waits for `work.settle()` before the next, so a task that work schedules (a webhook retry due
   * inside the advance) runs in this advance, in time order, at its own due time. Mock-wide advances
   * run one after another; an account's advances do not wait for them (D252). Every SLICE_TASKS
   * tasks it lets the event loop turn. Resolves when every task due by the target ran and no work is
   * under way, or when the clock is disposed. Refused (ClockRangeError) before anything moves when it
   * would take the mock or an account past LATEST_TIME_MS.
   */
  advanceSettled(seconds: number, work: OutsideWork): Promise<void> {
    return this.advances.enqueue(seconds, (ms) => this.checkRoom(ms), (ms) => this.advanceInSteps(ms, work));
  }

  /** Milliseconds the mock's clock can still move with every account (the one furthest ahead included). */
  roomMs(): number {
    let ahead = 0;
    for (const account of this.accounts.values()) ahead = Math.max(ahead, account.committedMs);
    return LATEST_TIME_MS - (this.committedNow() + ahead);
  }

  /** Throws ClockRangeError when a mock-wide advance of `ms` does not fit (D251). */
  checkRoom(ms: number): void {
    const room = this.roomMs();
    if (ms > room) throw new ClockRangeError(room);
  }

  /** The reading once every mock-wide advance accepted so far is done. */
  committedNow(): number {
    return this.now() + this.advances.reservedMs;
  }

  /** Whether dispose() was called. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** Resolves with `wait`, or as soon as the clock is disposed (an advance must not outlive it). */
  untilStopped(wait: Promise<void>): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        this.stopWaiters.delete(done);
        resolve();
      };
      this.stopWaiters.add(done);
      wait.then(done, done);
    });
  }

  /** Ends a slice: counts it and lets the event loop turn. */
  nextSlice(): Promise<void> {
    this.slices++;
    return yieldToLoop();
  }

  /** Reports an error a scheduled task threw (an account's task too). */
  taskFailed(error: unknown): void {
    this.onTaskError(error);
  }

  /** An account's test clock (made on first use): this clock's time plus the account's own advance. */
  forAccount(accountId: string): AccountClock {
    let clock = this.accounts.get(accountId);
    if (!clock) {
      clock = new AccountClock(this, accountId);
      this.accounts.set(accountId, clock);
    }
    return clock;
  }

  /** Each account's own advance in milliseconds (only those advanced): what a state file keeps. */
  accountOffsets(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [id, clock] of this.accounts) if (clock.offsetMs > 0) out[id] = clock.offsetMs;
    return out;
  }

  /**
   * Restores saved advances (a loaded state file), before anything is scheduled on those accounts.
   * An advance that would put an account past LATEST_TIME_MS throws a RangeError naming it (D251).
   */
  restoreAccountOffsets(offsets: Readonly<Record<string, number>>): void {
    for (const [id, ms] of Object.entries(offsets)) {
      if (!Number.isFinite(ms) || ms <= 0) continue;
      const problem = clockReadingProblem(this.now() + ms);
      if (problem !== undefined) throw new RangeError(`the clock of account ${id} (${ms} ms ahead) ${problem}`);
      this.forAccount(id).restoreOffset(ms);
    }
  }

  private async advanceInSteps(ms: number, work: OutsideWork): Promise<void> {
    const target = this.now() + ms;
    this.advancesUnderWay++;
    try {
      if (this.modeValue === 'real') {
        this.base += ms;
        this.rearm(); // held while the advance runs: the advance runs what falls due
      }
      for (;;) {
        if (this.stopped) break;
        let ran = 0;
        const finished = this.drain(target, () => work.busy() || ++ran >= SLICE_TASKS);
        if (finished && !work.busy()) break;
        if (work.busy()) await this.untilStopped(work.settle());
        else await this.nextSlice();
      }
      if (this.modeValue === 'manual') this.base = Math.max(this.base, this.stopped ? this.base : target);
    } finally {
      this.advancesUnderWay--;
      this.rearm();
    }
  }

  /** Schedule `run` at `at` (epoch ms). A time in the past runs at the next drain. */
  schedule(at: number, run: () => void): Scheduled {
    const scheduled = this.heap.add(at, run);
    if (this.modeValue === 'real') this.rearm();
    return scheduled;
  }

  /** Schedule `run` after `seconds` of clock time. */
  after(seconds: number, run: () => void): Scheduled {
    return this.schedule(this.now() + Math.round(seconds * 1000), run);
  }

  /** When the earliest task not cancelled is due (epoch ms), or undefined when none is scheduled. */
  nextDue(): number | undefined {
    return this.heap.nextDue();
  }

  /** Advance exactly to the earliest scheduled task and run what is due then; false when none is. */
  advanceToNext(): boolean {
    const due = this.nextDue();
    if (due === undefined) return false;
    this.advance(Math.max(0, due - this.now()) / 1000);
    return true;
  }

  /** Number of tasks not yet run (cancelled ones included until they surface). */
  get pending(): number {
    return this.heap.size;
  }

  /**
   * Drop every scheduled task (a control-plane reset: the accounts they served are gone). A reading
   * outside what the mock keeps (a bad state that slipped in) goes back to a sane one: the wall
   * clock's in real mode, DEFAULT_MANUAL_START in manual mode (D251).
   */
  clearTasks(): void {
    while (this.heap.pop()) {
      /* drained */
    }
    for (const account of this.accounts.values()) account.forget();
    this.accounts.clear();
    if (clockReadingProblem(this.now()) !== undefined) {
      this.base = this.modeValue === 'real' ? this.wall() : DEFAULT_MANUAL_START;
      this.wallBase = this.wall();
    }
    this.rearm();
  }

  /**
   * Stop the real-time timer and end every advance under way at its next step, without waiting for
   * work outside the clock (on shutdown: the app's preClose calls it, so a close never waits on a
   * hung webhook receiver). Idempotent.
   */
  dispose(): void {
    this.stopped = true;
    for (const done of [...this.stopWaiters]) done();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Runs the tasks due by `until` in order; stops early after a task when `pause()` says so.
   * Returns whether it ran every due task (false: paused, or re-entered).
   */
  private drain(until: number, pause?: () => boolean): boolean {
    if (this.draining) return false; // a task that advances the clock must not re-enter
    this.draining = true;
    try {
      for (let top = this.heap.peek(); top && top.at <= until; top = this.heap.peek()) {
        this.heap.pop();
        if (top.cancelled) continue;
        this.running = Math.max(top.at, this.modeValue === 'manual' ? this.base : top.at);
        if (this.modeValue === 'manual') this.base = this.running;
        try {
          top.run();
        } catch (error) {
          this.onTaskError(error);
        } finally {
          this.running = undefined;
        }
        if (pause?.()) return false;
      }
      return true;
    } finally {
      this.draining = false;
    }
  }

  private rearm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.modeValue !== 'real' || this.stopped || this.advancesUnderWay > 0) return;
    const top = this.heap.peek();
    if (!top) return;
    const delay = Math.max(0, Math.min(top.at - this.now(), 2 ** 31 - 1));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.drain(this.now());
      this.rearm();
    }, delay);
    this.timer.unref?.();
  }
}

/**
 * A timer in real time, for what must run in real time whatever the mock's clock does: the control
 * plane's leases (a runner waits for one; a lease never released ends by itself). It does not keep
 * the process alive. Returns the function that cancels it.
 */
export function realTimeout(ms: number, run: () => void): () => void {
  const timer = setTimeout(run, Math.max(0, Math.min(ms, 2 ** 31 - 1)));
  timer.unref?.();
  return () => clearTimeout(timer);
}

/**
 * One account's test clock (D91): its time is the mock's clock plus the account's own advance
 * (`offsetMs`). Its tasks wait in its own heap, in account time; the mock's clock holds one wake-up
 * task for the earliest of them, at the mock time it falls due (account time minus the advance),
 * so that advancing the mock runs every account's tasks in time order (and real time fires them),
 * while `advance` here moves only this account: its advance grows and its due tasks run, in order,
 * each seeing its own due time.
 */
export class AccountClock implements TimeSource {
  private advance_ = 0;
  private readonly heap = new TaskHeap();
  /** While one of its tasks runs, now() reads its due time. */
  private running: number | undefined;
  private draining = false;
  /** This account's advances (advanceSettled): its own queue, apart from every other (D252). */
  private readonly advances = new AdvanceQueue();
  /** The wake-up task on the mock's clock, and the account time it is for. */
  private wake: { scheduled: Scheduled; at: number } | undefined;

  constructor(
    private readonly clock: Clock,
    readonly accountId: string,
  ) {}

  get mode(): ClockMode {
    return this.clock.mode;
  }

  /** How far this account is ahead of the mock's clock, in milliseconds. */
  get offsetMs(): number {
    return this.advance_;
  }

  /** How far it will be ahead once every advance of it accepted so far is done. */
  get committedMs(): number {
    return this.advance_ + this.advances.reservedMs;
  }

  /** Milliseconds this account can still move (the mock's accepted advances counted) (D251). */
  roomMs(): number {
    return LATEST_TIME_MS - (this.clock.committedNow() + this.committedMs);
  }

  private checkRoom(ms: number): void {
    const room = this.roomMs();
    if (ms > room) throw new ClockRangeError(room);
  }

  now(): number {
    return this.running ?? this.clock.now() + this.advance_;
  }

  nowIso(): string {
    return new Date(this.now()).toISOString();
  }

  wallNow(): number {
    return this.clock.wallNow();
  }

  wallTimer(ms: number, run: () => void): { cancel(): void } {
    return this.clock.wallTimer(ms, run);
  }

  /** Schedule `run` at `at` (epoch ms of this account's time). A time in the past runs at the next drain. */
  schedule(at: number, run: () => void): Scheduled {
    const scheduled = this.heap.add(at, run);
    this.rearm();
    return scheduled;
  }

  after(seconds: number, run: () => void): Scheduled {
    return this.schedule(this.now() + Math.round(seconds * 1000), run);
  }

  /** When this account's earliest task is due (its time), or undefined. */
  nextDue(): number | undefined {
    return this.heap.nextDue();
  }

  /** Tasks of this account not yet run (cancelled ones included until they surface). */
  get pending(): number {
    return this.heap.size;
  }

  /** Move this account's time forward by `seconds` and run its due tasks in order (no other account moves). */
  advance(seconds: number): void {
    const ms = advanceMs(seconds);
    this.checkRoom(ms);
    const target = this.now() + ms;
    this.drain(target);
    this.advance_ = Math.max(this.advance_, target - this.clock.now());
    this.rearm();
  }

  /**
   * `advance` waiting for `work` (this account's own work outside the clock) between tasks, as
   * Clock.advanceSettled does. Advances of this account run one after another on its own queue;
   * other accounts' and the mock's advances run meanwhile (D252): the account ends `ms` further
   * ahead of the mock's clock than it was, whatever the mock's clock did meanwhile.
   */
  advanceSettled(seconds: number, work: OutsideWork): Promise<void> {
    return this.advances.enqueue(seconds, (ms) => this.checkRoom(ms), (ms) => this.advanceInSteps(ms, work));
  }

  private async advanceInSteps(ms: number, work: OutsideWork): Promise<void> {
    const goal = this.advance_ + ms; // the advance it ends with
    for (;;) {
      if (this.clock.isStopped) return;
      let ran = 0;
      const finished = this.drain(this.clock.now() + goal, () => work.busy() || ++ran >= SLICE_TASKS);
      if (finished && !work.busy()) break;
      if (work.busy()) await this.clock.untilStopped(work.settle());
      else await this.clock.nextSlice();
    }
    this.advance_ = Math.max(this.advance_, goal);
    this.rearm();
  }

  /** A saved advance (packages/mock/src/node/persistence.ts), restored before anything is scheduled. */
  restoreOffset(ms: number): void {
    this.advance_ = ms;
    this.rearm();
  }

  /** Drop its tasks and its wake-up (the mock's reset: the account is gone). */
  forget(): void {
    while (this.heap.pop()) {
      /* drained */
    }
    this.wake?.scheduled.cancel();
    this.wake = undefined;
  }

  /**
   * Runs its tasks due by `until` (account time) in order, its advance growing to each task's due
   * time as it runs (time never goes backwards); stops early after a task when `pause()` says so.
   */
  private drain(until: number, pause?: () => boolean): boolean {
    if (this.draining) return false;
    this.draining = true;
    try {
      for (let top = this.heap.peek(); top && top.at <= until; top = this.heap.peek()) {
        this.heap.pop();
        if (top.cancelled) continue;
        const at = Math.max(top.at, this.clock.now() + this.advance_);
        this.advance_ = at - this.clock.now();
        this.running = at;
        try {
          top.run();
        } catch (error) {
          this.clock.taskFailed(error);
        } finally {
          this.running = undefined;
        }
        if (pause?.()) return false;
      }
      return true;
    } finally {
      this.draining = false;
      this.rearm();
    }
  }

  /** Keep one wake-up on the mock's clock, at the mock time its earliest task falls due. */
  private rearm(): void {
    if (this.draining) return;
    const due = this.nextDue();
    if (this.wake && this.wake.at === due && this.wake.scheduled.at === (due ?? 0) - this.advance_) return;
    this.wake?.scheduled.cancel();
    this.wake = undefined;
    if (due === undefined) return;
    const scheduled = this.clock.schedule(due - this.advance_, () => {
      this.wake = undefined;
      this.drain(this.clock.now() + this.advance_);
    });
    this.wake = { scheduled, at: due };
  }
}
