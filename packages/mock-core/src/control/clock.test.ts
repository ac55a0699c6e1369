/** Control plane, clock: getClock, setClock. */
import { describe, expect, it } from 'vitest';
import { controlSuite } from '../testkit/control.ts';

const t = controlSuite();
const { control } = t;

describe('/__mock/clock', () => {
  it('reads the clock', async () => {
    const res = await control('getClock', 'GET', '/__mock/clock');
    expect(res.body).toEqual({ now: '2026-01-01T00:00:00.000Z', mode: 'manual', pendingTasks: 0, nextTaskAt: null });
  });

  it('advances and runs what falls due', async () => {
    let ran = 0;
    t.h.clock.after(30, () => ran++);
    const before = await control('getClock', 'GET', '/__mock/clock');
    expect(before.body.pendingTasks).toBe(1);
    expect(before.body.nextTaskAt).toBe('2026-01-01T00:00:30.000Z');
    const res = await control('setClock', 'POST', '/__mock/clock', { advanceSeconds: 90.5 });
    expect(res.body).toEqual({ now: '2026-01-01T00:01:30.500Z', mode: 'manual', pendingTasks: 0, nextTaskAt: null });
    expect(ran).toBe(1);
  });

  it('advances to the next scheduled task, runs what is due then and no more; nothing moves when nothing is scheduled', async () => {
    const ran: string[] = [];
    t.h.clock.after(3600, () => ran.push('1h'));
    t.h.clock.after(3600, () => ran.push('1h again'));
    t.h.clock.after(7200, () => ran.push('2h'));
    t.h.clock.after(60, () => ran.push('cancelled')).cancel();
    const res = await control('setClock', 'POST', '/__mock/clock', { toNextTask: true });
    expect(res.body).toEqual({ now: '2026-01-01T01:00:00.000Z', mode: 'manual', pendingTasks: 1, nextTaskAt: '2026-01-01T02:00:00.000Z' });
    expect(ran).toEqual(['1h', '1h again']);
    await control('setClock', 'POST', '/__mock/clock', { toNextTask: true });
    expect(ran).toEqual(['1h', '1h again', '2h']);
    const idle = await control('setClock', 'POST', '/__mock/clock', { toNextTask: true });
    expect(idle.body).toEqual({ now: '2026-01-01T02:00:00.000Z', mode: 'manual', pendingTasks: 0, nextTaskAt: null });
    expect((await control('setClock', 'POST', '/__mock/clock', { toNextTask: false })).body.now).toBe('2026-01-01T02:00:00.000Z');
  });

  it('an empty body or none only reads the clock', async () => {
    expect((await control('setClock', 'POST', '/__mock/clock')).body.now).toBe('2026-01-01T00:00:00.000Z');
    expect((await control('setClock', 'POST', '/__mock/clock', {})).body.now).toBe('2026-01-01T00:00:00.000Z');
  });

  it('switches mode first, then advances; time never goes back', async () => {
    const res = await control('setClock', 'POST', '/__mock/clock', { mode: 'real', advanceSeconds: 60 });
    expect(res.body.mode).toBe('real');
    expect(Date.parse(res.body.now)).toBeGreaterThanOrEqual(Date.parse('2026-01-01T00:01:00.000Z'));
    const back = await control('setClock', 'POST', '/__mock/clock', { mode: 'manual' });
    expect(back.body.mode).toBe('manual');
    expect(Date.parse(back.body.now)).toBeGreaterThanOrEqual(Date.parse(res.body.now));
    t.h.clock.dispose();
  });

  it.each([
    [{ advanceSeconds: -1 }, 'advanceSeconds'],
    [{ advanceSeconds: '10' }, 'advanceSeconds'],
    [{ advanceSeconds: 1e12 }, 'advanceSeconds'],
    [{ mode: 'fast' }, 'mode'],
    [{ speed: 2 }, 'speed'],
  ])('refuses %j with 422 and changes nothing', async (body, field) => {
    const res = await control('setClock', 'POST', '/__mock/clock', body);
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(t.h.clock.nowIso()).toBe('2026-01-01T00:00:00.000Z');
    expect(t.h.clock.mode).toBe('manual');
  });
});
