/**
 * The stateful mock in-process, as MSW (Mock Service Worker, msw 2.x) request handlers: for Node
 * test runners (`setupServer` of `msw/node`) and the browser (`setupWorker` of `msw/browser`,
 * Storybook). Exported by the package as `<package>/msw`.
 * How it works and what it decides: docs/internals.md, "packages/msw/src/msw.ts".
 */
import { http, HttpResponse, RequestHandler, type HttpHandler } from 'msw';
import { apiVersion, basePath } from '../../contract/spec/contract.ts';
import type { ApiVersion } from '../../contract/spec/api-versions.ts';
import { Clock } from '../../mock-core/src/core/clock.ts';
import type { ControlHttpResponse } from '../../mock-core/src/control/routes.ts';
import type { ControlOptions } from '../../mock-core/src/control/types.ts';
import { createServices, type MockServices } from '../../mock-core/src/services/services.ts';
import { ApiError, reasonPhrase } from '../../mock-core/src/core/errors.ts';
import type { DeliveryResult, Transport } from '../../mock-core/src/events/transport.ts';
import { answerMedia, MediaService } from '../../mock-core/src/media/serve.ts';
import { runPipeline } from '../../mock-core/src/pipeline/index.ts';
import { toQuery } from '../../mock-core/src/pipeline/query.ts';
import type { RawRequest, RawResponse } from '../../mock-core/src/pipeline/types.ts';
import { demoKeys, seedDemo, DEMO_ACCOUNT_ID } from '../../mock-core/src/seed/account.ts';
import { hashKey } from '../../mock-core/src/domain/accounts/keys.ts';
import type { components as ControlComponents } from '../../contract/spec/generated/mock-control.ts';
import { createControl, eventStream, type MockControl } from './control.ts';
import type { Scenario, ScenarioLoaded } from '../../mock-core/src/scenario/apply.ts';

export type { Scenario, ScenarioLoaded } from '../../mock-core/src/scenario/apply.ts';
export { ScenarioError, type ScenarioProblem } from '../../mock-core/src/scenario/source.ts';
import type { ExamRuleReport } from '../../mock-core/src/exam/judge.ts';
import { connectionDropped } from '../../mock-core/src/exam/session.ts';

export { ControlProblem, type ControlArgs, type ControlBody, type ControlOperationId, type ControlQuery, type ControlResult, type MockControl } from './control.ts';
/** The public API's generated types (openapi-typescript of packages/contract/spec/openapi.yaml), for typing a client's results. */
export type { components, operations, paths } from '../../contract/spec/generated/openapi.ts';
/** The control plane's generated types (packages/contract/spec/mock-control.yaml). */
export type { components as controlComponents, operations as controlOperations } from '../../contract/spec/generated/mock-control.ts';

/** A webhook delivery as the server would POST it: the receiver's URL, the signed headers, the body. */
export interface WebhookDelivery {
  url: string;
  /** content-type and the standardwebhooks headers (webhook-id, webhook-timestamp, webhook-signature), as the server sends them. */
  headers: Record<string, string>;
  body: string;
}

export interface MockHandlersOptions {
  /** The origin the client calls (`http://api.test`, or `location.origin` in a browser), with no trailing slash. */
  baseUrl: string;
  /**
   * The demo account of `npm start -- --seed N`: `acc_demo`, its data and its deterministic demo keys
   * (`demo.keys`). Default 42; `false`: an empty store (create accounts with `control.createAccount`).
   */
  seed?: number | false;
  /** The mock's clock: 'manual' (default: moves only by `control.advanceClock`/`setClock`), 'real', or your own Clock. */
  clock?: Clock | 'manual' | 'real';
  webhooks?: {
    /**
     * Where deliveries go: called with each signed delivery; resolve to the receiver's status (2xx:
     * delivered, else retried as the server retries). Default: POST it with the global `fetch` to
     * the endpoint's URL (which your own MSW handler may answer).
     */
    deliver?: (delivery: WebhookDelivery) => Promise<{ status: number }>;
  };
  /**
   * The document version served. The version is chosen when packages/contract/spec/contract.ts loads (`chooseApiVersion`
   * of packages/contract/spec/api-versions.ts before importing, or CGS_API_VERSION), so this only checks that the loaded
   * one is the one asked for.
   */
  apiVersion?: ApiVersion;
  /** Unexpected errors of the mock (default: console.error). */
  logError?: (error: unknown, context: string) => void;
  /**
   * A scenario file to make after the demo account (packages/contract/spec/schemas/scenario.schema.json, docs/frontend.md):
   * its YAML or JSON text (errors name its lines; `import text from './story.yaml?raw'` in Vite), or
   * the parsed object. Its accounts and keys are `scenario` once `ready` resolves; a bad one rejects
   * `ready` with a ScenarioError naming each field.
   */
  scenario?: string | Scenario;
  /**
   * The client exam (docs/client-check.md) on the demo account: its requests meet the seeded
   * adversity the contract allows, and `control.examReport()` judges them against the CLIENT- rules.
   * Needs the demo account (`seed` not false); the clock defaults to 'real' (Retry-After is judged on it).
   */
  exam?: { seed: number; rate?: number };
}

/** The in-process exam's judgement (the control plane's getExamReport of the demo account). */
export type { ExamRuleReport } from '../../mock-core/src/exam/judge.ts';

/** A key of the demo account: the control plane's KeyProfile, the shape of `control.createAccount().keys[name]`. */
export type DemoKey = ControlComponents['schemas']['KeyProfile'];

export interface MockHandlers {
  /** MSW handlers: pass them to setupServer / setupWorker (or `server.use`). */
  handlers: RequestHandler[];
  /** The control plane as typed methods (packages/contract/spec/mock-control.yaml operationIds), and `examReport()` with `exam`. */
  control: MockControl & { examReport(): Promise<ExamRuleReport> };
  /** The in-process mock's services (store, clock, event log...): for what the control plane does not offer. */
  services: MockServices;
  /**
   * The demo account when `seed` is not false: its id and its keys by name (`all`, and one per
   * scope; with `exam`, `expired` too), each `{ keyId, key, scopes }` as `control.createAccount()`
   * answers them (D132): `mock.demo.keys['all']!.key` is the bearer token.
   */
  demo: { accountId: string; keys: Record<string, DemoKey> } | undefined;
  /** Resolves once the demo account and the scenario exist (the handlers wait for it themselves). */
  ready: Promise<void>;
  /** What the `scenario` option made (its accounts with their keys), once `ready` resolved; else undefined. */
  readonly scenario: ScenarioLoaded | undefined;
  /** Stops the clock's timers and the change feed; the handlers answer nothing useful afterwards. */
  dispose(): void;
}

/** A webhook transport that hands deliveries to a callback or to `fetch` (same signed request, no sockets of our own). */
export function fetchTransport(deliver?: (delivery: WebhookDelivery) => Promise<{ status: number }>): Transport {
  return async (delivery): Promise<DeliveryResult> => {
    const request: WebhookDelivery = { url: delivery.url, headers: { ...delivery.headers, 'user-agent': 'cgs-mock-webhooks/1' }, body: delivery.body };
    try {
      if (deliver) return { status: (await deliver(request)).status };
      const signal = AbortSignal.timeout(delivery.timeoutMs);
      const response = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body, signal });
      await response.body?.cancel();
      return { status: response.status };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  };
}

/** The headers of a fetch Request as the pipeline reads them (lower-case names, one string each). */
function headersOf(request: Request): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  request.headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

const BODY_LIMIT_BYTES = 1024 * 1024;
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE']);

/** The body as the server's front reads it: none without a body or a Content-Type, else its bytes. */
async function bodyOf(request: Request): Promise<Uint8Array | undefined> {
  if (BODYLESS.has(request.method) || request.body === null) return undefined;
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.length === 0 && !request.headers.has('content-type')) return undefined;
  return bytes;
}

/** A RawResponse as a fetch Response: status, reason phrase, headers with Content-Length, the bytes (none for HEAD). */
function toResponse(response: RawResponse, head: boolean): Response {
  const body = typeof response.body === 'string' ? new TextEncoder().encode(response.body) : new Uint8Array(response.body);
  const headers = { ...response.headers, 'content-length': String(body.length) };
  const empty = head || response.status === 204 || response.status === 304;
  return new HttpResponse(empty ? null : body, { status: response.status, statusText: reasonPhrase(response.status), headers });
}

function controlResponse(response: ControlHttpResponse, head: boolean): Response {
  const init = { status: response.status, statusText: reasonPhrase(response.status), headers: { ...response.headers } };
  if (response.stream) return new HttpResponse(eventStream(response), init);
  if (response.body === undefined) return new HttpResponse(null, init);
  const body = new TextEncoder().encode(response.body);
  init.headers['content-length'] = String(body.length);
  return new HttpResponse(head ? null : body, init);
}

type Resolver = (info: { request: Request }) => Promise<Response>;

/**
 * A handler for every request under one URL prefix (`${prefix}`, `${prefix}/…`, `${prefix}?…`):
 * a predicate on the URL string and nothing else. msw's `http.all` would parse every request's
 * cookies and match a path pattern for each handler it tries, about 80 µs a request that the mock
 * does not need (the pipeline reads the path itself); measured side by side in `npm run bench --
 * --only msw`. msw's own request log (the browser console's "[MSW] GET … (200 OK)") is kept: it is
 * written by an `http.all` of the same pattern.
 */
class PrefixHandler extends RequestHandler {
  private readonly display: HttpHandler;

  constructor(
    private readonly prefix: string,
    resolver: Resolver,
  ) {
    super({ info: { header: `${prefix}/*` }, resolver: resolver as never });
    this.display = http.all(`${prefix}/*`, resolver);
  }

  predicate({ request }: { request: Request }): boolean {
    const url = request.url;
    if (!url.startsWith(this.prefix)) return false;
    const next = url.charCodeAt(this.prefix.length);
    return Number.isNaN(next) || next === 47 /* / */ || next === 63 /* ? */;
  }

  log(args: { request: Request; response: Response; parsedResult: unknown }): void {
    void this.display.log(args);
  }
}

/** The base URL without a trailing slash; a relative one (`/mock`) is resolved against the page's location, as msw resolves its paths. */
function absoluteBase(baseUrl: string): string {
  const location = (globalThis as { location?: { href?: string } }).location?.href;
  const absolute = /^[a-z][a-z0-9+.-]*:/i.test(baseUrl) || location === undefined ? baseUrl : new URL(baseUrl, location).href;
  return absolute.replace(/\/+$/, '');
}

/**
 * The stateful mock in-process as MSW handlers, with its control plane as typed methods
 * (docs/msw.md, docs/frontend.md).
 *
 * @example
 * import { setupServer } from 'msw/node';
 * import { createMockHandlers } from '@creative-generation/msw';
 *
 * const mock = createMockHandlers({ baseUrl: 'http://api.test' }); // seed 42: acc_demo, mock.demo.keys
 * const server = setupServer(...mock.handlers);
 * server.listen({ onUnhandledRequest: 'error' });
 * const { accountId, keys } = await mock.control.createAccount({ plan: 'growth' });
 * const response = await fetch('http://api.test/api/public/v1/creatives?limit=20', {
 *   headers: { authorization: `Bearer ${keys['all']!.key}` }, // mock.demo!.keys['all']!.key: the same shape
 * });
 * await mock.control.advanceClock(30); // runs progress, webhooks fall due
 * await mock.control.updateAccountFaults(accountId, { forcedRateLimits: 1 }); // the next request answers 429
 * server.close();
 * mock.dispose();
 */
export function createMockHandlers(options: MockHandlersOptions): MockHandlers {
  const baseUrl = absoluteBase(options.baseUrl);
  if (options.apiVersion !== undefined && options.apiVersion !== apiVersion) {
    throw new Error(`createMockHandlers: apiVersion '${options.apiVersion}' asked for, but this process loaded the '${apiVersion}' document (set CGS_API_VERSION=${options.apiVersion} before importing)`);
  }
  // A base URL may have a path of its own (`http://localhost:6006/mock`): the routes below it are the server's.
  const basePathname = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const apiPath = basePathname + basePath;
  const clock = options.clock instanceof Clock ? options.clock : new Clock({ mode: options.clock ?? (options.exam ? 'real' : 'manual') });
  const services = createServices({
    clock,
    publicUrl: baseUrl,
    webhooks: { transport: fetchTransport(options.webhooks?.deliver) },
    ...(options.logError ? { logError: options.logError } : {}),
  });
  // The PNGs and player pages (PNG deflated by CompressionStream where there is no node:zlib); no clips.
  services.media = new MediaService();
  const media = services.media;
  const seed = options.seed === undefined ? 42 : options.seed;
  const controlOptions: ControlOptions = seed === false ? {} : { onReset: (s) => seedDemo(s, seed) };
  if (options.exam && seed === false) throw new Error('createMockHandlers: exam needs the demo account (seed not false)');
  const exam = options.exam;
  let loaded: ScenarioLoaded | undefined;
  let examExpiredKey: string | undefined;
  const seeded = (seed === false ? Promise.resolve() : seedDemo(services, seed)).then(async () => {
    if (!exam) return;
    await typed.startExam(DEMO_ACCOUNT_ID, { seed: exam.seed, ...(exam.rate !== undefined ? { rate: exam.rate } : {}) });
    // The exam's expired key (D171, `demo.keys.expired`): a 401 the client must surface, not retry (CLIENT-019).
    const made = await typed.createKey(DEMO_ACCOUNT_ID, { name: 'exam expired', scopes: ['read'] });
    await typed.expireKey(DEMO_ACCOUNT_ID, made.keyId);
    examExpiredKey = made.key;
  });
  const scenario = options.scenario;
  const ready =
    scenario === undefined
      ? seeded
      : seeded.then(async () => {
          // D221: the scenario loader and the control plane it dispatches to load only when a scenario is given.
          const [{ loadScenario }, { dispatchControl }] = await Promise.all([import('../../mock-core/src/scenario/apply.ts'), import('../../mock-core/src/control/routes.ts')]);
          loaded = await loadScenario({ services, startsMock: true, dispatch: (request) => dispatchControl(services, controlOptions, { ...request, headers: {} }) }, scenario, 'the scenario option');
        });
  const typed = createControl(services, controlOptions);
  const control = Object.assign(typed, {
    /** The judgement of the demo account's requests so far (rejects when no exam runs). */
    examReport: () => typed.getExamReport(DEMO_ACCOUNT_ID, {}) as Promise<ExamRuleReport>,
  });

  const api = async ({ request }: { request: Request }): Promise<Response> => {
    await ready;
    const url = new URL(request.url);
    const head = request.method === 'HEAD';
    const raw: RawRequest = {
      // HEAD is answered as GET without a body (RFC 9110 9.3.2), as the server's front does.
      method: head ? 'GET' : request.method,
      path: url.pathname.slice(apiPath.length) || '/',
      fullPath: basePath + url.pathname.slice(apiPath.length),
      query: toQuery(url.searchParams),
      headers: headersOf(request),
      body: undefined,
      ip: '127.0.0.1',
    };
    const body = await bodyOf(request);
    if (body !== undefined && body.length > BODY_LIMIT_BYTES) raw.refused = new ApiError('PAYLOAD_TOO_LARGE', `Request bodies are limited to ${BODY_LIMIT_BYTES} bytes.`);
    else raw.body = body as RawRequest['body'];
    const response = await runPipeline(services, raw);
    // the client exam's dropped connection (D170): the write was applied, the client gets a network error
    if (connectionDropped(response)) return HttpResponse.error();
    return toResponse(response, head);
  };

  const controlPlane = async ({ request }: { request: Request }): Promise<Response> => {
    await ready;
    const url = new URL(request.url);
    const head = request.method === 'HEAD';
    const method = head ? 'GET' : request.method;
    const body = await bodyOf(request);
    // The control plane (its document, validators and handlers) loads on its first request (D221).
    const { dispatchControl } = await import('../../mock-core/src/control/routes.ts');
    const response = await dispatchControl(services, controlOptions, {
      method,
      url: url.pathname.slice(basePathname.length) + url.search,
      headers: headersOf(request),
      body,
      signal: request.signal,
    });
    return controlResponse(response, head);
  };

  const hooksPlane = async ({ request }: { request: Request }): Promise<Response> => {
    await ready;
    const url = new URL(request.url);
    const head = request.method === 'HEAD';
    // The hooks plane (its document and validators, about 50 KiB of a browser bundle) loads on its first request.
    const { dispatchHooks } = await import('../../mock-core/src/hooks/routes.ts');
    const response = await dispatchHooks(services, controlOptions, {
      method: head ? 'GET' : request.method,
      url: url.pathname.slice(basePathname.length) + url.search,
      headers: headersOf(request),
      body: await bodyOf(request),
      signal: request.signal,
    });
    return controlResponse(response, head);
  };

  const mediaFiles = async ({ request }: { request: Request }): Promise<Response> => {
    const url = new URL(request.url);
    const head = request.method === 'HEAD';
    const answer = await answerMedia(media, request.method, url.pathname.slice(basePathname.length), request.headers.get('if-none-match') ?? undefined);
    const empty = head || answer.status === 304 || answer.body === undefined;
    return new HttpResponse(empty ? null : (answer.body as Uint8Array<ArrayBuffer>), { status: answer.status, statusText: reasonPhrase(answer.status), headers: answer.headers });
  };

  const apiBase = `${baseUrl}${basePath}`;
  const handlers: RequestHandler[] = [new PrefixHandler(apiBase, api), new PrefixHandler(`${baseUrl}/__mock`, controlPlane), new PrefixHandler(`${baseUrl}/__hooks`, hooksPlane), new PrefixHandler(`${baseUrl}/media`, mediaFiles)];

  const demo =
    seed === false
      ? undefined
      : {
          accountId: DEMO_ACCOUNT_ID,
          get keys(): Record<string, DemoKey> {
            const named: [string, string][] = [...demoKeys(services, seed), ...(examExpiredKey !== undefined ? [['expired', examExpiredKey] as [string, string]] : [])];
            return Object.fromEntries(
              named.map(([name, key]): [string, DemoKey] => {
                const record = services.store.keysByHash.get(hashKey(key))!;
                return [name, { keyId: record.keyId, key, scopes: [...record.scopes] }];
              }),
            );
          },
        };

  return {
    handlers,
    control,
    services,
    demo,
    ready,
    get scenario() {
      return loaded;
    },
    dispose() {
      services.feed.closeAll();
      services.leases.dispose();
      services.clock.dispose();
    },
  };
}
