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
