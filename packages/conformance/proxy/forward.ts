/**
 * The one forwarder of the toolkit (#26 item 4): what every HTTP hop in front of a target shares.
 * The validating proxy (packages/conformance/proxy/server.ts), the defect proxy (packages/conformance/suite/defects/proxy.ts), the
 * rewriting front and the HTTP/2 front (packages/conformance/suite/defects/front.ts) are each this forwarder plus
 * their transforms: the checks, a defect, what a network may rewrite.
 *
 * - one list of the fields of a connection that a hop never forwards (RFC 9110 7.6.1);
 * - `Upstream`: the target, over HTTP/1.1 (or https) through one keep-alive agent, or over HTTP/2
 *   cleartext (h2c) through one session: an exchange streamed (`open`) or buffered (`exchange`);
 * - `listen`: a server on a loopback port (HTTP/1.1, or h2c), and how it closes.
 */
import { Agent as HttpAgent, createServer, request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect as http2Connect, constants as h2, createServer as createH2Server, type ClientHttp2Session, type Http2Server, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';

/** Fields of one connection (RFC 9110 7.6.1), never forwarded; Host names the target instead. */
export const HOP_BY_HOP: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host']);

/** The fields the Connection field names (hop-by-hop too). */
function namedByConnection(connection: string | string[] | undefined): Set<string> {
  const value = Array.isArray(connection) ? connection.join(',') : (connection ?? '');
  return new Set(value.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean));
}

/** Raw field lines (name, value, name, value...) without the hop-by-hop fields and those the Connection field names, in order and case. */
export function forwardable(raw: readonly string[], connection: string | string[] | undefined): string[] {
  const named = namedByConnection(connection);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !named.has(name)) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** Parsed headers (lower-case names) without the hop-by-hop fields, HTTP/2 pseudo-headers and `drop`. */
export function forwardableHeaders(headers: IncomingHttpHeaders, drop: readonly string[] = []): Record<string, string | string[]> {
  const named = namedByConnection(headers['connection']);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name.startsWith(':') || HOP_BY_HOP.has(name) || named.has(name) || drop.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

/** A message's whole body. */
export function readBody(message: import('node:stream').Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => resolve(Buffer.concat(chunks)));
    message.on('error', reject);
  });
}

/** One request to send upstream. Headers as raw field lines (kept in order and case) or an object; Host is set by the upstream. */
export interface UpstreamRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: readonly string[] | OutgoingHttpHeaders;
  body?: Buffer;
}

/** A buffered answer: `statusMessage` is empty over HTTP/2 (it has no reason phrase). */
export interface UpstreamAnswer {
  status: number;
  statusMessage: string;
  /** Field lines in arrival order (HTTP/2: lower-case names, no pseudo-headers). */
  rawHeaders: string[];
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Upstream {
  /** `http://host:port` of the target. */
  readonly origin: string;
  readonly protocol: 'http/1.1' | 'h2c';
  /** A buffered exchange. */
  exchange(request: UpstreamRequest): Promise<UpstreamAnswer>;
  close(): void;
}

/** The target over HTTP/1.1 (http or https), with a streamed exchange for the validating proxy. */
export interface Http1Upstream extends Upstream {
  readonly protocol: 'http/1.1';
  /** A streamed exchange: write the body into the returned request; `onAnswer` gets the answer's head and streams its body. */
  open(request: Omit<UpstreamRequest, 'body'>, onAnswer: (answer: IncomingMessage) => void): ClientRequest;
}

function withHost(headers: UpstreamRequest['headers'], host: string): string[] | OutgoingHttpHeaders {
  if (Array.isArray(headers)) return [...(headers as string[]), 'Host', host];
  return { ...(headers as OutgoingHttpHeaders), host };
}

export function http1Upstream(target: string | URL, options: { maxSockets?: number } = {}): Http1Upstream {
  const url = new URL(target);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`the target must be an http or https URL, not ${String(target)}`);
  const secure = url.protocol === 'https:';
  const agentOptions = { keepAlive: true, ...(options.maxSockets ? { maxSockets: options.maxSockets } : {}) };
  const agent = secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  const send = secure ? httpsRequest : httpRequest;
  const open: Http1Upstream['open'] = (request, onAnswer) =>
    send({ protocol: url.protocol, hostname: url.hostname, port: url.port, method: request.method, path: request.path, agent, headers: withHost(request.headers, url.host) as OutgoingHttpHeaders }, onAnswer);
  return {
    origin: `${url.protocol}//${url.host}`,
    protocol: 'http/1.1',
    open,
    exchange: (request) =>
      new Promise((resolve, reject) => {
        const outgoing = open(request, (answer) => {
          readBody(answer).then(
            (body) => resolve({ status: answer.statusCode ?? 502, statusMessage: answer.statusMessage ?? '', rawHeaders: answer.rawHeaders, headers: answer.headers, body }),
            reject,
          );
        });
        outgoing.on('error', reject);
        outgoing.end(request.body ?? Buffer.alloc(0));
      }),
    close: () => agent.destroy(),
  };
}

/** HTTP/2 has no connection-specific fields at all (RFC 9113 8.2.2): a request carrying one is malformed. */
function h2Headers(headers: UpstreamRequest['headers']): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const add = (name: string, value: string | number | string[] | undefined) => {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower)) return;
    const existing = out[lower];
    out[lower] = existing === undefined ? value : ([] as string[]).concat(existing as string | string[], String(value));
  };
  if (Array.isArray(headers)) for (let i = 0; i < headers.length; i += 2) add(headers[i] as string, headers[i + 1] as string);
  else for (const [name, value] of Object.entries(headers as OutgoingHttpHeaders)) add(name, value as string | number | string[] | undefined);
  // `te: trailers` is the one TE an HTTP/2 request may carry; the rest is the connection's.
  return out;
}

/** The target over HTTP/2 cleartext (prior knowledge): one session, a stream per exchange. */
export function h2cUpstream(target: string | URL): Upstream {
  const url = new URL(target);
  if (url.protocol !== 'http:') throw new Error(`an h2c target is an http URL, not ${String(target)}`);
  let session: ClientHttp2Session | undefined;
  const current = (): ClientHttp2Session => {
    if (!session || session.closed || session.destroyed) {
      const fresh = http2Connect(url.origin);
      fresh.on('error', () => fresh.destroy());
      fresh.on('close', () => {
        if (session === fresh) session = undefined;
      });
      session = fresh;
    }
    return session;
  };
  return {
    origin: url.origin,
    protocol: 'h2c',
    exchange: (request) =>
      new Promise((resolve, reject) => {
        const body = request.body ?? Buffer.alloc(0);
        // Without a body the request ends with its headers (node does so by itself for GET and HEAD).
        const stream = current().request(
          { ...h2Headers(request.headers), [h2.HTTP2_HEADER_METHOD]: request.method, [h2.HTTP2_HEADER_PATH]: request.path, [h2.HTTP2_HEADER_AUTHORITY]: url.host },
          { endStream: body.length === 0 },
        );
        stream.on('error', reject);
        stream.on('response', (head) => {
          const rawHeaders: string[] = [];
          const headers: IncomingHttpHeaders = {};
          for (const [name, value] of Object.entries(head)) {
            if (name.startsWith(':') || value === undefined) continue;
            for (const one of Array.isArray(value) ? value : [value]) rawHeaders.push(name, String(one));
            (headers as Record<string, unknown>)[name] = value;
          }
          readBody(stream).then((body) => resolve({ status: Number(head[h2.HTTP2_HEADER_STATUS] ?? 502), statusMessage: '', rawHeaders, headers, body }), reject);
        });
        if (body.length > 0) stream.end(body);
      }),
    close: () => session?.close(),
  };
}

/** A server on a loopback (or given) port. */
export interface Listening {
  /** `http://HOST:PORT` */
  origin: string;
  port: number;
  address: string;
  /** Stop listening; `force` also ends the connections in use (else only the idle ones). */
  close(options?: { force?: boolean }): Promise<void>;
}

function listening(server: Server | Http2Server, port: number | undefined, host: string | undefined): Promise<{ port: number; address: string; origin: string }> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port ?? 0, host ?? '127.0.0.1', () => {
      const { port: bound, address } = server.address() as AddressInfo;
      resolve({ port: bound, address, origin: `http://${address.includes(':') ? `[${address}]` : address}:${bound}` });
    });
  });
}

/** An HTTP/1.1 server for `handler`. */
export async function listen(handler: RequestListener, options: { port?: number; host?: string; keepAliveTimeout?: number } = {}): Promise<Listening> {
  const server = createServer(handler);
  server.keepAliveTimeout = options.keepAliveTimeout ?? 30_000;
  const bound = await listening(server, options.port, options.host);
  return {
    ...bound,
    close: ({ force = false } = {}) =>
      new Promise<void>((resolve) => {
        if (force) server.closeAllConnections();
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

/** An HTTP/2 cleartext server (prior knowledge, no upgrade) for `handler` (the compatibility API). */
export async function listenH2c(handler: (request: Http2ServerRequest, response: Http2ServerResponse) => void, options: { port?: number; host?: string } = {}): Promise<Listening> {
  const server = createH2Server(handler);
  const sessions = new Set<import('node:http2').ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  const bound = await listening(server, options.port, options.host);
  return {
    ...bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.close();
      }),
  };
}
