/**
 * The `--state FILE` snapshot: the whole Store to JSON and back, exactly.
 * How it works and what it decides: docs/internals.md, "packages/mock/src/node/persistence.ts".
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { clockReadingProblem, type Clock, type ClockMode } from '../../../mock-core/src/core/clock.ts';
import { Collection } from '../../../mock-core/src/core/collection.ts';
import { newAccountState, type AccountState, type Store } from '../../../mock-core/src/domain/store.ts';

export const STATE_FORMAT = 'cgs-mock-state';
export const STATE_VERSION = 1;

export class PersistenceError extends Error {}

export interface StateSnapshot {
  format: typeof STATE_FORMAT;
  version: number;
  /** The clock's reading when saved (ISO for people, epoch ms for the load) and its mode. */
  clock: { now: string; epochMs: number; mode: ClockMode; accountOffsetsMs?: Record<string, number> };
  /** The Store's fields, encoded. */
  store: unknown;
}

// ---------------------------------------------------------------------------------------------
// Generic encoding

type Container = object;

function isPlain(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isValueObject(value: object): boolean {
  return value instanceof Date || value instanceof Uint8Array;
}

function children(value: Container): Iterable<unknown> {
  if (value instanceof Collection) return value.values();
  if (value instanceof Map) return [...value.keys(), ...value.values()];
  if (value instanceof Set || Array.isArray(value)) return value;
  if (isPlain(value)) return Object.values(value);
  return [];
}

function specialNumber(value: number): string | undefined {
  if (Object.is(value, -0)) return '-0';
  return Number.isFinite(value) ? undefined : String(value);
}

/** Encode any value of the state into JSON-safe data (see the module comment for the tags). */
export function encode(root: unknown): unknown {
  // Pass 1: how often each container is reached, to give shared ones an id.
  const reached = new Map<Container, number>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null || isValueObject(value)) continue;
    const n = reached.get(value) ?? 0;
    reached.set(value, n + 1);
    if (n === 0) for (const child of children(value)) stack.push(child);
  }

  const ids = new Map<Container, number>();
  let nextId = 1;
  const enc = (value: unknown, path: string): unknown => {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number': {
        const special = specialNumber(value);
        return special === undefined ? value : { $t: 'Number', v: special };
      }
      case 'undefined':
        return { $t: 'Undefined' };
      case 'bigint':
        return { $t: 'BigInt', v: value.toString() };
      case 'function':
      case 'symbol':
        throw new PersistenceError(`cannot save a ${typeof value} at ${path}`);
    }
    if (value === null) return null;
    const object = value as object;
    if (object instanceof Date) return { $t: 'Date', v: enc(object.getTime(), path) };
    if (object instanceof Uint8Array) return { $t: Buffer.isBuffer(object) ? 'Buffer' : 'Uint8Array', v: Buffer.from(object.buffer, object.byteOffset, object.byteLength).toString('base64') };
    const known = ids.get(object);
    if (known !== undefined) return { $t: 'Ref', id: known };
    let id: number | undefined;
    if ((reached.get(object) ?? 0) > 1) {
      id = nextId++;
      ids.set(object, id);
    }
    const tag = (name: string, v: unknown, extra: Record<string, unknown> = {}) => ({ $t: name, ...(id !== undefined ? { $id: id } : {}), ...extra, v });
    if (object instanceof Collection) return tag('Collection', object.ids().map((k) => [k, enc(object.get(k), `${path}[${JSON.stringify(k)}]`)]));
    if (object instanceof Map) return tag('Map', [...object].map(([k, v], i) => [enc(k, `${path}.<key ${i}>`), enc(v, `${path}[${JSON.stringify(String(k))}]`)]));
    if (object instanceof Set) return tag('Set', [...object].map((v, i) => enc(v, `${path}.<item ${i}>`)));
    if (Array.isArray(object)) {
      const items: unknown[] = [];
      for (let i = 0; i < object.length; i++) items.push(enc(object[i], `${path}[${i}]`));
      return id === undefined ? items : tag('Array', items);
    }
    if (isPlain(object)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(object)) define(out, k, enc(v, `${path}.${k}`));
      const nullProto = Object.getPrototypeOf(object) === null;
      return id === undefined && !nullProto && !Object.hasOwn(object, '$t') ? out : tag('Object', out, nullProto ? { np: true } : {});
    }
    throw new PersistenceError(`cannot save an instance of ${object.constructor?.name ?? 'an unknown class'} at ${path}; use a plain object, an array, a Map, a Set or a Collection`);
  };
  return enc(root, '$');
}

/** Own data property, even for the key `__proto__`. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The inverse of `encode`. */
export function decode(data: unknown): unknown {
  const table = new Map<number, unknown>();
  const register = <T>(node: Record<string, unknown>, value: T): T => {
    if (typeof node.$id === 'number') table.set(node.$id, value);
    return value;
  };
  const list = (node: Record<string, unknown>): unknown[] => {
    if (!Array.isArray(node.v)) throw new PersistenceError(`malformed ${String(node.$t)} in the state file`);
    return node.v;
  };
  const pair = (entry: unknown): [unknown, unknown] => {
    if (!Array.isArray(entry) || entry.length !== 2) throw new PersistenceError('malformed entry in the state file');
    return [entry[0], entry[1]];
  };
  const dec = (node: unknown): unknown => {
    if (typeof node !== 'object' || node === null) return node;
    if (Array.isArray(node)) return node.map(dec);
    const record = node as Record<string, unknown>;
    if (!Object.hasOwn(record, '$t')) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(record)) define(out, k, dec(v));
      return out;
    }
    switch (record.$t) {
      case 'Undefined':
        return undefined;
      case 'Number':
        return Number(record.v);
      case 'BigInt':
        return BigInt(String(record.v));
      case 'Date':
        return new Date(dec(record.v) as number);
      case 'Buffer':
        return Buffer.from(String(record.v), 'base64');
      case 'Uint8Array':
        return new Uint8Array(Buffer.from(String(record.v), 'base64'));
      case 'Ref': {
        if (typeof record.id !== 'number' || !table.has(record.id)) throw new PersistenceError(`dangling reference ${String(record.id)} in the state file`);
        return table.get(record.id);
      }
      case 'Collection': {
        const out = register(record, new Collection<unknown>());
        for (const entry of list(record)) {
          const [k, v] = pair(entry);
          out.set(String(k), dec(v));
        }
        return out;
      }
      case 'Map': {
        const out = register(record, new Map<unknown, unknown>());
        for (const entry of list(record)) {
          const [k, v] = pair(entry);
          const key = dec(k);
          out.set(key, dec(v));
        }
        return out;
      }
      case 'Set': {
        const out = register(record, new Set<unknown>());
        for (const v of list(record)) out.add(dec(v));
        return out;
      }
      case 'Array': {
        const out = register(record, [] as unknown[]);
        for (const v of list(record)) out.push(dec(v));
        return out;
      }
      case 'Object': {
        const out = register(record, (record.np === true ? Object.create(null) : {}) as Record<string, unknown>);
        if (!isRecord(record.v)) throw new PersistenceError('malformed Object in the state file');
        for (const [k, v] of Object.entries(record.v)) define(out, k, dec(v));
        return out;
      }
      default:
        throw new PersistenceError(`unknown tag ${JSON.stringify(record.$t)} in the state file`);
    }
  };
  return dec(data);
}

// ---------------------------------------------------------------------------------------------
// Store snapshots

/** Store fields that are indexes derived from the accounts, rebuilt on load rather than saved. */
const DERIVED_STORE_FIELDS = new Set(['keysByHash']);

function snapshotState(store: Store, clock: Clock): StateSnapshot {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(store)) if (!DERIVED_STORE_FIELDS.has(name)) fields[name] = value;
  return { format: STATE_FORMAT, version: STATE_VERSION, clock: { now: clock.nowIso(), epochMs: clock.now(), mode: clock.mode, accountOffsetsMs: clock.accountOffsets() }, store: encode(fields) };
}

export function serializeState(store: Store, clock: Clock): string {
  return `${JSON.stringify(snapshotState(store, clock), null, 1)}\n`;
}

/** Check the envelope of a parsed state file. */
export function parseSnapshot(text: string, source = 'the state file'): StateSnapshot {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PersistenceError(`${source} is not JSON: ${(error as Error).message}`);
  }
  if (!isRecord(parsed) || parsed.format !== STATE_FORMAT) throw new PersistenceError(`${source} is not a mock state file (format ${STATE_FORMAT})`);
  if (parsed.version !== STATE_VERSION) throw new PersistenceError(`${source} has version ${String(parsed.version)}; this mock reads version ${STATE_VERSION}`);
  const clock = parsed.clock;
  if (!isRecord(clock) || typeof clock.epochMs !== 'number' || (clock.mode !== 'real' && clock.mode !== 'manual')) throw new PersistenceError(`${source} has no valid clock reading`);
  // A reading the mock cannot keep (D251) is refused here, not found later by a 500.
  const readingProblem = clockReadingProblem(clock.epochMs);
  if (readingProblem !== undefined) throw new PersistenceError(`${source}: its clock reading (clock.epochMs ${clock.epochMs}) ${readingProblem}`);
  for (const [accountId, ms] of Object.entries(isRecord(clock.accountOffsetsMs) ? clock.accountOffsetsMs : {})) {
    const accountProblem = clockReadingProblem(clock.epochMs + Number(ms));
    if (accountProblem !== undefined) throw new PersistenceError(`${source}: the clock of account ${accountId} (clock.accountOffsetsMs ${String(ms)} ahead) ${accountProblem}`);
  }
  if (!isRecord(parsed.store)) throw new PersistenceError(`${source} has no store`);
  return parsed as unknown as StateSnapshot;
}

/**
 * Fields a newer AccountState has and an older file lacks get their defaults from
 * newAccountState (one level deep for plain objects such as `faults`), so an old file still loads.
 */
function withDefaults(account: AccountState): AccountState {
  const defaults = newAccountState({
    accountId: account.accountId,
    name: account.name,
    tag: account.tag,
    plan: account.plan,
    createdAt: account.createdAt,
    seed: account.seed,
  }) as unknown as Record<string, unknown>;
  const target = account as unknown as Record<string, unknown>;
  for (const [name, fallback] of Object.entries(defaults)) {
    const current = target[name];
    if (!(name in target)) target[name] = fallback;
    else if (isRecord(current) && isRecord(fallback) && isPlain(current) && isPlain(fallback)) {
      for (const [k, v] of Object.entries(fallback)) if (!(k in current)) current[k] = v;
    }
  }
  return account;
}

/** What a state file holds, decoded: the Store's fields (`accounts` a Map) and the clock reading. */
export interface DecodedState {
  fields: Record<string, unknown> & { accounts: Map<string, unknown> };
  clock: { epochMs: number; mode: ClockMode; accountOffsetsMs: Record<string, number> };
}

/** A snapshot's store decoded (the journal's records are applied to this before the Store is filled). */
export function decodeSnapshot(snapshot: StateSnapshot): DecodedState {
  const fields = decode(snapshot.store);
  if (!isRecord(fields) || !(fields.accounts instanceof Map)) throw new PersistenceError('the state file has no accounts');
  // Each account's own clock advance (D91); a file saved before per-account clocks has none.
  const offsets = isRecord(snapshot.clock.accountOffsetsMs) ? (snapshot.clock.accountOffsetsMs as Record<string, number>) : {};
  return { fields: fields as DecodedState['fields'], clock: { epochMs: snapshot.clock.epochMs, mode: snapshot.clock.mode, accountOffsetsMs: offsets } };
}

/** The Store's fields other than the accounts and the derived indexes (the journal's global record). */
export function globalFields(store: Store): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(store)) if (name !== 'accounts' && !DERIVED_STORE_FIELDS.has(name)) fields[name] = value;
  return fields;
}

/**
 * Load a snapshot into `store`, which is reset first. Returns the clock reading to resume from;
 * the caller builds or sets its clock (only packages/mock-core/src/core/clock.ts reads the wall clock).
 */
export function restoreState(store: Store, snapshot: StateSnapshot): { epochMs: number; mode: ClockMode; accountOffsetsMs: Record<string, number> } {
  return restoreDecoded(store, decodeSnapshot(snapshot));
}

/** Fill `store` (reset first) from decoded state; returns its clock reading. */
export function restoreDecoded(store: Store, state: DecodedState): DecodedState['clock'] {
  const { fields } = state;
  store.reset();
  const target = store as unknown as Record<string, unknown>;
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'accounts') continue;
    const current = target[name];
    if (current instanceof Map && value instanceof Map) {
      current.clear();
      for (const [k, v] of value) current.set(k, v);
    } else if (isRecord(current) && isRecord(value) && isPlain(current) && isPlain(value)) {
      for (const k of Object.keys(current)) if (!(k in value)) delete current[k];
      Object.assign(current, value);
    } else {
      target[name] = value;
    }
  }
  for (const value of fields.accounts.values()) {
    const saved = value as AccountState;
    // A file saved before the service kept `processedThrough` (D296): what was due by the save was
    // processed (so an old event is never sent again); what fell due after it, while the mock was
    // down, is processed at the restart.
    const webhooks = saved.webhooks as unknown;
    if (isRecord(webhooks) && !('processedThrough' in webhooks)) {
      webhooks['processedThrough'] = state.clock.epochMs + (state.clock.accountOffsetsMs[saved.accountId] ?? 0);
    }
    const account = withDefaults(saved);
    store.addAccount(account);
    for (const record of account.keys.values()) store.addKey(record);
  }
  return state.clock;
}

// ---------------------------------------------------------------------------------------------
// Files

/** O_NOFOLLOW where the platform has it (not on Windows): a symlink at the path is refused, never followed. */
export const NOFOLLOW: number = constants.O_NOFOLLOW ?? 0;

/** fsync a directory so that a rename or a new file in it survives a crash (a no-op where directories cannot be opened). */
export function syncDirectory(directory: string): void {
  let fd: number;
  try {
    fd = openSync(directory, constants.O_RDONLY);
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // some file systems refuse fsync on a directory
  } finally {
    closeSync(fd);
  }
}

/** `.<name>.<24 random hex digits>.tmp` beside `path`: a name nobody can guess to plant a link at. */
export function randomTemporary(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(12).toString('hex')}.tmp`);
}

/**
 * Write `text` to `path` atomically (D250): a temporary file beside it with an unpredictable name,
 * created exclusively (O_CREAT|O_EXCL, O_NOFOLLOW) with mode 0600 from the start, written and
 * fsynced, renamed over `path`, then the directory fsynced. A symlink planted anywhere on the way
 * is never followed, and no other user can read the file at any moment.
 */
export function writeFileAtomic(path: string, text: string, temporaryName: (path: string) => string = randomTemporary): number {
  const directory = dirname(path);
  mkdirSync(directory, { recursive: true });
  const temporary = temporaryName(path);
  const fd = openSync(temporary, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | NOFOLLOW, 0o600);
  try {
    try {
      fchmodSync(fd, 0o600); // the umask cannot widen it, but make sure
      const bytes = Buffer.from(text, 'utf8');
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  syncDirectory(directory);
  return Buffer.byteLength(text);
}

/** Write the state atomically (writeFileAtomic): the file is mode 0600. */
export function saveStateFile(path: string, store: Store, clock: Clock): { path: string; bytes: number; accounts: number; clock: string } {
  const bytes = writeFileAtomic(path, serializeState(store, clock));
  return { path, bytes, accounts: store.accounts.size, clock: clock.nowIso() };
}

/** The snapshot in `path`, or undefined when there is no such file. */
export function loadStateFile(path: string): StateSnapshot | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseSnapshot(text, path);
}
