/**
 * `npm run bench`: the performance figures of the mock, printed (a benchmark, not a timed test).
 * Runs the phases of packages/mock/proofs/bench/phases/ named by --only, in order, and prints the summary for
 * docs/benchmarks.md; what each phase measures and its targets: docs/benchmarks.md ("What each
 * phase measures").
 *
 *   npm run bench -- [--duration 5] [--warmup 1] [--rounds 3] [--connections 50] [--runs-repeats 5]
 *                    [--profile] [--client http|raw] [--only http,page,runs,media,start,proxy,msw,durable]
 *                    [--start-repeats 5] [--proxy-connections 1,10]
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { CLIENT, loadavg, loads, PHASES, summary, verdicts } from './common.ts';
import { phaseHttp } from './phases/http.ts';
import { phasePage } from './phases/page.ts';
import { phaseRuns } from './phases/runs.ts';
import { phaseMedia } from './phases/media.ts';
import { phaseStart } from './phases/start.ts';
import { phaseProxy } from './phases/proxy.ts';
import { phaseMsw } from './phases/msw.ts';
import { phaseDurable } from './phases/durable.ts';

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
  if (PHASES.has('durable')) await timed('--state', phaseDurable);
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
    `Each server and the load generator (packages/mock/proofs/lib/load.ts: closed loop, keep-alive, ${CLIENT === 'http' ? "node:http's client" : 'raw sockets'}) run in separate processes but share the ${os.availableParallelism()} cores:`,
    `the generator's own CPU is shown. The machine was not idle: other work ran on it too (1-minute load average ${loads.length ? `${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)} during the measurements` : `${loadavg()} at the end`}), so absolute figures move from run to run; CPU time per request moves less.`,
    '',
    ...summary,
  ].join('\n'),
);
const failed = verdicts.filter((v) => v.endsWith('FAIL'));
console.log(failed.length ? `\n${failed.length} target(s) missed.` : '\nEvery target met.');
