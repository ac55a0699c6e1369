/**
 * A front: a loopback HTTP server in front of a CORRECT target that changes only what a real network
 * between the suite and a deployment may change (a gateway, a reverse proxy, a CDN), never what the
 * interface pins. The proofs run the suite through it and expect 0 failures (#23 item 2,
 * scripts/prove-real-target.ts):
 *
 * - `hide`: path prefixes answered 404 (a deployment serves no /__mock, maybe no /__hooks).
 * - `reasons`: `rewrite` sends reason phrases of its own (the older RFC 7231 names where RFC 9110
 *   renamed a status, else an upper-cased gateway wording), `none` sends none (as HTTP/2, which has
 *   no reason phrase at all).
 * - `rechunk`: bodies re-sent in small chunks with Transfer-Encoding: chunked, no Content-Length.
 * - `headers`: header names in another case and the fields in reverse order, Date and Server and
 *   Via of the front's own, Connection as the front keeps it.
 * - `compress`: gzip when the client accepts it (Content-Encoding: gzip).
 *
 * What it never touches: status codes, bodies' bytes (apart from the transfer coding), and every
 * header the interface names (ETag, Location, RateLimit*, Retry-After, ...), with their values.
 */
import { Agent, createServer, request as httpRequest, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface FrontOptions {
  hide?: readonly string[];
  reasons?: 'keep' | 'rewrite' | 'none';
  rechunk?: boolean;
  headers?: boolean;
  compress?: boolean;
}

export interface Front {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** What the front did so far, for the proof's printout. */
  readonly counts: { forwarded: number; hidden: number; reasonsRewritten: number; rechunked: number; compressed: number };
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host']);
const OLDER_NAMES: Readonly<Record<number, string>> = { 413: 'Payload Too Large', 422: 'Unprocessable Entity', 416: 'Requested Range Not Satisfiable' };

/** The reason phrase the front sends for `status` (pure, for the unit test). */
export function rewrittenReason(status: number, mode: FrontOptions['reasons']): string | undefined {
  if (mode === 'none') return '';
  if (mode !== 'rewrite') return undefined;
  return OLDER_NAMES[status] ?? (STATUS_CODES[status] ?? 'Unknown').toUpperCase();
}

/** `content-type` → `Content-Type`, `etag` → `ETAG` (any case is the same field: RFC 9110 5.1). */
export function otherCase(name: string): string {
  return name.length % 2 === 0 ? name.toUpperCase() : name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

function readBody(message: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => resolve(Buffer.concat(chunks)));
    message.on('error', reject);
  });
}

export async function startFront(target: string, options: FrontOptions = {}): Promise<Front> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const counts = { forwarded: 0, hidden: 0, reasonsRewritten: 0, rechunked: 0, compressed: 0 };
  const hide = options.hide ?? [];

  const server: Server = createServer((incoming, outgoing) => {
    void (async () => {
      const url = incoming.url ?? '/';
      const path = url.split('?')[0]!;
      if (hide.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) {
        counts.hidden += 1;
        await readBody(incoming);
        // What a gateway answers for a path it does not route: its own 404, not problem+json.
        outgoing.writeHead(404, { 'content-type': 'text/html' });
        outgoing.end('<html><body>404 Not Found</body></html>\n');
        return;
      }
      try {
        const body = await readBody(incoming);
        const headers: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(incoming.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
        const answer = await new Promise<IncomingMessage>((resolve, reject) => {
          const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: incoming.method, path: url, agent, headers: { ...headers, host: upstream.host } }, resolve);
          out.on('error', reject);
          out.end(body);
        });
        const bytes = await readBody(answer);
        counts.forwarded += 1;
        const status = answer.statusCode ?? 502;
        const head = incoming.method === 'HEAD';
        // Raw field lines, in arrival order (a field sent twice stays two lines, in its order).
        const fields: [string, string][] = [];
        for (let i = 0; i < answer.rawHeaders.length; i += 2) {
          const name = answer.rawHeaders[i]!;
          const lower = name.toLowerCase();
          if (HOP_BY_HOP.has(lower)) continue;
          if (options.headers && (lower === 'date' || lower === 'server' || lower === 'via')) continue;
          if ((options.rechunk || options.compress) && !head && lower === 'content-length') continue;
          fields.push([name, answer.rawHeaders[i + 1]!]);
        }
        let payload = bytes;
        const accepts = /\bgzip\b/.test(String(incoming.headers['accept-encoding'] ?? ''));
        if (options.compress && accepts && !head && bytes.length > 0 && !fields.some(([n]) => n.toLowerCase() === 'content-encoding')) {
          payload = gzipSync(bytes);
          fields.push(['Content-Encoding', 'gzip']);
          fields.push(['Vary', 'Accept-Encoding']);
          counts.compressed += 1;
        }
        if (options.headers) {
          fields.push(['Date', new Date().toUTCString()], ['Server', 'front/1.0'], ['Via', '1.1 front']);
          fields.reverse();
          for (const field of fields) field[0] = otherCase(field[0].toLowerCase());
        }
        const reason = rewrittenReason(status, options.reasons);
        if (reason !== undefined && reason !== answer.statusMessage) counts.reasonsRewritten += 1;
        const raw = fields.flat();
        if (reason !== undefined) outgoing.writeHead(status, reason, raw);
        else outgoing.writeHead(status, answer.statusMessage ?? '', raw);
        if (head) {
          outgoing.end();
        } else if (options.rechunk && payload.length > 0) {
          // Small chunks, each a write of its own (a chunk of the chunked coding).
          counts.rechunked += 1;
          for (let at = 0; at < payload.length; at += 97) outgoing.write(payload.subarray(at, at + 97));
          outgoing.end();
        } else {
          outgoing.end(payload);
        }
      } catch (error) {
        if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'text/plain' });
        outgoing.end(`front: ${(error as Error).message}\n`);
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
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        agent.destroy();
      }),
  };
}
