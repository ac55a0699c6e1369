/**
 * `npm run bench`: the performance figures of the mock, printed (a benchmark, not a timed test).
 *
 * 1. Throughput and latency of GET /creatives?limit=50 (the demo account's read key) at 50
 *    keep-alive connections, against three servers measured in the same run, one after the other,
 *    in a rotating order over several rounds:
 *      - the mock (`mock/adapters/node/main.ts --clock manual`, rate limits lifted through PATCH /__mock/limits);
 *      - Prism 5 mocking the same document (spec/openapi.yaml);
 *      - a bare node:http server answering every request with the mock's exact bytes and headers.
 *    Every server is first warmed up for 2 s (unrecorded). Targets: mock ≥ 10 × Prism,
 *    mock ≥ 0.5 × bare, mock p99 < 10 ms (in the worst round).
 * 2. O(page): the same request against an account with 100 creatives and one with 100,000, in one
 *    process (scripts/lib/large-mock.ts, seedLarge; its response cache is off, so every page is
 *    computed): the large account is walked to its end once,
 *    then both are loaded at 50 connections with cursors several pages deep (ABBA order), then the
 *    first, middle and last pages are timed one request at a time, interleaved (the verdict: under
 *    load, req/s moves with whatever else the machine runs). Resident memory of that process (VmRSS
 *    and the peak VmHWM) after seeding and after the load. Targets: the same cost per page, < 300 MB.
 * 3. Runs: a 1,000-item run in manual time reaches finalizedAt with one clock advance in < 1 s
 *    (scripts/bench/runs.ts, run as is).
 * 5. Start: cgs-mock (the package's compiled JavaScript, scripts/build.ts) from launch to its first
 *    answer, against `npm start` (tsx), several starts each. Target < 1.5 s.
 * 6. Proxy: the latency cgs-proxy (proxy/server.ts) adds in front of the mock, at 1 and 10
 *    connections, direct and through the proxy alternately over the rounds (medians of the rounds).
 * 7. MSW (in-process, mock/adapters/msw/msw.ts; scripts/bench/msw.ts in its own process): one request at
 *    a time in Node, the handler path (msw's getResponse) beside the core's runPipeline alone and a
 *    fetch through msw/node's interceptor; target: handler median < 0.2 ms. And the size of the
 *    in-process mock's browser bundle (esbuild, minified; raw and gzip).
 *
 * Every server and the load generator (scripts/lib/load.ts) run in their own process, so a server
 * never measures itself; they still share the machine's cores, which the summary states.
 *
 *   npm run bench -- [--duration 5] [--warmup 1] [--rounds 3] [--connections 50] [--runs-repeats 5]
 *                    [--profile]   (CPU-profile the mock in phase 1: slower, for finding hot frames)
 *                    [--client http|raw]  (the generator's client, default raw: node:http's
 *                                         client costs the generator more CPU per request than the bare server spends)
 *                    [--only http,page,runs,media,start,proxy,msw] [--start-repeats 5] [--proxy-connections 1,10]
 * 4. Media (D49): the thumbnails the demo account's creatives and assets show (kept after their
 *    first request), fetched without a key at 50 connections: p99 (target < 10 ms, as for the API)
 *    and CPU per request; then the API's req/s alone and, side by side in the same round, while a
 *    browser's 6 connections fetch thumbnails without pause, and while the same 6 connections fetch
 *    API pages instead (API answers displaced per request served), and while 50 connections fetch
 *    thumbnails (for information). Target: a kept thumbnail costs the server no more CPU than an
 *    API page. The first drawing of each of 20 1024-pixel images is timed too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runLoad, type LoadOptions, type LoadResult } from '../lib/load.ts';
import { freePort } from '../../mock/adapters/node/launch.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BASE = '/api/public/v1';
const LIST = '/creatives?limit=50';

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    'runs-repeats': { type: 'string', default: '5' },
    profile: { type: 'boolean', default: false },
    client: { type: 'string', default: 'raw' },
    only: { type: 'string', default: 'http,page,runs,media,start,proxy,msw' },
    'msw-requests': { type: 'string', default: '5000' },
    'start-repeats': { type: 'string', default: '5' },
    'proxy-connections': { type: 'string', default: '1,10' },
  },
  strict: true,
});
const DURATION_MS = Math.round(Number(flags.duration) * 1000);
const WARMUP_MS = Math.round(Number(flags.warmup) * 1000);
const ROUNDS = Math.max(1, Number(flags.rounds));
const CONNECTIONS = Math.max(1, Number(flags.connections));
const RUNS_REPEATS = Math.max(1, Number(flags['runs-repeats']));
const PREWARM_MS = 2000;
const PHASES = new Set(flags.only.split(','));
const START_REPEATS = Math.max(1, Number(flags['start-repeats']));
const PROXY_CONNECTIONS = flags['proxy-connections'].split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
if (flags.client !== 'http' && flags.client !== 'raw') throw new Error('--client is http or raw');
const CLIENT = flags.client as 'http' | 'raw';
const TMP = mkdtempSync(path.join(os.tmpdir(), 'cgs-bench-'));
const CLK_TCK = 100; // Linux USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s

// ---------------------------------------------------------------------------------------------
// Processes

const children = new Set<ChildProcess>();

function start(name: string, args: string[], options: { env?: NodeJS.ProcessEnv; stdout?: 'pipe' | 'ignore' } = {}): ChildProcess & { output: () => string } {
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

async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

function cleanup(): void {
  for (const child of children) child.kill('SIGKILL');
  rmSync(TMP, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

function waitFor<T>(what: string, child: ReturnType<typeof start>, poll: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
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
function memory(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
}

/** User and system CPU seconds of a process so far. */
function cpuSeconds(pid: number): { user: number; sys: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from #3 (state) on
  return { user: Number(fields[11]) / CLK_TCK, sys: Number(fields[12]) / CLK_TCK }; // #14 utime, #15 stime
}

// ---------------------------------------------------------------------------------------------
// HTTP from the bench process (setup only: never under load)

interface Fetched {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });

function request(origin: string, method: string, pathAndQuery: string, headers: Record<string, string> = {}, body?: unknown, agent: http.Agent | false = false): Promise<Fetched> {
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
async function liftReadLimits(origin: string): Promise<void> {
  const high = 1_000_000_000;
  const res = await request(origin, 'PATCH', '/__mock/limits', {}, { 'group:read': high, 'account:read': high, 'ip:read': high });
  if (res.status !== 200) throw new Error(`PATCH /__mock/limits: ${res.status} ${res.body.toString()}`);
}

// ---------------------------------------------------------------------------------------------
// Load (a separate process)

interface Measured extends LoadResult {
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

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

async function load(serverPid: number, options: LoadOptions): Promise<Measured> {
  const child = start('load generator', ['--import', 'tsx', 'scripts/lib/load.ts', JSON.stringify({ client: CLIENT, ...options })]);
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

const fmtMs = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

function table(header: string[], rows: (string | number)[][]): string {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((h, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

function loadRow(label: string, r: Measured): (string | number)[] {
  const bad = r.errors + r.non2xx;
  return [label, fmtInt(r.rps), fmtMs(r.latencyMs.p50), fmtMs(r.latencyMs.p90), fmtMs(r.latencyMs.p99), fmtMs(r.latencyMs.max), bad === 0 ? '0' : `**${bad}** ${JSON.stringify({ ...r.errorKinds, ...Object.fromEntries(Object.entries(r.statuses).filter(([s]) => !s.startsWith('2'))) })}`, `${r.serverCpuPct}% (${r.serverUsPerReq} µs/req, ${r.serverSysShare}% sys)`, `${r.generatorCpuPct}% (${r.generatorUsPerReq} µs/req)`, r.loadavg.toFixed(1)];
}
const LOAD_HEADER = ['target', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'errors', 'server CPU', 'generator CPU', 'load avg'];

const summary: string[] = [];
const loads: number[] = [];
const verdicts: string[] = [];
const loadavg = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

// ---------------------------------------------------------------------------------------------
// Phase 1: mock vs Prism vs bare node:http

async function phaseHttp(): Promise<void> {
  console.log(`\n## 1. GET ${LIST}: mock vs Prism vs bare node:http (${CONNECTIONS} connections, ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s each, ${ROUNDS} rounds)\n`);
  const [mockPort, prismPort, barePort] = [await freePort(), await freePort(), await freePort()];
  const profileDir = path.join(TMP, 'profile');
  const mock = start('mock', [
    ...(flags.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    '--import', 'tsx', 'mock/adapters/node/main.ts', '--port', String(mockPort), '--clock', 'manual',
  ]);
  // Prism logs every request; its stdout goes to /dev/null (cheaper for everyone than a pipe).
  const prism = start('prism', ['node_modules/@stoplight/prism-cli/dist/index.js', 'mock', 'spec/openapi.yaml', '-p', String(prismPort), '-h', '127.0.0.1'], { stdout: 'ignore' });
  const mockOrigin = `http://127.0.0.1:${mockPort}`;
  const prismOrigin = `http://127.0.0.1:${prismPort}`;
  const bareOrigin = `http://127.0.0.1:${barePort}`;

  const readKey = await waitFor('mock', mock, async () => /^\s+read\s+(cgs_[0-9a-f]{64})$/m.exec(mock.output())?.[1]);
  await liftReadLimits(mockOrigin);
  const auth = { authorization: `Bearer ${readKey}` };
  const sample = await request(mockOrigin, 'GET', BASE + LIST, auth);
  if (sample.status !== 200) throw new Error(`mock GET ${LIST}: ${sample.status} ${sample.body.toString()}`);
  const items = (JSON.parse(sample.body.toString()) as { data: unknown[] }).data.length;

  // The bare server: node:http, nothing else, the mock's bytes and headers (node adds Date,
  // Connection and Keep-Alive itself, as it does for the mock).
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(sample.headers)) if (!/^(date|connection|keep-alive|transfer-encoding)$/i.test(name)) headers[name] = value;
  const specFile = path.join(TMP, 'bare.json');
  writeFileSync(specFile, JSON.stringify({ headers, body: sample.body.toString('base64') }));
  const bareSource = `
    const http = require('node:http');
    const spec = JSON.parse(require('node:fs').readFileSync(process.env.BARE_SPEC, 'utf8'));
    const body = Buffer.from(spec.body, 'base64');
    const server = http.createServer((req, res) => { req.resume(); res.writeHead(200, spec.headers); res.end(body); });
    server.keepAliveTimeout = 72000;
    server.listen(Number(process.env.BARE_PORT), '127.0.0.1', () => console.log('listening'));
    process.on('SIGTERM', () => process.exit(0));`;
  const bare = start('bare server', ['-e', bareSource], { env: { BARE_SPEC: specFile, BARE_PORT: String(barePort) } });
  await waitFor('bare server', bare, async () => (bare.output().includes('listening') ? true : undefined));
  const bareSample = await request(bareOrigin, 'GET', BASE + LIST, auth);
  if (!bareSample.body.equals(sample.body)) throw new Error('the bare server does not send the mock’s bytes');

  await waitFor('prism', prism, async () => ((await request(prismOrigin, 'GET', LIST, auth)).status > 0 ? true : undefined), 90_000);
  const prismSample = await request(prismOrigin, 'GET', LIST, auth);
  console.log(`mock: ${sample.body.length} bytes, ${items} creatives, headers ${Object.keys(headers).join(', ')}`);
  console.log(`bare: the same ${bareSample.body.length} bytes and headers; Prism: status ${prismSample.status}, ${prismSample.body.length} bytes (its example)`);

  const targets = [
    { name: 'mock', pid: mock.pid!, origin: mockOrigin, path: BASE + LIST },
    { name: 'Prism', pid: prism.pid!, origin: prismOrigin, path: LIST },
    { name: 'bare node:http', pid: bare.pid!, origin: bareOrigin, path: BASE + LIST },
  ];
  // Warm every server up (JIT, lazily built validators, Prism's first negotiations) before round 1,
  // from this process: nothing is recorded.
  for (const t of targets) await runLoad({ client: CLIENT, origin: t.origin, paths: [t.path], headers: auth, connections: CONNECTIONS, warmupMs: 0, durationMs: PREWARM_MS });
  const results: Record<string, Measured[]> = { mock: [], Prism: [], 'bare node:http': [] };
  const rows: (string | number)[][] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = [...targets.slice(round % 3), ...targets.slice(0, round % 3)];
    for (const t of order) {
      const r = await load(t.pid, { origin: t.origin, paths: [t.path], headers: auth, connections: CONNECTIONS, warmupMs: WARMUP_MS, durationMs: DURATION_MS });
      results[t.name]!.push(r);
      rows.push(loadRow(`${t.name} (round ${round + 1})`, r));
      console.log(`  round ${round + 1} ${t.name.padEnd(15)} ${fmtInt(r.rps).padStart(7)} req/s  p50 ${fmtMs(r.latencyMs.p50)} ms  p99 ${fmtMs(r.latencyMs.p99)} ms  errors ${r.errors + r.non2xx}  server CPU ${r.serverCpuPct}% (${r.serverUsPerReq} µs/req, ${r.serverSysShare}% sys)  generator CPU ${r.generatorCpuPct}% (${r.generatorUsPerReq} µs/req)  load avg ${r.loadavg.toFixed(1)}`);
    }
  }
  console.log(`\n${table(LOAD_HEADER, rows)}`);

  const med = (name: string, f: (r: Measured) => number) => median(results[name]!.map(f));
  const mockRps = med('mock', (r) => r.rps);
  const prismRps = med('Prism', (r) => r.rps);
  const bareRps = med('bare node:http', (r) => r.rps);
  const mockP99Worst = Math.max(...results.mock!.map((r) => r.latencyMs.p99));
  const mockErrors = results.mock!.reduce((n, r) => n + r.errors + r.non2xx, 0);
  const mockCost = med('mock', (r) => r.serverUsPerReq);
  const bareCost = med('bare node:http', (r) => r.serverUsPerReq);
  const prismCost = med('Prism', (r) => r.serverUsPerReq);
  const vsPrism = mockRps / prismRps;
  const vsBare = mockRps / bareRps;
  const medianRows = targets.map((t) => [
    t.name,
    fmtInt(med(t.name, (r) => r.rps)),
    fmtMs(med(t.name, (r) => r.latencyMs.p50)),
    fmtMs(med(t.name, (r) => r.latencyMs.p99)),
    fmtMs(Math.max(...results[t.name]!.map((r) => r.latencyMs.p99))),
    `${Math.round(med(t.name, (r) => r.serverCpuPct))}%`,
    fmtInt(med(t.name, (r) => r.serverUsPerReq)),
    `${Math.round(med(t.name, (r) => r.generatorCpuPct))}%`,
  ]);
  const medianTable = table(['server', 'req/s (median)', 'p50 ms', 'p99 ms (median)', 'p99 ms (worst round)', 'server CPU', 'server CPU µs/request', 'generator CPU'], medianRows);
  console.log(`\nMedians over ${ROUNDS} round(s):\n\n${medianTable}\n`);
  const lines = [
    `- mock / Prism throughput: **${vsPrism.toFixed(1)}×** (target ≥ 10×): ${verdict(vsPrism >= 10)}`,
    `- mock / bare node:http throughput: **${vsBare.toFixed(2)}** (target ≥ 0.5): ${verdict(vsBare >= 0.5)}`,
    `- mock p99 at ${CONNECTIONS} connections: **${fmtMs(mockP99Worst)} ms** in the worst round (target < 10 ms): ${verdict(mockP99Worst < 10)}`,
    `- mock errors or non-2xx answers under load: ${mockErrors}: ${verdict(mockErrors === 0)}`,
    `- for reference, server CPU per request (less sensitive to the machine's other load): mock ${fmtInt(mockCost)} µs, bare ${fmtInt(bareCost)} µs, Prism ${fmtInt(prismCost)} µs; bare/mock = ${(bareCost / mockCost).toFixed(2)}, Prism/mock = ${(prismCost / mockCost).toFixed(1)}; the generator spends ${fmtInt(med('bare node:http', (r) => r.generatorUsPerReq))} µs per request`,
  ];
  console.log(lines.join('\n'));
  verdicts.push(...lines);
  summary.push(
    `### GET /creatives?limit=50, ${CONNECTIONS} keep-alive connections (${ROUNDS} rounds × ${DURATION_MS / 1000} s each after ${WARMUP_MS / 1000} s warm-up, rotating order)`,
    '',
    `The demo account's read key; the page is ${sample.body.length} bytes (${items} creatives). Prism answers its ${prismSample.body.length}-byte example; the bare server sends the mock's exact bytes and headers.`,
    '',
    medianTable,
    '',
    ...lines,
    '',
  );

  await Promise.all([stop(prism), stop(bare), stop(mock, flags.profile ? 'SIGINT' : 'SIGTERM')]);
  if (flags.profile) reportProfile(profileDir, results.mock!.map((r) => r.windowUs));
}

/** The top frames and files by self time of the mock's CPU profile, inside the measured windows only. */
function reportProfile(dir: string, windows: [number, number][]): void {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return void console.log('(no CPU profile was written)');
  const saved = path.join(TMP, '..', `cgs-bench-mock-${process.pid}.cpuprofile`);
  const raw = readFileSync(path.join(dir, file), 'utf8');
  writeFileSync(saved, raw);
  const profile = JSON.parse(raw) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
    startTime: number;
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const frameKey = (id: number) => {
    const frame = byId.get(id)!.callFrame;
    const where = frame.url.replace(`file://${ROOT}/`, '').replace(/^.*node_modules\//, '').replace(/\?.*$/, '');
    return `${frame.functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
  };
  const totalByFrame = new Map<string, number>();
  const selfByFrame = new Map<string, number>();
  const selfByFile = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, dt: number) => map.set(key, (map.get(key) ?? 0) + dt);
  let total = 0;
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    if (!windows.some(([a, b]) => t >= a && t <= b)) return;
    const frame = byId.get(id)!.callFrame;
    const where = frame.url.replace(`file://${ROOT}/`, '').replace(/^.*node_modules\//, '').replace(/\?.*$/, '');
    add(selfByFrame, frameKey(id), dt);
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) onStack.add(frameKey(at));
    for (const key of onStack) add(totalByFrame, key, dt);
    add(selfByFile, where ? (where.startsWith('node:') ? 'node: (core)' : where.startsWith('mock/') || where.startsWith('spec/') ? where : where.split('/')[0]!) : frame.functionName, dt);
    total += dt;
  });
  const show = (title: string, map: Map<string, number>, n: number) => {
    console.log(`\n${title}`);
    for (const [key, us] of [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`  ${((us / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
  };
  console.log(`\nMock CPU profile during the measured windows (${(total / 1e6).toFixed(1)} s of samples; saved to ${saved}).`);
  console.log('V8 samples wall time: time the process spends descheduled (other load) lands on the frame it stopped in, usually writev; compare the server\'s sys share above.');
  show('Top frames by self time:', selfByFrame, 25);
  show('Self time by file or package:', selfByFile, 15);
  const ours = new Map([...totalByFrame].filter(([key]) => / (mock|spec)\//.test(key) || /^(JSON|stringify|writev)/.test(key)));
  show('Total (inclusive) time of the mock\'s own frames:', ours, 25);
}

// ---------------------------------------------------------------------------------------------
// Phase 2: O(page) and memory with 100,000 creatives

async function walk(origin: string, key: string, maxPages: number): Promise<{ cursors: (string | null)[]; latencies: number[]; items: number }> {
  const cursors: (string | null)[] = [null];
  const latencies: number[] = [];
  let items = 0;
  let cursor: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const t0 = performance.now();
    const res = await request(origin, 'GET', `${BASE}${LIST}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { authorization: `Bearer ${key}` }, undefined, keepAlive);
    latencies.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`walk: ${res.status} ${res.body.toString()}`);
    const body = JSON.parse(res.body.toString()) as { data: unknown[]; pagination: { nextCursor: string | null } };
    items += body.data.length;
    cursor = body.pagination.nextCursor;
    if (cursor === null) break;
    cursors.push(cursor);
  }
  return { cursors, latencies, items };
}

async function phasePage(): Promise<void> {
  console.log(`\n## 2. O(page): 100 vs 100,000 creatives, resident memory\n`);
  const port = await freePort();
  const large = start('large mock', ['--import', 'tsx', 'scripts/lib/large-mock.ts', '--port', String(port)]);
  const info = await waitFor('large mock', large, async () => {
    const line = large.output().split('\n').find((l) => l.startsWith('{'));
    return line ? (JSON.parse(line) as { port: number; pid: number; seedMs: number; accounts: Record<'small' | 'large', { accountId: string; readKey: string; creatives: number }> }) : undefined;
  });
  const afterSeed = memory(large.pid!);
  console.log(`seeded 100 + 100,000 creatives in ${info.seedMs} ms; RSS ${afterSeed.rssMb} MB (peak ${afterSeed.peakMb} MB)`);
  const origin = `http://127.0.0.1:${port}`;
  await liftReadLimits(origin);

  // Walk both accounts to the end, one page at a time (one connection, sequential).
  const small = await walk(origin, info.accounts.small.readKey, 10);
  const t0 = performance.now();
  const big = await walk(origin, info.accounts.large.readKey, 5000);
  const walkMs = performance.now() - t0;
  const pages = big.latencies.length;
  console.log(`walked the 100,000-creative account to its end: ${pages} pages, ${fmtInt(big.items)} creatives in ${(walkMs / 1000).toFixed(2)} s (sequential, one keep-alive connection, cold)`);
  if (big.items !== info.accounts.large.creatives || small.items !== info.accounts.small.creatives) throw new Error(`walk counted ${small.items} and ${big.items} creatives`);

  // Load: the small account's 2 pages vs 7 pages of the large one (first 5, the middle, the last).
  const q = (c: string | null) => `${BASE}${LIST}${c ? `&cursor=${encodeURIComponent(c)}` : ''}`;
  const smallPaths = small.cursors.map(q);
  const mid = Math.floor(big.cursors.length / 2);
  const largePaths = [...big.cursors.slice(0, 5), big.cursors[mid]!, big.cursors[big.cursors.length - 1]!].map(q);
  const run = (paths: string[], key: string) => load(large.pid!, { origin, paths, headers: { authorization: `Bearer ${key}` }, connections: CONNECTIONS, warmupMs: WARMUP_MS, durationMs: DURATION_MS });
  const smallR: Measured[] = [];
  const largeR: Measured[] = [];
  const rows: (string | number)[][] = [];
  for (const which of ['small', 'large', 'large', 'small'] as const) {
    const r = which === 'small' ? await run(smallPaths, info.accounts.small.readKey) : await run(largePaths, info.accounts.large.readKey);
    (which === 'small' ? smallR : largeR).push(r);
    const label = which === 'small' ? '100 creatives (pages 1-2)' : '100,000 creatives (pages 1-5, middle, last)';
    rows.push(loadRow(label, r));
    console.log(`  ${label.padEnd(44)} ${fmtInt(r.rps).padStart(7)} req/s  p50 ${fmtMs(r.latencyMs.p50)} ms  p99 ${fmtMs(r.latencyMs.p99)} ms  errors ${r.errors + r.non2xx}`);
  }
  const afterLoad = memory(large.pid!);
  console.log(`\n${table(LOAD_HEADER, rows)}\n`);

  // Warm now: one page at a time (no queueing), the first page of each account and deep pages.
  const SEQ = 400;
  const positions: [string, string, string][] = [
    ['100 creatives, page 1', smallPaths[0]!, info.accounts.small.readKey],
    ['100 creatives, page 2 (last)', smallPaths[1]!, info.accounts.small.readKey],
    ['100,000 creatives, page 1', largePaths[0]!, info.accounts.large.readKey],
    [`100,000 creatives, page ${mid + 1} (middle)`, largePaths[5]!, info.accounts.large.readKey],
    [`100,000 creatives, page ${big.cursors.length} (last)`, largePaths[6]!, info.accounts.large.readKey],
  ];
  // Interleaved, so that a burst of other load on the machine hits every position alike.
  const lat: number[][] = positions.map(() => []);
  for (let i = 0; i < SEQ; i++) {
    for (let k = 0; k < positions.length; k++) {
      const j = (i + k) % positions.length; // each cycle starts one position later
      const [label, p, key] = positions[j]!;
      const t = performance.now();
      const res = await request(origin, 'GET', p, { authorization: `Bearer ${key}` }, undefined, keepAlive);
      lat[j]!.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`${label}: ${res.status}`);
    }
  }
  const seqRows = positions.map(([label], j) => {
    const sorted = lat[j]!.sort((a, b) => a - b);
    return [label, fmtMs(median(sorted)), fmtMs(sorted[Math.ceil(sorted.length * 0.99) - 1]!)];
  });
  const p50s = lat.map((l) => median(l));
  const pageCostRatio = Math.max(...p50s.slice(2)) / Math.max(...p50s.slice(0, 2));
  const seqTable = table([`one request at a time, interleaved (${SEQ} each)`, 'p50 ms', 'p99 ms'], seqRows);
  console.log(`${seqTable}\n`);
  const ratio = median(largeR.map((r) => r.rps)) / median(smallR.map((r) => r.rps));
  const p50Ratio = median(largeR.map((r) => r.latencyMs.p50)) / median(smallR.map((r) => r.latencyMs.p50));
  const errors = [...smallR, ...largeR].reduce((n, r) => n + r.errors + r.non2xx, 0);
  const lines = [
    `- cost of a page, 100,000 creatives / 100 creatives (one request at a time, interleaved; the slowest page position of each, p50): **${pageCostRatio.toFixed(2)}** (target: the same cost, ≤ 1.5; a scan of the 100,000 rows would cost tens of times more): ${verdict(pageCostRatio <= 1.5)}`,
    `- throughput under load, 100,000 creatives / 100 creatives: ${ratio.toFixed(2)} (p50 latency ratio ${p50Ratio.toFixed(2)}; for information: it moves with the machine's other load, see the rounds above)`,
    `- a full walk of the 100,000 creatives: ${pages} pages in ${(walkMs / 1000).toFixed(2)} s, one page at a time, cold`,
    `- resident memory of the mock with 100,100 creatives: ${afterSeed.rssMb} MB after seeding (${info.seedMs} ms), ${afterLoad.rssMb} MB after the load, peak **${afterLoad.peakMb} MB** (target < 300 MB): ${verdict(afterLoad.peakMb < 300)}`,
    `- errors or non-2xx answers under load: ${errors}: ${verdict(errors === 0)}`,
  ];
  console.log(lines.join('\n'));
  verdicts.push(...lines);
  summary.push(
    `### 100 vs 100,000 creatives in one account (GET /creatives?limit=50, ${CONNECTIONS} connections, cursors walked)`,
    '',
    table(['account', 'req/s (median)', 'p50 ms', 'p99 ms'], [
      ['100 creatives', fmtInt(median(smallR.map((r) => r.rps))), fmtMs(median(smallR.map((r) => r.latencyMs.p50))), fmtMs(median(smallR.map((r) => r.latencyMs.p99)))],
      ['100,000 creatives', fmtInt(median(largeR.map((r) => r.rps))), fmtMs(median(largeR.map((r) => r.latencyMs.p50))), fmtMs(median(largeR.map((r) => r.latencyMs.p99)))],
    ]),
    '',
    seqTable,
    '',
    ...lines,
    '',
  );
  keepAlive.destroy();
  await stop(large);
}

// ---------------------------------------------------------------------------------------------
// Phase 3: a 1,000-item run in manual time (scripts/bench/runs.ts)

async function phaseRuns(): Promise<void> {
  console.log(`\n## 3. A 1,000-item run, manual clock, one advance (scripts/bench/runs.ts ${RUNS_REPEATS})\n`);
  const child = start('bench-runs', ['--import', 'tsx', 'scripts/bench/runs.ts', String(RUNS_REPEATS)]);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const output = child.output().trim();
  console.log(output);
  const totals = [...output.matchAll(/total ([\d.]+) ms/g)].map((m) => Number(m[1]));
  if (code !== 0 || totals.length === 0) throw new Error(`scripts/bench/runs.ts failed (${code})`);
  const worst = Math.max(...totals);
  const line = `- 1,000-item run to finalizedAt with one clock advance: median **${fmtMs(median(totals))} ms**, worst ${fmtMs(worst)} ms of ${totals.length} (the first includes warm-up; target < 1,000 ms): ${verdict(worst < 1000)}`;
  console.log(`\n${line}`);
  verdicts.push(line);
  summary.push('### 1,000-item run in manual time', '', line, '');
}


// ---------------------------------------------------------------------------------------------
// Phase 4: media (D49) beside the API

async function phaseMedia(): Promise<void> {
  console.log(`\n## 4. Media: thumbnails at ${CONNECTIONS} connections, and the API's req/s while media is fetched (${ROUNDS} rounds)\n`);
  const port = await freePort();
  const mock = start('mock (media)', ['--import', 'tsx', 'mock/adapters/node/main.ts', '--port', String(port), '--clock', 'manual']);
  const origin = `http://127.0.0.1:${port}`;
  const readKey = await waitFor('mock', mock, async () => /^\s+read\s+(cgs_[0-9a-f]{64})$/m.exec(mock.output())?.[1]);
  await liftReadLimits(origin);
  const auth = { authorization: `Bearer ${readKey}` };
  const fetchJson = async (p: string) => JSON.parse((await request(origin, 'GET', BASE + p, auth)).body.toString()) as { data: Record<string, unknown>[] };
  // The thumbnails a page of creatives and assets shows (video stills and image thumbnails).
  const thumbs = new Set<string>();
  for (const row of [...(await fetchJson('/creatives?limit=100')).data, ...(await fetchJson('/assets?limit=100')).data]) {
    if (typeof row.thumbnailUrl === 'string') thumbs.add(new URL(row.thumbnailUrl).pathname);
  }
  const images = [...new Set((await fetchJson('/creatives?limit=100')).data.filter((c) => c.mediaType === 'image').map((c) => new URL(c.url as string).pathname))].slice(0, 20);
  const thumbPaths = [...thumbs];
  if (thumbPaths.length === 0 || images.length === 0) throw new Error('media bench: the demo account hands out no thumbnail or image');
  // Cold: each image drawn for the first time, one at a time.
  const cold: number[] = [];
  for (const p of images) {
    const t = performance.now();
    const res = await request(origin, 'GET', p);
    cold.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`media bench: ${p}: ${res.status}`);
  }
  for (const p of thumbPaths) await request(origin, 'GET', p); // the thumbnails are kept from here on
  console.log(`${thumbPaths.length} thumbnails; ${images.length} 1024-pixel images drawn cold in p50 ${fmtMs(median(cold))} ms, max ${fmtMs(Math.max(...cold))} ms (one at a time, then kept)`);

  const api = (connections = CONNECTIONS) => ({ origin, paths: [BASE + LIST], headers: auth, connections, warmupMs: WARMUP_MS, durationMs: DURATION_MS });
  const media = (connections: number) => ({ origin, paths: thumbPaths, connections, warmupMs: WARMUP_MS, durationMs: DURATION_MS });
  const BROWSER = 6; // the connections a browser opens to one origin
  const res: Record<string, Measured[]> = { apiAlone: [], mediaAlone: [], apiWithMedia: [], mediaWithApi: [], apiWithBrowser: [], browserWithApi: [], apiWithApi: [], apiBeside: [] };
  const rows: (string | number)[][] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const a = await load(mock.pid!, api());
    const m = await load(mock.pid!, media(CONNECTIONS));
    const [a2, m2] = await Promise.all([load(mock.pid!, api()), load(mock.pid!, media(CONNECTIONS))]);
    const [a3, m3] = await Promise.all([load(mock.pid!, api()), load(mock.pid!, media(BROWSER))]);
    // The same six connections asking for API pages instead: what any extra traffic costs the API.
    const [a4, b4] = await Promise.all([load(mock.pid!, api()), load(mock.pid!, api(BROWSER))]);
    res.apiWithApi!.push(a4);
    res.apiBeside!.push(b4);
    res.apiAlone!.push(a);
    res.mediaAlone!.push(m);
    res.apiWithMedia!.push(a2);
    res.mediaWithApi!.push(m2);
    res.apiWithBrowser!.push(a3);
    res.browserWithApi!.push(m3);
    rows.push(
      loadRow(`API alone (round ${round + 1})`, a),
      loadRow(`thumbnails alone, ${CONNECTIONS} conn.`, m),
      loadRow(`API, with thumbnails at ${CONNECTIONS} conn.`, a2),
      loadRow(`thumbnails at ${CONNECTIONS} conn., with the API`, m2),
      loadRow(`API, with thumbnails at ${BROWSER} conn.`, a3),
      loadRow(`thumbnails at ${BROWSER} conn., with the API`, m3),
      loadRow(`API, with API pages at ${BROWSER} more conn.`, a4),
    );
    console.log(`  round ${round + 1}: API alone ${fmtInt(a.rps)} req/s; thumbnails alone ${fmtInt(m.rps)} req/s p99 ${fmtMs(m.latencyMs.p99)} ms; together ${fmtInt(a2.rps)} + ${fmtInt(m2.rps)} req/s; API with ${BROWSER} media connections ${fmtInt(a3.rps)} req/s (media ${fmtInt(m3.rps)} req/s, p99 ${fmtMs(m3.latencyMs.p99)} ms)`);
  }
  console.log(`\n${table(LOAD_HEADER, rows)}\n`);
  const med = (k: string, f: (r: Measured) => number) => median(res[k]!.map(f));
  const mediaP99Worst = Math.max(...res.mediaAlone!.map((r) => r.latencyMs.p99));
  // Ratios within each round (measured one after the other), then their median.
  const ratio = (k: string) => median(res[k]!.map((r, i) => r.rps / res.apiAlone![i]!.rps));
  const withBrowser = ratio('apiWithBrowser');
  // API answers displaced per extra request served (per round, then the median): for a thumbnail
  // and for an API page asked by the same 6 extra connections.
  const displaced = (withKey: string, extraKey: string) => median(res[withKey]!.map((r, i) => (res.apiAlone![i]!.rps - r.rps) / res[extraKey]![i]!.rps));
  const perThumb = displaced('apiWithBrowser', 'browserWithApi');
  const perPage = displaced('apiWithApi', 'apiBeside');
  const withFull = ratio('apiWithMedia');
  const apiCost = med('apiAlone', (r) => r.serverUsPerReq);
  const mediaCost = med('mediaAlone', (r) => r.serverUsPerReq);
  const errors = Object.values(res).flat().reduce((n, r) => n + r.errors + r.non2xx, 0);
  const lines = [
    `- thumbnail p99 at ${CONNECTIONS} connections: **${fmtMs(mediaP99Worst)} ms** in the worst round (median ${fmtInt(med('mediaAlone', (r) => r.rps))} req/s; target < 10 ms, as for the API): ${verdict(mediaP99Worst < 10)}`,
    `- server CPU per request: a thumbnail ${fmtInt(mediaCost)} µs, a page of 50 creatives ${fmtInt(apiCost)} µs (a kept thumbnail costs no more than an API answer: ${verdict(mediaCost <= apiCost * 1.2)})`,
    `- the API's req/s while ${BROWSER} more connections (a browser's) fetch thumbnails without pause, over the API alone in the same round: **${withBrowser.toFixed(2)}** (median of the rounds; the thumbnails got ${fmtInt(med('browserWithApi', (r) => r.rps))} req/s, p99 ${fmtMs(med('browserWithApi', (r) => r.latencyMs.p99))} ms). Closed loops without pause take a share of the server's one thread whatever they ask: API answers displaced per request served beside them, a thumbnail ${perThumb.toFixed(2)}, an API page ${perPage.toFixed(2)} (for information: both move with the machine's other load)`,
    `- the API's req/s with thumbnails at ${CONNECTIONS} connections beside it (as many clients as the API's; the server's one thread is shared), over the API alone: ${withFull.toFixed(2)} (the API's p99 then ${fmtMs(med('apiWithMedia', (r) => r.latencyMs.p99))} ms; for information)`,
    `- ${images.length} 1024-pixel images drawn the first time: p50 ${fmtMs(median(cold))} ms, max ${fmtMs(Math.max(...cold))} ms (compressed off the event loop; kept afterwards)`,
    `- errors or non-2xx answers under load: ${errors}: ${verdict(errors === 0)}`,
  ];
  console.log(lines.join('\n'));
  verdicts.push(...lines);
  summary.push(
    `### Media: thumbnails (GET /media/…png, no key) beside GET /creatives?limit=50`,
    '',
    table(['load', 'req/s (median)', 'p50 ms', 'p99 ms (median)', 'p99 ms (worst round)'], [
      ['API alone, 50 conn.', 'apiAlone'],
      [`thumbnails alone, ${CONNECTIONS} conn.`, 'mediaAlone'],
      [`API with thumbnails at ${BROWSER} conn.`, 'apiWithBrowser'],
      [`thumbnails at ${BROWSER} conn. with the API`, 'browserWithApi'],
      [`API with API pages at ${BROWSER} more conn.`, 'apiWithApi'],
      [`API with thumbnails at ${CONNECTIONS} conn.`, 'apiWithMedia'],
      [`thumbnails at ${CONNECTIONS} conn. with the API`, 'mediaWithApi'],
    ].map(([label, k]) => [label!, fmtInt(med(k!, (r) => r.rps)), fmtMs(med(k!, (r) => r.latencyMs.p50)), fmtMs(med(k!, (r) => r.latencyMs.p99)), fmtMs(Math.max(...res[k!]!.map((r) => r.latencyMs.p99)))])),
    '',
    ...lines,
    '',
  );
  await stop(mock);
}
// ---------------------------------------------------------------------------------------------
// Phase 5: cgs-mock's time to first answer (the packaged, compiled mock; a CI gate waits for it)

/** The package's JavaScript (scripts/build.ts, as prepack builds it), under .tmp/ so node_modules resolves. */
let builtDir: string | undefined;
async function packageBuild(): Promise<string> {
  if (!builtDir) {
    const { build } = await import('../build.ts');
    builtDir = path.join(ROOT, '.tmp', `bench-dist-${process.pid}`);
    build(builtDir);
    process.on('exit', () => rmSync(builtDir!, { recursive: true, force: true }));
  }
  return builtDir;
}

/**
 * Launch → the first answer of the control plane (GET /__mock/clock: what the suite's global setup
 * waits for; it answers after the API does), in ms of wall time and of the process's CPU time.
 */
async function firstAnswer(args: string[]): Promise<{ wallMs: number; cpuMs: number }> {
  const port = await freePort();
  const t0 = performance.now();
  const child = start('cgs-mock', [...args, '--port', String(port), '--clock', 'manual'], { stdout: 'ignore' });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the mock exited (${child.exitCode}):\n${child.output()}`);
    const answered = await request(`http://127.0.0.1:${port}`, 'GET', '/__mock/clock').then((r) => r.status === 200, () => false);
    if (answered) break;
    if (performance.now() - t0 > 30_000) throw new Error('the mock did not answer within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const wallMs = performance.now() - t0;
  const cpu = cpuSeconds(child.pid!);
  await stop(child);
  return { wallMs, cpuMs: (cpu.user + cpu.sys) * 1000 };
}

async function phaseStart(): Promise<void> {
  const repeats = START_REPEATS;
  console.log(`\n## 5. cgs-mock: launch to first answer (${repeats} starts each)\n`);
  const dist = await packageBuild();
  const rows: (string | number)[][] = [];
  const results: Record<string, { wallMs: number; cpuMs: number }[]> = {};
  for (const [label, args] of [
    ['cgs-mock (dist/bin/cgs-mock.js, the package)', [path.join(dist, 'bin/cgs-mock.js')]],
    ['npm start (tsx mock/adapters/node/main.ts, the checkout)', ['--import', 'tsx', 'mock/adapters/node/main.ts']],
  ] as const) {
    const runs: { wallMs: number; cpuMs: number }[] = [];
    for (let i = 0; i < repeats; i++) runs.push(await firstAnswer([...args]));
    results[label] = runs;
    const walls = runs.map((r) => r.wallMs);
    rows.push([label, fmtInt(median(walls)), fmtInt(Math.max(...walls)), fmtInt(median(runs.map((r) => r.cpuMs)))]);
  }
  const table_ = table(['command', 'median ms', 'worst ms', 'CPU ms (median)'], rows);
  console.log(table_);
  const packaged = Object.values(results)[0]!;
  const worst = Math.max(...packaged.map((r) => r.wallMs));
  const line = `- cgs-mock, launch to first answer: median **${fmtInt(median(packaged.map((r) => r.wallMs)))} ms**, worst ${fmtInt(worst)} ms of ${repeats} (target < 1,500 ms): ${verdict(worst < 1500)}`;
  console.log(`\n${line}`);
  verdicts.push(line);
  summary.push('### cgs-mock start-up', '', table_, '', line, '');
}

// ---------------------------------------------------------------------------------------------
// Phase 6: the validating proxy's added latency (cgs-proxy in front of the mock)

async function phaseProxy(): Promise<void> {
  console.log(`\n## 6. cgs-proxy: latency added in front of the mock, GET ${LIST} (${ROUNDS} rounds of ${DURATION_MS / 1000} s, direct and through the proxy alternately)\n`);
  const dist = await packageBuild();
  const [mockPort, proxyPort] = [await freePort(), await freePort()];
  const mock = start('mock', [path.join(dist, 'bin/cgs-mock.js'), '--port', String(mockPort), '--clock', 'manual']);
  const mockOrigin = `http://127.0.0.1:${mockPort}`;
  const readKey = await waitFor('mock', mock, async () => /^\s+read\s+(cgs_[0-9a-f]{64})$/m.exec(mock.output())?.[1]);
  await liftReadLimits(mockOrigin);
  const proxy = start('proxy', [path.join(dist, 'bin/cgs-proxy.js'), '--target', `${mockOrigin}${BASE}`, '--port', String(proxyPort), '--report-dir', path.join(TMP, 'proxy-report')]);
  await waitFor('proxy', proxy, async () => (proxy.output().includes('cgs-proxy: http') ? true : undefined));
  const proxyOrigin = `http://127.0.0.1:${proxyPort}`;
  const auth = { authorization: `Bearer ${readKey}` };
  const direct = await request(mockOrigin, 'GET', BASE + LIST, auth);
  const through = await request(proxyOrigin, 'GET', BASE + LIST, auth);
  if (through.status !== 200 || !through.body.equals(direct.body)) throw new Error('the proxy does not answer the mock\'s bytes');

  const rows: (string | number)[][] = [];
  const lines: string[] = [];
  for (const connections of PROXY_CONNECTIONS) {
    const sides: Record<'direct' | 'proxy', Measured[]> = { direct: [], proxy: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 ? (['proxy', 'direct'] as const) : (['direct', 'proxy'] as const)) {
        const origin = side === 'direct' ? mockOrigin : proxyOrigin;
        sides[side].push(await load(side === 'direct' ? mock.pid! : proxy.pid!, { origin, paths: [BASE + LIST], headers: auth, connections, warmupMs: WARMUP_MS, durationMs: DURATION_MS }));
      }
    }
    const p = (side: 'direct' | 'proxy', key: 'p50' | 'p99') => median(sides[side].map((m) => m.latencyMs[key]));
    for (const side of ['direct', 'proxy'] as const) {
      const best = sides[side].reduce((a, b) => (a.latencyMs.p50 <= b.latencyMs.p50 ? a : b));
      rows.push(loadRow(`${side === 'direct' ? 'mock' : 'through cgs-proxy'}, ${connections} conn.`, { ...best, latencyMs: { ...best.latencyMs, p50: p(side, 'p50'), p99: p(side, 'p99') } }));
    }
    const added50 = p('proxy', 'p50') - p('direct', 'p50');
    const added99 = p('proxy', 'p99') - p('direct', 'p99');
    lines.push(`- ${connections} connection${connections > 1 ? 's' : ''}: the proxy adds **${fmtMs(added50)} ms at p50** and **${fmtMs(added99)} ms at p99** (medians of ${ROUNDS} rounds: p50 ${fmtMs(p('direct', 'p50'))} → ${fmtMs(p('proxy', 'p50'))} ms, p99 ${fmtMs(p('direct', 'p99'))} → ${fmtMs(p('proxy', 'p99'))} ms)`);
  }
  await stop(proxy, 'SIGINT');
  const report = proxy.output().split('\n').filter((l) => l.startsWith('cgs-proxy: ') && l.includes('forwarded'));
  await stop(mock);
  const table_ = table(LOAD_HEADER, rows);
  console.log(`${table_}\n\n${lines.join('\n')}\n${report.join('\n')}`);
  verdicts.push(...lines);
  summary.push('### cgs-proxy: added latency', '', table_, '', ...lines, ...report.map((l) => `- ${l}`), '');
}

// ---------------------------------------------------------------------------------------------
// Phase 7: the in-process mock (MSW)

async function phaseMsw(): Promise<void> {
  const requests = Math.max(100, Number(flags['msw-requests']));
  console.log(`\n## 7. In-process (MSW): one request at a time in Node, ${requests} requests per way (scripts/bench/msw.ts)\n`);
  const child = start('bench-msw', ['--import', 'tsx', 'scripts/bench/msw.ts', String(requests)]);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const output = child.output().trim();
  console.log(output);
  const way = (name: string) => {
    const m = new RegExp(`^msw: ${name} median ([\\d.]+) ms p99 ([\\d.]+) ms`, 'm').exec(output);
    if (!m) throw new Error(`scripts/bench/msw.ts printed no ${name} figure (${code}):\n${output}`);
    return { p50: Number(m[1]), p99: Number(m[2]) };
  };
  const pipeline = way('pipeline');
  const answer = way('mock');
  const mswOwn = way('msw');
  const handler = way('handler');
  const fetched = way('fetch');
  const fmtUs = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
  const rows = [
    ['runPipeline alone (the core)', fmtUs(pipeline.p50), fmtUs(pipeline.p99)],
    ["the in-process mock's answer: the adapter's resolver (Request in, the pipeline, Response out)", fmtUs(answer.p50), fmtUs(answer.p99)],
    ["for comparison, msw with a plain `http.all` handler answering the same bytes at once (cookies parsed, path matched)", fmtUs(mswOwn.p50), fmtUs(mswOwn.p99)],
    ["the handler path: msw's getResponse with the mock's handlers", fmtUs(handler.p50), fmtUs(handler.p99)],
    ["fetch through msw/node's setupServer (what a test's client sees)", fmtUs(fetched.p50), fmtUs(fetched.p99)],
  ];
  const table_ = table(['GET /creatives?limit=50, one at a time', 'median', 'p99'], rows);
  const lines = [
    `- The in-process mock answers a request through msw (getResponse with its handlers: msw's matching, the adapter, the pipeline, the Response) in a median **${fmtUs(handler.p50)}** (target < 200 µs): ${verdict(handler.p50 < 0.2)}. Of it: the adapter's resolver ${fmtUs(answer.p50)}, the core's runPipeline ${fmtUs(pipeline.p50)}; a plain \`http.all\` handler answering fixed bytes costs msw ${fmtUs(mswOwn.p50)}, which the mock's prefix handlers avoid.`,
    `- A \`fetch\` through msw/node's interceptor (what a test's client sees): ${fmtUs(fetched.p50)} median (for information: the interceptor's share is msw's).`,
  ];
  const bundle = /^msw: bundle (\d+) bytes gzip (\d+) bytes/m.exec(output);
  const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  lines.push(bundle ? `- Browser bundle of the in-process mock (createMockHandlers and all it imports, msw's core included; esbuild, minified ESM): **${kib(Number(bundle[1]))}**, **${kib(Number(bundle[2]))} gzip**.` : `- Browser bundle of the in-process mock: not built (${/^msw: bundle failed: (.*)$/m.exec(output)?.[1] ?? 'no figure'}): FAIL`);
  console.log(`${table_}\n\n${lines.join('\n')}`);
  verdicts.push(...lines);
  summary.push('### In-process (MSW)', '', table_, '', ...lines, '');
}

// ---------------------------------------------------------------------------------------------

const cpuModel = /^model name\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model ?? 'unknown CPU';
const machine = `${os.availableParallelism()} cores (${cpuModel}), ${Math.round(os.totalmem() / 2 ** 30)} GB RAM, Node ${process.version}, ${os.type()} ${os.release()}`;
console.log(`# npm run bench\n\n${machine}\nload average at start: ${loadavg()}`);
const began = performance.now();
const phaseTimes: string[] = [];
const timed = async (name: string, phase: () => Promise<void>) => {
  const t = performance.now();
  await phase();
  phaseTimes.push(`${name} ${((performance.now() - t) / 1000).toFixed(0)} s`);
};
try {
  if (PHASES.has('http')) await timed('mock/Prism/bare', phaseHttp);
  if (PHASES.has('page')) await timed('O(page)', phasePage);
  if (PHASES.has('runs')) await timed('runs', phaseRuns);
  if (PHASES.has('media')) await timed('media', phaseMedia);
  if (PHASES.has('start')) await timed('cgs-mock start', phaseStart);
  if (PHASES.has('proxy')) await timed('cgs-proxy', phaseProxy);
  if (PHASES.has('msw')) await timed('msw', phaseMsw);
} catch (error) {
  console.error(`\nbench: ${(error as Error).stack ?? error}`);
  process.exit(1);
}
const elapsed = (performance.now() - began) / 1000;

console.log(`\n---------------------------------------------------------------------------------------------`);
console.log(`Summary (Markdown, for docs/benchmarks.md):\n`);
console.log(
  [
    '## Benchmarks',
    '',
    '```sh',
    'npm run bench        # about 2 minutes; options: -- --duration 5 --rounds 3 --connections 50 --profile',
    '```',
    '',
    `Measured on ${machine}, ${new Date().toISOString().slice(0, 10)}; the whole bench took ${elapsed.toFixed(0)} s (${phaseTimes.join(', ')}).`,
    `Each server and the load generator (scripts/lib/load.ts: closed loop, keep-alive, ${CLIENT === 'http' ? "node:http's client" : 'raw sockets'}) run in separate processes but share the ${os.availableParallelism()} cores:`,
    `the generator's own CPU is shown. The machine was not idle: other work ran on it too (1-minute load average ${loads.length ? `${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)} during the measurements` : `${loadavg()} at the end`}), so absolute figures move from run to run; CPU time per request moves less.`,
    '',
    ...summary,
  ].join('\n'),
);
const failed = verdicts.filter((v) => v.endsWith('FAIL'));
console.log(failed.length ? `\n${failed.length} target(s) missed.` : '\nEvery target met.');
