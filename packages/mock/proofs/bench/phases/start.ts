/** `npm run bench`, phase 5: cgs-mock's time to first answer (the packaged, compiled mock; a CI gate waits for it). */
import { performance } from 'node:perf_hooks';
import { freePort } from '../../../src/node/launch.ts';
import { cpuSeconds, fmtInt, median, packageBuild, request, start, START_REPEATS, stop, summary, table, verdict, verdicts } from '../common.ts';

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

export async function phaseStart(): Promise<void> {
  const repeats = START_REPEATS;
  console.log(`\n## 5. cgs-mock: launch to first answer (${repeats} starts each)\n`);
  const dist = await packageBuild();
  const rows: (string | number)[][] = [];
  const results: Record<string, { wallMs: number; cpuMs: number }[]> = {};
  for (const [label, args] of [
    ['cgs-mock (dist/bin/cgs-mock.js, the package)', [dist('bin/cgs-mock.js')]],
    ['npm start (tsx packages/mock/src/node/main.ts, the checkout)', ['--import', 'tsx', 'packages/mock/src/node/main.ts']],
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
