/** Pieces every resource folder shares: timestamps, list pages with opaque cursors, metadata. */
import { utf8, utf8Bytes } from '../../../contract/platform/bytes.ts';
import { fromBase64, toBase64url } from '../../../contract/platform/crypto.ts';
import type { Collection } from '../core/collection.ts';
import { ApiError, type FieldError } from '../core/errors.ts';
import type { EventDraft } from '../events/model.ts';

/** What a pure transition returns: the next state, the events it causes, whether anything changed. */
export interface Transition<T> {
  next: T;
  events: EventDraft[];
  changed: boolean;
}

export function unchanged<T>(value: T): Transition<T> {
  return { next: value, events: [], changed: false };
}

// Formatting is cached: the same few timestamps are shown on every read of a list. A bounded map
// from epoch ms to its ISO string, cleared when full; a miss formats as before (and still throws
// a RangeError on an invalid time).
const ISO_CACHE_MAX = 10_000;
const isoCache = new Map<number, string>();

export function iso(ms: number): string {
  let text = isoCache.get(ms);
  if (text === undefined) {
    text = new Date(ms).toISOString();
    if (isoCache.size >= ISO_CACHE_MAX) isoCache.clear();
    isoCache.set(ms, text);
  }
  return text;
}

export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms);
}

// ---------------------------------------------------------------------------------------------
// Pagination (PAGE-*): opaque cursors, pageSize applied and reported, hasMore mirrors nextCursor,
// sparse and empty pages before the end (naturally under selective filters, and on demand).

export const DEFAULT_LIMIT = 25;

interface CursorState {
  v: 1;
  /** Which list (and which filter) the cursor belongs to. */
  l: string;
  /** Absolute index of the next row to visit. */
  i: number;
  /** Page number, for the sparse-page drill. */
  p: number;
}

export function encodeCursor(state: CursorState): string {
  return toBase64url(utf8Bytes(JSON.stringify(state)));
}

export function decodeCursor(cursor: string, listKey: string): CursorState {
  let state: unknown;
  try {
    state = JSON.parse(utf8(fromBase64(cursor)));
  } catch {
    state = undefined;
  }
  const s = state as Partial<CursorState> | undefined;
  if (!s || s.v !== 1 || typeof s.i !== 'number' || !Number.isInteger(s.i) || s.i < 0 || typeof s.p !== 'number' || typeof s.l !== 'string') {
    throw new ApiError('VALIDATION_ERROR', 'The cursor is not one this API issued; pass pagination.nextCursor back verbatim.', {
      extensions: { errors: [{ field: 'cursor', message: 'is not a cursor issued by this API' }] },
    });
  }
  if (s.l !== listKey) {
    throw new ApiError('VALIDATION_ERROR', 'The cursor belongs to another list or other filters; start again without a cursor.', {
      extensions: { errors: [{ field: 'cursor', message: 'belongs to another list or other filters' }] },
    });
  }
  return s as CursorState;
}

export interface ListEnvelope<R> {
  data: R[];
  pagination: { nextCursor: string | null; hasMore: boolean; pageSize: number };
}

export interface ListOptions<T, R> {
  /** Identifies the list and its filters: a cursor from another list is refused. */
  listKey: string;
  direction: 'asc' | 'desc';
  filter: (item: T) => boolean;
  present: (item: T) => R;
}

export function listPage<T, R>(
  account: { settings: { sparsePages: boolean } },
  collection: Collection<T>,
  query: Record<string, unknown>,
  options: ListOptions<T, R>,
): ListEnvelope<R> {
  const limit = typeof query.limit === 'number' ? query.limit : DEFAULT_LIMIT;
  const cursor = typeof query.cursor === 'string' ? decodeCursor(query.cursor, options.listKey) : undefined;
  const pageNumber = cursor?.p ?? 0;
  let take = limit;
  let scanBudget: number | undefined;
  if (account.settings.sparsePages) {
    // The drill: every third page is empty, the next one sparse, before the real end.
    if (pageNumber % 3 === 1) scanBudget = 0;
    else if (pageNumber % 3 === 2) take = Math.max(1, Math.floor(limit / 3));
  }
  const page = collection.page({ from: cursor?.i, limit: take, direction: options.direction, filter: options.filter, ...(scanBudget !== undefined ? { scanBudget } : {}) });
  let next = page.next;
  if (scanBudget === 0 && next === null && cursor) next = cursor.i; // an empty page never ends the walk by itself
  const nextCursor = next === null ? null : encodeCursor({ v: 1, l: options.listKey, i: next, p: pageNumber + 1 });
  return { data: page.items.map(options.present), pagination: { nextCursor, hasMore: nextCursor !== null, pageSize: limit } };
}

// ---------------------------------------------------------------------------------------------
// Metadata (META-*): a string sets a key, null removes it; at most 50 keys after the merge, key
// names at most 40 characters, values at most 500. A violation is 422 VALIDATION_ERROR.

export const METADATA_MAX_KEYS = 50;

export interface MetadataMerge {
  next: Record<string, string>;
  changed: boolean;
}

/**
 * Merge a validated patch; throws 422 with errors[] when the merge would leave more than 50 keys.
 * Maps are prototype-free and compared by own keys, so `__proto__` or `toString` are ordinary keys.
 */
export function mergeMetadata(current: Readonly<Record<string, string>>, patch: Readonly<Record<string, string | null>>): MetadataMerge {
  const next: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, current);
  let changed = false;
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null || value === undefined) {
      if (Object.hasOwn(next, key)) {
        delete next[key];
        changed = true;
      }
    } else if (!Object.hasOwn(next, key) || next[key] !== value) {
      Object.defineProperty(next, key, { value, enumerable: true, writable: true, configurable: true });
      changed = true;
    }
  }
  const count = Object.keys(next).length;
  if (count > METADATA_MAX_KEYS) {
    const errors: FieldError[] = [{ field: 'metadata', message: `the merge would leave ${count} keys; at most ${METADATA_MAX_KEYS} are allowed` }];
    throw new ApiError('VALIDATION_ERROR', 'Metadata would exceed 50 keys after the merge.', { status: 422, extensions: { errors } });
  }
  return { next, changed };
}

/** Metadata is present in a representation only when it holds at least one key. */
export function metadataField(metadata: Readonly<Record<string, string>>): { metadata?: Record<string, string> } {
  return Object.keys(metadata).length > 0 ? { metadata: { ...metadata } } : {};
}

/** Query flag helper: `showDeleted=true`. */
export function showDeleted(query: Record<string, unknown>): boolean {
  return query.showDeleted === true;
}

/** The scenarios a request asks for with `Prefer: scenario=<name>` (packages/mock-core/src/pipeline/faults.ts lists them). */
export function scenariosOf(prefer: string | undefined): Set<string> {
  const out = new Set<string>();
  if (!prefer) return out;
  for (const part of prefer.split(',')) {
    const match = /^\s*scenario\s*=\s*"?([a-z0-9_]+)"?\s*$/i.exec(part);
    if (match) out.add(match[1]!.toLowerCase());
  }
  return out;
}
