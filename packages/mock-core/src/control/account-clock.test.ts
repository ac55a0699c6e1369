/**
 * Per-account test clocks through the control plane (D91): GET/POST /__mock/accounts/{id}/clock
 * move one account's schedule (runs, key expiry, idempotency records, the rate-limit windows of its
 * keys) and nobody else's, while POST /__mock/clock still moves everyone. In-process, the same
 * operations are typed methods of the msw `control`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type TestAccount } from '../testkit/harness.ts';
import { createMockHandlers } from '../../../msw/src/msw.ts';
import { parseSnapshot, restoreState, serializeState } from '../../../mock/src/node/persistence.ts';
import { Store } from '../domain/store.ts';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const DAY = 24 * 3600;

async function startRun(account: TestAccount): Promise<string> {
  const productIds = [...account.state.products.ids()].slice(0, 2);
  const res = await h.request('POST', '/runs', { key: account.key('all'), headers: { 'idempotency-key': `run-${account.accountId}` }, body: { productIds, creativesPerProduct: 1, presetId: 'pst_studio_white' } });
  expect(res.status, res.text).toBe(202);
  return res.body.runId as string;
}

async function runStatus(account: TestAccount, runId: string): Promise<string> {
  return (await h.request('GET', `/runs/${runId}`, { key: account.key('all') })).body.status as string;
}

async function advanceAccount(account: TestAccount, seconds: number) {
  const res = await h.control('POST', `/__mock/accounts/${account.accountId}/clock`, { advanceSeconds: seconds });
  expect(res.status, res.text).toBe(200);
  return res.body as { accountId: string; now: string; advancedSeconds: number; pendingTasks: number };
}

describe('per-account test clocks (D91)', () => {
  it('advancing one account settles its run and leaves the other account\'s run where it was', async () => {
    const a = await h.account();
    const b = await h.account();
    const runA = await startRun(a);
    const runB = await startRun(b);
    const clock = await advanceAccount(a, DAY);
    expect(clock.advancedSeconds).toBe(DAY);
    expect(['SUCCEEDED', 'PARTIAL', 'FAILED']).toContain(await runStatus(a, runA));
    expect(['ACCEPTED', 'RUNNING']).toContain(await runStatus(b, runB));
    const readB = (await h.control('GET', `/__mock/accounts/${b.accountId}/clock`)).body as { now: string; advancedSeconds: number };
    expect(readB.advancedSeconds).toBe(0);
    expect(Date.parse(clock.now) - Date.parse(readB.now)).toBe(DAY * 1000);
    // The mock's clock still moves every account: b's run settles too.
    expect((await h.control('POST', '/__mock/clock', { advanceSeconds: DAY })).status).toBe(200);
    expect(['SUCCEEDED', 'PARTIAL', 'FAILED']).toContain(await runStatus(b, runB));
  });

  it('a key expires on its account\'s clock only', async () => {
    const a = await h.account();
    const b = await h.account();
    const keyOf = async (account: TestAccount) => (await h.control('POST', `/__mock/accounts/${account.accountId}/keys`, { scopes: ['read', 'campaigns:write'], expiresInDays: 30 })).body.key as string;
    const keyA = await keyOf(a);
    const keyB = await keyOf(b);
    await advanceAccount(a, 31 * DAY);
    expect((await h.request('GET', '/campaigns', { key: keyA })).status).toBe(401);
    expect((await h.request('GET', '/campaigns', { key: keyB })).status).toBe(200);
  });

  it('an idempotency record ends on its account\'s clock only', async () => {
    const a = await h.account();
    const b = await h.account();
    const create = (account: TestAccount) => h.request('POST', '/runs', { key: account.key('all'), headers: { 'idempotency-key': 'same-key' }, body: { productIds: [...account.state.products.ids()].slice(0, 1), creativesPerProduct: 1, presetId: 'pst_studio_white' } });
    for (const account of [a, b]) expect((await create(account)).status).toBe(202);
    await advanceAccount(a, 2 * DAY);
    expect((await create(b)).headers['idempotent-replayed']).toBe('true');
    expect((await create(a)).headers['idempotent-replayed']).toBeUndefined();
  });

  it('the rate-limit window of one account\'s keys turns over on its clock only', async () => {
    const a = await h.account();
    const b = await h.account();
    for (const account of [a, b]) expect((await h.control('PATCH', `/__mock/accounts/${account.accountId}/limits`, { 'group:read': 1 })).status).toBe(200);
    for (const account of [a, b]) expect((await h.request('GET', '/campaigns', { key: account.key('read') })).status).toBe(200);
    for (const account of [a, b]) expect((await h.request('GET', '/campaigns', { key: account.key('read') })).status).toBe(429);
    await advanceAccount(a, 60);
    expect((await h.request('GET', '/campaigns', { key: a.key('read') })).status).toBe(200);
    expect((await h.request('GET', '/campaigns', { key: b.key('read') })).status).toBe(429);
  });

  it('a state file keeps each account\'s advance', async () => {
    const a = await h.account({ empty: true });
    await h.account({ empty: true });
    await advanceAccount(a, 60);
    const restored = restoreState(new Store(), parseSnapshot(serializeState(h.mock.services.store, h.clock)));
    expect(restored.accountOffsetsMs).toEqual({ [a.accountId]: 60_000 });
  });

  it('answers 404 for an unknown account and 422 for a negative advance', async () => {
    expect((await h.control('GET', '/__mock/accounts/acc_nope/clock')).body.code).toBe('ACCOUNT_NOT_FOUND');
    const a = await h.account();
    const res = await h.control('POST', `/__mock/accounts/${a.accountId}/clock`, { advanceSeconds: -1 });
    expect([res.status, res.body.code]).toEqual([422, 'VALIDATION_ERROR']);
  });
});

describe('in-process (msw control)', () => {
  it('reads and advances one account\'s clock through the typed control methods', async () => {
    const mock = createMockHandlers({ baseUrl: 'http://api.test', seed: false });
    try {
      await mock.ready;
      const a = await mock.control.createAccount({ empty: true });
      const b = await mock.control.createAccount({ empty: true });
      const before = await mock.control.getAccountClock(b.accountId);
      const moved = await mock.control.advanceAccountClock(a.accountId, { advanceSeconds: 90 });
      expect(moved.advancedSeconds).toBe(90);
      const after = await mock.control.getAccountClock(b.accountId);
      expect(after.now).toBe(before.now);
      expect(Date.parse(moved.now) - Date.parse(after.now)).toBe(90_000);
    } finally {
      mock.dispose();
    }
  });
});
