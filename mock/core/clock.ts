/**
 * The injected clock. This is the ONLY file in mock/ that may read the wall clock
 * (`Date.now()` in real-time mode and for `wallNow`, `setTimeout` to wake the scheduler). Everything
 * else takes `now` from a Clock, so tests advance time instead of sleeping; a test injects the wall
 * clock itself with the `wall` option.
 *
 * Two modes:
 * - `real`: time follows the wall clock (from the moment the mode was entered, continuing from
 *   the clock's current reading, so switching modes never moves time backwards);
 * - `manual`: time stands still until `advance(seconds)` moves it.
 *
 * The clock also owns the scheduler: `schedule(at, task)` runs `task` once the clock reaches `at`.
 * In manual mode `advance` runs every due task in time order, with `now()` reading each task's due
 * time while it runs, so a 1,000-item run settles in one advance, deterministically.
 * `advanceSettled` does the same for tasks whose work finishes outside the clock (a webhook attempt
 * on the wire): it waits for that work between tasks, so what the work schedules (a retry) still
 * runs inside the advance, at its own due time.
 *
 * `wallNow()` is the real time whatever the mode: what a signature a receiver checks against its own
 * clock must carry (`webhook-timestamp`, mock/events/webhooks.ts).
 */

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

export interface Scheduled {
  readonly id: number;
  readonly at: number;
  cancel(): void;
}

interface Task {
  id: number;
  at: number;
  seq: number;
  run: () => void;
  cancelled: boolean;
}

/** A binary min-heap ordered by (at, seq), so ties run in scheduling order. */
class TaskHeap {
  private readonly items: Task[] = [];
  get size(): number {
    return this.items.length;
  }
  peek(): Task | undefined {
    return this.items[0];
  }
  push(task: Task): void {
    const a = this.items;
    a.push(task);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(a[i]!, a[parent]!)) break;
      [a[i], a[parent]] = [a[parent]!, a[i]!];
      i = parent;
    }
  }
  pop(): Task | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && before(a[l]!, a[m]!)) m = l;
        if (r < a.length && before(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}

function before(x: Task, y: Task): boolean {
  return x.at < y.at || (x.at === y.at && x.seq < y.seq);
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

export class Clock {
  private modeValue: ClockMode;
  /** Manual mode: the current time. Real mode: the reading when real mode was entered. */
  private base: number;
  /** Real mode: the wall-clock time when real mode was entered. */
  private wallBase = 0;
  private readonly heap = new TaskHeap();
  private seq = 0;
  private nextId = 1;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** While a task runs in manual mode, now() reads its due time. */
  private running: number | undefined;
  private draining = false;
  /** The advance under way (advanceSettled), so that advances run one after another. */
  private advancing: Promise<void> = Promise.resolve();
  private readonly onTaskError: (error: unknown) => void;
  private readonly wall: () => number;

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
   * lingering close, mock/adapters/node/front.ts); `cancel` stops it. It never keeps the process alive.
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

  /** Manual mode: move time forward and run every task that falls due, in order. */
  advance(seconds: number): void {
    if (!(seconds >= 0) || !Number.isFinite(seconds)) throw new RangeError('advance takes a finite, non-negative number of seconds');
    const target = this.now() + Math.round(seconds * 1000);
    if (this.modeValue === 'real') {
      // Jump the real clock forward by the same amount, then run what fell due.
      this.base += Math.round(seconds * 1000);
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
   * inside the advance) runs in this advance, in time order, at its own due time. Advances made this
   * way run one after another. Resolves when every task due by the target ran and no work is under way.
   */
  advanceSettled(seconds: number, work: OutsideWork): Promise<void> {
    if (!(seconds >= 0) || !Number.isFinite(seconds)) return Promise.reject(new RangeError('advance takes a finite, non-negative number of seconds'));
    const run = this.advancing.then(() => this.advanceInSteps(Math.round(seconds * 1000), work));
    this.advancing = run.catch(() => undefined);
    return run;
  }

  private async advanceInSteps(ms: number, work: OutsideWork): Promise<void> {
    const target = this.now() + ms;
    if (this.modeValue === 'real') this.base += ms;
    for (;;) {
      const finished = this.drain(target, () => work.busy());
      if (finished && !work.busy()) break;
      await work.settle();
    }
    if (this.modeValue === 'manual') this.base = Math.max(this.base, target);
    else this.rearm();
  }

  /** Schedule `run` at `at` (epoch ms). A time in the past runs at the next drain. */
  schedule(at: number, run: () => void): Scheduled {
    const task: Task = { id: this.nextId++, at, seq: this.seq++, run, cancelled: false };
    this.heap.push(task);
    if (this.modeValue === 'real') this.rearm();
    return {
      id: task.id,
      at,
      cancel: () => {
        task.cancelled = true;
      },
    };
  }

  /** Schedule `run` after `seconds` of clock time. */
  after(seconds: number, run: () => void): Scheduled {
    return this.schedule(this.now() + Math.round(seconds * 1000), run);
  }

  /** When the earliest task not cancelled is due (epoch ms), or undefined when none is scheduled. */
  nextDue(): number | undefined {
    for (let top = this.heap.peek(); top; top = this.heap.peek()) {
      if (!top.cancelled) return top.at;
      this.heap.pop(); // a cancelled task never runs: drop it now
    }
    return undefined;
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

  /** Drop every scheduled task (a control-plane reset: the accounts they served are gone). */
  clearTasks(): void {
    while (this.heap.pop()) {
      /* drained */
    }
    this.rearm();
  }

  /** Stop the real-time timer (on shutdown). */
  dispose(): void {
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
    if (this.modeValue !== 'real') return;
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
