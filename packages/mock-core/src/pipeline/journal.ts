/**
 * The request journal: the last API requests of each account (WireMock's request journal, the
 * Firebase emulators' request log), read by `GET /__mock/accounts/{accountId}/requests` and the
 * console. `runPipeline` records every answer here, at one place, after it is built.
 *
 * Cheap on the hot path: a record keeps references (the request's headers and body, the answer's
 * headers and body, which the pipeline does not change after answering) and two numbers in a
 * fixed-size ring per account; bodies over the bound are copied down to it once. Everything a
 * reader sees (header filtering, body text, the problem code, the RateLimit state) is worked out
 * when the journal is read, not when it is written.
 *
 * The `authorization` header is never kept: an entry names the key by its id.
 */
import { utf8, utf8Bytes, utf8Length } from '../../../contract/platform/bytes.ts';
import type { AccountState } from '../domain/store.ts';
import type { RawRequest, RawResponse } from './types.ts';

/** Entries kept per account, newest replacing oldest (packages/contract/spec/mock-control.yaml, listRequests). */
export const JOURNAL_CAPACITY = 500;
/** Bytes of a request or response body kept per entry; the rest is cut (and flagged). */
export const JOURNAL_BODY_BYTES = 16 * 1024;

export interface JournalRecord {
  /** Per account, from 1, never reused (a reader's cursor). */
  seq: number;
  requestId: string;
  /** The mock clock's reading when the request arrived (epoch ms). */
  at: number;
  /** Real milliseconds from the pipeline's start to its answer. */
  latencyMs: number;
  keyId: string | undefined;
  request: RawRequest;
  requestBody: Uint8Array | undefined;
  requestBodyBytes: number;
  response: RawResponse;
  responseBody: string | Uint8Array;
  responseBodyBytes: number;
}

/** What a reader sees of one entry (packages/contract/spec/mock-control.yaml, RequestEntry). */
export interface JournalEntry {
  seq: number;
  requestId: string;
  at: string;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  keyId: string | null;
  status: number;
  code: string | null;
  latencyMs: number;
  rateLimit: { limit: string | null; policy: string | null; retryAfter: string | null };
  request: { headers: Record<string, string>; body: string | null; bodyBytes: number; truncated: boolean };
  response: { headers: Record<string, string>; body: string; bodyBytes: number; truncated: boolean };
}

class Ring {
  readonly items: (JournalRecord | undefined)[] = new Array(JOURNAL_CAPACITY);
  next = 0;
  seq = 0;
}

function bounded<T extends string | Uint8Array>(body: T): { kept: T | Uint8Array; bytes: number } {
  const bytes = typeof body === 'string' ? (body.length * 3 <= JOURNAL_BODY_BYTES ? body.length : utf8Length(body)) : body.length;
  if (bytes <= JOURNAL_BODY_BYTES) return { kept: body, bytes };
  // A copy (slice), so that the entry does not hold the whole body alive.
  const source: Uint8Array = typeof body === 'string' ? utf8Bytes(body) : (body as Uint8Array);
  return { kept: source.slice(0, JOURNAL_BODY_BYTES), bytes };
}

export type JournalListener = (account: AccountState, record: JournalRecord) => void;

export class RequestJournal {
  private readonly rings = new WeakMap<AccountState, Ring>();
  private readonly listeners: JournalListener[] = [];

  /** Called after each record (the control plane's live stream). */
  onRecord(listener: JournalListener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  record(account: AccountState, requestId: string, at: number, latencyMs: number, keyId: string | undefined, request: RawRequest, response: RawResponse): void {
    let ring = this.rings.get(account);
    if (!ring) {
      ring = new Ring();
      this.rings.set(account, ring);
    }
    ring.seq += 1;
    // One object per entry, its fields in one fixed order (one hidden class), written in place.
    const record: JournalRecord = {
      seq: ring.seq,
      requestId,
      at,
      latencyMs,
      keyId,
      request,
      requestBody: undefined,
      requestBodyBytes: 0,
      response,
      responseBody: response.body,
      responseBodyBytes: 0,
    };
    if (request.body !== undefined) {
      const kept = bounded(request.body);
      record.requestBody = kept.kept;
      record.requestBodyBytes = kept.bytes;
    }
    const kept = bounded(response.body);
    record.responseBody = kept.kept;
    record.responseBodyBytes = kept.bytes;
    ring.items[ring.next] = record;
    ring.next = ring.next + 1 === JOURNAL_CAPACITY ? 0 : ring.next + 1;
    for (let i = 0; i < this.listeners.length; i++) this.listeners[i]!(account, record);
  }

  /** Newest first: at most `limit` records, only those older than `before` (a seq) when given. */
  list(account: AccountState, limit: number, before?: number): JournalRecord[] {
    const ring = this.rings.get(account);
    if (!ring) return [];
    const out: JournalRecord[] = [];
    for (let i = 1; i <= JOURNAL_CAPACITY && out.length < limit; i++) {
      const record = ring.items[(ring.next - i + JOURNAL_CAPACITY) % JOURNAL_CAPACITY];
      if (!record) break;
      if (before !== undefined && record.seq >= before) continue;
      out.push(record);
    }
    return out;
  }

  /** Requests recorded for the account so far (the newest entry's seq). */
  total(account: AccountState): number {
    return this.rings.get(account)?.seq ?? 0;
  }
}

const HIDDEN_REQUEST_HEADERS = new Set(['authorization', 'cookie']);

function text(body: string | Uint8Array): string {
  return typeof body === 'string' ? body : utf8(body);
}

/** The problem `code` of an error answer (null for a success or a body that is not a problem). */
function problemCode(record: JournalRecord): string | null {
  if (record.response.status < 400) return null;
  if (record.response.status === 429) return 'RATE_LIMITED';
  try {
    const code = (JSON.parse(text(record.responseBody)) as { code?: unknown }).code;
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
}

/** An entry as the control plane shows it. */
export function presentRecord(record: JournalRecord, iso: (ms: number) => string): JournalEntry {
  const requestHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(record.request.headers)) {
    if (value !== undefined && !HIDDEN_REQUEST_HEADERS.has(name)) requestHeaders[name] = value;
  }
  const headers = record.response.headers;
  return {
    seq: record.seq,
    requestId: record.requestId,
    at: iso(record.at),
    method: record.request.method,
    path: record.request.fullPath,
    query: record.request.query,
    keyId: record.keyId ?? null,
    status: record.response.status,
    code: problemCode(record),
    latencyMs: Math.round(record.latencyMs * 1000) / 1000,
    rateLimit: { limit: headers.ratelimit ?? null, policy: headers['ratelimit-policy'] ?? null, retryAfter: headers['retry-after'] ?? null },
    request: {
      headers: requestHeaders,
      body: record.requestBody === undefined ? null : text(record.requestBody),
      bodyBytes: record.requestBodyBytes,
      truncated: record.requestBodyBytes > JOURNAL_BODY_BYTES,
    },
    response: { headers: { ...headers }, body: text(record.responseBody), bodyBytes: record.responseBodyBytes, truncated: record.responseBodyBytes > JOURNAL_BODY_BYTES },
  };
}
