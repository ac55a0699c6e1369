/**
 * The fault-injecting proxy: a loopback HTTP server in front of the mock that forwards every request
 * (the public API and the /__mock control plane) and applies ONE named defect of the catalogue to
 * the public API's requests and answers. Without a defect it is a faithful pass-through, which is
 * how packages/conformance/proofs/prove-defects.ts shows that the selected tests pass when nothing is broken.
 *
 * Bodies are buffered (the API's are small); hop-by-hop headers are not forwarded; the control
 * plane is never altered, so the suite's fixtures (accounts, keys, clock) keep working.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { forwardableHeaders, http1Upstream, listen, readBody } from '../../proxy/forward.ts';
import { DEFECT_HEADER, SELECT_PATH } from './batch.ts';
import { contextOf, type Defect } from './catalogue.ts';
import type { Headers, ProxyRequest, ProxyResponse } from './exchange.ts';
import { DefectMemory } from './memory.ts';

/** One header object (a field sent several times joined with ", "), without the hop-by-hop fields (packages/conformance/proxy/forward.ts) and, unless kept, Content-Length (a defect may change the body). */
function flatten(headers: IncomingHttpHeaders, keepLength = false): Headers {
  const out: Headers = {};
  for (const [name, value] of Object.entries(forwardableHeaders(headers, keepLength ? [] : ['content-length']))) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
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

/** A proxy in front of one target for several defects, one at a time, chosen per request by DEFECT_HEADER. */
export interface SwitchingProxy {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** Exchanges forwarded for this defect so far (its requests, and those without the header while it was the last named). */
  forwardedFor(name: string): number;
  close(): Promise<void>;
}

/** Start a proxy on a free loopback port in front of `target` (`http://127.0.0.1:PORT`). */
export async function startProxy(target: string, defect: Defect | undefined): Promise<Proxy> {
  const memory = new DefectMemory();
  let forwarded = 0;
  const server = await serve(target, () => {
    forwarded += 1;
    return { defect, memory };
  });
  return {
    origin: server.origin,
    get forwarded() {
      return forwarded;
    },
    close: server.close,
  };
}

/**
 * Start a proxy for `defects`: a request naming one of them in DEFECT_HEADER gets that defect (with
 * a memory of its own, as a fresh proxy per defect would); a request without the header gets the
 * defect last named (a request context the test made itself, e.g. media fetched without a key); a
 * name not in `defects` is answered 502, so a mistake never passes for a pass-through.
 */
export async function startSwitchingProxy(target: string, defects: readonly Defect[]): Promise<SwitchingProxy> {
  const byName = new Map(defects.map((d) => [d.name, d]));
  const memories = new Map(defects.map((d) => [d.name, new DefectMemory()]));
  const forwarded = new Map<string, number>();
  let current: string | undefined;
  const server = await serve(target, (request) => {
    const named = request.headers[DEFECT_HEADER];
    delete request.headers[DEFECT_HEADER];
    if (named !== undefined) {
      if (!byName.has(named)) throw new Error(`${DEFECT_HEADER}: no defect named ${named} in this run`);
      current = named;
    }
    // The batch fixture names the next test's defect here (batch.ts); the target never sees it.
    if (request.url === SELECT_PATH && request.method === 'POST') {
      if (named === undefined) throw new Error(`${SELECT_PATH}: no ${DEFECT_HEADER}`);
      return { answer: { status: 204, headers: {}, body: '' } };
    }
    if (current === undefined) return { defect: undefined, memory: new DefectMemory() };
    forwarded.set(current, (forwarded.get(current) ?? 0) + 1);
    return { defect: byName.get(current), memory: memories.get(current)! };
  });
  return {
    origin: server.origin,
    forwardedFor: (name) => forwarded.get(name) ?? 0,
    close: server.close,
  };
}

/**
 * The HTTP server of both proxies: `pick` chooses, per request (it may remove headers meant for
 * the proxy), the defect and the memory to apply, or an answer of the proxy's own; everything else
 * is the same pass-through.
 */
async function serve(target: string, pick: (request: ProxyRequest) => { defect: Defect | undefined; memory: DefectMemory } | { answer: ProxyResponse }): Promise<{ origin: string; close(): Promise<void> }> {
  const upstream = http1Upstream(target, { maxSockets: 16 });

  /** Send `request`; its body as the client's exact bytes (`raw`) unless a defect changed it. */
  const forward = async (request: ProxyRequest, raw: { text: string; bytes: Buffer }): Promise<ProxyResponse> => {
    const body = request.body === raw.text ? raw.bytes : Buffer.from(request.body, 'utf8');
    const answer = await upstream.exchange({
      method: request.method,
      path: request.url,
      headers: { ...request.headers, ...(body.length > 0 || request.method !== 'GET' ? { 'content-length': String(body.length) } : {}) },
      body,
    });
    // A HEAD answer keeps the length of the body it does not carry (RFC 9110 9.3.2).
    const reason = answer.statusMessage ? { reason: { status: answer.status, text: answer.statusMessage } } : {};
    return { status: answer.status, headers: flatten(answer.headers, request.method === 'HEAD'), body: answer.body.toString('utf8'), ...reason };
  };

  const server = await listen((incoming, outgoing) => {
    void (async () => {
      try {
        const bytes = await readBody(incoming);
        const raw = { text: bytes.toString('utf8'), bytes };
        const request: ProxyRequest = { method: incoming.method ?? 'GET', url: incoming.url ?? '/', headers: flatten(incoming.headers), body: raw.text };
        const picked = pick(request);
        const response = 'answer' in picked ? picked.answer : await exchange(picked.defect, picked.memory, request, (sent) => forward(sent, raw));
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
  return {
    origin: server.origin,
    close: async () => {
      const closed = server.close({ force: true });
      upstream.close();
      await closed;
    },
  };
}
