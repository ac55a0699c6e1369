import { describe, expect, it } from 'vitest';
import { Clock } from './clock.ts';

describe('Clock (manual mode)', () => {
  it('stands still until advanced', () => {
    const clock = new Clock({ mode: 'manual', start: 1_000_000 });
    expect(clock.now()).toBe(1_000_000);
    clock.advance(2.5);
    expect(clock.now()).toBe(1_002_500);
  });

  it('runs due tasks in time order, each seeing its own due time, ties in scheduling order', () => {
    const clock = new Clock({ mode: 'manual', start: 0 });
    const seen: string[] = [];
    clock.schedule(3000, () => seen.push(`c@${clock.now()}`));
    clock.schedule(1000, () => seen.push(`a@${clock.now()}`));
    clock.schedule(1000, () => seen.push(`b@${clock.now()}`));
    clock.schedule(9000, () => seen.push('late'));
    clock.advance(5);
    expect(seen).toEqual(['a@1000', 'b@1000', 'c@3000']);
    expect(clock.now()).toBe(5000);
  });

  it('runs tasks scheduled by tasks when they fall inside the same advance', () => {
    const clock = new Clock({ mode: 'manual', start: 0 });
    const seen: number[] = [];
    const chain = () => {
      seen.push(clock.now());
      if (seen.length < 5) clock.after(1, chain);
    };
    clock.after(1, chain);
    clock.advance(3.5);
    expect(seen).toEqual([1000, 2000, 3000]);
    clock.advance(10);
    expect(seen).toEqual([1000, 2000, 3000, 4000, 5000]);
  });

  it('skips cancelled tasks and reports task errors without stopping the drain', () => {
    const errors: unknown[] = [];
    const clock = new Clock({ mode: 'manual', start: 0, onTaskError: (e) => errors.push(e) });
    const seen: string[] = [];
    clock.after(1, () => {
      throw new Error('boom');
    });
    const cancelled = clock.after(1, () => seen.push('cancelled'));
    clock.after(2, () => seen.push('ran'));
    cancelled.cancel();
    clock.advance(2);
    expect(seen).toEqual(['ran']);
    expect(errors).toHaveLength(1);
  });

  it.each([
    ['the mock clock', (clock: Clock) => clock],
    ['an account clock', (clock: Clock) => clock.forAccount('a')],
  ])('%s: the next task due (nextTaskAt of the control plane\'s clocks) is never a cancelled one', (_name, on) => {
    const clock = new Clock({ mode: 'manual', start: 0 });
    const source = on(clock);
    const seen: number[] = [];
    const early = source.schedule(1000, () => seen.push(1000));
    source.schedule(4000, () => seen.push(4000));
    expect(source.nextDue()).toBe(1000);
    early.cancel();
    expect(source.nextDue()).toBe(4000);
    source.advance((source.nextDue()! - source.now()) / 1000);
    expect(seen).toEqual([4000]);
    expect(source.nextDue()).toBeUndefined();
  });

  it('refuses to go backwards', () => {
    const clock = new Clock({ mode: 'manual', start: 0 });
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
  });

  it('keeps time continuous across a switch to real time and back', () => {
    const clock = new Clock({ mode: 'manual', start: 5_000 });
    clock.setMode('real');
    const during = clock.now();
    clock.setMode('manual');
    expect(during).toBeGreaterThanOrEqual(5_000);
    expect(clock.now()).toBeGreaterThanOrEqual(during);
    clock.dispose();
  });
});

describe('Clock.wallNow and advanceSettled', () => {
  it('wallNow reads the injected wall clock whatever the mode', () => {
    const clock = new Clock({ mode: 'manual', start: 1_000, wall: () => 42_000 });
    clock.advance(3600);
    expect(clock.wallNow()).toBe(42_000);
    expect(clock.now()).toBe(3_601_000);
  });

  it('waits for work a task left outside the clock, so what that work schedules inside the advance runs in it, at its own due time', async () => {
    const clock = new Clock({ mode: 'manual', start: 0 });
    const ran: [string, number][] = [];
    let onWire = 0;
    const send = (name: string, retryAfterMs: number | undefined) => {
      ran.push([name, clock.now()]);
      onWire += 1;
      const sentAt = clock.now();
      // The answer comes in real time, after the task returned (like an HTTP request).
      setImmediate(() => {
        onWire -= 1;
        if (retryAfterMs !== undefined) clock.schedule(sentAt + retryAfterMs, () => send(`${name}+retry`, undefined));
      });
    };
    clock.schedule(10_000, () => send('a', 60_000));
    clock.schedule(30_000, () => ran.push(['b', clock.now()]));
    const work = { busy: () => onWire > 0, settle: () => new Promise<void>((resolve) => { const poll = () => (onWire > 0 ? setImmediate(poll) : resolve()); poll(); }) };
    await clock.advanceSettled(120, work);
    expect(ran).toEqual([
      ['a', 10_000],
      ['b', 30_000],
      ['a+retry', 70_000],
    ]);
    expect(clock.now()).toBe(120_000);
    expect(clock.pending).toBe(0);
    await expect(clock.advanceSettled(-1, work)).rejects.toThrow(RangeError);
  });
});
