/** What every phase of `npm run bench` (packages/mock/proofs/bench/bench.ts) shares: its flags, its child processes, setup requests, the load generator's process, formatting and the summary. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type LoadOptions, type LoadResult } from '../lib/load.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
export const BASE = '/api/public/v1';
export const LIST = '/creatives?limit=50';

export const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    'runs-repeats': { type: 'string', default: '5' },
    profile: { type: 'boolean', default: false },
    client: { type: 'string', default: 'raw' },
    only: { type: 'string', default: 'http,page,runs,media,start,proxy,msw,durable' },
    'msw-requests': { type: 'string', default: '5000' },
    'start-repeats': { type: 'string', default: '5' },
    'proxy-connections': { type: 'string', default: '1,10' },
  },
  strict: true,
});
export const DURATION_MS = Math.round(Number(flags.duration) * 1000);
export const WARMUP_MS = Math.round(Number(flags.warmup) * 1000);
export const ROUNDS = Math.max(1, Number(flags.rounds));
export const CONNECTIONS = Math.max(1, Number(flags.connections));
export const RUNS_REPEATS = Math.max(1, Number(flags['runs-repeats']));
export const PREWARM_MS = 2000;
export const PHASES = new Set(flags.only.split(','));
export const START_REPEATS = Math.max(1, Number(flags['start-repeats']));
export const PROXY_CONNECTIONS = flags['proxy-connections'].split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
if (flags.client !== 'http' && flags.client !== 'raw') throw new Error('--client is http or raw');
export const CLIENT = flags.client as 'http' | 'raw';
export const TMP = mkdtempSync(path.join(os.tmpdir(), 'cgs-bench-'));
export const CLK_TCK = 100; // Linux USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s

// ---------------------------------------------------------------------------------------------
// Processes

export const children = new Set<ChildProcess>();

export function start(name: string, args: string[], options: { env?: NodeJS.ProcessEnv; stdout?: 'pipe' | 'ignore' } = {}): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...(options.env ?? {}) },
    stdio: ['ignore', options.stdout ?? 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('exit', () => children.delete(child));
  child.on('error', (error) => console.error(`bench: ${name}: ${error.message}`));
  return Object.assign(child, { output: () => output });
}

export async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

export function cleanup(): void {
  for (const child of children) child.kill('SIGKILL');
  rmSync(TMP, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

export function waitFor<T>(what: string, child: ReturnType<typeof start>, poll: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const tick = async () => {
      if (child.exitCode !== null) return reject(new Error(`${what} exited (${child.exitCode}):\n${child.output()}`));
      const value = await poll().catch(() => undefined);
      if (value !== undefined) return resolve(value);
      if (Date.now() > deadline) return reject(new Error(`${what} not ready after ${timeoutMs} ms:\n${child.output()}`));
      setTimeout(tick, 100);
    };
    void tick();
  });
}

/** VmRSS and VmHWM (peak) of a process, in MB. */
export function memory(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
}

/** User and system CPU seconds of a process so far. */
export function cpuSeconds(pid: number): { user: number; sys: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from #3 (state) on
  return { user: Number(fields[11]) / CLK_TCK, sys: Number(fields[12]) / CLK_TCK }; // #14 utime, #15 stime
}

// ---------------------------------------------------------------------------------------------
// HTTP from the bench process (setup only: never under load)

export interface Fetched {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });

export function request(origin: string, method: string, pathAndQuery: string, headers: Record<string, string> = {}, body?: unknown, agent: http.Agent | false = false): Promise<Fetched> {
  const url = new URL(pathAndQuery, origin);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, agent, headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const out: Record<string, string> = {};
          for (let i = 0; i < res.rawHeaders.length; i += 2) out[res.rawHeaders[i]!] = res.rawHeaders[i + 1]!;
          resolve({ status: res.statusCode ?? 0, headers: out, body: Buffer.concat(chunks) });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`timeout on ${method} ${pathAndQuery}`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Lift every read limit (manual clock: a window never resets) so that nothing is throttled. */
export async function liftReadLimits(origin: string): Promise<void> {
  const high = 1_000_000_000;
  const res = await request(origin, 'PATCH', '/__mock/limits', {}, { 'group:read': high, 'account:read': high, 'ip:read': high });
  if (res.status !== 200) throw new Error(`PATCH /__mock/limits: ${res.status} ${res.body.toString()}`);
}

// ---------------------------------------------------------------------------------------------
// Load (a separate process)

export interface Measured extends LoadResult {
  serverCpuPct: number;
  /** The kernel's share (system time) of the server's CPU time, %. */
  serverSysShare: number;
  /** CPU time per answered request (µs): the server's and the generator's. Less sensitive than req/s to other load on the machine. */
  serverUsPerReq: number;
  generatorUsPerReq: number;
  /** 1-minute load average when the window closed. */
  loadavg: number;
  /** The measured window on the monotonic clock, µs (the clock of V8's CPU profiles). */
  windowUs: [number, number];
}

export const nowUs = () => Number(process.hrtime.bigint() / 1000n);

export async function load(serverPid: number, options: LoadOptions): Promise<Measured> {
  const child = start('load generator', ['--import', 'tsx', 'packages/mock/proofs/lib/load.ts', JSON.stringify({ client: CLIENT, ...options })]);
  let cpuStart: { user: number; sys: number } | undefined;
  let cpuEnd: { user: number; sys: number } | undefined;
  let tStart = 0;
  let tEnd = 0;
  const windowUs: [number, number] = [0, 0];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (!cpuStart && stderr.includes('window:start')) {
      cpuStart = cpuSeconds(serverPid);
      tStart = performance.now();
      windowUs[0] = nowUs();
    }
    if (!cpuEnd && stderr.includes('window:end')) {
      cpuEnd = cpuSeconds(serverPid);
      tEnd = performance.now();
      windowUs[1] = nowUs();
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const line = child.output().trim().split('\n').reverse().find((l) => l.startsWith('{'));
  if (code !== 0 || !line) throw new Error(`load generator failed (${code}):\n${child.output()}`);
  const result = JSON.parse(line) as LoadResult;
  if (!cpuStart || !cpuEnd) throw new Error('the load generator did not report its window');
  const serverCpu = cpuEnd.user + cpuEnd.sys - cpuStart.user - cpuStart.sys;
  return {
    ...result,
    serverSysShare: Math.round(((cpuEnd.sys - cpuStart.sys) / serverCpu) * 100),
    serverCpuPct: Math.round((serverCpu / ((tEnd - tStart) / 1000)) * 100),
    serverUsPerReq: Math.round((serverCpu * 1e6) / result.requests),
    generatorUsPerReq: Math.round((result.generatorCpuPct / 100) * (result.durationMs * 1000) / result.requests),
    loadavg: loads[loads.push(os.loadavg()[0]!) - 1]!,
    windowUs,
  };
}

// ---------------------------------------------------------------------------------------------
// Formatting

export const fmtMs = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
export const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

export function table(header: string[], rows: (string | number)[][]): string {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((h, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

export function loadRow(label: string, r: Measured): (string | number)[] {
  const bad = r.errors + r.non2xx;
  return [label, fmtInt(r.rps), fmtMs(r.latencyMs.p50), fmtMs(r.latencyMs.p90), fmtMs(r.latencyMs.p99), fmtMs(r.latencyMs.max), bad === 0 ? '0' : `**${bad}** ${JSON.stringify({ ...r.errorKinds, ...Object.fromEntries(Object.entries(r.statuses).filter(([s]) => !s.startsWith('2'))) })}`, `${r.serverCpuPct}% (${r.serverUsPerReq} µs/req, ${r.serverSysShare}% sys)`, `${r.generatorCpuPct}% (${r.generatorUsPerReq} µs/req)`, r.loadavg.toFixed(1)];
}
export const LOAD_HEADER = ['target', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'errors', 'server CPU', 'generator CPU', 'load avg'];

export const summary: string[] = [];
export const loads: number[] = [];
export const verdicts: string[] = [];
export const loadavg = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

// ---------------------------------------------------------------------------------------------
// The package, built once for the phases that run it (start, proxy)

/**
 * The packages' JavaScript (scripts/build.ts, as prepack builds it) in packages/<dir>/dist/, where
 * the workspaces' links in node_modules resolve one package's imports of another (D279); the
 * result gives the path of a command's module: `bin('cgs-mock')`.
 */
let built = false;
export async function packageBuild(): Promise<(command: string) => string> {
  const { build, PACKAGES } = await import('../../../../scripts/build.ts');
  if (!built) {
    build();
    built = true;
  }
  return (command) => {
    for (const pkg of PACKAGES) {
      const file = path.join(ROOT, 'packages', pkg.dir, 'dist', command);
      if (existsSync(file)) return file;
    }
    throw new Error(`no package has ${command}`);
  };
}
