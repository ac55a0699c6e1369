/**
 * The suite as a CI gate runs it, against ONE shared mock (`npm run conformance:shared`): starts
 * one mock (real clock, a control token), then runs the whole suite against it `--runs` times in a
 * row with `--workers` workers, through the API and the hooks only (CONFORMANCE_BASE_URL,
 * CONFORMANCE_HOOKS_URL=<mock>/__hooks with the token; CONFORMANCE_CONTROL_TOKEN only for the leases
 * of the `@exclusive` tests; CONFORMANCE_ALLOW_SPEND=1, assumptions enforced), and prints per run:
 * passed, failed, skipped (with the reasons), wall time, the share of it the workers spent in tests,
 * the tests that held the mock to themselves (`@exclusive`) and the time waited for leases. Exit 1
 * when any run had a failure.
 * How it works and what it decides: docs/internals.md, "scripts/conformance-shared.ts".
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { RulesReport } from '../suite/reporters/rules-reporter.ts';
import { launchMock } from '../../mock/src/node/launch.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const OUT = join(ROOT, 'test-results', 'shared');
const PLAYWRIGHT = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');

const { values, positionals } = parseArgs({ options: { runs: { type: 'string' }, workers: { type: 'string' }, port: { type: 'string' }, clock: { type: 'string' } }, allowPositionals: true, strict: true });
const runs = Number(values.runs ?? '5');
const workers = Number(values.workers ?? '4');
const clockMode = values.clock ?? 'real';
if (clockMode !== 'real' && clockMode !== 'manual') throw new Error('--clock is real or manual');
if (!Number.isInteger(runs) || runs < 1 || runs > 50) throw new Error('--runs is 1 to 50');
if (!Number.isInteger(workers) || workers < 1 || workers > 16) throw new Error('--workers is 1 to 16');

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const token = `ctl_${randomBytes(24).toString('hex')}`;
// The mock itself (not a watchdog) is the child: its CPU is read by pid (packages/mock/src/node/launch.ts).
const launched = await launchMock({ clock: clockMode, env: { CGS_CONTROL_TOKEN: token }, controlToken: token, log: join(OUT, 'mock.log'), ...(values.port ? { port: Number(values.port) } : {}), timeoutMs: 30_000 });
const mock = launched.child;
const origin = launched.origin;
const stopMock = (): void => launched.kill();
process.on('exit', stopMock);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

const exclusiveLines = countExclusive();
console.log(`one shared mock at ${origin} (${clockMode} clock, control token, hooks at ${origin}/__hooks); ${runs} run(s) of the suite with ${workers} worker(s); ${exclusiveLines} @exclusive tag line(s) in packages/conformance/suite/tests/`);

function run(index: number): Promise<{ code: number; seconds: number }> {
  const started = Date.now();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CONFORMANCE_BASE_URL: `${origin}/api/public/v1`,
    CONFORMANCE_HOOKS_URL: `${origin}/__hooks`,
    CONFORMANCE_HOOKS_TOKEN: token,
    // Only for the leases of the tests tagged @exclusive (and the shared lease of the others).
    CONFORMANCE_CONTROL_TOKEN: token,
    CONFORMANCE_ALLOW_SPEND: '1',
    CONFORMANCE_ASSUMPTIONS: 'enforce',
    CONFORMANCE_REPORT_DIR: join(OUT, `run-${index}`),
    CONFORMANCE_CONSOLE_REPORTER: 'dot',
  };
  for (const name of ['CONFORMANCE_LOCAL_MOCK', 'CONFORMANCE_LOCAL_MOCK_URLS', 'CONFORMANCE_MOCK_PID', 'CONFORMANCE_KEYS', 'CONFORMANCE_KEYS_B']) delete env[name];
  const child = spawn(process.execPath, [PLAYWRIGHT, 'test', '-c', 'packages/conformance/suite/playwright.config.ts', '--workers', String(workers), ...positionals], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** Lines of packages/conformance/suite/tests/*.spec.ts that tag a test `@exclusive` (the figure issue #22 asks before and after). */
function countExclusive(): number {
  const dir = join(ROOT, 'packages', 'conformance', 'suite', 'tests');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.spec.ts'))
    .reduce((sum, name) => sum + readFileSync(join(dir, name), 'utf8').split('\n').filter((line) => line.includes("'@exclusive'")).length, 0);
}

/** Milliseconds the tests waited for a lease (their `lease-wait` annotations, in junit.xml's properties). */
function leaseWaitMs(dir: string): number {
  const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
  return [...xml.matchAll(/name="lease-wait" value="(\d+) ms/g)].reduce((sum, m) => sum + Number(m[1]), 0);
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
  const details: string[] = [];
  try {
    const report = JSON.parse(readFileSync(join(dir, 'rules.json'), 'utf8')) as RulesReport;
    const { tests } = report.summary;
    const busy = testSeconds(dir);
    const exclusive = report.tests.filter((t) => t.tags.includes('@exclusive'));
    line += `: ${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped; tests ${busy.toFixed(1)} s in all, ${((100 * busy) / (seconds * workers)).toFixed(0)}% of ${workers} × wall`;
    line += `; ${exclusive.length} @exclusive test(s) (${exclusive.filter((t) => t.outcome === 'passed').length} passed), ${(leaseWaitMs(dir) / 1000).toFixed(1)} s waited for leases`;
    const reasons = new Map<string, number>();
    for (const t of report.tests) if (t.outcome === 'skipped') reasons.set(t.reason ?? '(no reason)', (reasons.get(t.reason ?? '(no reason)') ?? 0) + 1);
    details.push(...[...reasons].sort((a, b) => b[1] - a[1]).map(([reason, n]) => `    skipped ${n} × ${reason}`));
    details.push(...report.tests.filter((t) => t.outcome === 'failed').map((t) => `    FAILED ${t.file}: ${t.title}`));
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
  for (const detail of details) console.log(detail);
}
console.log(`${runs - failedRuns} of ${runs} run(s) green against one shared mock with ${workers} worker(s)`);
stopMock();
process.exit(failedRuns === 0 ? 0 : 1);
