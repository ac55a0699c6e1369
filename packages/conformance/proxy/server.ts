/**
 * The validating proxy: a node:http server that forwards every request to an implementation of the
 * API (any: the mock, staging, a developer's server) and checks each exchange as it passes
 * (packages/conformance/proxy/inspect.ts: the suite's response checker and the mock's request validator).
 *
 * It never alters what passes: the request goes out with the client's method, target, headers (as
 * sent, in order and case) and body bytes; the answer comes back with the target's status, reason
 * phrase, headers and body bytes. Only what a proxy cannot pass on is not passed: the hop-by-hop
 * fields of each connection (Connection, Keep-Alive, Transfer-Encoding, ...), and Host, which names
 * the target. Bodies stream through in both directions (a copy of each is kept, up to
 * `maxCaptureBytes`, for the checks); the checks run after the answer has been written, so they
 * add nothing to its latency. When the target cannot be reached (no connection to it: refused, no
 * route, a failed TLS handshake) the client gets a 502 text/plain; when the target closes or resets
 * a connection it had accepted without answering (as the client exam's dropped connection does,
 * D170), the proxy drops the client's connection too, without an answer of its own (D261): the
 * client sees what it would have seen without the proxy.
 *
 * Why in the gate's package (not the mock's): it fronts any implementation, the mock being only
 * one, and it is built on the suite's checker; the mock never depends on the suite.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { basePath as documentBasePath } from '../../contract/spec/contract.ts';
import { forwardable, http1Upstream, listen } from './forward.ts';
import { describe, inspect, isApiRequest, Tally, type Inspection, type ObservedExchange } from './inspect.ts';

export interface ProxyOptions {
  /** The implementation's base URL (`http://127.0.0.1:4010/api/public/v1`), or its origin. */
  target: string;
  port?: number;
  host?: string;
  /** Whether a violation resting on an x-assumption counts (default false: it is a warning). */
  enforceAssumptions?: boolean;
  /** A body larger than this is forwarded but not checked (default 8 MiB). */
  maxCaptureBytes?: number;
  /**
   * Where the checks run: `inline`, on the thread that forwards, after each answer is written (the
   * default); `worker`, on a thread of their own (packages/conformance/proxy/checker-worker.ts), so that forwarding never
   * waits for a check. cgs-proxy uses `worker`.
   */
  checker?: 'inline' | 'worker';
  /** Called for every checked API exchange, after its answer was written. */
  onExchange?: (exchange: ObservedExchange, inspection: Inspection) => void;
  /** Where finding lines go (default: none). */
  print?: (line: string) => void;
}

export interface ValidatingProxy {
  /** `http://HOST:PORT` */
  origin: string;
  port: number;
  /** The base path clients use on the proxy (the target's). */
  basePath: string;
  tally: Tally;
  /** Where the checks run now: `inline`, or `worker` while the checker thread runs. */
  readonly checker: 'inline' | 'worker';
  /** Resolves when every exchange in flight has been checked. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** Exchanges waiting for the checker thread before further ones go unchecked (counted). */
const MAX_QUEUED_CHECKS = 10_000;

function grouped(raw: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i < raw.length; i += 2) (out[raw[i]!.toLowerCase()] ??= []).push(raw[i + 1]!);
  return out;
}

/** Keeps a copy of a stream's chunks as they pass, up to a limit. */
class Capture {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  overflow = false;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    if (this.overflow) return;
    this.size += chunk.length;
    if (this.size > this.limit) {
      this.overflow = true;
      this.chunks.length = 0;
    } else this.chunks.push(chunk);
  }
  bytes(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
  }
}

/** The checker thread: packages/conformance/proxy/checker-worker.js in the package; under tsx, the .ts module through tsx's loader. */
function checkerThread(workerData: unknown): Worker {
  const own = extname(fileURLToPath(import.meta.url));
  const module = new URL(`./checker-worker${own}`, import.meta.url);
  if (own !== '.ts') return new Worker(module, { workerData });
  const api = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(module.href)}); })`;
  return new Worker(code, { eval: true, workerData });
}

export async function startValidatingProxy(options: ProxyOptions): Promise<ValidatingProxy> {
  const target = new URL(options.target);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error(`--target must be an http or https URL, not ${options.target}`);
  const basePath = target.pathname.replace(/\/+$/, '') || documentBasePath;
  const secure = target.protocol === 'https:';
  const upstreamTarget = http1Upstream(target);
  const limit = options.maxCaptureBytes ?? 8 * 1024 * 1024;
  const print = options.print ?? (() => {});
  const tally = new Tally();
  let pending = 0;
  let waiters: (() => void)[] = [];
  const settle = () => {
    pending -= 1;
    if (pending === 0) {
      const done = waiters;
      waiters = [];
      done.forEach((resolve) => resolve());
    }
  };

  const origin = `${secure ? 'https' : 'http'}://${target.host}`;
  const inspectOptions = { basePath, enforceAssumptions: options.enforceAssumptions ?? false };
  const checked = (exchange: ObservedExchange, inspection: Inspection | undefined, error?: string) => {
    if (!inspection) {
      tally.counts.unchecked += 1;
      print(`? ${exchange.method} ${exchange.target} → ${exchange.status}  not checked: ${error}`);
      return;
    }
    tally.add(inspection);
    for (const line of describe(exchange, inspection)) print(line);
    options.onExchange?.(exchange, inspection);
  };
  const inline = (exchange: ObservedExchange, done: () => void) => {
    // After the answer is out: the checks never delay it.
    setImmediate(() => {
      let inspection: Inspection | undefined;
      let error: string | undefined;
      try {
        inspection = inspect(exchange, origin, inspectOptions);
      } catch (e) {
        error = (e as Error).message;
      }
      checked(exchange, inspection, error);
      done();
    });
  };
  let check = inline;
  let mode: 'inline' | 'worker' = 'inline';
  let worker: Worker | undefined;
  if (options.checker === 'worker') {
    mode = 'worker';
    worker = checkerThread({ origin, options: inspectOptions });
    worker.unref();
    const waiting = new Map<number, { exchange: ObservedExchange; done: () => void }>();
    let next = 0;
    worker.on('message', ({ id, inspection, error }: { id: number; inspection?: Inspection; error?: string }) => {
      const entry = waiting.get(id);
      if (!entry) return;
      waiting.delete(id);
      checked(entry.exchange, inspection, error);
      entry.done();
    });
    // A thread that cannot run: the checks go on inline, the ones it held included.
    worker.on('error', (error) => {
      print(`? the checker thread failed (${error.message}); checking on the forwarding thread instead`);
      check = inline;
      mode = 'inline';
      for (const { exchange, done } of waiting.values()) inline(exchange, done);
      waiting.clear();
    });
    check = (exchange, done) => {
      // Far behind (traffic faster than the checks for a long while): forward, count, do not queue.
      if (waiting.size >= MAX_QUEUED_CHECKS) {
        tally.counts.unchecked += 1;
        return done();
      }
      const id = (next += 1);
      waiting.set(id, { exchange, done });
      worker!.postMessage({ id, exchange });
    };
  }

  const handle = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    pending += 1;
    tally.counts.forwarded += 1;
    outgoing.sendDate = false; // the target's Date, or none: never one of the proxy's own
    const api = isApiRequest(incoming.url ?? '/', basePath);
    const requestCapture = new Capture(api ? limit : 0);
    const responseCapture = new Capture(api ? limit : 0);
    let finished = false;
    const finish = (answer?: IncomingMessage) => {
      if (finished) return;
      finished = true;
      if (api && answer && !requestCapture.overflow && !responseCapture.overflow) {
        const exchange: ObservedExchange = {
          method: incoming.method ?? 'GET',
          target: incoming.url ?? '/',
          requestHeaders: incoming.headers as Record<string, string | undefined>,
          requestBody: requestCapture.bytes(),
          status: answer.statusCode ?? 0,
          responseHeaders: grouped(answer.rawHeaders),
          responseBody: responseCapture.bytes(),
        };
        check(exchange, settle);
        return;
      }
      if (api && answer) tally.counts.unchecked += 1;
      settle();
    };

    const upstream = upstreamTarget.open(
      { method: incoming.method ?? 'GET', path: incoming.url ?? '/', headers: forwardable(incoming.rawHeaders, incoming.headers['connection']) },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardable(answer.rawHeaders, answer.headers['connection']));
        if (api) answer.on('data', (chunk: Buffer) => responseCapture.push(chunk));
        answer.pipe(outgoing);
        answer.on('end', () => finish(answer));
        answer.on('error', () => {
          outgoing.destroy();
          finish();
        });
      },
    );
    // Whether a connection to the target was made (a kept-alive one, or a new one once connected
    // and, over https, its handshake done): after that, an error is the target's dropping it.
    let connected = false;
    upstream.on('socket', (socket) => {
      if (!socket.connecting) connected = true;
      else socket.once(secure ? 'secureConnect' : 'connect', () => (connected = true));
    });
    upstream.on('error', (error) => {
      tally.counts.upstreamErrors += 1;
      if (!outgoing.headersSent && !connected) {
        print(`✗ ${incoming.method} ${incoming.url}  the target could not be reached: ${error.message} (answered 502)`);
        outgoing.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
        outgoing.end(`cgs-proxy: ${target.host} did not answer: ${error.message}\n`);
      } else {
        // D261: the target dropped the connection (before or after the request was all sent, or
        // mid-answer): the client's connection is dropped too, with no answer the target never gave.
        print(`✗ ${incoming.method} ${incoming.url}  the target dropped the connection without ${outgoing.headersSent ? 'finishing its answer' : 'an answer'} (${error.message}): the client's connection is dropped too`);
        outgoing.destroy();
      }
      finish();
    });
    // The client went away before its answer was complete: stop the exchange upstream too.
    outgoing.on('close', () => {
      if (!outgoing.writableFinished) upstream.destroy();
      finish();
    });
    if (api) incoming.on('data', (chunk: Buffer) => requestCapture.push(chunk));
    incoming.pipe(upstream);
  };

  const server = await listen(handle, { port: options.port ?? 4011, host: options.host ?? '127.0.0.1', keepAliveTimeout: 65_000 });
  return {
    origin: server.origin,
    port: server.port,
    basePath,
    tally,
    get checker() {
      return mode;
    },
    idle: () => (pending === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve))),
    close: async () => {
      const closed = server.close();
      upstreamTarget.close();
      await closed;
      if (pending > 0) await new Promise<void>((resolve) => waiters.push(resolve));
      await worker?.terminate();
    },
  };
}
