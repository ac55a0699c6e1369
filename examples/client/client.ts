/**
 * An example API client that follows the client rules of the interface (packages/contract/spec/rules.yaml, CLIENT-):
 * plain `fetch`, no dependencies. What an SDK does the same way:
 *
 * - A 429, a 503 and a 409 `IDEMPOTENCY_IN_PROGRESS` (and `CAMPAIGN_CASCADE_PENDING`) are retried
 *   after exactly `Retry-After` seconds (CLIENT-001, -003, -004), as the identical request: same
 *   `Idempotency-Key`, same body bytes (CLIENT-002). A 429 body is never parsed (CLIENT-014).
 * - Other errors are thrown as `ApiProblem` with the problem's `code` to branch on (CLIENT-013);
 *   a 400, 401 or 422 is never sent again unchanged (CLIENT-008, -009, -019).
 * - Every write that requires an `Idempotency-Key` gets a fresh one per logical request (CLIENT-017, -018).
 * - A request whose answer was lost (the connection dropped, a network error) is sent again as the
 *   identical request, same key and body: a write the service applied then replays its answer
 *   instead of making a second resource (CLIENT-023). A write without a key is not resent blindly.
 * - Lists are walked until `nextCursor` is null, through empty and sparse pages, passing the cursor
 *   verbatim (CLIENT-005, -006, -007).
 * - Unknown response members and enum values are kept, never rejected (CLIENT-020, -021).
 *
 * The faulty clients of the exam's proof (packages/exams/proofs/prove-exam.ts) are this client with one
 * deviation each, switched by `fault` (EXAMPLE_CLIENT_FAULT in tasks.ts): a real client has none.
 */
import { randomUUID } from 'node:crypto';

export type Fault =
  | 'ignore-retry-after'
  | 'new-key-on-retry'
  | 'stop-at-empty-page'
  | 'rebuild-cursor'
  | 'retry-422'
  | 'break-on-unknown-status'
  | 'no-reread-after-412'
  | 'items-before-final'
  | 'no-key-on-approve'
  | 'new-key-on-drop'
  | 'give-up-on-drop'
  | 'retry-401'
  | 'strict-unknown-field'
  | 'first-page-only'
  | 'unquoted-if-match'
  | 'parse-429-as-json'
  | 'backoff-ignores-value';

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    readonly body: unknown,
  ) {
    super(`${status} ${code ?? ''}`.trim());
  }
}

export interface Answer<T> {
  status: number;
  body: T;
  etag: string | undefined;
}

const RETRYABLE = new Set(['IDEMPOTENCY_IN_PROGRESS', 'CAMPAIGN_CASCADE_PENDING']);
const MAX_ATTEMPTS = 8;
/** Wait before resending a request whose answer was lost (no Retry-After to honour). */
const NETWORK_RETRY_MS = 200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Client {
  constructor(
    readonly baseUrl: string,
    private readonly key: string,
    readonly fault?: Fault,
  ) {}

  /** One logical request, retried as the contract allows. */
  async request<T>(method: string, path: string, options: { body?: unknown; query?: Record<string, string | number | undefined>; idempotencyKey?: string | false; ifMatch?: string } = {}): Promise<Answer<T>> {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    // The body is serialised once: a retry sends the same bytes.
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    let key = options.idempotencyKey === false ? undefined : options.idempotencyKey;
    for (let attempt = 1; ; attempt++) {
      const headers: Record<string, string> = { authorization: `Bearer ${this.key}`, accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (key !== undefined) headers['idempotency-key'] = key;
      // The fault: an ETag sent without its quotes (a list of entity tags is what the document allows).
      if (options.ifMatch !== undefined) headers['if-match'] = this.fault === 'unquoted-if-match' ? options.ifMatch.replaceAll('"', '') : options.ifMatch;
      let response: Response;
      try {
        response = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
      } catch (error) {
        // The answer was lost. A read, or a write with a key, is sent again identically (CLIENT-023).
        const resendable = method === 'GET' || key !== undefined;
        if (!resendable || attempt >= MAX_ATTEMPTS || this.fault === 'give-up-on-drop') throw error;
        await sleep(NETWORK_RETRY_MS);
        if (this.fault === 'new-key-on-drop' && key !== undefined) key = randomUUID();
        continue;
      }
      const retryAfter = response.headers.get('retry-after');
      if (response.status === 429 && this.fault !== 'parse-429-as-json') {
        await response.arrayBuffer(); // plain text on the read plane and writes: never parsed
      }
      // The fault: every body parsed as JSON (the plain-text 429 throws).
      const parsed = this.fault === 'parse-429-as-json' ? await parseStrictly(response) : response.status === 429 ? undefined : await parse(response);
      // The fault: a response schema closed to members it does not know (additionalProperties: false).
      if (this.fault === 'strict-unknown-field' && JSON.stringify(parsed ?? null).includes('"examUnannouncedField"')) throw new Error('response has an unknown member');
      const code = (parsed as { code?: string } | undefined)?.code;
      const retryable = response.status === 429 || response.status === 503 || (response.status === 409 && code !== undefined && RETRYABLE.has(code));
      if (retryable && retryAfter !== null && attempt < MAX_ATTEMPTS) {
        // The faults: no wait at all; or a backoff of 1 s, 2 s... whatever Retry-After says.
        if (this.fault === 'backoff-ignores-value') await sleep(attempt * 1000);
        else if (this.fault !== 'ignore-retry-after') await sleep(Number(retryAfter) * 1000);
        if (this.fault === 'new-key-on-retry' && key !== undefined) key = randomUUID();
        continue;
      }
      if (response.status >= 400) throw new ApiProblem(response.status, code, parsed);
      return { status: response.status, body: parsed as T, etag: response.headers.get('etag') ?? undefined };
    }
  }

  /** Every row of a list, page by page until `nextCursor` is null. */
  async *list<T>(path: string, query: Record<string, string | number | undefined> = {}): AsyncGenerator<T> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.request<{ data: T[]; pagination: { nextCursor: string | null } }>('GET', path, { query: { ...query, cursor } });
      yield* page.body.data;
      const next = page.body.pagination.nextCursor;
      if (next === null || this.fault === 'first-page-only') return;
      if (this.fault === 'stop-at-empty-page' && page.body.data.length === 0) return;
      cursor = this.fault === 'rebuild-cursor' ? rebuild(next) : next;
    }
  }

  async all<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T[]> {
    const rows: T[] = [];
    for await (const row of this.list<T>(path, query)) rows.push(row);
    return rows;
  }

  /** A fresh key for one logical write (CLIENT-017, -018); the fault leaves it out on approve. */
  newKey(): string {
    return randomUUID();
  }
}

async function parse(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The `parse-429-as-json` fault: every body is JSON, or this throws. */
async function parseStrictly(response: Response): Promise<unknown> {
  const text = await response.text();
  return text ? JSON.parse(text) : undefined;
}

/** The `rebuild-cursor` fault: decodes the opaque cursor and encodes it again (a different string). */
function rebuild(cursor: string): string {
  try {
    return Buffer.from(JSON.stringify(JSON.parse(Buffer.from(cursor, 'base64').toString('utf8')), null, 1)).toString('base64');
  } catch {
    return `${cursor}=`;
  }
}
