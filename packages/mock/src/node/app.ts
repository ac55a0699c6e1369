/**
 * Builds the HTTP app: one node:http server whose requests first meet packages/mock/src/web/ (a CORS preflight
 * answered, the CORS headers set, /docs/ served), then those under /media/ get the bytes behind the
 * URLs the mock hands out (packages/mock-core/src/media/serve.ts: no key, no pipeline), those under the API prefix go
 * to the API's front (packages/mock/src/node/front.ts: straight to `runPipeline`, packages/mock-core/src/pipeline/index.ts) and every
 * other request to fastify, which serves the control plane (packages/mock-core/src/control/) and answers unknown paths. Bodies are
 * read raw (any content type, up to 1 MiB) so that the pipeline, not the HTTP layer, decides what
 * is malformed and answers in the contract's problem+json shape.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import inject, { type InjectOptions, type Response as InjectResponse } from 'light-my-request';
import { basePath } from '../../../contract/spec/contract.ts';
import type { Clock } from '../../../mock-core/src/core/clock.ts';
import { createServices, type CoreOptions, type MockServices } from '../../../mock-core/src/services/services.ts';
import type { ControlOptions } from '../../../mock-core/src/control/types.ts';
import { registerConsole } from '../console/serve.ts';
import { registerControlRoutes } from '../../../mock-core/src/control/routes.ts';
import { registerHooksRoutes } from '../../../mock-core/src/hooks/routes.ts';
import { ApiError, reasonPhrase } from '../../../mock-core/src/core/errors.ts';
import { answerInternalError, apiFront, BODY_LIMIT_BYTES, discardRest, edgeResponse, isApiTarget, LINGER_MAX_BYTES, LINGER_MAX_MS, malformedUrl, nodeBytes } from './front.ts';
import { originOf } from '../../../mock-core/src/media/links.ts';
import { clipFile, mediaListener } from '../../../mock-core/src/media/node.ts';
import { MediaService, type MediaOptions } from '../../../mock-core/src/media/serve.ts';
import { httpTransport } from '../../../mock-core/src/events/transport.ts';
import { saveStateFile } from './persistence.ts';
import { accountOfPath, isSafeMethod } from './state-journal.ts';
import { nextRequestId } from '../../../mock-core/src/pipeline/index.ts';
import { errorResponse } from '../../../mock-core/src/pipeline/respond.ts';
import { internalErrorResponse, PROBLEM_TYPE } from '../../../mock-core/src/core/problem.ts';
import type { RawResponse } from '../../../mock-core/src/pipeline/types.ts';
import { webFront, type WebOptions } from '../web/index.ts';

export interface MockOptions extends CoreOptions {
  /** The rendered-media cache and render concurrency (packages/mock-core/src/media/serve.ts). */
  media?: MediaOptions;
  /** What the control plane needs from the process (reset re-seed, the --state file). */
  control?: ControlOptions;
  /**
   * The origin (and optional path prefix) media URLs are handed out on (`--public-url`), for a
   * mock reached through another host or port. Default: the origin the server listens on
   * (`http://localhost` until it listens, for in-process requests).
   */
  publicUrl?: string;
  /** CORS (default on, any origin) and /docs/ (packages/mock/src/web/). */
  web?: WebOptions;
  /** How long a client may take to send a request (D247); a test passes small values. */
  timeouts?: RequestTimeouts;
}

/**
 * node:http's request timeouts (D247): the whole request (headers and body) must have arrived
 * within `requestMs`, its headers within `headersMs`; a request that did not is answered 408
 * `REQUEST_TIMEOUT` in problem+json where an answer is still possible, and its connection closed.
 * They bound receiving a request only: an answer that lasts (the change feed's event stream) is
 * not cut, nor is an idle keep-alive connection between requests (keepAliveTimeout is that).
 */
export interface RequestTimeouts {
  /** Default 30,000 ms. */
  requestMs?: number;
  /** Default 20,000 ms (at most requestMs). */
  headersMs?: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_HEADERS_TIMEOUT_MS = 20_000;

export type { MockServices } from '../../../mock-core/src/services/services.ts';

export interface Mock {
  /** The server's fastify instance: `listen` and `close` serve and stop the whole mock (API included). */
  app: FastifyInstance;
  services: MockServices;
  /**
   * An in-process request (no socket, light-my-request) through the same listener the server runs:
   * the API's front, then fastify. Use this, not `app.inject`, which only reaches fastify's routes.
   */
  inject(options: InjectOptions): Promise<InjectResponse>;
}

export function buildMock(options: MockOptions = {}): Mock {
  // The node adapter's parts of the core: webhooks over real HTTP, the media, the --state file.
  const services = createServices({ ...options, webhooks: { ...options.webhooks, transport: options.webhooks?.transport ?? httpTransport } });
  services.media = new MediaService({ clip: clipFile, ...options.media });
  const control: ControlOptions = { saveStateFile, ...options.control };
  const { store, logError } = services;

  const web = webFront(options.web ?? {}, { clock: services.clock, publicUrl: options.publicUrl });
  // `--state` (serve.ts sets services.durability): the answer to a write waits for the journal (D248).
  const front = apiFront(services, (method) => (services.durability && !isSafeMethod(method) ? services.durability.settle() : undefined));
  const media = mediaListener(services.media, (req, res, error) => answerInternalError(logError, req, res, error));
  const edge = (error: ApiError, request: { url?: string; ip?: string }): RawResponse => edgeResponse(services, error, request.url, request.ip);

  // One listener for the socket and for inject: CORS and /docs/ (packages/mock/src/web/), the media, the API's
  // front, or else fastify's routing.
  let routing: http.RequestListener | undefined;
  const listener: http.RequestListener = (req, res) => {
    // What a handler throws, synchronously or by rejection, is a bug of the mock: a logged 500
    // problem+json, and the server stays up (issue #34). fastify answers its own routes' failures.
    try {
      // D75, RFC 9112 3.2.2: a server MUST accept the absolute form of a request target; it is
      // answered as its origin form (path and query), the same for every door below, and its host
      // is the request's: the Host header is ignored (so the Host guard of D245 judges that host).
      if (req.url !== undefined && ABSOLUTE_FORM.test(req.url)) {
        const authority = authorityOf(req.url);
        if (authority !== undefined) req.headers.host = authority;
        req.url = originForm(req.url);
      }
      if (web(req, res) || media(req, res) || front(req, res)) return;
      const routed: unknown = routing!(req, res);
      if (routed instanceof Promise) routed.catch((error: unknown) => answerInternalError(logError, req, res, error));
    } catch (error) {
      answerInternalError(logError, req, res, error);
    }
  };
  const app = Fastify({
    bodyLimit: BODY_LIMIT_BYTES,
    logger: false,
    // Keep-alive 72 s (fastify's default), and the request timeouts of D247.
    serverFactory: (handler) => {
      routing = handler;
      const requestTimeout = options.timeouts?.requestMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
      const headersTimeout = Math.min(options.timeouts?.headersMs ?? DEFAULT_HEADERS_TIMEOUT_MS, requestTimeout);
      // node checks the timeouts every connectionsCheckingInterval (default 30 s): a quarter of the
      // shorter one keeps a timeout within 25 % of its value.
      const connectionsCheckingInterval = Math.max(10, Math.min(30_000, Math.floor(headersTimeout / 4)));
      const server = http.createServer({ requestTimeout, headersTimeout, connectionsCheckingInterval }, listener);
      // Media URLs name the origin the server listens on unless --public-url said otherwise; the
      // kept answers named the previous one.
      server.on('listening', () => {
        const address = server.address();
        if (options.publicUrl !== undefined || typeof address !== 'object' || address === null) return;
        store.publicOrigin = originOf(address);
        services.responses.clear();
      });
      server.keepAliveTimeout = 72_000;
      return server;
    },
    // A URL fastify cannot decode (a broken percent-escape) still answers in the contract's shape.
    frameworkErrors: (error, request, reply) => {
      send(reply, edge(malformedUrl(error.message), request));
    },
    // What node's parser refuses before any listener runs (headers or a URL over node's 16 KiB,
    // a broken request line, a header timeout): problem+json too, then a lingering close.
    clientErrorHandler: (error: Error & { code?: string }, socket) => clientError(services.clock, error, socket),
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => done(null, body));

  registerControlRoutes(app, services, control);
  registerHooksRoutes(app, services, control);
  app.addHook('onClose', async () => services.leases.dispose());
  registerConsole(app);

  // Anything fastify itself refuses (an oversized body, a broken request line) still answers in the
  // contract's problem+json shape.
  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const instance = request.url.split('?')[0] ?? request.url;
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) {
      // As on the API (front.ts): the rest of the body is read and discarded before the answer.
      const response = edge(new ApiError('PAYLOAD_TOO_LARGE', `Request bodies are limited to ${BODY_LIMIT_BYTES} bytes.`), request);
      response.headers.connection = 'close';
      return new Promise<FastifyReply>((resolve) => discardRest(request.raw, services.clock, () => resolve(reply.status(response.status).headers(response.headers).send(response.body))));
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return send(reply, edge(new ApiError('VALIDATION_ERROR', error.message, { extensions: { errors: [{ field: 'request', message: error.message }] } }), request));
    }
    services.logError(error, `${request.method} ${instance}`);
    return send(reply, internalErrorResponse(instance, nextRequestId()));
  });
  app.setNotFoundHandler((request, reply) => {
    const instance = request.url.split('?')[0] ?? request.url;
    // Only `app.inject` can bring an API request here (the server's listener hands every one to
    // the front): a test that would see a 404 for a route that exists is told why instead.
    if (isApiTarget(request.url)) services.logError(new Error(`${request.method} ${request.url} reached fastify: API requests go through mock.inject or the server, not app.inject`), 'routing');
    send(reply, edge(new ApiError('NOT_FOUND', `No route at ${instance}; the API lives under ${basePath} and the control plane under /__mock.`), request));
  });
  // fastify's answers (the control plane, unknown paths) carry the same reason phrases as the API's.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.raw.statusMessage = reasonPhrase(reply.statusCode);
    return payload;
  });
  // `--state`: the control plane's and the hooks' answers to writes wait for the journal (D248).
  // A journal that cannot be written (a full disk) leaves the write unacknowledged: 503 problem+json.
  app.addHook('onSend', async (request, reply, payload) => {
    if (!services.durability || isSafeMethod(request.method)) return payload;
    try {
      await services.durability.settle(accountOfPath(request.url));
      return payload;
    } catch (error) {
      services.logError(error, `--state journal, ${request.method} ${request.url}`);
      const refused = edge(new ApiError('SERVICE_UNAVAILABLE', 'The mock could not write this change to its --state journal (is the disk full?); it is not acknowledged.', { retryAfter: 5 }), request);
      reply.status(refused.status).headers(refused.headers);
      reply.raw.statusMessage = reasonPhrase(refused.status);
      return refused.body;
    }
  });
  // Open streams never end by themselves: close them before the server waits for its connections.
  app.addHook('preClose', async () => services.feed.closeAll());
  // An advance under way (a hung webhook receiver, a long drill) ends now, so its request is answered
  // and the close does not wait on it (D252).
  app.addHook('preClose', async () => services.clock.dispose());

  return {
    app,
    services,
    async inject(injectOptions) {
      await app.ready(); // every route is in place
      return inject(listener, injectOptions);
    },
  };
}

/**
 * node:http's `clientError`: a request its parser refused before any listener ran. Answered in the
 * contract's shape (431 `HEADERS_TOO_LARGE` for headers or a URL over node's limit, 408
 * `REQUEST_TIMEOUT` for headers or a body that did not arrive in time (D247), else 400
 * `VALIDATION_ERROR`), written on the socket as node would, then a lingering close: what the client
 * still sends is read and discarded (bounded) before the socket closes, so it reads the answer
 * instead of a reset. When an answer is already under way on the socket, it is only closed.
 */
function clientError(clock: Clock, error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // node's own rule (socketOnError): no answer of ours over one already started on this socket.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (inFlight?.headersSent) return void socket.destroy();
  const refused =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError('HEADERS_TOO_LARGE', 'The request line and headers exceed 16 KiB.')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ApiError('REQUEST_TIMEOUT', inFlight ? 'The request body did not arrive in time.' : 'The request headers did not arrive in time.')
        : new ApiError('VALIDATION_ERROR', `The request could not be parsed: ${error.code ?? error.message}.`, { extensions: { errors: [{ field: 'request', message: 'is not a valid HTTP/1.1 request' }] } });
  // No request was parsed: no instance to name and no RateLimit headers (nothing was counted, D51).
  const { instance: _unknown, ...problem } = JSON.parse(String(errorResponse(refused, undefined, '', nextRequestId()).body)) as Record<string, unknown>;
  const response = { status: refused.status, body: JSON.stringify(problem) };
  const body = nodeBytes(response.body);
  const head = [`HTTP/1.1 ${response.status} ${reasonPhrase(response.status)}`, `content-type: ${PROBLEM_TYPE}`, `content-length: ${body.length}`, 'connection: close', '', ''].join('\r\n');
  if (!socket.writable) return void socket.destroy();
  let discarded = 0;
  const close = () => {
    timer.cancel();
    socket.destroy();
  };
  const timer = clock.wallTimer(LINGER_MAX_MS, close);
  socket.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_MAX_BYTES) close();
  });
  socket.once('end', close);
  socket.once('error', close);
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  socket.resume();
}

function send(reply: FastifyReply, response: RawResponse): void {
  reply.status(response.status).headers(response.headers).send(response.body);
}

/** `http://host[:port]/path?query`: a request target in absolute form (RFC 9112 3.2.2). */
const ABSOLUTE_FORM = /^https?:\/\//i;

/** The host and port of an absolute-form target, or undefined when it does not parse. */
function authorityOf(target: string): string | undefined {
  try {
    return new URL(target).host || undefined;
  } catch {
    return undefined;
  }
}

/** The origin form (path and query) of an absolute-form target; unchanged when it does not parse. */
function originForm(target: string): string {
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return target;
  }
}
