/**
 * A small typed client of the public API, as a frontend app would write one: openapi-fetch over
 * the generated `paths` (packages/contract/spec/generated/openapi.ts, through packages/contract/spec/types.ts), the key in a header,
 * an Idempotency-Key on every write. It knows nothing of the mock: pointed at the MSW handlers
 * (Node or the browser's service worker) or at a real server, it sends the same requests.
 *
 * `fetch` is looked up on every request (not captured when the client is made), so a client made
 * before `server.listen()` or `worker.start()` still goes through MSW's interception.
 */
import createClient from 'openapi-fetch';
import type { paths, Schemas } from '../../packages/contract/spec/types.ts';

export type Creative = Schemas['Creative'];
export type Run = Schemas['Run'];
export type RunCreate = Schemas['RunCreate'];
export type Problem = Schemas['Problem'];

export interface ApiClientOptions {
  /** The API's base URL, `.../api/public/v1`. */
  baseUrl: string;
  /** An API key (`cgs_...`). */
  key: string;
}

let keys = 0;
/** A fresh Idempotency-Key (unique within the page or process; the mock scopes keys to the account). */
export function idempotencyKey(): string {
  keys += 1;
  return `example-${Date.now().toString(36)}-${keys}`;
}

export function createApiClient(options: ApiClientOptions) {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { authorization: `Bearer ${options.key}` },
    fetch: (request) => globalThis.fetch(request),
  });
  return {
    raw: client,
    listCreatives: (query: { limit?: number; cursor?: string } = {}) => client.GET('/creatives', { params: { query } }),
    getCreative: (id: string) => client.GET('/creatives/{creativeId}', { params: { path: { creativeId: id } } }),
    updateCreative: (id: string, ifMatch: string, body: Schemas['CreativePatch']) =>
      client.PATCH('/creatives/{creativeId}', { params: { path: { creativeId: id }, header: { 'If-Match': ifMatch, 'Idempotency-Key': idempotencyKey() } }, body }),
    approveCreative: (creativeId: string) => client.POST('/creatives/{creativeId}/approve', { params: { path: { creativeId }, header: { 'Idempotency-Key': idempotencyKey() } } }),
    listPresets: () => client.GET('/presets', {}),
    listProducts: (query: { limit?: number } = {}) => client.GET('/products', { params: { query } }),
    createRun: (body: RunCreate) => client.POST('/runs', { params: { header: { 'Idempotency-Key': idempotencyKey() } }, body }),
    getRun: (runId: string) => client.GET('/runs/{runId}', { params: { path: { runId } } }),
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;
