/**
 * Builds the HTTP app. The HTTP layer only parses, calls and serialises: every public request goes
 * through `runPipeline` (mock/pipeline/index.ts), every control request through mock/control/.
 * Bodies are read raw (any content type, up to 1 MiB) so that the pipeline, not fastify, decides
 * what is malformed and answers in the contract's problem+json shape.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { basePath } from '../spec/contract.ts';
import { Clock } from './clock.ts';
import type { ControlOptions } from './control/http.ts';
import { registerControlRoutes } from './control/routes.ts';
import type { Defects } from './defects.ts';
import { ApiError } from './errors.ts';
import { EventLog } from './events/log.ts';
import { WebhookService, type WebhookOptions } from './events/webhooks.ts';
import { handlers } from './handlers.ts';
import { runPipeline, type PipelineServices } from './pipeline/index.ts';
import { bodyBytes, errorResponse, withRateLimitHeaders } from './pipeline/respond.ts';
import { rateLimit } from './pipeline/rate-limit.ts';
import { ResponseCache, type ResponseCacheOptions } from './pipeline/response-cache.ts';
import type { HandlerTable, RawRequest, RawResponse } from './pipeline/types.ts';
import { Limiter } from './ratelimit/limiter.ts';
import { Store } from './store.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface MockOptions {
  clock?: Clock;
  store?: Store;
  /** Replace the handler table (pipeline tests use probe handlers). */
  handlers?: HandlerTable;
  /** Log unexpected errors (default: console.error). */
  logError?: (error: unknown, context: string) => void;
  /** Injected contract violations (`--defect NAME`); default none. */
  defects?: Defects;
  /** Webhook delivery options (tests pass a fake transport). */
  webhooks?: WebhookOptions;
  /** What the control plane needs from the process (reset re-seed, the --state file). */
  control?: ControlOptions;
  /** The kept bytes of cacheable reads (default on, not verified). */
  responseCache?: ResponseCacheOptions;
}

/** The pipeline's services plus what the control plane reads. */
export type MockServices = PipelineServices & { defects: Defects; webhooks: WebhookService };

export interface Mock {
  app: FastifyInstance;
  services: MockServices;
}

export function buildMock(options: MockOptions = {}): Mock {
  const store = options.store ?? new Store();
  const clock = options.clock ?? new Clock({ mode: 'manual' });
  const events = new EventLog();
  const logError = options.logError ?? ((error: unknown, context: string) => console.error(`[mock] unexpected error in ${context}:`, error));
  const services: MockServices = {
    store,
    clock,
    limiter: new Limiter(),
    events,
    handlers: options.handlers ?? handlers,
    responses: new ResponseCache(options.responseCache),
    logError,
    defects: options.defects ?? new Set(),
    // Signed webhooks: listens to the event log, delivers over real HTTP on the clock's schedule.
    webhooks: new WebhookService({ store, clock, events, logError, defects: options.defects }, options.webhooks),
  };

  /** A response for what fastify refuses before routing: problem+json with the per-IP RateLimit headers. */
  const edge = (error: ApiError, request: { url?: string; ip?: string }): RawResponse => {
    const instance = (request.url ?? '/').split('?')[0] ?? '/';
    const decision = rateLimit(services.limiter, services.store, { operation: undefined, ip: request.ip ?? 'unknown' }, services.clock.now());
    return withRateLimitHeaders(errorResponse(error, undefined, instance, 'req_edge'), decision);
  };

  const app = Fastify({
    bodyLimit: BODY_LIMIT_BYTES,
    logger: false,
    // A URL fastify cannot decode (a broken percent-escape) still answers in the contract's shape.
    frameworkErrors: (error, request, reply) => {
      send(reply, edge(new ApiError('VALIDATION_ERROR', `The request URL is malformed: ${error.message}`, { extensions: { errors: [{ field: 'path', message: 'is not a valid URL component' }] } }), request));
    },
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => done(null, body));

  // The API's handler: the reply is hijacked at once (the pipeline's answer is written on the raw
  // response, writeRaw), and no promise is handed back to fastify to track.
  const api = (request: FastifyRequest, reply: FastifyReply): void => {
    reply.hijack();
    // runPipeline answers every error itself: only a bug in the mock gets to `failed` (a throw
    // here, a rejection, or a header value it built wrongly), reported and answered 500.
    const failed = (error: unknown) => {
      services.logError(error, `${request.method} ${request.url}`);
      if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      reply.raw.end('Internal Server Error: the mock failed to write its answer.\n');
    };
    let raw: RawRequest;
    try {
      const { pathname, searchParams } = splitUrl(request.url);
      raw = {
        // HEAD is answered as GET without a body (RFC 9110 9.3.2).
        method: request.method === 'HEAD' ? 'GET' : request.method,
        path: pathname.slice(basePath.length) || '/',
        fullPath: pathname,
        query: toQuery(searchParams),
        headers: requestHeaders(request.headers),
        body: Buffer.isBuffer(request.body) ? request.body : undefined,
        ip: request.ip,
      };
    } catch (error) {
      return failed(error);
    }
    runPipeline(services, raw)
      .then((response) => writeRaw(reply, response))
      .catch(failed);
  };
  app.route({ method: ['GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'HEAD', 'OPTIONS'], url: `${basePath}/*`, handler: api });
  app.route({ method: ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'], url: basePath, handler: api });

  registerControlRoutes(app, services, options.control);

  // Anything fastify itself refuses (an oversized body, a broken request line) still answers in the
  // contract's problem+json shape.
  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const instance = request.url.split('?')[0] ?? request.url;
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) {
      return send(reply, edge(new ApiError('PAYLOAD_TOO_LARGE', `Request bodies are limited to ${BODY_LIMIT_BYTES} bytes.`), request));
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return send(reply, edge(new ApiError('VALIDATION_ERROR', error.message, { extensions: { errors: [{ field: 'request', message: error.message }] } }), request));
    }
    services.logError(error, `${request.method} ${instance}`);
    return reply.status(500).type('application/problem+json').send({ type: '/errors/INTERNAL_ERROR', title: 'Internal Server Error', status: 500, code: 'INTERNAL_ERROR', requestId: 'req_edge' });
  });
  app.setNotFoundHandler((request, reply) => {
    const instance = request.url.split('?')[0] ?? request.url;
    send(reply, edge(new ApiError('NOT_FOUND', `No route at ${instance}; the API lives under ${basePath} and the control plane under /__mock.`), request));
  });
  app.addHook('onClose', async () => services.clock.dispose());

  return { app, services };
}

/**
 * Write the pipeline's answer on the node:http response as it is: its status, its headers (the
 * media types already name their charset), its Content-Length and its bytes, nothing added. The
 * reply is hijacked, so fastify's send path (content-type parsing, header copies) is skipped on
 * the API's hot path; a HEAD answer has no body (node drops it) and the length of the GET's.
 */
function writeRaw(reply: FastifyReply, response: RawResponse): void {
  const body = bodyBytes(response.body);
  response.headers['content-length'] = String(body.length);
  reply.raw.writeHead(response.status, response.headers);
  reply.raw.end(body);
}

function send(reply: FastifyReply, response: RawResponse): void {
  reply.status(response.status).headers(response.headers).send(response.body);
}

// A path the WHATWG URL parser would leave exactly as sent: plain characters, no dot segment.
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

/** The path and query of a request target, as `new URL(target, base)` gives them (without it, for plain paths). */
export function splitUrl(target: string): { pathname: string; searchParams: URLSearchParams } {
  const mark = target.indexOf('?');
  const path = mark === -1 ? target : target.slice(0, mark);
  if (PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path)) {
    const hash = mark === -1 ? -1 : target.indexOf('#', mark);
    const search = mark === -1 ? '' : target.slice(mark + 1, hash === -1 ? undefined : hash);
    return { pathname: path, searchParams: new URLSearchParams(search) };
  }
  const url = new URL(target, 'http://mock.invalid');
  return { pathname: url.pathname, searchParams: url.searchParams };
}

function toQuery(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of params) {
    const existing = out[name];
    if (existing === undefined) out[name] = value;
    else out[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

/**
 * The request headers as the pipeline reads them (lower-case names, one string each). node:http
 * already lower-cases every name and joins repeated fields, so the object is used as it is unless
 * a field arrived as a list (set-cookie), which is then joined into a copy.
 */
function requestHeaders(headers: FastifyRequest['headers']): Record<string, string | undefined> {
  let plain = true;
  for (const name in headers) {
    if (typeof headers[name] !== 'string') {
      plain = false;
      break;
    }
  }
  if (plain) return headers as Record<string, string | undefined>;
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}
