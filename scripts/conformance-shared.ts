/**
 * The suite as a CI gate runs it, against ONE shared mock (`npm run conformance:shared`): starts
 * one mock (manual clock, a control token), then runs the whole suite against it `--runs` times in
 * a row with `--workers` workers (CONFORMANCE_BASE_URL, CONFORMANCE_CONTROL_TOKEN,
 * CONFORMANCE_ALLOW_SPEND=1, assumptions enforced), and prints per run: passed, failed, skipped,
 * wall time, and the share of it the workers spent in tests. Exit 1 when any run had a failure.
 *
 *   npx tsx scripts/conformance-shared.ts [--runs 5] [--workers 2] [--port N] [-- <playwright args>]
 *
 * Reports: test-results/shared/run-<n>/ (rules.json, junit.xml, html/, the mock's log beside).
 * The same configuration without this script: start a mock with `--control-token`, then
 * `CONFORMANCE_BASE_URL=… CONFORMANCE_CONTROL_TOKEN=… CONFORMANCE_ALLOW_SPEND=1 npm run conformance`.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { RulesReport } from '../conformance/reporters/rules-reporter.ts';
import { freePort } from '../mock/adapters/node/launch.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'test-results', 'shared');
const PLAYWRIGHT = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');

const { values, positionals } = parseArgs({ options: { runs: { type: 'string' }, workers: { type: 'string' }, port: { type: 'string' } }, allowPositionals: true, strict: true });
const runs = Number(values.runs ?? '1');
const workers = Number(values.workers ?? '2');
if (!Number.isInteger(runs) || runs < 1 || runs > 50) throw new Error('--runs is 1 to 50');
if (!Number.isInteger(workers) || workers < 1 || workers > 16) throw new Error('--workers is 1 to 16');

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const token = `ctl_${randomBytes(24).toString('hex')}`;
const port = values.port ? Number(values.port) : await freePort();
const origin = `http://127.0.0.1:${port}`;
const mockLog = openSync(join(OUT, 'mock.log'), 'w');
const mock = spawn(process.execPath, ['--import', 'tsx', 'mock/adapters/node/main.ts', '--port', String(port), '--host', '127.0.0.1', '--clock', 'manual'], {
  cwd: ROOT,
  env: { ...process.env, CGS_CONTROL_TOKEN: token },
  stdio: ['ignore', mockLog, mockLog],
});
const stopMock = (): void => {
  if (mock.exitCode === null) mock.kill('SIGTERM');
};
process.on('exit', stopMock);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

const deadline = Date.now() + 30_000;
for (;;) {
  try {
    const response = await fetch(`${origin}/__mock/clock`, { headers: { authorization: `Bearer ${token}` } });
    if (response.status === 200) break;
  } catch {
    // not listening yet
  }
  if (mock.exitCode !== null || Date.now() > deadline) throw new Error(`the mock did not start; see ${join(OUT, 'mock.log')}`);
  await new Promise((resolve) => setTimeout(resolve, 200));
}
console.log(`one shared mock at ${origin} (manual clock, control token); ${runs} run(s) of the suite with ${workers} worker(s)`);

function run(index: number): Promise<{ code: number; seconds: number }> {
  const started = Date.now();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CONFORMANCE_BASE_URL: `${origin}/api/public/v1`,
    CONFORMANCE_CONTROL_TOKEN: token,
    CONFORMANCE_ALLOW_SPEND: '1',
    CONFORMANCE_ASSUMPTIONS: 'enforce',
    CONFORMANCE_REPORT_DIR: join(OUT, `run-${index}`),
    CONFORMANCE_CONSOLE_REPORTER: 'dot',
  };
  for (const name of ['CONFORMANCE_LOCAL_MOCK', 'CONFORMANCE_LOCAL_MOCK_URLS', 'CONFORMANCE_MOCK_PID', 'CONFORMANCE_KEYS', 'CONFORMANCE_KEYS_B']) delete env[name];
  const child = spawn(process.execPath, [PLAYWRIGHT, 'test', '-c', 'conformance/playwright.config.ts', '--workers', String(workers), ...positionals], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      if (code !== 0) console.log(output.slice(-6000));
      resolve({ code: code ?? 1, seconds: (Date.now() - started) / 1000 });
    }),
  );
}

/**
 * CPU seconds (user + system) from /proc (Linux): of this process's reaped children (the Playwright
 * runner and its workers, once a run ended), and of the mock. Undefined elsewhere.
 */
function cpuSeconds(pid: number | 'self', children: boolean): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // After the command name: state is field 3, so utime/stime are 14/15 and cutime/cstime 16/17 (1-based).
    const [user, system] = children ? [fields[13], fields[14]] : [fields[11], fields[12]];
    return (Number(user) + Number(system)) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

/** Seconds the tests took, summed over every test (junit.xml), to set against wall time × workers. */
function testSeconds(dir: string): number {
  const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
  return [...xml.matchAll(/<testcase [^>]*time="([\d.]+)"/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}

let failedRuns = 0;
for (let index = 1; index <= runs; index += 1) {
  const cpuBefore = [cpuSeconds('self', true), cpuSeconds(mock.pid!, false)];
  const { code, seconds } = await run(index);
  const cpuAfter = [cpuSeconds('self', true), cpuSeconds(mock.pid!, false)];
  const dir = join(OUT, `run-${index}`);
  let line = `run ${index}/${runs}: exit ${code}, ${seconds.toFixed(1)} s`;
  try {
    const { tests } = (JSON.parse(readFileSync(join(dir, 'rules.json'), 'utf8')) as RulesReport).summary;
    const busy = testSeconds(dir);
    line += `: ${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped; tests ${busy.toFixed(1)} s in all, ${((100 * busy) / (seconds * workers)).toFixed(0)}% of ${workers} × wall`;
    if (cpuBefore.every((v) => v !== undefined) && cpuAfter.every((v) => v !== undefined)) {
      const suite = cpuAfter[0]! - cpuBefore[0]!;
      const served = cpuAfter[1]! - cpuBefore[1]!;
      line += `; CPU ${(suite + served).toFixed(1)} s (suite ${suite.toFixed(1)}, mock ${served.toFixed(1)})`;
    }
  } catch (error) {
    line += ` (no report: ${(error as Error).message})`;
  }
  if (code !== 0) failedRuns += 1;
  console.log(line);
}
console.log(`${runs - failedRuns} of ${runs} run(s) green against one shared mock with ${workers} worker(s)`);
stopMock();
process.exit(failedRuns === 0 ? 0 : 1);
