/**
 * A front: a loopback HTTP server in front of a CORRECT target that changes only what a real network
 * between the suite and a deployment may change (a gateway, a reverse proxy, a CDN), never what the
 * interface pins. The proofs run the suite through it and expect 0 failures (#23 item 2,
 * packages/conformance/proofs/prove-real-target.ts):
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
import { STATUS_CODES } from 'node:http';
import { gzipSync } from 'node:zlib';
import { forwardable, forwardableHeaders, h2cUpstream, http1Upstream, listen, listenH2c, readBody, type Upstream } from '../../proxy/forward.ts';

export interface FrontOptions {
  hide?: readonly string[];
  reasons?: 'keep' | 'rewrite' | 'none';
  rechunk?: boolean;
  headers?: boolean;
  compress?: boolean;
  /**
   * How the front reaches its target: `http/1.1` (default), or `h2c`, HTTP/2 cleartext (the target
   * is an HTTP/2 server, e.g. startH2Front): the answers then cross a real HTTP/2 hop (no reason
   * phrase, lower-case field names, no Connection or Transfer-Encoding) before the front writes
   * them to its HTTP/1.1 client.
   */
  upstream?: 'http/1.1' | 'h2c';
}

export interface Front {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** What the front did so far, for the proof's printout. */
  readonly counts: { forwarded: number; hidden: number; reasonsRewritten: number; rechunked: number; compressed: number };
  close(): Promise<void>;
}

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

export async function startFront(target: string, options: FrontOptions = {}): Promise<Front> {
  const upstream: Upstream = options.upstream === 'h2c' ? h2cUpstream(target) : http1Upstream(target, { maxSockets: 32 });
  const counts = { forwarded: 0, hidden: 0, reasonsRewritten: 0, rechunked: 0, compressed: 0 };
  const hide = options.hide ?? [];

  const server = await listen((incoming, outgoing) => {
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
        const answer = await upstream.exchange({ method: incoming.method ?? 'GET', path: url, headers: forwardableHeaders(incoming.headers), body });
        const bytes = answer.body;
        counts.forwarded += 1;
        const status = answer.status;
        const head = incoming.method === 'HEAD';
        // Raw field lines, in arrival order (a field sent twice stays two lines, in its order).
        const fields: [string, string][] = [];
        const forwarded = forwardable(answer.rawHeaders, answer.headers['connection']);
        for (let i = 0; i < forwarded.length; i += 2) {
          const name = forwarded[i]!;
          const lower = name.toLowerCase();
          if (options.headers && (lower === 'date' || lower === 'server' || lower === 'via')) continue;
          if ((options.rechunk || options.compress) && !head && lower === 'content-length') continue;
          fields.push([name, forwarded[i + 1]!]);
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
        // The target's reason phrase; none came over HTTP/2: the front's own (Node's), as a gateway's.
        else if (answer.statusMessage !== '') outgoing.writeHead(status, answer.statusMessage, raw);
        else outgoing.writeHead(status, raw);
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
  return {
    origin: server.origin,
    counts,
    close: async () => {
      const closed = server.close({ force: true });
      upstream.close();
      await closed;
    },
  };
}

/** An HTTP/2 front: what it forwarded, for the proof's printout. */
export interface H2Front {
  /** `http://127.0.0.1:PORT`: HTTP/2 cleartext with prior knowledge (a client must speak h2c: startFront with `upstream: 'h2c'`). */
  origin: string;
  readonly counts: { forwarded: number };
  close(): Promise<void>;
}

/**
 * An HTTP/2 server (h2c) in front of an HTTP/1.1 target: each request it receives over HTTP/2 goes
 * to the target over HTTP/1.1 and the answer back over HTTP/2, as a gateway that speaks HTTP/2 to
 * its clients does: the status without a reason phrase, field names lower-case, no field of the
 * connection (Connection, Keep-Alive, Transfer-Encoding: HTTP/2 forbids them, RFC 9113 8.2.2).
 */
export async function startH2Front(target: string): Promise<H2Front> {
  const upstream = http1Upstream(target, { maxSockets: 32 });
  const counts = { forwarded: 0 };
  const server = await listenH2c((incoming, outgoing) => {
    void (async () => {
      try {
        const body = await readBody(incoming);
        const answer = await upstream.exchange({ method: incoming.method, path: incoming.url, headers: forwardableHeaders(incoming.headers), body });
        counts.forwarded += 1;
        const headers: Record<string, string | string[]> = {};
        const forwarded = forwardable(answer.rawHeaders, answer.headers['connection']);
        for (let i = 0; i < forwarded.length; i += 2) {
          const name = forwarded[i]!.toLowerCase();
          const existing = headers[name];
          headers[name] = existing === undefined ? forwarded[i + 1]! : ([] as string[]).concat(existing, forwarded[i + 1]!);
        }
        outgoing.writeHead(answer.status, headers);
        if (incoming.method === 'HEAD') outgoing.end();
        else outgoing.end(answer.body);
      } catch (error) {
        if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'text/plain' });
        outgoing.end(`h2 front: ${(error as Error).message}\n`);
      }
    })();
  });
  return {
    origin: server.origin,
    counts,
    close: async () => {
      await server.close();
      upstream.close();
    },
  };
}
