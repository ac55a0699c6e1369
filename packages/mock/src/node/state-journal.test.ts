/**
 * The `--state` journal (D248-D250): an answer to a write leaves only once its record is on disk,
 * group commit, replay (a torn last record dropped), compaction, the lock, and files made 0600,
 * exclusively, never through a symlink.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildMock, type Mock } from './app.ts';
import { Clock } from '../../../mock-core/src/core/clock.ts';
import { Store } from '../../../mock-core/src/domain/store.ts';
import { randomTemporary, restoreDecoded, saveStateFile, serializeState, writeFileAtomic } from './persistence.ts';
import { acquireStateLock, createJournal, journalPath, loadDurableState, lockPath, parseJournal, readJournal, StateJournal, StateLockedError } from './state-journal.ts';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cgs-journal-'));
  file = join(dir, 'state.json');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Durable {
  mock: Mock;
  journal: StateJournal;
  clock: Clock;
  post(url: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; json: Record<string, any> }>;
  close(): Promise<void>;
}

/** The mock as serve.ts sets it up with `--state`: compacted once, then journaling. */
function durableMock(compactAtBytes?: number): Durable {
  const clock = new Clock({ mode: 'manual' });
  const mock = buildMock({ clock });
  const journal = new StateJournal(file, mock.services.store, clock, compactAtBytes !== undefined ? { compactAtBytes } : {});
  journal.compact();
  journal.watch(mock.services);
  mock.services.durability = journal;
  const send = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const answer = await mock.inject({ method: method as 'POST', url, headers: { 'content-type': 'application/json', ...headers }, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) });
    return { status: answer.statusCode, json: answer.body ? (JSON.parse(answer.body) as Record<string, any>) : {} };
  };
  return {
    mock,
    journal,
    clock,
    post: (url, body, headers) => send('POST', url, body, headers),
    close: async () => {
      journal.close(false);
      await mock.app.close();
    },
  };
}

/** The state as the next start would load it (the state file and the journal replayed), serialized. */
function reloaded(): string {
  const loaded = loadDurableState(file).state!;
  const store = new Store();
  const reading = restoreDecoded(store, loaded);
  const clock = new Clock({ mode: 'manual', start: reading.epochMs });
  clock.restoreAccountOffsets(reading.accountOffsetsMs);
  return serializeState(store, clock);
}

const journalText = () => readFileSync(journalPath(file), 'utf8');

/** Writes of several kinds: accounts, a reset, an API write, settings, a clock advance. */
async function writeSome(d: Durable): Promise<{ accountId: string; campaignId: string; removed: string }> {
  // an account made, then removed by a reset
  const removed = (await d.post('/__mock/accounts', { name: 'Removed', empty: true })).json.accountId as string;
  expect(journalText() + readFileSync(file, 'utf8')).toContain(removed); // on disk (journal, or state file once compacted)
  expect((await d.post('/__mock/reset')).status).toBeLessThan(300);
  const made = await d.post('/__mock/accounts', { name: 'Kept' });
  expect(made.status).toBe(201);
  const key = made.json.keys.all.key as string;
  const products = await d.mock.inject({ method: 'GET', url: '/api/public/v1/products?limit=5', headers: { authorization: `Bearer ${key}` } });
  const product = (JSON.parse(products.body) as { data: Array<{ productId: string; brandId: string }> }).data[0]!;
  const campaign = await d.post('/api/public/v1/campaigns', { name: 'Journaled', brandId: product.brandId, productIds: [product.productId] }, { authorization: `Bearer ${key}`, 'idempotency-key': 'one' });
  expect(campaign.status).toBe(201);
  const settings = await d.mock.inject({ method: 'PATCH', url: `/__mock/accounts/${made.json.accountId as string}/settings`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ sparsePages: true }) });
  expect(settings.statusCode).toBe(200);
  expect((await d.post('/__mock/clock', { advanceSeconds: 90 })).status).toBe(200);
  return { accountId: made.json.accountId as string, campaignId: campaign.json.campaignId as string, removed };
}

describe('the journal', () => {
  it('an answer to a write leaves only once its record is in the journal (control plane and API)', async () => {
    const d = durableMock();
    try {
      const made = await d.post('/__mock/accounts', { name: 'Durable' });
      expect(journalText()).toContain(`"id":"${made.json.accountId as string}"`);
      const key = made.json.keys.all.key as string;
      const products = await d.mock.inject({ method: 'GET', url: '/api/public/v1/products?limit=1', headers: { authorization: `Bearer ${key}` } });
      const product = (JSON.parse(products.body) as { data: Array<{ productId: string; brandId: string }> }).data[0]!;
      const campaign = await d.post('/api/public/v1/campaigns', { name: 'On disk', brandId: product.brandId, productIds: [product.productId] }, { authorization: `Bearer ${key}`, 'idempotency-key': 'k1' });
      expect(campaign.status).toBe(201);
      expect(journalText()).toContain(campaign.json.campaignId as string);
    } finally {
      await d.close();
    }
  });

  it('a journal that cannot be written answers 503 problem+json, not a 500 (API and control plane)', async () => {
    const d = durableMock();
    try {
      const made = await d.post('/__mock/accounts', { name: 'Full disk' });
      const key = made.json.keys.all.key as string;
      const products = await d.mock.inject({ method: 'GET', url: '/api/public/v1/products?limit=1', headers: { authorization: `Bearer ${key}` } });
      const product = (JSON.parse(products.body) as { data: Array<{ productId: string; brandId: string }> }).data[0]!;
      d.journal.settle = () => Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
      const answers = [
        await d.mock.inject({ method: 'POST', url: '/api/public/v1/campaigns', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'idempotency-key': 'full' }, payload: JSON.stringify({ name: 'Unwritten', brandId: product.brandId, productIds: [product.productId] }) }),
        await d.mock.inject({ method: 'POST', url: '/__mock/accounts', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'Unwritten' }) }),
      ];
      for (const answer of answers) {
        expect(answer.statusCode).toBe(503);
        expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(answer.headers['retry-after']).toBe('5');
        expect((JSON.parse(answer.body) as { code: string }).code).toBe('SERVICE_UNAVAILABLE');
      }
    } finally {
      await d.close();
    }
  });

  it('holds the answer to a write until the journal settles (control plane and API)', async () => {
    const d = durableMock();
    try {
      const made = await d.post('/__mock/accounts', { name: 'Held' });
      const key = made.json.keys.all.key as string;
      const products = await d.mock.inject({ method: 'GET', url: '/api/public/v1/products?limit=1', headers: { authorization: `Bearer ${key}` } });
      const product = (JSON.parse(products.body) as { data: Array<{ productId: string; brandId: string }> }).data[0]!;
      // the journal's disk made slow at will: settle resolves only once the gate opens
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const settle = d.journal.settle.bind(d.journal);
      d.journal.settle = (accountId?: string) => settle(accountId).then(() => gate);
      const answered: string[] = [];
      const writes = [
        d.post('/__mock/accounts', { name: 'Waiting', empty: true }).then((a) => answered.push(`control ${a.status}`)),
        d.post('/api/public/v1/campaigns', { name: 'Waiting', brandId: product.brandId, productIds: [product.productId] }, { authorization: `Bearer ${key}`, 'idempotency-key': 'held' }).then((a) => answered.push(`api ${a.status}`)),
      ];
      for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(answered).toEqual([]);
      open();
      await Promise.all(writes);
      expect(answered.sort()).toEqual(['api 201', 'control 201']);
    } finally {
      await d.close();
    }
  });

  it('settles only once the records are written', async () => {
    const d = durableMock();
    try {
      const made = await d.post('/__mock/accounts', { name: 'Direct', empty: true });
      d.mock.services.store.accounts.get(made.json.accountId as string)!.name = 'Renamed in place';
      await d.journal.settle(made.json.accountId as string);
      expect(journalText()).toContain('Renamed in place');
    } finally {
      await d.close();
    }
  });

  it('reads never wait for the journal; writes do', async () => {
    const d = durableMock();
    try {
      const made = await d.post('/__mock/accounts', { name: 'Reader' });
      const settle = vi.spyOn(d.journal, 'settle');
      await d.mock.inject({ method: 'GET', url: '/__mock/accounts' });
      await d.mock.inject({ method: 'GET', url: '/api/public/v1/products', headers: { authorization: `Bearer ${made.json.keys.read.key as string}` } });
      expect(settle).not.toHaveBeenCalled();
      await d.post('/__mock/clock', { advanceSeconds: 1 });
      expect(settle).toHaveBeenCalledTimes(1);
    } finally {
      await d.close();
    }
  });

  it('commits the writes of concurrent requests together (group commit)', async () => {
    const d = durableMock();
    try {
      const before = d.journal.counts.commits;
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => d.post('/__mock/accounts', { name: `c${i}`, empty: true })));
      expect(answers.every((a) => a.status === 201)).toBe(true);
      const commits = d.journal.counts.commits - before;
      expect(commits).toBeGreaterThan(0);
      expect(commits).toBeLessThan(20);
      const text = journalText();
      for (const a of answers) expect(text).toContain(`"id":"${a.json.accountId as string}"`);
    } finally {
      await d.close();
    }
  });

  it('replays to exactly the state that was answered: accounts made, changed and removed by a reset, an API write, the clock', async () => {
    const d = durableMock();
    try {
      const { campaignId, removed } = await writeSome(d);
      const expected = serializeState(d.mock.services.store, d.clock);
      expect(readJournal(journalPath(file)).records.length).toBeGreaterThan(0);
      const replayed = reloaded();
      expect(replayed).toBe(expected);
      expect(replayed).toContain(campaignId);
      expect(replayed).not.toContain(`"${removed}"`);
      expect(replayed).toContain('"now": "2026-01-01T00:01:30.000Z"');
    } finally {
      await d.close();
    }
  });

  it('drops a torn last record (a crash mid-append) and keeps everything before it', async () => {
    const d = durableMock();
    try {
      await writeSome(d);
      const expected = serializeState(d.mock.services.store, d.clock);
      const torn = '{"k":"a","id":"acc_torn","v":{"accountId":"acc_t';
      appendFileSync(journalPath(file), torn);
      const load = loadDurableState(file);
      expect(load.tornBytes).toBe(Buffer.byteLength(torn));
      expect(reloaded()).toBe(expected);
    } finally {
      await d.close();
    }
  });

  it.each<[string, string, { records: number; tornBytes: number } | RegExp]>([
    ['complete records', '{"k":"d","id":"a"}\n{"k":"d","id":"b"}\n', { records: 2, tornBytes: 0 }],
    ['an empty journal', '', { records: 0, tornBytes: 0 }],
    ['a last record without its newline', '{"k":"d","id":"a"}\n{"k":"d","id":', { records: 1, tornBytes: 14 }],
    ['a last line that is not a record', '{"k":"d","id":"a"}\n{"k":"d"\n', { records: 1, tornBytes: 9 }],
    ['a bad line before the last (damage, refused)', '{"k":"d","id":"a"}\nnot json\n{"k":"d","id":"b"}\n', /line 2 is not a journal record/],
  ])('parses %s', (_name, text, expected) => {
    if (expected instanceof RegExp) expect(() => parseJournal(text)).toThrow(expected);
    else {
      const read = parseJournal(text);
      expect({ records: read.records.length, tornBytes: read.tornBytes }).toEqual(expected);
    }
  });

  it('compacts into the state file past its bound, and the state still reloads whole', async () => {
    const d = durableMock(1);
    try {
      const compactions = d.journal.counts.compactions;
      await writeSome(d);
      expect(d.journal.counts.compactions).toBeGreaterThan(compactions);
      const expected = serializeState(d.mock.services.store, d.clock);
      expect(reloaded()).toBe(expected);
      // the journal was started afresh at the last compaction: it holds less than one record per write
      expect(readJournal(journalPath(file)).records.length).toBeLessThan(d.journal.counts.records);
    } finally {
      await d.close();
    }
  });
});

describe('the lock', () => {
  it('refuses a second holder while the first is alive, and is gone once released', () => {
    const release = acquireStateLock(file);
    expect(readFileSync(lockPath(file), 'utf8').trim()).toBe(String(process.pid));
    // another live process holds it: this process's parent (a pid that is surely alive and not ours)
    writeFileSync(lockPath(file), `${process.ppid}\n`);
    expect(() => acquireStateLock(file)).toThrow(StateLockedError);
    expect(() => acquireStateLock(file)).toThrow(new RegExp(`in use by process ${process.ppid}`));
    writeFileSync(lockPath(file), `${process.pid}\n`);
    release();
    expect(existsSync(lockPath(file))).toBe(false);
  });

  it('takes over a lock left by a dead process, with a note', () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    writeFileSync(lockPath(file), `${dead}\n`);
    const notes: string[] = [];
    const release = acquireStateLock(file, (line) => notes.push(line));
    expect(notes).toEqual([expect.stringContaining(`process ${dead} is gone`)]);
    expect(readFileSync(lockPath(file), 'utf8').trim()).toBe(String(process.pid));
    release();
  });
});

describe('the files', () => {
  const mode = (path: string) => statSync(path).mode & 0o777;

  it('writes the state file 0600, even over a wider file', async () => {
    writeFileSync(file, 'old', { mode: 0o644 });
    saveStateFile(file, new Store(), new Clock({ mode: 'manual' }));
    expect(mode(file)).toBe(0o600);
    createJournal(journalPath(file));
    expect(mode(journalPath(file))).toBe(0o600);
  });

  it('refuses a symlink planted at the temporary name; the file it points to is untouched', () => {
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious', { mode: 0o644 });
    const planted = join(dir, 'planted.tmp');
    symlinkSync(victim, planted);
    expect(() => writeFileAtomic(file, 'secret keys', () => planted)).toThrow(/EEXIST/);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(mode(victim)).toBe(0o644);
    expect(existsSync(file)).toBe(false);
  });

  it('never writes through a symlink at the state file or the journal: the link is replaced, its target untouched', () => {
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious');
    symlinkSync(victim, file);
    symlinkSync(victim, journalPath(file));
    expect(() => readJournal(journalPath(file))).toThrow(/symbolic link/);
    saveStateFile(file, new Store(), new Clock({ mode: 'manual' }));
    createJournal(journalPath(file));
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(lstatSync(journalPath(file)).isSymbolicLink()).toBe(false);
    expect(mode(file)).toBe(0o600);
  });

  it('names its temporary files unpredictably (never <file>.<pid>.tmp), beside the file', () => {
    const names = Array.from({ length: 5 }, () => randomTemporary(file));
    expect(new Set(names).size).toBe(5);
    for (const name of names) {
      expect(name).toMatch(new RegExp(`^${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.state\\.json\\.[0-9a-f]{24}\\.tmp$`));
      expect(name).not.toContain(String(process.pid));
    }
  });
});
