/**
 * The durable side of `--state FILE` (D248-D250): the lock (`FILE.lock`), the append-only journal
 * (`FILE.journal`: one line of JSON per record, a whole account, an account removed, or the Store's
 * other fields with the clock), its replay over the state file (a torn last record dropped), the
 * group commit that holds the answer to a write until its record is fdatasynced (`settle`), and the
 * compaction of both into the state file. Which accounts a commit writes, when it compacts, and
 * how the files are made: docs/internals.md, "packages/mock/src/node/state-journal.ts".
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fchmodSync, fdatasync, fsyncSync, openSync, readFileSync, readSync, fstatSync, renameSync, rmSync, unlinkSync, write, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { realInterval, type Clock } from '../../../mock-core/src/core/clock.ts';
import { Collection } from '../../../mock-core/src/core/collection.ts';
import type { AccountState, Store } from '../../../mock-core/src/domain/store.ts';
import type { MockServices, WriteBarrier } from '../../../mock-core/src/services/services.ts';
import { decode, decodeSnapshot, encode, globalFields, loadStateFile, NOFOLLOW, PersistenceError, randomTemporary, saveStateFile, syncDirectory, type DecodedState } from './persistence.ts';

export const journalPath = (statePath: string): string => `${statePath}.journal`;
export const lockPath = (statePath: string): string => `${statePath}.lock`;

/** The journal's size past which it is compacted into the state file (documented in docs/mock.md). */
export const COMPACT_AT_BYTES = 64 * 1024 * 1024;
/** Real milliseconds between two looks for changes no request made (time moving runs and deliveries). */
export const TICK_MS = 1_000;

export type JournalRecord =
  | { k: 'a'; id: string; v: unknown }
  | { k: 'd'; id: string }
  | { k: 'g'; v: unknown; clock: DecodedState['clock'] };

// ---------------------------------------------------------------------------------------------
// The lock

export class StateLockedError extends Error {}

/** process `pid` is alive (EPERM: alive, another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `FILE.lock` (created with O_EXCL, holding this pid, 0600). A lock held by a live process
 * refuses the start (StateLockedError); one left by a dead process is taken over, and `note` says so.
 * Returns what releases it.
 */
export function acquireStateLock(statePath: string, note: (line: string) => void = console.warn): () => void {
  const path = lockPath(statePath);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | NOFOLLOW, 0o600);
      writeSync(fd, `${process.pid}\n`);
      fsyncSync(fd);
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder = Number.NaN;
    try {
      holder = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // released meanwhile
      throw error;
    }
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
      throw new StateLockedError(`${statePath} is in use by process ${holder} (lock file ${path}); stop that mock first, or give this one another --state file`);
    }
    note(`mock: taking over the lock of ${statePath}: ${Number.isInteger(holder) ? `process ${holder} is gone` : 'it names no process'} (${path})`);
    rmSync(path, { force: true });
  }
  throw new StateLockedError(`cannot take the lock file ${path}`);
}

// ---------------------------------------------------------------------------------------------
// Reading and replay

export interface JournalRead {
  records: JournalRecord[];
  /** Bytes of an incomplete last record (a crash mid-append), dropped. */
  tornBytes: number;
}

function isRecordLine(value: unknown): value is JournalRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  if (r.k === 'a') return typeof r.id === 'string' && 'v' in r;
  if (r.k === 'd') return typeof r.id === 'string';
  if (r.k === 'g') return 'v' in r && typeof r.clock === 'object' && r.clock !== null;
  return false;
}

/**
 * The records of a journal's text. The last line may be torn (no newline, or not JSON: a crash
 * mid-append): it is dropped and counted. A bad line before the last is damage, not a tear: refused.
 */
export function parseJournal(text: string, source = 'the journal'): JournalRead {
  const records: JournalRecord[] = [];
  let at = 0;
  let line = 0;
  while (at < text.length) {
    const end = text.indexOf('\n', at);
    line += 1;
    if (end === -1) return { records, tornBytes: Buffer.byteLength(text.slice(at)) };
    const body = text.slice(at, end);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
    if (!isRecordLine(parsed)) {
      if (end === text.length - 1) return { records, tornBytes: Buffer.byteLength(body) + 1 };
      throw new PersistenceError(`${source} line ${line} is not a journal record, and it is not the last line (damage, not a crash mid-append)`);
    }
    records.push(parsed);
    at = end + 1;
  }
  return { records, tornBytes: 0 };
}

export function readJournal(path: string): JournalRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], tornBytes: 0 };
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new PersistenceError(`${path} is a symbolic link; the journal is never read or written through one`);
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return parseJournal(buffer.subarray(0, read).toString('utf8'), path);
  } finally {
    closeSync(fd);
  }
}

/** Applies journal records, in order, to decoded state (made empty when there was no state file). */
export function replay(state: DecodedState | undefined, records: readonly JournalRecord[]): DecodedState | undefined {
  if (records.length === 0) return state;
  const out: DecodedState = state ?? { fields: { accounts: new Map() }, clock: { epochMs: 0, mode: 'real', accountOffsetsMs: {} } };
  for (const record of records) {
    if (record.k === 'a') out.fields.accounts.set(record.id, decode(record.v));
    else if (record.k === 'd') out.fields.accounts.delete(record.id);
    else {
      const globals = decode(record.v);
      if (typeof globals !== 'object' || globals === null) throw new PersistenceError('a global record of the journal has no fields');
      const accounts = out.fields.accounts;
      out.fields = { ...(globals as Record<string, unknown>), accounts };
      out.clock = { epochMs: record.clock.epochMs, mode: record.clock.mode, accountOffsetsMs: record.clock.accountOffsetsMs ?? {} };
    }
  }
  return out;
}

export interface DurableLoad {
  state: DecodedState | undefined;
  /** Records replayed from the journal. */
  replayed: number;
  tornBytes: number;
}

/** The state file, decoded, with the journal replayed over it. */
export function loadDurableState(statePath: string): DurableLoad {
  const snapshot = loadStateFile(statePath);
  const base = snapshot ? decodeSnapshot(snapshot) : undefined;
  const { records, tornBytes } = readJournal(journalPath(statePath));
  return { state: replay(base, records), replayed: records.length, tornBytes };
}

// ---------------------------------------------------------------------------------------------
// Writing

/** A cheap look at an account's shape: what time changes (collection versions, sizes, lengths). */
export function shapeOf(account: AccountState): string {
  const parts: unknown[] = [];
  for (const value of Object.values(account)) {
    if (value instanceof Collection) parts.push(value.version);
    else if (value instanceof Map) {
      let stamp = value.size;
      for (const inner of value.values()) if (inner instanceof Collection) stamp += inner.version;
      parts.push(stamp);
    } else if (value instanceof Set || Array.isArray(value)) parts.push(Array.isArray(value) ? value.length : value.size);
    else if (typeof value !== 'object' || value === null) parts.push(value);
    else {
      // one level into plain objects (credits, webhooks): their collections, maps and lists
      for (const inner of Object.values(value as Record<string, unknown>)) {
        if (inner instanceof Collection) parts.push(inner.version);
        else if (inner instanceof Map || inner instanceof Set) parts.push(inner.size);
        else if (Array.isArray(inner)) parts.push(inner.length);
        else if (typeof inner !== 'object' || inner === null) parts.push(inner);
      }
    }
  }
  return parts.join(',');
}

interface Seen {
  account: AccountState;
  shape: string;
  /** sha1 of the last record written for it; undefined: in the state file, not yet in the journal. */
  digest: string | undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const isSafeMethod = (method: string | undefined): boolean => SAFE_METHODS.has((method ?? 'GET').toUpperCase());

/** `/__mock/accounts/{id}...` or `/__hooks/accounts/{id}...`: the account a control or hooks request names. */
export function accountOfPath(url: string): string | undefined {
  const match = /^\/__(?:mock|hooks)\/accounts\/([^/?#]+)/.exec(url);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}

function digest(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

export interface StateJournalOptions {
  compactAtBytes?: number;
  logError?: (error: unknown, context: string) => void;
}

export class StateJournal implements WriteBarrier {
  private fd: number | undefined;
  private bytes = 0;
  private readonly named = new Set<string>();
  private seen = new Map<string, Seen>();
  private lastGlobal = '';
  /** Answers waiting for the next commit. */
  private waiting: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  private inFlight = false;
  private scheduled = false;
  /** The journal file's generation: a commit in flight on an older one only settles its waiters. */
  private generation = 0;
  private stopTick: (() => void) | undefined;
  private closed = false;
  private readonly unhooks: Array<() => void> = [];
  readonly compactAtBytes: number;
  /** Commits and records written (the bench and the tests read them). */
  readonly counts = { commits: 0, records: 0, compactions: 0 };

  constructor(
    readonly statePath: string,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly options: StateJournalOptions = {},
  ) {
    this.compactAtBytes = options.compactAtBytes ?? COMPACT_AT_BYTES;
  }

  /** Listens to the services' seams and looks for changes no request made every TICK_MS. */
  watch(services: Pick<MockServices, 'journal' | 'events' | 'webhooks'>): void {
    this.unhooks.push(
      services.journal.onRecord((account, record) => {
        if (!isSafeMethod(record.request.method)) this.named.add(account.accountId);
      }),
      services.events.onEvent((account) => this.touch(account.accountId)),
      services.webhooks.onAttempt((account) => this.touch(account.accountId)),
    );
    this.stopTick = realInterval(TICK_MS, () => this.schedule());
  }

  /** A change no answer waits for: committed soon. */
  private touch(accountId: string): void {
    this.named.add(accountId);
    this.schedule();
  }

  /**
   * The barrier of an answer to a write: resolves once every change made before the call is on
   * disk. `accountId`: the account the request named (a control-plane path).
   */
  settle(accountId?: string): Promise<void> {
    if (accountId !== undefined) this.named.add(accountId);
    // Closed (the process is exiting after its last save): a write made since is not on disk, so
    // its answer never leaves.
    if (this.closed) return new Promise<void>(() => undefined);
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once everything changed so far is on disk (start-up: the demo account, a scenario). */
  flush(): Promise<void> {
    return this.settle();
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight || this.closed) return;
    this.scheduled = true;
    // After this turn's I/O: the requests read in the same turn join the commit.
    setImmediate(() => {
      this.scheduled = false;
      this.commit();
    });
  }

  /** The records of every change since the last commit (and the bookkeeping as if written). */
  collect(): string[] {
    const lines: string[] = [];
    const { accounts } = this.store;
    for (const [id, account] of accounts) {
      const before = this.seen.get(id);
      const shape = shapeOf(account);
      if (before && before.account === account && before.shape === shape && !this.named.has(id)) continue;
      const text = JSON.stringify({ k: 'a', id, v: encode(account) });
      const sum = digest(text);
      if (before && before.account === account && before.digest === sum) {
        before.shape = shape;
        continue;
      }
      this.seen.set(id, { account, shape, digest: sum });
      lines.push(text);
    }
    for (const id of [...this.seen.keys()]) {
      if (accounts.has(id)) continue;
      this.seen.delete(id);
      lines.push(JSON.stringify({ k: 'd', id }));
    }
    this.named.clear();
    const global = this.globalRecord();
    if (global.key !== this.lastGlobal) {
      this.lastGlobal = global.key;
      lines.push(global.line);
    }
    return lines;
  }

  private globalRecord(): { key: string; line: string } {
    const v = encode(globalFields(this.store));
    const offsets = this.clock.accountOffsets();
    const mode = this.clock.mode;
    const epochMs = this.clock.now();
    // In real time the reading moves by itself: a new record only when the rest changed.
    const key = JSON.stringify({ v, mode, offsets, at: mode === 'manual' ? epochMs : undefined });
    return { key, line: JSON.stringify({ k: 'g', v, clock: { epochMs, mode, accountOffsetsMs: offsets } }) };
  }

  private commit(): void {
    if (this.inFlight || this.closed) return;
    const waiters = this.waiting;
    this.waiting = [];
    let lines: string[];
    try {
      lines = this.collect();
    } catch (error) {
      this.options.logError?.(error, `journaling --state ${this.statePath}`);
      for (const w of waiters) w.reject(error);
      return;
    }
    if (lines.length === 0 || this.fd === undefined) {
      for (const w of waiters) w.resolve();
      return;
    }
    const fd = this.fd;
    const generation = this.generation;
    const buffer = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
    this.inFlight = true;
    const done = (error: unknown) => {
      this.inFlight = false;
      if (generation !== this.generation) {
        // compacted meanwhile: the state file holds these changes; the old journal's fd is ours to close
        closeQuietly(fd);
        for (const w of waiters) w.resolve();
      } else if (error) {
        this.options.logError?.(error, `writing the journal of --state ${this.statePath}`);
        // what these records held is not known to be on disk: the next commit writes every account again
        this.seen.clear();
        this.lastGlobal = '';
        for (const w of waiters) w.reject(error);
      } else {
        this.bytes += buffer.length;
        this.counts.commits += 1;
        this.counts.records += lines.length;
        for (const w of waiters) w.resolve();
        if (this.bytes >= this.compactAtBytes) {
          try {
            this.compact();
          } catch (failure) {
            this.options.logError?.(failure, `compacting --state ${this.statePath}`);
          }
        }
      }
      if (this.waiting.length > 0 || this.named.size > 0) this.schedule();
    };
    writeAll(fd, buffer, 0, (error) => {
      if (error) return done(error);
      fdatasync(fd, done);
    });
  }

  /**
   * Writes the whole state into the state file (atomically, 0600) and starts an empty journal.
   * Synchronous: the signal handler and `POST /__mock/state/save` call it. The answers waiting for
   * the next commit are settled by it.
   */
  compact(): { path: string; bytes: number; accounts: number; clock: string } {
    const saved = saveStateFile(this.statePath, this.store, this.clock);
    const fresh = createJournal(journalPath(this.statePath));
    const old = this.fd;
    this.fd = fresh;
    this.bytes = 0;
    this.generation += 1;
    // A commit in flight still writes to the old file (now unlinked): it closes that fd when done.
    if (old !== undefined && !this.inFlight) closeQuietly(old);
    this.counts.compactions += 1;
    // Everything is in the state file now: the next records are what changes from here.
    this.seen = new Map([...this.store.accounts].map(([id, account]) => [id, { account, shape: shapeOf(account), digest: undefined }]));
    this.named.clear();
    this.lastGlobal = this.globalRecord().key;
    const waiters = this.waiting;
    this.waiting = [];
    for (const w of waiters) w.resolve();
    return saved;
  }

  /** Compacts (unless `save` is false) and stops: answers after this do not wait. */
  close(save = true): ReturnType<StateJournal['compact']> | undefined {
    if (this.closed) return undefined;
    const saved = save ? this.compact() : undefined;
    this.closed = true;
    this.stopTick?.();
    for (const off of this.unhooks) off();
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) {
      // A commit still on disk on this very fd (no compaction since) closes it when done.
      if (this.inFlight && !save) this.generation += 1;
      else closeQuietly(fd);
    }
    return saved;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

function writeAll(fd: number, buffer: Buffer, offset: number, done: (error: NodeJS.ErrnoException | null) => void): void {
  write(fd, buffer, offset, buffer.length - offset, null, (error, written) => {
    if (error) return done(error);
    if (offset + written < buffer.length) return writeAll(fd, buffer, offset + written, done);
    done(null);
  });
}

/**
 * An empty journal at `path`, made like the state file: exclusively under a random name, 0600,
 * fsynced, renamed into place (replacing the old one, never following a symlink), the directory
 * fsynced. Returns its fd, open for appending.
 */
export function createJournal(path: string): number {
  const directory = dirname(path);
  const temporary = randomTemporary(path);
  const fd = openSync(temporary, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_APPEND | NOFOLLOW, 0o600);
  try {
    fchmodSync(fd, 0o600);
    fsyncSync(fd);
    renameSync(temporary, path);
  } catch (error) {
    closeQuietly(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  syncDirectory(directory);
  return fd;
}

/** For tests and tools: the records of a journal file. */
export function journalRecords(statePath: string): JournalRecord[] {
  return readJournal(journalPath(statePath)).records;
}
