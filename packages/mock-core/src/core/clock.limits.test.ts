/**
 * The clock's limits (packages/mock-core/src/core/clock.ts): an advance that would take the mock or an account past
 * LATEST_TIME_MS is refused before anything moves (D251); accounts' advances do not wait on each
 * other, large advances let the event loop turn, and dispose() ends an advance under way (D252).
 */
import { describe, expect, it } from 'vitest';
import { Clock, ClockRangeError, clockReadingProblem, DEFAULT_MANUAL_START, LATEST_READING_MS, LATEST_TIME_MS, SLICE_TASKS, type OutsideWork } from './clock.ts';

const TEN_YEARS = 315_360_000;
const idle: OutsideWork = { busy: () => false, settle: async () => undefined };
/** Work that is under way and never ends (a receiver that never answers). */
const hung: OutsideWork = { busy: () => true, settle: () => new Promise<void>(() => undefined) };

/** What a refused advance must leave as it was. */
function reading(clock: Clock) {
  return { now: clock.now(), a: clock.forAccount('a').now(), b: clock.forAccount('b').now(), pending: clock.pending, aPending: clock.forAccount('a').pending };
}

describe('the bound (D251): refused before anything moves', () => {
  // Each row: the mock's start, how far account a is ahead first, then the advance (who, seconds) that must be refused.
  const refused: { name: string; start: number; aAhead: number; who: 'mock' | 'a'; seconds: number; settled: boolean }[] = [
    { name: 'the mock one second past the bound', start: LATEST_TIME_MS - 10_000, aAhead: 0, who: 'mock', seconds: 11, settled: false },
    { name: 'the mock, settled', start: LATEST_TIME_MS - 10_000, aAhead: 0, who: 'mock', seconds: 11, settled: true },
    { name: 'the mock within the bound but an account ahead of it past it', start: LATEST_TIME_MS - 10_000, aAhead: 5, who: 'mock', seconds: 6, settled: true },
    { name: 'an account past the bound', start: LATEST_TIME_MS - 10_000, aAhead: 5, who: 'a', seconds: 6, settled: false },
    { name: 'an account, settled', start: LATEST_TIME_MS - 10_000, aAhead: 5, who: 'a', seconds: 6, settled: true },
    { name: 'ten years from 9990', start: Date.UTC(9990, 0, 1), aAhead: 0, who: 'mock', seconds: TEN_YEARS, settled: true },
  ];
  for (const row of refused) {
    it(`refuses ${row.name}`, async () => {
      const clock = new Clock({ mode: 'manual', start: row.start });
      if (row.aAhead > 0) clock.forAccount('a').advance(row.aAhead);
      let ran = 0;
      clock.forAccount('a').after(1, () => ran++);
      clock.after(1, () => ran++);
      const before = reading(clock);
      const subject = row.who === 'mock' ? clock : clock.forAccount('a');
      if (row.settled) await expect(subject.advanceSettled(row.seconds, idle)).rejects.toBeInstanceOf(ClockRangeError);
      else expect(() => subject.advance(row.seconds)).toThrow(ClockRangeError);
      expect(reading(clock)).toEqual(before);
      expect(ran).toBe(0);
    });
  }

  it('allows an advance exactly to the bound, and every reading stays a four-digit year', () => {
    const clock = new Clock({ mode: 'manual', start: LATEST_TIME_MS - 10_000 });
    clock.advance(10);
    expect(clock.nowIso()).toBe('9998-01-01T00:00:00.000Z');
    expect(() => clock.advance(0.001)).toThrow(ClockRangeError);
  });

  it('ten-year advances from 2026 stop at the bound with a refusal, never a reading past year 9999', () => {
    const clock = new Clock({ mode: 'manual', start: DEFAULT_MANUAL_START });
    let accepted = 0;
    for (let i = 0; i < 27_400; i++) {
      try {
        clock.advance(TEN_YEARS);
        accepted++;
      } catch (error) {
        expect(error).toBeInstanceOf(ClockRangeError);
        break;
      }
    }
    expect(accepted).toBe(Math.floor((LATEST_TIME_MS - DEFAULT_MANUAL_START) / (TEN_YEARS * 1000)));
    expect(clock.nowIso()).toMatch(/^\d{4}-/);
  });

  it('counts advances already accepted: two that each fit alone but not together, the second is refused at once', async () => {
    const clock = new Clock({ mode: 'manual', start: LATEST_TIME_MS - 100_000 });
    const a = clock.forAccount('a');
    const first = a.advanceSettled(60, idle);
    await expect(a.advanceSettled(60, idle)).rejects.toBeInstanceOf(ClockRangeError);
    await expect(clock.advanceSettled(60, idle)).rejects.toBeInstanceOf(ClockRangeError); // a will be 60 s ahead
    await first;
    expect(a.now()).toBe(LATEST_TIME_MS - 40_000);
  });

  it('a reset brings a reading outside the range back to a sane one', () => {
    const clock = new Clock({ mode: 'manual', start: Date.UTC(275_000, 0, 1) });
    expect(clockReadingProblem(clock.now())).toBeDefined();
    clock.clearTasks();
    expect(clock.now()).toBe(DEFAULT_MANUAL_START);
    const real = new Clock({ mode: 'real', start: Number.NaN, wall: () => 1_700_000_000_000 });
    real.clearTasks();
    expect(real.now()).toBe(1_700_000_000_000);
    real.dispose();
  });

  it.each([
    [Number.NaN, /finite/],
    [-1, /outside/],
    [LATEST_READING_MS + 1, /outside 1970-01-01T00:00:00Z..9998-12-31T00:00:00.000Z/],
    ['1', /finite/],
  ])('a reading of %s is not one the mock keeps', (ms, message) => {
    expect(clockReadingProblem(ms)).toMatch(message);
  });

  it('a restored account advance past the readings a state may hold is refused with its account named', () => {
    const clock = new Clock({ mode: 'manual', start: LATEST_TIME_MS - 1_000 });
    expect(() => clock.restoreAccountOffsets({ acc_far: LATEST_READING_MS - LATEST_TIME_MS + 2_000 })).toThrow(/account acc_far/);
  });

  it('a reading a real clock carried past the bound (a mock left running there) is one a state file may hold; an advance from it is still refused', async () => {
    // An outsider's attack: advance to the bound in real time, wait, save, restart: the start refused its own state.
    expect(clockReadingProblem(LATEST_TIME_MS + 2_000)).toBeUndefined();
    expect(clockReadingProblem(LATEST_READING_MS)).toBeUndefined();
    const clock = new Clock({ mode: 'manual', start: LATEST_TIME_MS + 2_000 });
    clock.restoreAccountOffsets({ acc_near: 1_000 });
    expect(clock.forAccount('acc_near').now()).toBe(LATEST_TIME_MS + 3_000);
    await expect(clock.advanceSettled(1, idle)).rejects.toBeInstanceOf(ClockRangeError);
    clock.dispose();
  });
});

describe('clocks that do not wait on each other (D252)', () => {
  it("account b's advance completes while account a's waits on work that never ends", async () => {
    const clock = new Clock({ mode: 'manual', start: 0 });
    const a = clock.forAccount('a');
    const b = clock.forAccount('b');
    a.after(1, () => undefined);
    let aDone = false;
    void a.advanceSettled(3 * 86_400, hung).then(() => (aDone = true));
    let bRan = 0;
    b.after(30, () => bRan++);
    await b.advanceSettled(60, idle);
    expect([bRan, b.now(), aDone]).toEqual([1, 60_000, false]);
    clock.dispose();
  });

  it('a large advance lets the event loop turn between slices, and still runs every task in order', async () => {
    const clock = new Clock({ mode: 'manual', start: 0 });
    const a = clock.forAccount('a');
    const order: number[] = [];
    for (let i = 0; i < 9_000; i++) a.schedule(i + 1, () => order.push(i));
    let seenByOther: number | undefined;
    const advance = a.advanceSettled(10, idle);
    // Queued behind the advance's first slice: it runs before the advance finishes only when the advance yields.
    setImmediate(() => (seenByOther = order.length));
    await advance;
    expect(order).toHaveLength(9_000);
    expect(order.every((v, i) => v === i)).toBe(true);
    expect(seenByOther).toBeGreaterThan(0);
    expect(seenByOther).toBeLessThan(9_000);
    expect(clock.slices).toBeGreaterThanOrEqual(Math.floor(9_000 / SLICE_TASKS));
  });

  it('the mock-wide advance yields the same way', async () => {
    const clock = new Clock({ mode: 'manual', start: 0 });
    let ran = 0;
    for (let i = 0; i < 9_000; i++) clock.schedule(i + 1, () => ran++);
    let seenByOther: number | undefined;
    const advance = clock.advanceSettled(10, idle);
    setImmediate(() => (seenByOther = ran));
    await advance;
    expect(ran).toBe(9_000);
    expect(seenByOther).toBeLessThan(9_000);
  });

  it.each(['mock', 'account'] as const)('dispose() settles a %s advance waiting on work that never ends', async (who) => {
    const clock = new Clock({ mode: 'manual', start: 0 });
    const subject = who === 'mock' ? clock : clock.forAccount('a');
    subject.after(1, () => undefined);
    let settled = false;
    const advance = subject.advanceSettled(3600, hung).then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    clock.dispose();
    await advance;
    expect(settled).toBe(true);
  });

  it("an account's advance and the mock's made meanwhile add up for that account", async () => {
    const clock = new Clock({ mode: 'manual', start: 0 });
    const a = clock.forAccount('a');
    let release!: () => void;
    let busy = true;
    const work: OutsideWork = { busy: () => busy, settle: () => new Promise<void>((resolve) => (release = resolve)) };
    a.after(1, () => undefined);
    const accountAdvance = a.advanceSettled(100, work);
    await clock.advanceSettled(50, idle);
    busy = false;
    release();
    await accountAdvance;
    expect([clock.now(), a.now(), a.offsetMs]).toEqual([50_000, 150_000, 100_000]);
  });
});
