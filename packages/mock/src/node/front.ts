/**
 * The public API's front: a node:http request listener that takes every request under the API
 * prefix straight to the pipeline (packages/mock-core/src/pipeline/index.ts) and writes its answer on the raw
 * response. Everything else (the control plane under /__mock, unknown paths) goes on to fastify.
 * How it works and what it decides: docs/internals.md, "packages/mock/src/node/front.ts".
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basePath } from '../../../contract/spec/contract.ts';
import type { Clock } from '../../../mock-core/src/core/clock.ts';
import { ApiError, reasonPhrase } from '../../../mock-core/src/core/errors.ts';
import { internalErrorResponse } from '../../../mock-core/src/core/problem.ts';
import { nextRequestId, runPipeline, type PipelineServices } from '../../../mock-core/src/pipeline/index.ts';
import { rateLimit } from '../../../mock-core/src/pipeline/rate-limit.ts';
import { errorResponse, withRateLimitHeaders } from '../../../mock-core/src/pipeline/respond.ts';
import { toQuery } from '../../../mock-core/src/pipeline/query.ts';
import type { RawRequest, RawResponse } from '../../../mock-core/src/pipeline/types.ts';
import { connectionDropped } from '../../../mock-core/src/exam/session.ts';

export { toQuery };

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** A lingering close reads and discards at most this much of a refused body... */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024;
/** ...for at most this long (real time), then answers and closes whatever is still coming. */
export const LINGER_MAX_MS = 5_000;

/** Methods whose body is never read (fastify's `bodyless`); every other method's is. */
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE']);

/**
 * A response for a request outside the API that fastify refuses (a broken URL, an oversized body, no
 * route at all): problem+json with its own request id and the per-IP RateLimit headers of a request
 * that reached no operation (`x-unmatched-request`, D51).
 */
export function edgeResponse(services: PipelineServices, error: ApiError, url: string | undefined, ip: string | undefined): RawResponse {
  const instance = (url ?? '/').split('?')[0] ?? '/';
  const decision = rateLimit(services.limiter, services.store, { operation: undefined, ip: ip ?? 'unknown' }, services.clock.now(), services.clock.wallNow());
  return withRateLimitHeaders(errorResponse(error, undefined, instance, nextRequestId()), decision);
}

/**
 * The answer to a bug of the mock (a handler that threw or rejected, an answer it could not write):
 * reported through `logError`, then 500 problem+json (INTERNAL_ERROR) when nothing was sent yet;
 * when the headers already went out, only this request's socket is destroyed (the client sees a
 * cut answer, never a wrong one). Never throws: the server stays up.
 */
export function answerInternalError(logError: (error: unknown, context: string) => void, req: IncomingMessage, res: ServerResponse, error: unknown): void {
  const instance = (req.url ?? '/').split('?')[0] ?? '/';
  try {
    logError(error, `${req.method ?? 'GET'} ${instance}`);
  } catch {
    // a logger that throws must not take the server down either
  }
  if (res.writableEnded) return;
  if (res.headersSent) return void res.destroy();
  try {
    const answer = internalErrorResponse(instance, nextRequestId());
    const body = nodeBytes(answer.body);
    res.writeHead(500, reasonPhrase(500), { ...answer.headers, 'content-length': String(body.length) });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch {
    res.destroy();
  }
}

/**
 * A lingering close: reads and discards what remains of a refused request body, then calls `done`
 * once, when the client has sent it all, or after LINGER_MAX_BYTES more bytes or LINGER_MAX_MS of
 * real time, whichever comes first. Answering only then means the connection is not closed under a
 * client still sending (which gets a reset, EPIPE, instead of the answer).
 */
export function discardRest(req: IncomingMessage, clock: Clock, done: () => void): void {
  if (req.complete || req.readableEnded || req.destroyed) return void done();
  let discarded = 0;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    timer.cancel();
    req.removeListener('data', onData);
    req.removeListener('end', finish);
    req.removeListener('error', finish);
    req.removeListener('close', finish);
    done();
  };
  const onData = (chunk: Buffer | string) => {
    discarded += chunk.length;
    if (discarded > LINGER_MAX_BYTES) finish();
  };
  const timer = clock.wallTimer(LINGER_MAX_MS, finish);
  req.on('data', onData);
  req.on('end', finish);
  req.on('error', finish);
  req.on('close', finish);
  req.resume();
}

/** A request target whose path cannot be decoded: 400 naming the path (the front's and fastify's). */
export function malformedUrl(reason: string): ApiError {
  return new ApiError('VALIDATION_ERROR', `The request URL is malformed: ${reason}`, { extensions: { errors: [{ field: 'path', message: 'is not a valid URL component' }] } });
}

/** Whether a request target belongs to the public API (`/api/public/v1`, `/api/public/v1/…`, `/api/public/v1?…`). */
export function isApiTarget(url: string): boolean {
  if (!url.startsWith(basePath)) return false;
  const next = url.charCodeAt(basePath.length);
  return Number.isNaN(next) || next === 47 /* / */ || next === 63 /* ? */;
}

/**
 * The listener: answers a request under the API prefix and returns true, or returns false and
 * leaves the request untouched for the next listener.
 */
export function apiFront(services: PipelineServices, durable: (method: string) => Promise<void> | undefined = () => undefined): (req: IncomingMessage, res: ServerResponse) => boolean {
  // runPipeline answers every error itself: only a bug in the mock gets here (a throw, a
  // rejection, or a header value it built wrongly), reported and answered 500.
  const failed = (req: IncomingMessage, res: ServerResponse, error: unknown): void => answerInternalError(services.logError, req, res, error);
  const batch = new WriteBatch(failed);
  const journalRefused = (error: unknown, raw: RawRequest): RawResponse => {
    services.logError(error, `--state journal, ${raw.method} ${raw.fullPath}`);
    return edgeResponse(services, new ApiError('SERVICE_UNAVAILABLE', 'The mock could not write this change to its --state journal (is the disk full?); it is not acknowledged. Retry with the same Idempotency-Key.', { retryAfter: 5 }), raw.fullPath, raw.ip);
  };
  const answer = (req: IncomingMessage, res: ServerResponse, raw: RawRequest): void => {
    runPipeline(services, raw)
      // `--state`: the answer to a write waits until the write is on disk (D248); reads never wait
      // A journal that cannot be written (a full disk) leaves the write unacknowledged: 503 problem+json, never a 500.
      .then((response) => durable(raw.method)?.then(() => response, (error: unknown) => journalRefused(error, raw)) ?? response)
      // the client exam's dropped connection (D170): the write was applied, the answer is never sent
      .then((response) => (connectionDropped(response) ? void res.destroy() : batch.push(req, res, response)))
      .catch((error) => failed(req, res, error));
  };
  // A refused body: the pipeline answers it; the answer is written once the rest of the body was
  // read and discarded, and the connection is not reused.
  const refuseBody = (req: IncomingMessage, res: ServerResponse, raw: RawRequest, error: ApiError): void => {
    raw.refused = error;
    let response: RawResponse | undefined;
    let drained = false;
    const write = () => {
      if (response !== undefined && drained) batch.push(req, res, response);
    };
    runPipeline(services, raw)
      .then((answered) => {
        answered.headers.connection = 'close';
        response = answered;
        write();
      })
      .catch((failure) => failed(req, res, failure));
    discardRest(req, services.clock, () => {
      drained = true;
      write();
    });
  };

  return (req, res) => {
    const url = req.url ?? '/';
    if (!isApiTarget(url)) return false;
    let raw: RawRequest;
    try {
      const { pathname, searchParams } = splitUrl(url);
      raw = {
        // HEAD is answered as GET without a body (RFC 9110 9.3.2; node sends no body on HEAD).
        method: req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET'),
        path: pathname.slice(basePath.length) || '/',
        fullPath: pathname,
        query: toQuery(searchParams),
        headers: requestHeaders(req.headers),
        body: undefined,
        ip: req.socket.remoteAddress ?? 'unknown',
      };
      if (pathname.includes('%') && !decodable(pathname)) {
        raw.refused = malformedUrl(`'${pathname}' is not a valid url component`);
        answer(req, res, raw);
        return true;
      }
    } catch (error) {
      failed(req, res, error);
      return true;
    }
    if (BODYLESS.has(req.method ?? 'GET')) {
      answer(req, res, raw);
      return true;
    }
    readBody(req, (error, body) => {
      if (error) return refuseBody(req, res, raw, error);
      raw.body = body;
      answer(req, res, raw);
    });
    return true;
  };
}

/**
 * The request body as fastify's raw-body parser read it: none (undefined) when the request
 * announces none (no Content-Type, no Transfer-Encoding, no or a zero Content-Length), else the
 * bytes. Refused: a Content-Length over the limit (at once) or bytes past it (413), and a body
 * shorter or longer than its Content-Length, or a broken stream (400).
 */
export function readBody(req: IncomingMessage, done: (error: ApiError | undefined, body: Buffer | undefined) => void): void {
  const headers = req.headers;
  const declared = headers['content-length'];
  if (headers['content-type'] === undefined && headers['transfer-encoding'] === undefined && (declared === undefined || declared === '0')) {
    done(undefined, undefined);
    return;
  }
  const length = Number(declared);
  const tooLarge = () => new ApiError('PAYLOAD_TOO_LARGE', `Request bodies are limited to ${BODY_LIMIT_BYTES} bytes.`);
  if (length > BODY_LIMIT_BYTES) {
    done(tooLarge(), undefined);
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  const finish = (error: ApiError | undefined, body: Buffer | undefined) => {
    req.removeListener('data', onData);
    req.removeListener('end', onEnd);
    req.removeListener('error', onError);
    done(error, body);
  };
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    received += bytes.length;
    if (received > BODY_LIMIT_BYTES) return finish(tooLarge(), undefined);
    chunks.push(bytes);
  };
  const onEnd = () => {
    if (!Number.isNaN(length) && received !== length) {
      return finish(new ApiError('VALIDATION_ERROR', 'Request body size did not match Content-Length', { extensions: { errors: [{ field: 'request', message: 'the body size did not match Content-Length' }] } }), undefined);
    }
    finish(undefined, Buffer.concat(chunks, received));
  };
  const onError = (error: Error) => {
    finish(new ApiError('VALIDATION_ERROR', `The request body could not be read: ${error.message}`, { extensions: { errors: [{ field: 'request', message: 'the body could not be read' }] } }), undefined);
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
}

/**
 * The answers of one event-loop turn, written together when the turn's I/O is done (setImmediate
 * runs after the poll phase has read every socket that was ready). Each write to a loopback socket
 * wakes its reader; written one at a time, between the reads, they wake a waiting client once per
 * answer, and the kernel work of those wake-ups lands on the writer's syscall. Written together, a
 * client with many connections wakes once and finds them all ready. An answer waits at most for the
 * requests read in the same turn; a connection still writes its answers in order (node:http keeps
 * a pipelined response behind the one before it).
 *
 * A write that throws (a header value the mock built wrongly) is answered by `failed`, and the
 * rest of the batch is still written.
 */
export class WriteBatch {
  private pending: Array<{ req: IncomingMessage; res: ServerResponse; response: RawResponse }> = [];

  constructor(
    private readonly failed: (req: IncomingMessage, res: ServerResponse, error: unknown) => void,
    private readonly schedule: (flush: () => void) => void = (flush) => void setImmediate(flush),
  ) {}

  get size(): number {
    return this.pending.length;
  }

  push(req: IncomingMessage, res: ServerResponse, response: RawResponse): void {
    if (this.pending.length === 0) this.schedule(() => this.flush());
    this.pending.push({ req, res, response });
  }

  flush(): void {
    const answers = this.pending;
    this.pending = [];
    for (const { req, res, response } of answers) {
      try {
        writeRaw(res, response);
      } catch (error) {
        this.failed(req, res, error);
      }
    }
  }
}

/**
 * Write an answer on the node:http response as it is: its status, its headers (the media types
 * already name their charset), its Content-Length and its bytes, nothing added. A HEAD answer has
 * no body (node drops it) and the length of the GET's. The status line carries the reason phrase
 * the problem `title` gives (ERR-003), not node's older names of 413 and 422.
 */
export function writeRaw(res: ServerResponse, response: RawResponse): void {
  const body = nodeBytes(response.body);
  response.headers['content-length'] = String(body.length);
  res.writeHead(response.status, reasonPhrase(response.status), response.headers);
  res.end(body);
}

/** A body as a Buffer (the bytes of a Uint8Array without a copy), which node:http writes as it is. */
export function nodeBytes(body: string | Uint8Array): Buffer {
  return typeof body === 'string' ? Buffer.from(body) : Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
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


/**
 * The request headers as the pipeline reads them (lower-case names, one string each). node:http
 * already lower-cases every name and joins repeated fields, so the object is used as it is unless
 * a field arrived as a list (set-cookie), which is then joined into a copy.
 */
function requestHeaders(headers: IncomingMessage['headers']): Record<string, string | undefined> {
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
