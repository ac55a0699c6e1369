/** Control plane, leases: the readers-writer table (fake timers) and its routes. */
import { describe, expect, it } from 'vitest';
import { controlSuite } from '../testkit/control.ts';
import { LeaseTable, type Lease, type Timer } from '../core/leases.ts';

/** A fake real-time timer: `tick(ms)` runs what falls due. */
function fakeTimer(): { timer: Timer; tick(ms: number): void } {
  let now = 0;
  const tasks = new Set<{ at: number; run: () => void }>();
  return {
    timer: (ms, run) => {
      const task = { at: now + ms, run };
      tasks.add(task);
      return () => tasks.delete(task);
    },
    tick(ms) {
      now += ms;
      for (const task of [...tasks].sort((a, b) => a.at - b.at)) {
        if (task.at <= now && tasks.delete(task)) task.run();
      }
    },
  };
}

function table() {
  const clock = fakeTimer();
  let n = 0;
  const leases = new LeaseTable(clock.timer, () => `lse_${++n}`);
  return { leases, clock };
}

/** Whether a promise has settled (after the microtasks queued so far). */
async function settled<T>(promise: Promise<T>): Promise<{ done: boolean; value?: T }> {
  let state: { done: boolean; value?: T } = { done: false };
  void promise.then((value) => (state = { done: true, value }));
  await new Promise((resolve) => setImmediate(resolve));
  return state;
}

describe('LeaseTable', () => {
  it.each([
    ['shared leases share', ['shared', 'shared', 'shared'], [true, true, true]],
    ['exclusive waits for a shared one', ['shared', 'exclusive'], [true, false]],
    ['shared waits for the exclusive one', ['exclusive', 'shared'], [true, false]],
    ['a shared request behind a waiting exclusive one waits (no starvation)', ['shared', 'exclusive', 'shared'], [true, false, false]],
    ['one exclusive at a time', ['exclusive', 'exclusive'], [true, false]],
  ] as const)('%s', async (_what, modes, granted) => {
    const { leases } = table();
    const asked = modes.map((mode) => leases.acquire({ mode, waitSeconds: 10 }));
    const states = await Promise.all(asked.map((p) => settled(p)));
    expect(states.map((s) => s.done)).toEqual(granted);
  });

  it('serves waiting requests in arrival order once the holders release', async () => {
    const { leases } = table();
    const first = (await leases.acquire({ mode: 'shared', holder: 'a' }))!;
    const exclusive = leases.acquire({ mode: 'exclusive', holder: 'b' });
    const shared = leases.acquire({ mode: 'shared', holder: 'c' });
    expect(leases.list().waiting).toEqual([
      { mode: 'exclusive', holder: 'b' },
      { mode: 'shared', holder: 'c' },
    ]);
    expect(leases.release(first.leaseId)).toBe(true);
    const granted = (await exclusive)!;
    expect(granted).toMatchObject({ mode: 'exclusive', holder: 'b' });
    expect((await settled(shared)).done).toBe(false);
    leases.release(granted.leaseId);
    expect(await shared).toMatchObject({ mode: 'shared', holder: 'c' });
    expect(leases.release(granted.leaseId), 'a released lease is gone').toBe(false);
  });

  it('a request not served within waitSeconds gets nothing and leaves the queue, letting the ones behind it through', async () => {
    const { leases, clock } = table();
    const held = (await leases.acquire({ mode: 'shared' }))!;
    const exclusive = leases.acquire({ mode: 'exclusive', waitSeconds: 5 });
    const shared = leases.acquire({ mode: 'shared', waitSeconds: 30 });
    clock.tick(4_999);
    expect((await settled(exclusive)).done).toBe(false);
    clock.tick(1);
    expect(await exclusive).toBeUndefined();
    expect(await shared, 'the shared request behind it is served').toMatchObject({ mode: 'shared' });
    expect(leases.list().held.map((l: Lease) => l.leaseId)).toEqual([held.leaseId, 'lse_2']);
    expect(await leases.acquire({ mode: 'exclusive', waitSeconds: 0 }), 'waitSeconds 0 does not wait').toBeUndefined();
  });

  it('a lease ends by itself ttlSeconds after its grant', async () => {
    const { leases, clock } = table();
    await leases.acquire({ mode: 'exclusive', ttlSeconds: 60 });
    const next = leases.acquire({ mode: 'exclusive', waitSeconds: 60 });
    clock.tick(59_999);
    expect((await settled(next)).done).toBe(false);
    clock.tick(1);
    expect(await next).toMatchObject({ mode: 'exclusive', ttlSeconds: 300 });
  });

  it('an asker that went away leaves the queue', async () => {
    const { leases } = table();
    const held = (await leases.acquire({ mode: 'exclusive' }))!;
    const gone = new AbortController();
    const asked = leases.acquire({ mode: 'shared', signal: gone.signal });
    gone.abort();
    expect(await asked).toBeUndefined();
    leases.release(held.leaseId);
    expect(leases.list()).toEqual({ held: [], waiting: [] });
  });
});

describe('/__mock/leases', () => {
  const t = controlSuite();
  const { control } = t;

  it('grants, lists and releases; an exclusive request held back answers 409 LEASE_UNAVAILABLE naming the holder', async () => {
    const shared = await control('acquireLease', 'POST', '/__mock/leases', { mode: 'shared', holder: 'worker 1' });
    expect(shared.status).toBe(201);
    expect(shared.body).toMatchObject({ mode: 'shared', holder: 'worker 1', ttlSeconds: 300 });
    expect(shared.body.leaseId).toMatch(/^lse_/);
    const busy = await control('acquireLease', 'POST', '/__mock/leases', { mode: 'exclusive', waitSeconds: 0 });
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('LEASE_UNAVAILABLE');
    expect(busy.body.detail).toContain('worker 1 (shared)');
    expect((await control('listLeases', 'GET', '/__mock/leases')).body).toEqual({ held: [shared.body], waiting: [] });
    expect((await control('releaseLease', 'DELETE', `/__mock/leases/${shared.body.leaseId}`)).status).toBe(204);
    expect((await control('releaseLease', 'DELETE', `/__mock/leases/${shared.body.leaseId}`)).body.code).toBe('LEASE_NOT_FOUND');
    expect((await control('acquireLease', 'POST', '/__mock/leases', { mode: 'exclusive', waitSeconds: 0 })).status).toBe(201);
  });

  it('a waiting request is answered when the holder releases', async () => {
    const held = await control('acquireLease', 'POST', '/__mock/leases', { mode: 'exclusive' });
    const waiting = control('acquireLease', 'POST', '/__mock/leases', { mode: 'shared', waitSeconds: 10 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await control('listLeases', 'GET', '/__mock/leases')).body.waiting).toEqual([{ mode: 'shared', holder: 'anonymous' }]);
    await control('releaseLease', 'DELETE', `/__mock/leases/${held.body.leaseId}`);
    expect((await waiting).status).toBe(201);
  });

  it.each([
    [{}, 'mode'],
    [{ mode: 'solo' }, 'mode'],
    [{ mode: 'shared', ttlSeconds: 0 }, 'ttlSeconds'],
    [{ mode: 'shared', waitSeconds: 61 }, 'waitSeconds'],
    [{ mode: 'shared', extra: true }, 'extra'],
  ])('refuses %j (422 naming %s)', async (body, field) => {
    const res = await control('acquireLease', 'POST', '/__mock/leases', body);
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.errors)).toContain(field);
  });
});
