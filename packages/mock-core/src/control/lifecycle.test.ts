/** Control plane, lifecycle: reset (with the demo re-seed), saveState, listDefects. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildMock, type Mock, type MockOptions } from '../../../mock/src/node/app.ts';
import { Clock } from '../core/clock.ts';
import { createAccount, provisionKeys } from '../domain/accounts/service.ts';
import { parseSnapshot, restoreState } from '../../../mock/src/node/persistence.ts';
import { Store } from '../domain/store.ts';
import { controlViolations } from '../testkit/control.ts';

let dir: string;
let mocks: Mock[] = [];
const logged: unknown[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cgs-control-'));
  logged.length = 0;
});
afterEach(async () => {
  for (const m of mocks) await m.app.close();
  mocks = [];
  rmSync(dir, { recursive: true, force: true });
});

async function start(options: MockOptions = {}): Promise<Mock> {
  const mock = buildMock({ clock: new Clock({ mode: 'manual' }), logError: (error) => logged.push(error), ...options });
  await mock.app.ready();
  mocks.push(mock);
  return mock;
}

async function call(mock: Mock, operationId: string, method: string, url: string, body?: unknown) {
  const res = await mock.inject({ method: method as 'GET', url, ...(body !== undefined ? { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) headers[k.toLowerCase()] = String(v);
  const out = { status: res.statusCode, headers, text: res.payload, body: res.payload ? (JSON.parse(res.payload) as any) : undefined };
  expect(controlViolations(operationId, out)).toEqual([]);
  return out;
}

describe('POST /__mock/reset', () => {
  it('forgets every account, global fault, override and counter', async () => {
    const mock = await start();
    const created = await call(mock, 'createAccount', 'POST', '/__mock/accounts', { empty: true });
    await call(mock, 'updateGlobalFaults', 'PATCH', '/__mock/faults', { writesPaused: true });
    await call(mock, 'updateLimits', 'PATCH', '/__mock/limits', { 'group:read': 1 });
    const reset = await call(mock, 'reset', 'POST', '/__mock/reset');
    expect(reset.status).toBe(204);
    expect(reset.text).toBe('');
    expect((await call(mock, 'getAccount', 'GET', `/__mock/accounts/${created.body.accountId}`)).status).toBe(404);
    expect(mock.services.store.keysByHash.size).toBe(0);
    expect((await call(mock, 'getGlobalFaults', 'GET', '/__mock/faults')).body).toEqual({ writesPaused: false });
    expect((await call(mock, 'getLimits', 'GET', '/__mock/limits')).body.overrides).toEqual({});
  });

  it('re-creates the demo account with the same keys when the process has one', async () => {
    const seedDemo = (services: Mock['services']) => {
      const demo = createAccount(services.store, { accountId: 'acc_demo', name: 'Demo', now: services.clock.now() });
      return provisionKeys(services.store, demo, services.clock.now(), 'demo-seed-1');
    };
    const mock = await start({ control: { onReset: (services) => void seedDemo(services) } });
    const keys = seedDemo(mock.services);
    await call(mock, 'createAccount', 'POST', '/__mock/accounts', { empty: true });
    await call(mock, 'reset', 'POST', '/__mock/reset');
    expect([...mock.services.store.accounts.keys()]).toEqual(['acc_demo']);
    const products = await mock.inject({ method: 'GET', url: '/api/public/v1/products', headers: { authorization: `Bearer ${keys.read!.key}` } });
    expect(products.statusCode).toBe(200);
  });
});

describe('POST /__mock/state/save', () => {
  it('answers 409 STATE_FILE_UNSET without --state', async () => {
    const mock = await start();
    const res = await call(mock, 'saveState', 'POST', '/__mock/state/save');
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'STATE_FILE_UNSET', status: 409 });
  });

  it('writes the state file atomically, and it loads back', async () => {
    const file = join(dir, 'nested', 'state.json');
    const mock = await start({ control: { stateFile: file } });
    const created = await call(mock, 'createAccount', 'POST', '/__mock/accounts', { name: 'Saved', credits: { balance: 9 } });
    mock.services.clock.advance(42);
    const res = await call(mock, 'saveState', 'POST', '/__mock/state/save');
    expect(res.status).toBe(200);
    const text = readFileSync(file, 'utf8');
    expect(res.body).toEqual({ path: file, bytes: Buffer.byteLength(text), accounts: 1, clock: '2026-01-01T00:00:42.000Z' });
    const store = new Store();
    expect(restoreState(store, parseSnapshot(text))).toEqual({ epochMs: Date.parse('2026-01-01T00:00:42.000Z'), mode: 'manual', accountOffsetsMs: {} });
    expect(store.accounts.get(created.body.accountId)?.name).toBe('Saved');
    expect(store.accounts.get(created.body.accountId)?.initialCredits).toEqual({ balance: 9, dailyBudget: null });
  });

  it('answers 500 STATE_SAVE_FAILED when the file cannot be written, leaving the old one intact', async () => {
    const blocker = join(dir, 'not-a-directory');
    writeFileSync(blocker, 'x');
    const mock = await start({ control: { stateFile: join(blocker, 'state.json') } });
    const res = await call(mock, 'saveState', 'POST', '/__mock/state/save');
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ code: 'STATE_SAVE_FAILED', status: 500 });
    expect(logged).toHaveLength(1);
    expect(readFileSync(blocker, 'utf8')).toBe('x');
  });
});

describe('GET /__mock/defects', () => {
  it('lists the injected defects in order, none by default', async () => {
    expect((await call(await start(), 'listDefects', 'GET', '/__mock/defects')).body).toEqual({ defects: [] });
    const mock = await start({ defects: new Set(['etag-weak', 'no-retry-after']) });
    expect((await call(mock, 'listDefects', 'GET', '/__mock/defects')).body).toEqual({ defects: ['etag-weak', 'no-retry-after'] });
    expect(mock.services.defects.has('etag-weak')).toBe(true);
  });
});
