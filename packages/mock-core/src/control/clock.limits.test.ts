/**
 * The clock's limits through the control plane and the hooks: an advance past LATEST_TIME_MS is a
 * 422 before anything moves and the mock keeps answering (D251); an account's advance waits only for
 * its own webhook deliveries, a large advance lets other requests through, and closing the app ends an
 * advance under way (D252).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LATEST_TIME_MS } from '../core/clock.ts';
import type { OutgoingDelivery } from '../events/transport.ts';
import { createHarness, type Harness, type TestAccount } from '../testkit/harness.ts';
import { controlViolations } from '../testkit/control.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const NEAR = LATEST_TIME_MS - 3_600_000; // an hour before the bound

async function hook(method: string, path: string, body?: unknown) {
  const res = await h!.mock.inject({ method: method as 'GET', url: `/__hooks${path}`, ...(body !== undefined ? { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json|^application\/json/);
  return { status: res.statusCode, body: JSON.parse(res.payload || 'null') as Record<string, any> };
}

describe('an advance past the bound is refused before anything moves (D251)', () => {
  // Each row: what comes first (allowed), the request that must be refused, its operation (for the
  // control document's check of the answer) and the field its 422 names.
  const rows: { name: string; first?: (account: TestAccount) => Promise<unknown>; send: (account: TestAccount) => Promise<{ status: number; body: any; headers?: Record<string, string>; text?: string }>; operationId?: string; field: string }[] = [
    { name: 'setClock advanceSeconds', send: () => h!.control('POST', '/__mock/clock', { advanceSeconds: 3601 }), operationId: 'setClock', field: 'advanceSeconds' },
    { name: 'setClock with a mode switch (the mode does not change either)', send: () => h!.control('POST', '/__mock/clock', { mode: 'real', advanceSeconds: 3601 }), operationId: 'setClock', field: 'advanceSeconds' },
    {
      name: 'setClock that would move an account ahead of the mock past the bound',
      first: (account) => h!.control('POST', `/__mock/accounts/${account.accountId}/clock`, { advanceSeconds: 3000 }),
      send: () => h!.control('POST', '/__mock/clock', { advanceSeconds: 601 }),
      operationId: 'setClock',
      field: 'advanceSeconds',
    },
    { name: 'advanceAccountClock', send: (account) => h!.control('POST', `/__mock/accounts/${account.accountId}/clock`, { advanceSeconds: 3601 }), operationId: 'advanceAccountClock', field: 'advanceSeconds' },
    { name: "the hooks' advanceAccountClock", send: (account) => hook('POST', `/accounts/${account.accountId}/clock/advance`, { seconds: 3601 }), field: 'seconds' },
  ];
  for (const row of rows) {
    it(`refuses ${row.name} with a 422 and leaves every clock as it was`, async () => {
      h = await createHarness({ start: NEAR });
      // An account the hooks made: the hooks act only on those (D256), the control plane on any.
      const account = { accountId: (await hook('POST', '/accounts', { plan: 'growth' })).body.accountId as string } as TestAccount;
      await row.first?.(account);
      let ran = 0;
      h.clock.after(1, () => ran++);
      h.clock.forAccount(account.accountId).after(1, () => ran++);
      const read = async () => ({ mock: (await h!.control('GET', '/__mock/clock')).body, account: (await h!.control('GET', `/__mock/accounts/${account.accountId}/clock`)).body });
      const before = await read();
      const res = await row.send(account);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.errors).toEqual([{ field: row.field, message: expect.stringMatching(/past 9998-01-01T00:00:00\.000Z.*seconds remain/) }]);
      if (row.operationId) expect(controlViolations(row.operationId, res as never)).toEqual([]);
      expect(ran).toBe(0);
      // The mock keeps answering, and what it answers is what it said before the refusal.
      expect(await read()).toEqual(before);
      expect(before.mock.mode).toBe('manual');
    });
  }

  it('ten-year advances of the mock end in a 422 near the bound, then reading the clock and a reset still answer', async () => {
    h = await createHarness({ start: Date.UTC(9950, 0, 1) });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await h.control('POST', '/__mock/clock', { advanceSeconds: 315_360_000 })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 422, 422]);
    const clock = await h.control('GET', '/__mock/clock');
    expect(clock.status).toBe(200);
    expect(clock.body.now).toMatch(/^99[89]\d-/);
    expect((await h.control('POST', '/__mock/reset')).status).toBe(204);
    expect((await h.control('GET', '/__mock/clock')).status).toBe(200);
  });

  it('a reset brings a clock that slipped outside the range back to a sane reading', async () => {
    h = await createHarness({ start: 9e15 });
    expect((await h.control('POST', '/__mock/reset')).status).toBe(204);
    const clock = await h.control('GET', '/__mock/clock');
    expect(clock.status).toBe(200);
    expect(clock.body.now).toBe('2026-01-01T00:00:00.000Z');
  });
});

describe('clocks that do not wait on each other (D252)', () => {
  /** Two accounts, each with an endpoint for asset.archived and an event in its processing time; A's receiver never answers. */
  async function twoAccounts(timeoutMs = 5_000) {
    const sent: string[] = [];
    h = await createHarness({
      webhooks: {
        timeoutMs,
        transport: (request: OutgoingDelivery) => {
          sent.push(request.url);
          return request.url.includes('/hangs') ? new Promise(() => undefined) : Promise.resolve({ status: 204 });
        },
      },
    });
    const [a, b] = [await h.account(), await h.account()];
    for (const [account, path] of [[a, '/hangs'], [b, '/answers']] as const) {
      const res = await h.control('POST', `/__mock/accounts/${account.accountId}/webhook-endpoints`, { url: `http://127.0.0.1:9${path}`, eventTypes: ['asset.archived'] });
      expect(res.status, res.text).toBe(201);
      const asset = [...account.state.assets.values()][0]!;
      h.mock.services.events.record(account.state, { kind: 'asset', id: asset.assetId }, [{ type: 'asset.archived' }], { kind: 'user' }, h.clock.forAccount(account.accountId).now());
    }
    return { a, b, sent };
  }

  it("account B's advance completes while account A's waits on a receiver that never answers", async () => {
    const { a, b, sent } = await twoAccounts();
    let aAnswered = false;
    const aAdvance = h!.control('POST', `/__mock/accounts/${a.accountId}/clock`, { advanceSeconds: 3 * 86_400 }).then(() => (aAnswered = true));
    const bAdvance = await h!.control('POST', `/__mock/accounts/${b.accountId}/clock`, { advanceSeconds: 60 });
    expect(bAdvance.status).toBe(200);
    expect(bAdvance.body.advancedSeconds).toBe(60);
    expect(sent).toEqual(['http://127.0.0.1:9/hangs', 'http://127.0.0.1:9/answers']);
    expect(aAnswered).toBe(false);
    // Closing the app ends A's advance (its request is answered) although the receiver still hangs.
    await h!.close();
    h = undefined;
    await aAdvance;
    expect(aAnswered).toBe(true);
  });

  it("the mock-wide advance waits for a hung receiver only as long as the attempt's timeout (plus a second), even when the transport never settles", async () => {
    const { a } = await twoAccounts(200);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let answered: number | undefined;
      const advance = h!.control('POST', '/__mock/clock', { advanceSeconds: 60 }).then((res) => (answered = res.status));
      while (!h!.mock.services.webhooks.busyFor(a.accountId)) await new Promise((resolve) => setImmediate(resolve));
      await vi.advanceTimersByTimeAsync(1_199);
      expect(answered).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(await advance).toBe(200);
      const log = await h!.control('GET', `/__mock/accounts/${a.accountId}/webhook-deliveries`);
      expect(log.body.data[0]).toMatchObject({ status: 'failed', error: 'no answer within 1200 ms' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('closing a listening server answers an advance waiting on a hung receiver and resolves (the close does not wait on it)', async () => {
    const { a } = await twoAccounts();
    await h!.mock.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = h!.mock.app.server.address() as { port: number };
    let answered: number | undefined;
    const advance = fetch(`http://127.0.0.1:${port}/__mock/accounts/${a.accountId}/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceSeconds: 86_400 }) }).then((res) => (answered = res.status));
    while (h!.mock.services.webhooks.busyFor(a.accountId) === false) await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBeUndefined();
    await h!.close();
    h = undefined;
    expect(await advance).toBe(200);
  });

  it('a 9,000-task advance of one account lets a request of another account through before it finishes', async () => {
    h = await createHarness();
    const [a, b] = [await h.account(), await h.account()];
    const own = h.clock.forAccount(a.accountId);
    let ran = 0;
    let ranWhenAnswered: number | undefined;
    let other: Promise<number> | undefined;
    // The first task sends a request of account B: without slices the other 8,999 run before it is read.
    own.after(1, () => {
      other = h!.request('GET', '/products', { key: b.key('all') }).then((res) => {
        ranWhenAnswered = ran;
        return res.status;
      });
    });
    for (let i = 0; i < 9_000; i++) own.after(1 + i / 1000, () => ran++);
    const advance = h.control('POST', `/__mock/accounts/${a.accountId}/clock`, { advanceSeconds: 60 });
    expect((await advance).status).toBe(200);
    expect(await other).toBe(200);
    expect(ran).toBe(9_000);
    expect(ranWhenAnswered).toBeLessThan(9_000);
  });
});
