/**
 * A thin SDK over a generated client: openapi-fetch (0.17.0) over the `paths` openapi-typescript
 * (7.13.0) generates from packages/contract/spec/openapi.yaml (packages/contract/spec/generated/openapi.ts, re-exported by
 * packages/contract/spec/types.ts; `npx openapi-typescript openapi.yaml -o openapi.ts` gives the same file, see
 * docs/sdk-generators.md). Another style than examples/client/client.ts (a hand-written loop
 * around fetch): what the contract asks of a client is put in the generated client's middleware,
 * and every call stays a typed call of the generated `paths`.
 *
 * - `retries()`: a middleware that keeps a copy of each request and, when the answer is a 429, a
 *   503, or a 409 `IDEMPOTENCY_IN_PROGRESS` / `CAMPAIGN_CASCADE_PENDING` with `Retry-After`, sends
 *   the same request again (same `Idempotency-Key`, same body bytes) once `Retry-After` has passed,
 *   in either of its forms (delay-seconds or an HTTP-date). A 429's body is never read. When the
 *   connection drops without an answer, a read, or a write carrying an `Idempotency-Key`, is sent
 *   again unchanged (CLIENT-023); a write without a key is not. A 502 or any other answer is the
 *   caller's to see.
 * - `etags()`: a middleware that remembers the `ETag` of every resource read or written, by path;
 *   `update` sends it as `If-Match` and, on a 412, forgets it, reads the resource again and retries.
 * - `pages()`: an async iterator over every row of a list, following `nextCursor` verbatim through
 *   sparse and empty pages until it is null.
 * - Errors are thrown as `ApiError` with the problem's `code` to branch on.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths, Schemas } from '../../packages/contract/spec/types.ts';

export type Creative = Schemas['Creative'];
export type Campaign = Schemas['Campaign'];
export type Product = Schemas['Product'];
export type Run = Schemas['Run'];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    readonly problem: unknown,
  ) {
    super(`${status}${code ? ` ${code}` : ''}`);
  }
}

/** Codes of a 409 that a later identical request may get past (the rest are the caller's). */
const RETRYABLE_CONFLICTS = new Set(['IDEMPOTENCY_IN_PROGRESS', 'CAMPAIGN_CASCADE_PENDING']);
const MAX_ATTEMPTS = 8;
/** Before sending again a request whose answer was lost (there is no Retry-After to honour). */
const DROPPED_WAIT_MS = 250;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Milliseconds to wait for a `Retry-After` value (RFC 9110 10.2.3): delay-seconds, or an HTTP-date
 * (waited until, from `now`); undefined when there is none or it cannot be read.
 */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date is in GMT in each of its three forms (IMF-fixdate and the two obsolete ones).
  const at = /GMT$/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Whether an answer says: the same request, later. Reads a 409's problem (from a copy), never a 429's body. */
async function retryable(response: Response): Promise<boolean> {
  if (!response.headers.has('retry-after')) return false;
  if (response.status === 429 || response.status === 503) return true;
  if (response.status !== 409) return false;
  const problem = (await response.clone().json().catch(() => undefined)) as { code?: string } | undefined;
  return problem?.code !== undefined && RETRYABLE_CONFLICTS.has(problem.code);
}

/** The retry middleware (see the module's comment). */
export function retries(): Middleware {
  const copies = new Map<string, Request>();
  const settled = new WeakSet<Response>();
  /** Sends `copy` again until an answer that is not "later" (or the attempts are spent). */
  const settle = async (copy: Request, fetcher: typeof fetch, first: Response | undefined, attempt: number): Promise<Response> => {
    let response = first;
    for (let n = attempt; ; n++) {
      if (response !== undefined) {
        if (n >= MAX_ATTEMPTS || !(await retryable(response))) break;
        const wait = retryAfterMs(response.headers.get('retry-after'))!;
        await response.body?.cancel(); // a 429's plain text is never parsed
        await sleep(wait);
      }
      try {
        response = await fetcher(copy.clone());
      } catch (error) {
        if (n + 1 >= MAX_ATTEMPTS) throw error;
        response = undefined;
        await sleep(DROPPED_WAIT_MS);
      }
    }
    settled.add(response);
    return response;
  };
  return {
    onRequest({ request, id }) {
      copies.set(id, request.clone());
    },
    async onResponse({ response, id, options }) {
      const copy = copies.get(id);
      copies.delete(id);
      if (copy === undefined || settled.has(response)) return response;
      return settle(copy, options.fetch, response, 1);
    },
    async onError({ error, request, id, options }) {
      const copy = copies.get(id);
      // A read, or a write the service can replay by its key: the identical request again (CLIENT-023).
      const resendable = request.method === 'GET' || request.headers.has('idempotency-key');
      if (copy === undefined || !resendable) return error instanceof Error ? error : new Error(String(error));
      await sleep(DROPPED_WAIT_MS);
      return settle(copy, options.fetch, undefined, 1);
    },
  };
}

/** The ETag cache: the last `ETag` seen for each path (GET, PATCH answers). */
export class ETagCache {
  private readonly tags = new Map<string, string>();
  get(path: string): string | undefined {
    return this.tags.get(path);
  }
  forget(path: string): void {
    this.tags.delete(path);
  }
  middleware(): Middleware {
    return {
      onResponse: ({ request, response }) => {
        const tag = response.headers.get('etag');
        if (response.ok && tag !== null) this.tags.set(new URL(request.url).pathname, tag);
      },
    };
  }
}

/** A page of any list of the document. */
interface Page<T> {
  data: T[];
  pagination: Schemas['Pagination'];
}

/** Every row of a list, page after page, the cursor passed back verbatim until it is null. */
export async function* pages<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.data;
    cursor = page.pagination.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

export async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

/** The data of a call, or its problem thrown. */
async function data<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw new ApiError(response.status, (error as { code?: string } | undefined)?.code, error);
  return data;
}

export interface SdkOptions {
  /** `.../api/public/v1` */
  baseUrl: string;
  key: string;
}

export function createSdk(options: SdkOptions) {
  const client = createClient<paths>({ baseUrl: options.baseUrl, headers: { authorization: `Bearer ${options.key}` } });
  const etags = new ETagCache();
  // onResponse runs last-registered first: the retries settle an answer before the cache sees it.
  client.use(etags.middleware(), retries());
  const key = () => crypto.randomUUID();
  const creativePath = (creativeId: string) => new URL(`${options.baseUrl}/creatives/${creativeId}`).pathname;

  const sdk = {
    client,
    etags,
    products: (query: { sku?: string; brandId?: string; limit?: number } = {}) => pages((cursor) => data(client.GET('/products', { params: { query: { ...query, cursor } } }))),
    product: (productId: string) => data(client.GET('/products/{productId}', { params: { path: { productId } } })),
    creatives: (query: { limit?: number } = {}) => pages((cursor) => data(client.GET('/creatives', { params: { query: { ...query, cursor } } }))),
    creative: (creativeId: string) => data(client.GET('/creatives/{creativeId}', { params: { path: { creativeId } } })),
    campaigns: (query: { limit?: number } = {}) => pages((cursor) => data(client.GET('/campaigns', { params: { query: { ...query, cursor } } }))),
    presets: () => pages((cursor) => data(client.GET('/presets', { params: { query: { cursor } } }))),
    /** A PATCH with the cached ETag as If-Match; a 412 forgets it, reads again and retries. */
    async update(creativeId: string, patch: Schemas['CreativePatch'], attempts = 5): Promise<Creative> {
      for (let attempt = 1; ; attempt++) {
        const ifMatch = etags.get(creativePath(creativeId)) ?? (await sdk.creative(creativeId), etags.get(creativePath(creativeId)));
        if (ifMatch === undefined) throw new Error(`no ETag for creative ${creativeId}`);
        try {
          return await data(client.PATCH('/creatives/{creativeId}', { params: { path: { creativeId }, header: { 'If-Match': ifMatch } }, body: patch }));
        } catch (error) {
          if (!(error instanceof ApiError) || error.code !== 'PRECONDITION_FAILED' || attempt >= attempts) throw error;
          etags.forget(creativePath(creativeId));
        }
      }
    },
    /** A PATCH as given, no If-Match (the invalid one of the task list). */
    patchUnconditionally: (creativeId: string, patch: Schemas['CreativePatch']) => data(client.PATCH('/creatives/{creativeId}', { params: { path: { creativeId } }, body: patch })),
    approve: (creativeId: string) => data(client.POST('/creatives/{creativeId}/approve', { params: { path: { creativeId }, header: { 'Idempotency-Key': key() } } })),
    createCampaign: (body: Schemas['CampaignCreate']) => data(client.POST('/campaigns', { params: { header: { 'Idempotency-Key': key() } }, body })),
    createRun: (body: Schemas['RunCreate']) => data(client.POST('/runs', { params: { header: { 'Idempotency-Key': key() } }, body })),
    run: (runId: string) => data(client.GET('/runs/{runId}', { params: { path: { runId } } })),
    runItems: (runId: string, query: { limit?: number } = {}) => pages((cursor) => data(client.GET('/runs/{runId}/items', { params: { path: { runId }, query: { ...query, cursor } } }))),
  };
  return sdk;
}

export type Sdk = ReturnType<typeof createSdk>;
