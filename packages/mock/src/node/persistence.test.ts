/**
 * The `--state` snapshot: the generic encoding, a round trip of state built through the API, and
 * the command line (`npm start -- --state FILE`) saving on SIGTERM and loading on the next start.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildMock } from './app.ts';
import { Clock } from '../../../mock-core/src/core/clock.ts';
import { Collection } from '../../../mock-core/src/core/collection.ts';
import type { Creative } from '../../../mock-core/src/domain/creatives/model.ts';
import { decode, encode, loadStateFile, parseSnapshot, PersistenceError, restoreState, saveStateFile, serializeState, STATE_VERSION } from './persistence.ts';
import { newAccountWebhooks } from '../../../mock-core/src/events/state.ts';
import { Store, type AccountState } from '../../../mock-core/src/domain/store.ts';
import { createHarness, type Harness } from '../../../mock-core/src/testkit/harness.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cgs-state-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('encode / decode', () => {
  const roundTrip = (value: unknown) => decode(JSON.parse(JSON.stringify(encode(value))));

  it.each<[string, unknown]>([
    ['JSON values', { a: 1, b: 'x', c: [true, null, { d: [] }] }],
    ['a Map with non-string keys', new Map<unknown, unknown>([[1, 'one'], [{ k: 1 }, new Set([1, 2])], ['s', new Map()]])],
    ['a Set', new Set(['b', 'a', 3])],
    ['a Date', { at: new Date(Date.UTC(2026, 0, 2)) }],
    ['a Buffer and a Uint8Array', { b: Buffer.from('hello'), u: new Uint8Array([1, 2, 255]) }],
    ['undefined members and holes', { a: undefined, list: [1, undefined, 3] }],
    ['numbers JSON cannot say', { nan: NaN, inf: Infinity, ninf: -Infinity, nzero: -0, big: 12345678901234567890n }],
    ['a plain object with a $t key', { $t: 'Map', v: [] }],
    ['an object without prototype', Object.assign(Object.create(null) as object, { a: 1 })],
    ['an own __proto__ key', JSON.parse('{"__proto__": {"polluted": true}}') as unknown],
  ])('%s', (_name, value) => {
    expect(roundTrip(value)).toStrictEqual(value);
  });

  it('keeps a Collection\'s order, including ids added out of sort order', () => {
    const c = new Collection<{ n: number }>();
    for (const id of ['z', 'a', 'm', '10', '2']) c.set(id, { n: id.length });
    const back = roundTrip(c) as Collection<{ n: number }>;
    expect(back).toBeInstanceOf(Collection);
    expect(back.ids()).toEqual(['z', 'a', 'm', '10', '2']);
    expect([...back.values()]).toEqual([...c.values()]);
  });

  it('keeps shared identity and cycles', () => {
    const actor = { kind: 'user' };
    const record = { id: 'r1' };
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const collection = new Collection<typeof record>();
    collection.set('r1', record);
    const value = { events: [{ actor }, { actor }], collection, index: new Map([['r1', record]]), cyclic };
    const back = roundTrip(value) as typeof value;
    expect(back.events[0]!.actor).toBe(back.events[1]!.actor);
    expect(back.index.get('r1')).toBe(back.collection.get('r1'));
    expect(back.cyclic.self).toBe(back.cyclic);
  });

  it('refuses what it cannot restore, naming where it is', () => {
    class Widget {
      n = 1;
    }
    expect(() => encode({ a: { b: [() => 1] } })).toThrow(new PersistenceError('cannot save a function at $.a.b[0]'));
    expect(() => encode({ w: new Widget() })).toThrow(/instance of Widget at \$\.w/);
    expect(() => encode({ s: Symbol('x') })).toThrow(PersistenceError);
  });

  it('refuses a file that is not a state file, or of another version', () => {
    expect(() => parseSnapshot('{')).toThrow(/not JSON/);
    expect(() => parseSnapshot('{"format":"other"}')).toThrow(/not a mock state file/);
    expect(() => parseSnapshot(JSON.stringify({ format: 'cgs-mock-state', version: STATE_VERSION + 1 }))).toThrow(/version/);
    expect(() => decode({ $t: 'Ref', id: 9 })).toThrow(/dangling/);
    expect(() => decode({ $t: 'Mystery' })).toThrow(/unknown tag/);
  });

  // D251: a clock reading the mock cannot keep (a file saved by an older mock, or edited) stops the load with its field named.
  it.each([
    ['a reading past 9998-12-31', { epochMs: Date.UTC(9998, 11, 31) + 1 }, /clock\.epochMs .*outside 1970-01-01T00:00:00Z\.\.9998-12-31/],
    ['a reading past what a Date holds', { epochMs: 9e15 }, /clock\.epochMs 9000000000000000\) is outside/],
    ['an account advanced past 9998', { epochMs: Date.UTC(2026, 0, 1), accountOffsetsMs: { acc_far: 8e15 } }, /the clock of account acc_far .* is outside/],
  ])('refuses a state file with %s', (_name, clock, message) => {
    const text = JSON.stringify({ format: 'cgs-mock-state', version: STATE_VERSION, clock: { now: 'x', mode: 'manual', ...clock }, store: {} });
    expect(() => parseSnapshot(text, 'state.json')).toThrow(message);
  });

  it('loads a state whose real clock ran on past the bound after the last advance (saved by a mock left running there)', () => {
    const text = JSON.stringify({ format: 'cgs-mock-state', version: STATE_VERSION, clock: { now: 'x', mode: 'real', epochMs: Date.UTC(9998, 0, 1) + 2_000, accountOffsetsMs: { acc_near: 1_000 } }, store: {} });
    expect(parseSnapshot(text, 'state.json').clock.epochMs).toBe(Date.UTC(9998, 0, 1) + 2_000);
  });

  it('a missing file loads as undefined', () => {
    expect(loadStateFile(join(dir, 'absent.json'))).toBeUndefined();
  });
});

describe('a round trip of state built through the API', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  function pendingCreative(state: AccountState, id: string): void {
    const product = [...state.products.values()][0]!;
    const creative: Creative = {
      creativeId: id,
      productId: product.productId,
      campaignId: 'cmp_none',
      brandId: product.brandId,
      mediaType: 'image',
      status: 'PENDING',
      url: `https://media.creative-generation.invalid/${id}.png`,
      thumbnailUrl: null,
      playerUrl: null,
      ownAspectRatio: '4:5',
      approvedAt: null,
      rejectionReason: null,
      deletedAt: null,
      deletedWithCampaign: false,
      metadata: { source: 'test' },
      createdAt: h.clock.now(),
      cropJobs: 0,
    };
    state.creatives.set(id, creative);
  }

  it('restores every collection exactly and the mock answers byte-for-byte the same', async () => {
    // --- build state through the API and the control plane
    const a = await h.account({ seed: 11 });
    const b = await h.account({ empty: true, plan: 'core' });
    await h.control('POST', `/__mock/accounts/${a.accountId}/keys`, { name: 'extra', scopes: ['read', 'assets:write'], expiresInDays: 30 });
    await h.control('POST', `/__mock/accounts/${a.accountId}/keys/${a.keys['runs:read']!.keyId}/revoke`);
    await h.control('POST', `/__mock/accounts/${b.accountId}/keys/${b.keys.read!.keyId}/expire`);
    await h.control('PATCH', `/__mock/accounts/${a.accountId}/faults`, { lostRaces: 1, cascadeSeconds: 2.5 });
    await h.control('PATCH', `/__mock/accounts/${a.accountId}/settings`, { sparsePages: true });
    await h.control('PATCH', `/__mock/accounts/${a.accountId}/limits`, { 'group:read': 150 });
    await h.control('PATCH', '/__mock/limits', { 'ip:writes': 500 });
    await h.control('PATCH', `/__mock/accounts/${b.accountId}/plan`, { features: { campaignLimit: 3 } });
    await h.control('PATCH', `/__mock/accounts/${b.accountId}`, { suspended: true });
    // An endpoint for a type nothing here emits: no delivery goes out while the test compares state.
    const hook = await h.control('POST', `/__mock/accounts/${a.accountId}/webhook-endpoints`, { url: 'http://127.0.0.1:9/hooks', eventTypes: ['run.completed'], chaos: { failFirst: 1 } });
    expect(hook.status).toBe(201);
    await h.control('PATCH', `/__mock/accounts/${a.accountId}/webhook-settings`, { processingDelaySeconds: 15 });
    await h.control('PATCH', '/__mock/webhook-settings', { processingDelaySeconds: 45 });
    pendingCreative(a.state, 'crt_round1');
    pendingCreative(a.state, 'crt_round2');
    const approve = await h.request('POST', '/creatives/crt_round1/approve', { key: a.key('creatives:review'), headers: { 'idempotency-key': 'approve-1' } });
    expect(approve.status).toBe(200);
    h.advance(30);
    await h.control('POST', `/__mock/accounts/${a.accountId}/actions`, { actor: { kind: 'share_link' }, operationId: 'rejectCreative', pathParams: { creativeId: 'crt_round2' }, body: { rejectionReason: 'blurry' } });
    const patch = await h.request('PATCH', '/creatives/crt_round1', { key: a.key('creatives:write'), body: { metadata: { team: 'x', source: null } } });
    expect(patch.status).toBe(200);
    // Fields other modules add later, unknown to the serializer: a Collection, a Map, a nested Set.
    const extra = a.state as unknown as Record<string, unknown>;
    extra.runs = new Collection<{ runId: string; items: string[] }>();
    (extra.runs as Collection<{ runId: string; items: string[] }>).set('run_2', { runId: 'run_2', items: ['j1', 'j2'] });
    (extra.runs as Collection<{ runId: string; items: string[] }>).set('run_1', { runId: 'run_1', items: [] });
    extra.ledger = { balance: 10, holds: new Map([['h1', { amount: 3, at: new Date(0) }]]), tags: new Set(['a']) };
    h.advance(12.345);

    // --- save, load into a new store
    const file = join(dir, 'state.json');
    const saved = saveStateFile(file, h.mock.services.store, h.clock);
    expect(saved.accounts).toBe(2);
    const snapshot = loadStateFile(file)!;
    const store = new Store();
    const resumed = restoreState(store, snapshot);
    expect(resumed).toEqual({ epochMs: h.clock.now(), mode: 'manual', accountOffsetsMs: {} });

    // --- every collection, in order
    const original = h.mock.services.store;
    expect([...store.accounts.keys()]).toEqual([...original.accounts.keys()]);
    for (const [id, before] of original.accounts) {
      const after = store.accounts.get(id)!;
      expect(after).toStrictEqual(before);
      for (const [field, value] of Object.entries(before)) {
        const restored = (after as unknown as Record<string, unknown>)[field];
        if (value instanceof Collection) expect((restored as Collection<unknown>).ids(), field).toEqual(value.ids());
        if (value instanceof Map) expect([...(restored as Map<unknown, unknown>).keys()], field).toEqual([...value.keys()]);
      }
      // events recorded by one call share their actor object, and still do
      const [e1, e2] = after.events;
      if (before.events[0]?.actor === before.events[1]?.actor) expect(e1?.actor).toBe(e2?.actor);
    }
    expect([...store.keysByHash.keys()].sort()).toEqual([...original.keysByHash.keys()].sort());
    for (const record of store.keysByHash.values()) expect(store.accounts.get(record.accountId)!.keys.get(record.keyId)).toBe(record);
    expect(store.global).toEqual(original.global);
    expect(store.limitOverrides).toEqual({ 'ip:writes': 500 });
    expect(store.webhooks).toEqual({ processingDelaySeconds: 45 });
    expect([...store.accounts.get(a.accountId)!.webhooks.endpoints.keys()]).toEqual([hook.body.endpointId]);
    expect(serializeState(store, new Clock({ mode: 'manual', start: resumed.epochMs }))).toBe(readFileSync(file, 'utf8'));
    expect(store.nextAccountNumber()).toBe(original.nextAccountNumber());
    // Only the keys the mock minted itself are kept in full (D133); any other key only as its hash.
    const minted = new Set([...original.accounts.values()].flatMap((account) => Object.values((account as { mintedKeys?: Record<string, string> }).mintedKeys ?? {})));
    const inFile = readFileSync(file, 'utf8').match(/cgs_[0-9a-f]{64}/g) ?? [];
    expect(inFile.filter((key) => !minted.has(key))).toEqual([]);

    // --- a mock on the restored store answers byte-for-byte what the original answers
    const clock = new Clock({ mode: 'manual', start: resumed.epochMs });
    const copy = buildMock({ store, clock, logError: (error) => { throw error; } });
    await copy.app.ready();
    try {
      const get = async (mock: typeof copy, url: string, key?: string) => {
        const res = await mock.inject({ method: 'GET', url, ...(key ? { headers: { authorization: `Bearer ${key}` } } : {}) });
        return { status: res.statusCode, etag: res.headers.etag, body: res.payload };
      };
      for (const [url, key] of [
        ['/api/public/v1/products?limit=7', a.key('read')],
        ['/api/public/v1/creatives/crt_round1', a.key('read')],
        ['/api/public/v1/creatives/crt_round2', a.key('read')],
        ['/api/public/v1/creatives?limit=5', a.key('read')],
        ['/api/public/v1/campaigns?showDeleted=true', a.key('read')],
        ['/api/public/v1/products', b.key('all')], // suspended: 401 in both
        [`/__mock/accounts/${a.accountId}`, undefined],
        [`/__mock/accounts/${b.accountId}`, undefined],
        [`/__mock/accounts/${a.accountId}/events`, undefined],
        [`/__mock/accounts/${a.accountId}/webhook-endpoints`, undefined],
        [`/__mock/accounts/${a.accountId}/webhook-deliveries`, undefined],
        [`/__mock/accounts/${a.accountId}/webhook-settings`, undefined],
        ['/__mock/webhook-settings', undefined],
        ['/__mock/limits', undefined],
        ['/__mock/clock', undefined],
      ] as const) {
        const [x, y] = [await get(h.mock, url, key), await get(copy, url, key)];
        expect(y.status, url).toBe(x.status);
        expect(y.etag, url).toBe(x.etag);
        if (x.status < 400) expect(y.body, url).toBe(x.body);
      }
      // the idempotency record replays in the restored mock
      const replay = await copy.inject({ method: 'POST', url: '/api/public/v1/creatives/crt_round1/approve', headers: { authorization: `Bearer ${a.key('creatives:review')}`, 'idempotency-key': 'approve-1' } });
      expect(replay.statusCode).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.payload).toBe(approve.text);
      // revoked and expired keys stay refused
      expect((await get(copy, '/api/public/v1/presets', a.key('runs:read'))).status).toBe(401);
    } finally {
      await copy.app.close();
    }
  });

  it('a file from before a field existed loads with that field\'s default', async () => {
    const a = await h.account({ empty: true });
    const text = serializeState(h.mock.services.store, h.clock);
    const snapshot = parseSnapshot(text);
    // drop `settings` and one fault from the saved account, as an older mock would have written it
    const accounts = (snapshot.store as { accounts: { v: [string, Record<string, any>][] } }).accounts.v;
    delete accounts[0]![1].settings;
    delete accounts[0]![1].faults.slowWritesMs;
    delete accounts[0]![1].webhooks;
    delete (snapshot.store as Record<string, unknown>).webhooks;
    const store = new Store();
    restoreState(store, snapshot);
    expect(store.accounts.get(a.accountId)!.webhooks).toEqual(newAccountWebhooks());
    expect(store.webhooks).toEqual({ processingDelaySeconds: null });
    expect(store.accounts.get(a.accountId)!.settings).toEqual({ sparsePages: false });
    expect(store.accounts.get(a.accountId)!.faults.slowWritesMs).toBe(0);
  });
});

describe('npm start -- --state FILE', () => {

  interface Running {
    origin: string;
    output: () => string;
    stop: (signal: NodeJS.Signals) => Promise<number | null>;
    startedInMs: number;
  }

  function withoutHostAndPort(): NodeJS.ProcessEnv {
    const { PORT: _port, HOST: _host, ...env } = process.env;
    return env;
  }

  function startMock(args: string[]): Promise<Running> {
    const began = performance.now();
    // node itself, not the tsx wrapper: under load the wrapper sometimes answers SIGINT with 130
    // before the mock's handler has saved and exited (a clean clone's .ci/run failed on it once).
    const child = spawn(process.execPath, ['--import', 'tsx', 'packages/mock/src/node/main.ts', '--port', '0', '--clock', 'manual', ...args], { cwd: process.cwd(), env: withoutHostAndPort(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the mock did not start:\n${out}`));
      }, 30_000);
      child.stdout.on('data', () => {
        const match = /listening on (http:\/\/[^/]+)\/api\/public\/v1/.exec(out);
        if (match && out.includes('Control plane:')) {
          clearTimeout(timer);
          resolve({
            origin: match[1]!,
            output: () => out,
            startedInMs: performance.now() - began,
            stop: (signal) => {
              child.kill(signal);
              return exited;
            },
          });
        }
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`the mock exited with ${code}:\n${out}`));
      });
    });
  }

  it('saves on SIGTERM and loads on the next start: accounts, keys and the clock', async () => {
    const file = join(dir, 'mock-state.json');
    const first = await startMock(['--state', file, '--seed', '5']);
    expect(first.output()).toContain(`State file ${file} created`);
    const created = (await (await fetch(`${first.origin}/__mock/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Kept', empty: true }) })).json()) as { accountId: string };
    await fetch(`${first.origin}/__mock/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceSeconds: 3600 }) });
    const demoKeys = first.output().split('\n').filter((l) => /^\s+\S+\s+cgs_/.test(l));
    expect(demoKeys).toHaveLength(8);
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(first.output()).toContain('State saved to');
    expect(existsSync(file)).toBe(true);

    const second = await startMock(['--state', file]);
    try {
      expect(second.output()).toContain('State loaded from');
      // the same demo keys (the saved demo account's seed), and they work
      expect(second.output().split('\n').filter((l) => /^\s+\S+\s+cgs_/.test(l))).toEqual(demoKeys);
      const readKey = demoKeys[0]!.trim().split(/\s+/)[1]!;
      expect((await fetch(`${second.origin}/api/public/v1/products`, { headers: { authorization: `Bearer ${readKey}` } })).status).toBe(200);
      const account = (await (await fetch(`${second.origin}/__mock/accounts/${created.accountId}`)).json()) as { name: string };
      expect(account.name).toBe('Kept');
      const clock = (await (await fetch(`${second.origin}/__mock/clock`)).json()) as { now: string };
      expect(clock.now).toBe('2026-01-01T01:00:00.000Z');
      // POST /__mock/state/save writes while running
      const saved = await fetch(`${second.origin}/__mock/state/save`, { method: 'POST' });
      expect(saved.status).toBe(200);
      expect(((await saved.json()) as { accounts: number }).accounts).toBe(2);
    } finally {
      expect(await second.stop('SIGINT')).toBe(0);
    }
  });

  it('saves on SIGHUP (a closed terminal) and exits 0', async () => {
    const file = join(dir, 'hup.json');
    const mock = await startMock(['--state', file]);
    const created = (await (await fetch(`${mock.origin}/__mock/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Hung up', empty: true }) })).json()) as { accountId: string };
    expect(await mock.stop('SIGHUP')).toBe(0);
    expect(mock.output()).toContain('State saved to');
    // saved into the state file itself (compacted), the journal started afresh
    expect(readFileSync(file, 'utf8')).toContain(created.accountId);
    expect(readFileSync(`${file}.journal`, 'utf8')).toBe('');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('ends promptly on SIGTERM although a request is still waiting (a lease held by another runner)', async () => {
    const file = join(dir, 'prompt.json');
    const mock = await startMock(['--state', file]);
    const held = await fetch(`${mock.origin}/__mock/leases`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'exclusive' }) });
    expect(held.status).toBeLessThan(300);
    const { hostname, port } = new URL(mock.origin);
    const socket = connect({ host: hostname, port: Number(port) });
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // a second exclusive lease waits up to 60 s for the first: a request in flight the whole time
    const body = JSON.stringify({ mode: 'exclusive', waitSeconds: 60 });
    socket.write(`POST /__mock/leases HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
    for (let i = 0; i < 100 && !/"waiting"\s*:\s*\[\s*\{/.test(await (await fetch(`${mock.origin}/__mock/leases`)).text()); i++) await new Promise((resolve) => setImmediate(resolve));
    try {
      expect(await mock.stop('SIGTERM')).toBe(0);
      expect(mock.output()).toContain('State saved to');
      // it exited before the waiting request was answered (its 409 would come after 60 s)
      expect(answer).not.toContain('HTTP/1.1');
    } finally {
      socket.destroy();
    }
  });

  it('keeps every acknowledged write through kill -9, and refuses a second mock on the same file meanwhile', async () => {
    const file = join(dir, 'killed.json');
    const first = await startMock(['--state', file]);
    const created = (await (await fetch(`${first.origin}/__mock/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Acknowledged', empty: true }) })).json()) as { accountId: string };
    await expect(startMock(['--state', file])).rejects.toThrow(/exited with 1[\s\S]*is in use by process \d+/);
    expect(await first.stop('SIGKILL')).toBe(null);
    const second = await startMock(['--state', file]);
    try {
      expect(second.output()).toMatch(/taking over the lock .*: process \d+ is gone/);
      expect((await fetch(`${second.origin}/__mock/accounts/${created.accountId}`)).status).toBe(200);
    } finally {
      expect(await second.stop('SIGTERM')).toBe(0);
    }
  });

  it('refuses to start on a state file it cannot read, leaving it untouched', async () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{ not json');
    await expect(startMock(['--state', file])).rejects.toThrow(/exited with 1[\s\S]*cannot load --state/);
    expect(readFileSync(file, 'utf8')).toBe('{ not json');
  });

  it('refuses bad flags with exit code 2', async () => {
    await expect(startMock(['--clock', 'fast'])).rejects.toThrow(/exited with 2[\s\S]*--clock is real or manual/);
    await expect(startMock(['--defect', 'Bad Name'])).rejects.toThrow(/exited with 2[\s\S]*defect name/);
    await expect(startMock(['--bogus'])).rejects.toThrow(/exited with 2/);
  });
});
