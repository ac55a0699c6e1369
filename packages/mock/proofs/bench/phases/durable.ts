/**
 * `npm run bench -- --only durable`: the cost of `--state` (D248: every write journaled and
 * fdatasynced before it is answered, group commit). Two mocks side by side, one without `--state`
 * and one with it (a file in the bench's temporary directory), each measured in turn, order
 * rotating per round: writes (`POST /__mock/accounts` with an empty account, the write the journal
 * exists for) and reads (`GET /creatives?limit=50` with the demo read key, which never wait).
 * Compare the ratios, not the absolute figures.
 */
import path from 'node:path';
import { launchMock, type LaunchedMock } from '../../../src/node/launch.ts';
import { BASE, children, CONNECTIONS, DURATION_MS, fmtInt, fmtMs, liftReadLimits, LIST, load, LOAD_HEADER, loadRow, type Measured, median, request, ROUNDS, summary, table, TMP, verdicts, WARMUP_MS } from '../common.ts';

const WRITE = '/__mock/accounts';
const WRITE_BODY = JSON.stringify({ empty: true });

export async function phaseDurable(): Promise<void> {
  console.log(`\n## Durability: the mock without and with --state (${CONNECTIONS} connections, ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s each, ${ROUNDS} rounds)\n`);
  const stateFile = path.join(TMP, 'durable-state.json');
  const targets = [] as Array<{ name: string; pid: number; origin: string; readKey: string }>;
  const mocks: LaunchedMock[] = [];
  for (const [name, args] of [
    ['plain', []],
    ['--state', ['--state', stateFile]],
  ] as const) {
    const launched = await launchMock({ args });
    children.add(launched.child);
    mocks.push(launched);
    let readKey: string | undefined;
    for (let i = 0; i < 300 && !readKey; i++) {
      readKey = /^\s+read\s+(cgs_[0-9a-f]{64})$/m.exec(launched.output())?.[1];
      if (!readKey) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!readKey) throw new Error(`${name}: no demo read key in its output:\n${launched.output()}`);
    await liftReadLimits(launched.origin);
    const sample = await request(launched.origin, 'POST', WRITE, {}, { empty: true });
    if (sample.status !== 201) throw new Error(`${name} POST ${WRITE}: ${sample.status} ${sample.body.toString()}`);
    targets.push({ name, pid: launched.child.pid!, origin: launched.origin, readKey });
  }

  const kinds = [
    { kind: 'write', label: `POST ${WRITE}`, options: (t: (typeof targets)[number]) => ({ origin: t.origin, paths: [WRITE], method: 'POST', headers: { 'content-type': 'application/json' }, body: WRITE_BODY }) },
    { kind: 'read', label: `GET ${LIST}`, options: (t: (typeof targets)[number]) => ({ origin: t.origin, paths: [BASE + LIST], headers: { authorization: `Bearer ${t.readKey}` } }) },
  ];
  const results: Record<string, Measured[]> = {};
  const rows: (string | number)[][] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const k of kinds) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const t of order) {
        const r = await load(t.pid, { ...k.options(t), connections: CONNECTIONS, warmupMs: WARMUP_MS, durationMs: DURATION_MS });
        (results[`${k.kind} ${t.name}`] ??= []).push(r);
        rows.push(loadRow(`${k.label} ${t.name} (round ${round + 1})`, r));
        console.log(`  round ${round + 1} ${k.kind.padEnd(5)} ${t.name.padEnd(7)} ${fmtInt(r.rps).padStart(7)} req/s  p50 ${fmtMs(r.latencyMs.p50)} ms  p99 ${fmtMs(r.latencyMs.p99)} ms  errors ${r.errors + r.non2xx}  server CPU ${r.serverCpuPct}% (${r.serverUsPerReq} µs/req)  load avg ${r.loadavg.toFixed(1)}`);
      }
    }
  }
  console.log(`\n${table(LOAD_HEADER, rows)}`);

  const med = (key: string, f: (r: Measured) => number) => median(results[key]!.map(f));
  const medianRows = kinds.flatMap((k) =>
    targets.map((t) => {
      const key = `${k.kind} ${t.name}`;
      return [k.label, t.name, fmtInt(med(key, (r) => r.rps)), fmtMs(med(key, (r) => r.latencyMs.p50)), fmtMs(med(key, (r) => r.latencyMs.p99)), fmtInt(med(key, (r) => r.serverUsPerReq)), String(results[key]!.reduce((n, r) => n + r.errors + r.non2xx, 0))];
    }),
  );
  const medianTable = table(['request', 'mock', 'req/s (median)', 'p50 ms', 'p99 ms', 'server CPU µs/request', 'errors'], medianRows);
  console.log(`\nMedians over ${ROUNDS} round(s):\n\n${medianTable}\n`);
  const ratio = (kind: string, f: (r: Measured) => number) => med(`${kind} --state`, f) / med(`${kind} plain`, f);
  const lines = [
    `- writes with --state / without: throughput **${ratio('write', (r) => r.rps).toFixed(2)}**, server CPU per write ${ratio('write', (r) => r.serverUsPerReq).toFixed(2)}×, p50 latency ${ratio('write', (r) => r.latencyMs.p50).toFixed(2)}× (every answer waits for its group's fdatasync)`,
    `- reads with --state / without: throughput **${ratio('read', (r) => r.rps).toFixed(2)}**, server CPU per read ${ratio('read', (r) => r.serverUsPerReq).toFixed(2)}× (reads never wait)`,
  ];
  console.log(lines.join('\n'));
  verdicts.push(...lines);
  summary.push(`### --state on and off, side by side (${ROUNDS} rounds × ${DURATION_MS / 1000} s, ${CONNECTIONS} connections)`, '', medianTable, '', ...lines, '');
  await Promise.all(mocks.map((m) => m.stop()));
}
