/** Control plane, faults and limits: per account and for everyone. */
import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../testkit/harness.ts';
import { controlSuite } from '../testkit/control.ts';
import { defaultLimits } from './limits.ts';

const t = controlSuite({ account: { empty: true } });
const { control } = t;

/** A write that reaches the faults stage (approve needs no body; the creative need not exist). */
function approve(account: TestAccount) {
  return t.h.request('POST', '/creatives/crt_missing/approve', { key: account.key('creatives:review'), headers: { 'idempotency-key': 'idem-1' } });
}

describe('PATCH /__mock/accounts/{accountId}/faults', () => {
  it('changes the given faults only and answers all of them', async () => {
    const res = await control('updateAccountFaults', 'PATCH', `/__mock/accounts/${t.acc.accountId}/faults`, { lostRaces: 2, cascadeSeconds: 1.5, slowWritesMs: 250 });
    expect(res.body).toEqual({ writesPaused: false, spendUnavailable: false, lostRaces: 2, cascadeSeconds: 1.5, creationSeconds: 0, slowWritesMs: 250, forcedRateLimits: 0 });
    expect(t.acc.state.faults).toEqual(res.body);
  });

  it('writesPaused makes the account\'s writes answer 503 WRITES_PAUSED, and only its own', async () => {
    const other = await t.h.account({ empty: true });
    await control('updateAccountFaults', 'PATCH', `/__mock/accounts/${t.acc.accountId}/faults`, { writesPaused: true });
    const paused = await approve(t.acc);
    expect(paused.status).toBe(503);
    expect(paused.body.code).toBe('WRITES_PAUSED');
    expect((await approve(other)).status).not.toBe(503);
    await control('updateAccountFaults', 'PATCH', `/__mock/accounts/${t.acc.accountId}/faults`, { writesPaused: false });
    expect((await approve(t.acc)).status).not.toBe(503);
  });

  it.each([
    [{ lostRaces: -1 }, 'lostRaces'],
    [{ lostRaces: 1.5 }, 'lostRaces'],
    [{ writesPaused: 'true' }, 'writesPaused'],
    [{ cascadeSeconds: 86401 }, 'cascadeSeconds'],
    [{ slowWritesMs: -5 }, 'slowWritesMs'],
    [{ explode: true }, 'explode'],
  ])('refuses %j with 422 and changes nothing', async (body, field) => {
    const res = await control('updateAccountFaults', 'PATCH', `/__mock/accounts/${t.acc.accountId}/faults`, body);
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(t.acc.state.faults.lostRaces).toBe(0);
  });
});

describe('/__mock/faults (everyone)', () => {
  it('writesPaused pauses every account\'s writes, not its reads', async () => {
    expect((await control('getGlobalFaults', 'GET', '/__mock/faults')).body).toEqual({ writesPaused: false });
    const res = await control('updateGlobalFaults', 'PATCH', '/__mock/faults', { writesPaused: true });
    expect(res.body).toEqual({ writesPaused: true });
    const other = await t.h.account({ empty: true });
    expect((await approve(t.acc)).status).toBe(503);
    expect((await approve(other)).status).toBe(503);
    expect((await t.h.request('GET', '/products', { key: t.acc.key('read') })).status).toBe(200);
    await control('updateGlobalFaults', 'PATCH', '/__mock/faults', { writesPaused: false });
    expect((await approve(t.acc)).status).not.toBe(503);
  });

  it('refuses a bad value', async () => {
    const res = await control('updateGlobalFaults', 'PATCH', '/__mock/faults', { writesPaused: null });
    expect(res.status).toBe(422);
    const unknown = await control('updateGlobalFaults', 'PATCH', '/__mock/faults', { spendUnavailable: true });
    expect(unknown.status).toBe(422);
  });
});

describe('rate-limit overrides', () => {
  it('GET /__mock/limits lists every default', async () => {
    const res = await control('getLimits', 'GET', '/__mock/limits');
    expect(res.body.defaults).toEqual(defaultLimits());
    expect(res.body.defaults['group:read']).toBe(200);
    expect(res.body.defaults['ip:writes']).toBe(600);
    expect(res.body.overrides).toEqual({});
  });

  it('a global override applies to every account; an account override wins; null removes', async () => {
    const res = await control('updateLimits', 'PATCH', '/__mock/limits', { 'group:read': 2 });
    expect(res.body.overrides).toEqual({ 'group:read': 2 });
    const policy = async () => (await t.h.request('GET', '/products', { key: t.acc.key('read') })).headers['ratelimit-policy'];
    expect(await policy()).toContain('2;w=60');
    const own = await control('updateAccountLimits', 'PATCH', `/__mock/accounts/${t.acc.accountId}/limits`, { 'group:read': 5, 'account:read': 9 });
    expect(own.body).toEqual({ overrides: { 'group:read': 5, 'account:read': 9 } });
    expect(await policy()).toMatch(/^5;w=60, 9;w=60/);
    await control('updateAccountLimits', 'PATCH', `/__mock/accounts/${t.acc.accountId}/limits`, { 'group:read': null, 'account:read': null });
    expect(t.acc.state.limitOverrides).toEqual({});
    const cleared = await control('updateLimits', 'PATCH', '/__mock/limits', { 'group:read': null });
    expect(cleared.body.overrides).toEqual({});
  });

  it('a quota of 0 refuses every request of the group', async () => {
    await control('updateAccountLimits', 'PATCH', `/__mock/accounts/${t.acc.accountId}/limits`, { 'group:read': 0 });
    expect((await t.h.request('GET', '/products', { key: t.acc.key('read') })).status).toBe(429);
  });

  it.each([
    [{ 'group:nope': 1 }, 'group:nope'],
    [{ read: 1 }, 'read'],
    [{ 'ip:read': -1 }, 'ip:read'],
    [{ 'ip:read': 'many' }, 'ip:read'],
  ])('refuses %j with 422', async (body, field) => {
    for (const [operationId, path] of [
      ['updateLimits', '/__mock/limits'],
      ['updateAccountLimits', `/__mock/accounts/${t.acc.accountId}/limits`],
    ] as const) {
      const res = await control(operationId, 'PATCH', path, body);
      expect(res.status).toBe(422);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect(t.h.mock.services.store.limitOverrides).toEqual({});
  });
});
