/**
 * The fault-injecting proxy: a loopback HTTP server in front of the mock that forwards every request
 * (the public API and the /__mock control plane) and applies ONE named defect of the catalogue to
 * the public API's requests and answers. Without a defect it is a faithful pass-through, which is
 * how scripts/prove-defects.ts shows that the selected tests pass when nothing is broken.
 *
 * Bodies are buffered (the API's are small); hop-by-hop headers are not forwarded; the control
 * plane is never altered, so the suite's fixtures (accounts, keys, clock) keep working.
 */
import { createServer, request as httpRequest, Agent, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contextOf, type Defect } from './catalogue.ts';
import type { Headers, ProxyRequest, ProxyResponse } from './exchange.ts';
import { DefectMemory } from './memory.ts';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'content-length', 'host']);

function flatten(headers: IncomingHttpHeaders, keepLength = false): Headers {
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || (HOP_BY_HOP.has(name) && !(keepLength && name === 'content-length'))) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function readBody(message: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => resolve(Buffer.concat(chunks)));
    message.on('error', reject);
  });
}

/**
 * Apply `defect` to one exchange: `forward` sends a request to the real target. Pure apart from
 * `forward` and the memory, so proxy.test.ts runs it with a fake target.
 */
export async function exchange(
  defect: Defect | undefined,
  memory: DefectMemory,
  request: ProxyRequest,
  forward: (request: ProxyRequest) => Promise<ProxyResponse>,
): Promise<ProxyResponse> {
  const context = defect?.via === 'proxy' ? contextOf(request, memory) : undefined;
  const sent = context && defect?.request ? defect.request(request, context) : request;
  const response = await forward(sent);
  if (!context) return response;
  const answered = defect?.response ? defect.response(response, context) : response;
  memory.observe(request, response);
  return answered;
}

export interface Proxy {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** Exchanges forwarded so far (public API and control plane). */
  readonly forwarded: number;
  close(): Promise<void>;
}

/** Start a proxy on a free loopback port in front of `target` (`http://127.0.0.1:PORT`). */
export async function startProxy(target: string, defect: Defect | undefined): Promise<Proxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const memory = new DefectMemory();
  let forwarded = 0;

  /** Send `request`; its body as the client's exact bytes (`raw`) unless a defect changed it. */
  const forward = (request: ProxyRequest, raw: { text: string; bytes: Buffer }): Promise<ProxyResponse> =>
    new Promise((resolve, reject) => {
      const body = request.body === raw.text ? raw.bytes : Buffer.from(request.body, 'utf8');
      const outgoing = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: request.method,
          path: request.url,
          agent,
          headers: { ...request.headers, host: upstream.host, ...(body.length > 0 || request.method !== 'GET' ? { 'content-length': String(body.length) } : {}) },
        },
        (incoming) => {
          // A HEAD answer keeps the length of the body it does not carry (RFC 9110 9.3.2).
          const status = incoming.statusCode ?? 502;
          const reason = incoming.statusMessage ? { reason: { status, text: incoming.statusMessage } } : {};
          readBody(incoming).then((bytes) => resolve({ status, headers: flatten(incoming.headers, request.method === 'HEAD'), body: bytes.toString('utf8'), ...reason }), reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });

  const server: Server = createServer((incoming, outgoing) => {
    void (async () => {
      try {
        const bytes = await readBody(incoming);
        const raw = { text: bytes.toString('utf8'), bytes };
        const request: ProxyRequest = { method: incoming.method ?? 'GET', url: incoming.url ?? '/', headers: flatten(incoming.headers), body: raw.text };
        const response = await exchange(defect, memory, request, (sent) => forward(sent, raw));
        forwarded += 1;
        const body = Buffer.from(response.body, 'utf8');
        // The target's reason phrase, while a defect left the status alone (ERR-003 compares it with the title).
        if (response.reason !== undefined && response.reason.status === response.status) outgoing.statusMessage = response.reason.text;
        if (request.method === 'HEAD') {
          outgoing.writeHead(response.status, response.headers);
          outgoing.end();
        } else {
          outgoing.writeHead(response.status, { ...response.headers, 'content-length': String(body.length) });
          outgoing.end(body);
        }
      } catch (error) {
        outgoing.writeHead(502, { 'content-type': 'text/plain' });
        outgoing.end(`defect proxy: ${(error as Error).message}\n`);
      }
    })();
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    get forwarded() {
      return forwarded;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        agent.destroy();
      }),
  };
}
