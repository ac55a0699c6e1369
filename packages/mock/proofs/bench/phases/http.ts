/** `npm run bench`, phase 1: mock vs Prism vs bare node:http. */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runLoad } from '../../lib/load.ts';
import { freePort, launchMock } from '../../../src/node/launch.ts';
import { BASE, children, CLIENT, CONNECTIONS, DURATION_MS, flags, fmtInt, fmtMs, liftReadLimits, LIST, load, LOAD_HEADER, loadRow, type Measured, median, PREWARM_MS, request, ROOT, ROUNDS, start, stop, summary, table, TMP, verdict, verdicts, waitFor, WARMUP_MS } from '../common.ts';

export async function phaseHttp(): Promise<void> {
  console.log(`\n## 1. GET ${LIST}: mock vs Prism vs bare node:http (${CONNECTIONS} connections, ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s each, ${ROUNDS} rounds)\n`);
  const [prismPort, barePort] = [await freePort(), await freePort()];
  const profileDir = path.join(TMP, 'profile');
  const launched = await launchMock({ nodeArgs: flags.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] });
  children.add(launched.child);
  const mock = Object.assign(launched.child, { output: launched.output });
  // Prism logs every request; its stdout goes to /dev/null (cheaper for everyone than a pipe).
  const prism = start('prism', ['node_modules/@stoplight/prism-cli/dist/index.js', 'mock', 'packages/contract/spec/openapi.yaml', '-p', String(prismPort), '-h', '127.0.0.1'], { stdout: 'ignore' });
  const mockOrigin = launched.origin;
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
    add(selfByFile, where ? (where.startsWith('node:') ? 'node: (core)' : where.startsWith('mock/') || where.startsWith('packages/contract/spec/') ? where : where.split('/')[0]!) : frame.functionName, dt);
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
