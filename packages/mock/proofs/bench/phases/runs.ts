/** `npm run bench`, phase 3: a 1,000-item run in manual time (packages/mock/proofs/bench/runs.ts). */
import { fmtMs, median, RUNS_REPEATS, start, summary, verdict, verdicts } from '../common.ts';

export async function phaseRuns(): Promise<void> {
  console.log(`\n## 3. A 1,000-item run, manual clock, one advance (packages/mock/proofs/bench/runs.ts ${RUNS_REPEATS})\n`);
  const child = start('bench-runs', ['--import', 'tsx', 'packages/mock/proofs/bench/runs.ts', String(RUNS_REPEATS)]);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const output = child.output().trim();
  console.log(output);
  const totals = [...output.matchAll(/total ([\d.]+) ms/g)].map((m) => Number(m[1]));
  if (code !== 0 || totals.length === 0) throw new Error(`packages/mock/proofs/bench/runs.ts failed (${code})`);
  const worst = Math.max(...totals);
  const line = `- 1,000-item run to finalizedAt with one clock advance: median **${fmtMs(median(totals))} ms**, worst ${fmtMs(worst)} ms of ${totals.length} (the first includes warm-up; target < 1,000 ms): ${verdict(worst < 1000)}`;
  console.log(`\n${line}`);
  verdicts.push(line);
  summary.push('### 1,000-item run in manual time', '', line, '');
}
