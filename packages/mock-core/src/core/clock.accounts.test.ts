/**
 * Per-account test clocks (packages/mock-core/src/core/clock.ts AccountClock, D91): an account's time is the mock's time
 * plus its own advance; advancing one account runs its schedule and nobody else's; advancing the
 * mock moves every account.
 */
import { describe, expect, it } from 'vitest';
import { Clock } from './clock.ts';

const START = 1_000_000;

describe('AccountClock', () => {
  it('reads the mock time plus the account\'s own advance', () => {
    const clock = new Clock({ mode: 'manual', start: START });
    const a = clock.forAccount('a');
    const b = clock.forAccount('b');
    a.advance(30);
    expect([a.now(), b.now(), clock.now()]).toEqual([START + 30_000, START, START]);
    clock.advance(5);
    expect([a.now(), b.now(), clock.now()]).toEqual([START + 35_000, START + 5_000, START + 5_000]);
    expect(clock.forAccount('a')).toBe(a);
  });

  // Each row: advances (who, seconds) in order; what each account's tasks saw (their due time on their own clock, ms after START).
  const table: { name: string; steps: ['a' | 'b' | 'mock', number][]; ran: { a: number[]; b: number[] } }[] = [
    { name: 'advancing a runs only a\'s due tasks', steps: [['a', 15]], ran: { a: [10_000], b: [] } },
    { name: 'advancing b does not move a', steps: [['b', 25]], ran: { a: [], b: [10_000, 20_000] } },
    { name: 'advancing the mock moves both', steps: [['mock', 25]], ran: { a: [10_000, 20_000], b: [10_000, 20_000] } },
    { name: 'an account ahead runs its later tasks on a smaller mock advance', steps: [['a', 10], ['mock', 10]], ran: { a: [10_000, 20_000], b: [10_000] } },
    { name: 'advances add up per account', steps: [['a', 5], ['a', 5], ['b', 9]], ran: { a: [10_000], b: [] } },
  ];
  for (const row of table) {
    it(row.name, () => {
      const clock = new Clock({ mode: 'manual', start: START });
      const ran = { a: [] as number[], b: [] as number[] };
      for (const who of ['a', 'b'] as const) {
        const own = clock.forAccount(who);
        for (const at of [10_000, 20_000]) own.schedule(START + at, () => ran[who].push(own.now() - START));
      }
      for (const [who, seconds] of row.steps) (who === 'mock' ? clock : clock.forAccount(who)).advance(seconds);
      expect(ran).toEqual(row.ran);
    });
  }

  it('runs the tasks of every account in time order when the mock advances, each at its own due time', () => {
    const clock = new Clock({ mode: 'manual', start: 0 });
    const a = clock.forAccount('a');
    const b = clock.forAccount('b');
    a.advance(100); // a is 100 s ahead
    const seen: string[] = [];
    a.after(10, () => seen.push(`a@${a.now()}/mock@${clock.now()}`));
    b.after(5, () => seen.push(`b@${b.now()}/mock@${clock.now()}`));
    b.after(20, () => seen.push(`b@${b.now()}/mock@${clock.now()}`));
    clock.after(15, () => seen.push(`mock@${clock.now()}`));
    clock.advance(30);
    expect(seen).toEqual(['b@5000/mock@5000', 'a@110000/mock@10000', 'mock@15000', 'b@20000/mock@20000']);
  });

  it('runs tasks that tasks schedule inside the same account advance, and nothing of another account', () => {
    const clock = new Clock({ mode: 'manual', start: 0 });
    const a = clock.forAccount('a');
    const b = clock.forAccount('b');
    const seen: number[] = [];
    const chain = () => {
      seen.push(a.now());
      a.after(1, chain);
    };
    a.after(1, chain);
    let bRan = false;
    b.after(1, () => (bRan = true));
    a.advance(3.5);
    expect(seen).toEqual([1000, 2000, 3000]);
    expect(a.now()).toBe(3500);
    expect(bRan).toBe(false);
    expect(clock.now()).toBe(0);
  });

  it('advanceSettled waits for outside work between tasks, so work that schedules a retry sees it run in the same advance', async () => {
    const clock = new Clock({ mode: 'manual', start: 0 });
    const a = clock.forAccount('a');
    const seen: number[] = [];
    let busy = false;
    const attempt = () => {
      seen.push(a.now());
      busy = true;
      // the answer comes outside the clock; the retry is scheduled then
      void Promise.resolve().then(() => {
        busy = false;
        if (seen.length < 3) a.after(60, attempt);
      });
    };
    a.after(1, attempt);
    await a.advanceSettled(200, { busy: () => busy, settle: () => new Promise((resolve) => setTimeout(resolve, 0)) });
    expect(seen).toEqual([1000, 61_000, 121_000]);
    expect(a.now()).toBe(200_000);
    expect(clock.now()).toBe(0);
  });

  it('keeps offsets for a state file, and a reset forgets every account', () => {
    const clock = new Clock({ mode: 'manual', start: 0 });
    clock.forAccount('a').advance(7);
    clock.forAccount('b');
    expect(clock.accountOffsets()).toEqual({ a: 7000 });
    const restored = new Clock({ mode: 'manual', start: 0 });
    restored.restoreAccountOffsets({ a: 7000 });
    expect(restored.forAccount('a').now()).toBe(7000);
    let ran = false;
    restored.forAccount('a').after(1, () => (ran = true));
    restored.clearTasks();
    expect(restored.forAccount('a').now()).toBe(0);
    restored.advance(10);
    expect(ran).toBe(false);
  });

  it('cancelled tasks never run', () => {
    const clock = new Clock({ mode: 'manual', start: 0 });
    const a = clock.forAccount('a');
    let ran = false;
    a.after(1, () => (ran = true)).cancel();
    a.advance(2);
    clock.advance(2);
    expect(ran).toBe(false);
  });
});
