/**
 * The equivalence of two ways in (packages/msw/src/msw.equivalence.test.ts): a sequence of requests
 * is recorded against the real server (buildMock listening on 127.0.0.1, requests with `fetch`),
 * then the same tape is replayed on another way in (the MSW handlers, through `fetch` to their
 * base URL) and every answer is compared: status, headers and body bytes, modulo what the two
 * cannot share (request ids, the `date` and connection headers node:http adds, the origin in
 * host-derived URLs).
 *
 * The tape is recorded through a Harness (packages/mock-core/src/testkit/harness.ts), so the fuzz world
 * (packages/mock-core/proofs/fuzz/world.ts) and the fuzz run drive it unchanged: every API request, control
 * call and clock advance of a fuzz sequence lands on the tape.
 */
import type { AddressInfo } from 'node:net';
import { basePath } from '../../../contract/spec/contract.ts';
import { buildMock, type Mock } from '../../../mock/src/node/app.ts';
import type { Clock } from '../core/clock.ts';
import type { Harness, TestResponse } from './harness.ts';

export type TapeEntry =
  | { kind: 'http'; method: string; /** Path from the origin, query included. */ path: string; headers: Record<string, string>; body?: string | Uint8Array }
  | { kind: 'advance'; seconds: number };

/** An answer as a client sees it: headers lowercased, the body as text. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

export interface Recorded {
  entry: TapeEntry;
  /** The recording side's answer (http entries). */
  answer?: Answer;
}

/** The clock start and wall clock both sides get (webhook timestamps read the wall clock). */
export const START = Date.UTC(2026, 0, 1);

/** Send one entry to `origin` with fetch. A body on GET or HEAD is dropped (fetch cannot send one). */
export async function sendEntry(origin: string, entry: Extract<TapeEntry, { kind: 'http' }>): Promise<Answer> {
  const bodyless = entry.method === 'GET' || entry.method === 'HEAD';
  const init: RequestInit = { method: entry.method, headers: entry.headers, redirect: 'manual' };
  if (!bodyless && entry.body !== undefined) init.body = typeof entry.body === 'string' ? entry.body : new Uint8Array(entry.body);
  const response = await fetch(`${origin}${entry.path}`, init);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
  return { status: response.status, headers, text: await response.text() };
}

function toTestResponse(answer: Answer): TestResponse {
  let body: unknown;
  if ((answer.headers['content-type'] ?? '').includes('json') && answer.text) {
    try {
      body = JSON.parse(answer.text);
    } catch {
      body = undefined;
    }
  }
  return { status: answer.status, headers: answer.headers, text: answer.text, body };
}

export interface RecordingServer {
  mock: Mock;
  origin: string;
  harness: Harness;
  tape: Recorded[];
  /** Unexpected errors the server logged. */
  errors: unknown[];
}

/**
 * The real server on 127.0.0.1 (port 0) with `clock`, and a Harness whose every request, control
 * call and advance goes over HTTP and onto the tape. `close()` stops the server. `publicUrl`: the
 * origin its media URLs name (give it the other side's, so that representations and their ETags,
 * which hash them, can be the same).
 */
export async function recordingServer(clock: Clock, publicUrl: string): Promise<RecordingServer> {
  const errors: unknown[] = [];
  // Without CORS (packages/mock/src/web/, the server's web layer): in-process, the page's own origin is answered
  // and no CORS header is added (D61).
  const mock = buildMock({ clock, publicUrl, web: { cors: { enabled: false } }, logError: (error) => errors.push(error) });
  await mock.app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(mock.app.server.address() as AddressInfo).port}`;
  const tape: Recorded[] = [];
  const record = async (entry: Extract<TapeEntry, { kind: 'http' }>): Promise<TestResponse> => {
    const answer = await sendEntry(origin, entry);
    tape.push({ entry, answer });
    if (errors.length) throw new Error(`the server logged an unexpected error: ${String(errors[0])}`);
    return toTestResponse(answer);
  };
  const harness: Harness = {
    mock,
    clock,
    request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.key) headers.authorization = `Bearer ${opts.key}`;
      let body: string | Uint8Array | undefined;
      if (opts.rawBody !== undefined) {
        body = typeof opts.rawBody === 'string' ? opts.rawBody : new Uint8Array(opts.rawBody);
        if (opts.contentType) headers['content-type'] = opts.contentType;
      } else if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] = opts.contentType ?? 'application/json';
      }
      const query = opts.query ? `?${new URLSearchParams(Object.entries(opts.query).map(([k, v]): [string, string] => [k, String(v)])).toString()}` : '';
      return record({ kind: 'http', method: method.toUpperCase(), path: `${basePath}${path}${query}`, headers, ...(body !== undefined ? { body } : {}) });
    },
    control(method, path, body) {
      return record({ kind: 'http', method: method.toUpperCase(), path, headers: body !== undefined ? { 'content-type': 'application/json' } : {}, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    },
    async account() {
      throw new Error('the recording harness makes accounts through control(): POST /__mock/accounts');
    },
    advance(seconds) {
      clock.advance(seconds);
      tape.push({ entry: { kind: 'advance', seconds } });
    },
    async close() {
      await mock.app.close();
    },
  };
  return { mock, origin, harness, tape, errors };
}

/** Replay a tape: http entries to `origin`, advances through `advance`. */
export async function replay(tape: readonly Recorded[], origin: string, advance: (seconds: number) => void | Promise<void>): Promise<(Answer | undefined)[]> {
  const answers: (Answer | undefined)[] = [];
  for (const { entry } of tape) {
    if (entry.kind === 'advance') {
      await advance(entry.seconds);
      answers.push(undefined);
    } else {
      answers.push(await sendEntry(origin, entry));
    }
  }
  return answers;
}

/** Headers only one side can have: node:http's own (date, connection) and its framing. */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
const REQUEST_ID = /\breq_[A-Za-z0-9_]+/g;
/** Figures measured in real time (a webhook attempt's latency, a request's duration in the journal). */
const REAL_TIME_FIGURE = /"(latencyMs|durationMs)":\s*[\d.]+/g;

/**
 * An answer with what two ways in cannot share replaced: request ids, the origin, transport
 * headers, real-time figures; with `headersInBody`, also the transport and network-added headers
 * of every `headers` map of a JSON body (the body parsed and serialized again).
 */
/**
 * Request headers the network layer adds to a fetch (undici on a socket; msw sees the Request before
 * it, as a browser's service worker does): the request journal (listRequests) records what arrived.
 */
const FETCH_ADDED = new Set(['host', 'accept', 'accept-language', 'accept-encoding', 'sec-fetch-mode', 'user-agent']);

/**
 * Within a JSON body, every `headers` map without the transport and network-added headers, and
 * without Content-Length: the server's journal shows the one node:http's writer adds to the
 * answer it journaled (packages/mock/src/node/front.ts writeRaw sets it on the same headers object), the in-process
 * journal none (the adapter adds it to a copy). The answers' own Content-Length is compared.
 */
function withoutTransportHeaders(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTransportHeaders);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) {
    if (name === 'headers' && inner !== null && typeof inner === 'object' && !Array.isArray(inner)) {
      out[name] = Object.fromEntries(Object.entries(inner).filter(([h]) => !TRANSPORT_HEADERS.has(h.toLowerCase()) && !FETCH_ADDED.has(h.toLowerCase()) && h.toLowerCase() !== 'content-length'));
    } else out[name] = withoutTransportHeaders(inner);
  }
  return out;
}

export function normalize(answer: Answer, origins: readonly string[], options: { headersInBody?: boolean; head?: boolean } = {}): Answer {
  const clean = (text: string) =>
    origins
      .reduce((t, origin) => t.split(origin).join('<origin>'), text)
      .replace(REQUEST_ID, '<request-id>')
      .replace(REAL_TIME_FIGURE, '"$1":"<real time>"');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers)) if (!TRANSPORT_HEADERS.has(name)) headers[name] = clean(value);
  // Content-Length must be the length of the body each side sent (which may differ where a body
  // holds a real-time figure); on HEAD, with no body, the two values are compared as they are.
  if (!options.head && headers['content-length'] === String(new TextEncoder().encode(answer.text).length)) headers['content-length'] = '<the body\'s length>';
  let text = answer.text;
  if (options.headersInBody && /json/.test(answer.headers['content-type'] ?? '')) {
    try {
      text = JSON.stringify(withoutTransportHeaders(JSON.parse(text)));
    } catch {
      // not JSON after all: compared as it is
    }
  }
  return { status: answer.status, headers, text: clean(text) };
}

function describeEntry(entry: TapeEntry): string {
  if (entry.kind === 'advance') return `advance ${entry.seconds} s`;
  const body = entry.body === undefined ? '' : typeof entry.body === 'string' ? `\n${entry.body.length > 400 ? `${entry.body.slice(0, 400)}…` : entry.body}` : `\n<${entry.body.length} bytes>`;
  return `${entry.method} ${entry.path.length > 300 ? `${entry.path.slice(0, 300)}…` : entry.path}\n${Object.entries(entry.headers).map(([k, v]) => `${k}: ${k === 'authorization' ? `${v.slice(0, 16)}…` : v.slice(0, 200)}`).join('\n')}${body}`;
}

/**
 * The first difference between the recorded answers (from `originA`) and the replayed ones (from
 * `originB`), described with the request that got them; undefined when every answer is the same.
 */
export function firstDifference(tape: readonly Recorded[], replayed: readonly (Answer | undefined)[], originA: string, originB: string): string | undefined {
  for (let i = 0; i < tape.length; i++) {
    const { entry, answer } = tape[i]!;
    if (entry.kind !== 'http') continue;
    const b = replayed[i];
    if (!answer || !b) return `entry ${i + 1}: no answer on one side`;
    // Either origin on either side (media URLs name the public URL both sides were given).
    const head = entry.method === 'HEAD';
    let na = normalize(answer, [originA, originB], { head });
    let nb = normalize(b, [originA, originB], { head });
    // Bodies are compared byte for byte; only where they differ, once more without the headers the
    // network layer adds that a body reports (the request journal).
    if (na.text !== nb.text) {
      na = normalize(answer, [originA, originB], { headersInBody: true, head });
      nb = normalize(b, [originA, originB], { headersInBody: true, head });
    }
    const problems: string[] = [];
    if (na.status !== nb.status) problems.push(`status ${na.status} (server) ≠ ${nb.status} (in-process)`);
    for (const name of new Set([...Object.keys(na.headers), ...Object.keys(nb.headers)])) {
      if (na.headers[name] !== nb.headers[name]) problems.push(`header ${name}: ${JSON.stringify(na.headers[name])} (server) ≠ ${JSON.stringify(nb.headers[name])} (in-process)`);
    }
    if (na.text !== nb.text) {
      let at = 0;
      while (at < na.text.length && na.text[at] === nb.text[at]) at++;
      const from = Math.max(0, at - 80);
      problems.push(`body differs at character ${at}:\n  server:     …${na.text.slice(from, at + 120)}\n  in-process: …${nb.text.slice(from, at + 120)}`);
    }
    if (problems.length) return `entry ${i + 1} of ${tape.length}:\n${describeEntry(entry)}\n\n${problems.join('\n')}`;
  }
  return undefined;
}
