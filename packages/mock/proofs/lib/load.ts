/**
 * A closed-loop HTTP load generator over node:http (no dependency).
 * How it works and what it decides: docs/internals.md, "packages/mock/proofs/lib/load.ts".
 */
import http from 'node:http';
import net from 'node:net';
import { pathToFileURL } from 'node:url';

export interface LoadOptions {
  /** http://host:port (127.0.0.1 only: this generator never leaves the machine). */
  origin: string;
  /** Request paths (with query), cycled per connection. */
  paths: string[];
  method?: string;
  headers?: Record<string, string>;
  /** A body sent with every request (its Content-Length is added; give its Content-Type in `headers`). */
  body?: string;
  /** Concurrent keep-alive connections (default 50). */
  connections?: number;
  /** Unrecorded warm-up (default 1000 ms). */
  warmupMs?: number;
  /** Measured window (default 5000 ms). */
  durationMs?: number;
  /** Give up on requests still in flight this long after the window (default 5000 ms). */
  drainMs?: number;
  /**
   * `http` (default): node:http's client with a keep-alive Agent. `raw`: one net.Socket per
   * connection writing a pre-built request and reading the answer by its Content-Length, about
   * three times cheaper per request, for when the generator's own CPU is the limit.
   */
  client?: 'http' | 'raw';
  /** Called when the measured window opens and when it closes (the CLI reports them on stderr). */
  onWindow?: (edge: 'start' | 'end') => void;
}

export interface LoadResult {
  connections: number;
  durationMs: number;
  /** Responses completed inside the measured window. */
  requests: number;
  rps: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  /** Count per HTTP status, e.g. {"200": 51234}. */
  statuses: Record<string, number>;
  /** Socket errors, timeouts and responses cut short inside the window. */
  errors: number;
  /** The errors by kind (an error code such as ECONNRESET, or `closed` for a connection closed mid-answer). */
  errorKinds: Record<string, number>;
  /** Non-2xx responses inside the window. */
  non2xx: number;
  bytesPerResponse: number;
  /** The generator's own CPU time over the window, as % of one core. */
  generatorCpuPct: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.origin);
  if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost' && url.hostname !== '[::1]') {
    throw new Error(`load: refusing to send traffic to ${url.hostname}; loopback only`);
  }
  if (options.paths.length === 0) throw new Error('load: no paths');
  const connections = options.connections ?? 50;
  const warmupMs = options.warmupMs ?? 1000;
  const durationMs = options.durationMs ?? 5000;
  const drainMs = options.drainMs ?? 5000;
  const method = options.method ?? 'GET';
  const body = options.body === undefined ? undefined : Buffer.from(options.body, 'utf8');
  const headers = { ...(options.headers ?? {}), ...(body ? { 'content-length': String(body.length) } : {}), connection: 'keep-alive' };
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections, scheduling: 'fifo' });

  // Latencies in ms, grown by doubling (no per-request allocation of a boxed number).
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const statuses: Record<string, number> = {};
  let errors = 0;
  const errorKinds: Record<string, number> = {};
  let non2xx = 0;
  let bytes = 0;

  // The window's edges are read when its timers fire, so the counts, the CPU time and the duration
  // all cover the same interval. Until it opens, windowStart lies in the future.
  let windowStart = 1n << 62n;
  let windowEnd = 1n << 62n;
  let stopped = false;
  let inFlight = 0;
  let onDrained: (() => void) | undefined;

  const record = (t0: bigint, status: number | undefined, size: number, kind = 'error'): void => {
    const t1 = process.hrtime.bigint();
    if (t1 < windowStart || t1 > windowEnd) return;
    if (status === undefined) {
      errors++;
      errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
      return;
    }
    if (count === latencies.length) {
      const next = new Float64Array(latencies.length * 2);
      next.set(latencies);
      latencies = next;
    }
    latencies[count++] = Number(t1 - t0) / 1e6;
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (status < 200 || status > 299) non2xx++;
    bytes = size;
  };

  const rawWorker = (w: number): void => {
    let n = 0;
    const requests = options.paths.map((p) =>
      Buffer.concat([Buffer.from(`${method} ${p} HTTP/1.1\r\nhost: ${url.host}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`, 'latin1'), body ?? Buffer.alloc(0)]),
    );
    let socket: net.Socket;
    let t0 = 0n;
    let head: Buffer | null = null; // bytes of a head not complete yet
    let remaining = -1; // body bytes still to read; -1 while reading a head
    let status = 0;
    let size = 0;
    let broken: string | false = false;
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      socket.destroy();
      if (--inFlight === 0) onDrained?.();
    };
    const send = (): void => {
      if (stopped) return finish();
      t0 = process.hrtime.bigint();
      socket.write(requests[(w + n++) % requests.length]!);
    };
    const connect = (): void => {
      head = null;
      remaining = -1;
      broken = false;
      socket = net.connect({ host: url.hostname, port: Number(url.port) });
      socket.setNoDelay(true);
      socket.on('connect', send);
      socket.on('data', (input: Buffer) => {
        let chunk = input;
        let off = 0;
        while (off < chunk.length) {
          if (remaining < 0) {
            const data: Buffer = head ? Buffer.concat([head, chunk.subarray(off)]) : chunk.subarray(off);
            const end = data.indexOf('\r\n\r\n');
            if (end < 0) {
              head = Buffer.from(data);
              return;
            }
            head = null;
            const text = data.toString('latin1', 0, end);
            status = Number(text.slice(9, 12));
            const length = /\r\ncontent-length:\s*(\d+)/i.exec(text);
            if (!length) {
              broken = 'no Content-Length'; // this generator reads only Content-Length bodies
              socket.destroy();
              return;
            }
            remaining = Number(length[1]);
            size = remaining;
            chunk = data;
            off = end + 4;
          }
          const take = Math.min(remaining, chunk.length - off);
          remaining -= take;
          off += take;
          if (remaining === 0) {
            remaining = -1;
            record(t0, status, size);
            send();
          }
        }
      });
      socket.on('error', (error: NodeJS.ErrnoException) => {
        broken = error.code ?? 'socket error';
      });
      socket.on('close', () => {
        if (finished) return;
        if (broken || remaining !== -1 || head !== null) record(t0, undefined, 0, broken || 'closed');
        else record(t0, undefined, 0, 'closed by server');
        if (stopped) return finish();
        setTimeout(connect, 10); // reconnect after a short pause: a refused connection must not spin
      });
    };
    inFlight++;
    connect();
  };

  const worker = (w: number): void => {
    let n = 0;
    const fire = (): void => {
      if (stopped) {
        if (--inFlight === 0) onDrained?.();
        return;
      }
      const path = options.paths[(w + n++) % options.paths.length]!;
      const t0 = process.hrtime.bigint();
      let settled = false;
      const done = (status: number | undefined, size: number, retryDelay = 0, kind?: string): void => {
        if (settled) return;
        settled = true;
        record(t0, status, size, kind);
        if (retryDelay > 0) setTimeout(fire, retryDelay);
        else fire();
      };
      const req = http.request({ host: url.hostname, port: url.port, path, method, headers, agent }, (res) => {
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
        });
        res.on('end', () => done(res.statusCode, size));
        res.on('error', (error: NodeJS.ErrnoException) => done(undefined, 0, 10, error.code ?? 'response error'));
        res.on('aborted', () => done(undefined, 0, 10, 'aborted'));
      });
      req.on('error', (error: NodeJS.ErrnoException) => done(undefined, 0, 10, error.code ?? 'request error')); // back off a little: a refused connection must not spin
      req.end(body);
    };
    inFlight++;
    fire();
  };

  for (let w = 0; w < connections; w++) (options.client === 'raw' ? rawWorker : worker)(w);

  await new Promise<void>((resolve) => setTimeout(resolve, warmupMs));
  const cpuAtWindow = process.cpuUsage();
  windowStart = process.hrtime.bigint();
  options.onWindow?.('start');
  await new Promise<void>((resolve) => setTimeout(resolve, durationMs));
  windowEnd = process.hrtime.bigint();
  const cpuWindow = process.cpuUsage(cpuAtWindow);
  options.onWindow?.('end');
  const measuredMs = Number(windowEnd - windowStart) / 1e6;
  stopped = true;
  await new Promise<void>((resolve) => {
    if (inFlight === 0) return resolve();
    onDrained = resolve;
    setTimeout(resolve, drainMs).unref();
  });
  agent.destroy();

  const sorted = latencies.subarray(0, count).sort();
  let sum = 0;
  for (let i = 0; i < count; i++) sum += sorted[i]!;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    connections,
    durationMs: Math.round(measuredMs),
    requests: count,
    rps: Math.round((count / measuredMs) * 1000),
    latencyMs: {
      p50: round(percentile(sorted, 50)),
      p90: round(percentile(sorted, 90)),
      p99: round(percentile(sorted, 99)),
      max: round(count ? sorted[count - 1]! : NaN),
      mean: round(count ? sum / count : NaN),
    },
    statuses,
    errors,
    errorKinds,
    non2xx,
    bytesPerResponse: bytes,
    generatorCpuPct: Math.round(((cpuWindow.user + cpuWindow.system) / 1000 / measuredMs) * 100),
  };
}

// CLI: one JSON argument in, one JSON line out.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const raw = process.argv[2];
  if (!raw) {
    console.error('usage: node --import tsx packages/mock/proofs/lib/load.ts \'{"origin":"http://127.0.0.1:PORT","paths":["/..."],"connections":50,"durationMs":5000}\'');
    process.exit(2);
  }
  const result = await runLoad({ ...(JSON.parse(raw) as LoadOptions), onWindow: (edge) => process.stderr.write(`window:${edge}\n`) });
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}
