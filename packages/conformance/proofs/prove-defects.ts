/**
 * Proof that the conformance suite can fail (`npm run conformance:defects`): for every defect of
 * packages/conformance/suite/defects/catalogue.ts, run the tests that name the rules it breaks against a mock with
 * that defect injected, and require at least one of them to fail. A failure only counts when the
 * same test passes without the defect: the selected tests run once more through a pass-through
 * proxy first, and that run must have zero failures and zero retries.
 *
 *   npx tsx packages/conformance/proofs/prove-defects.ts [--only NAME[,NAME...]] [--lanes N] [--list] [--all]
 *
 *   --only   run these defects only (and the pass-through run of their tests)
 *   --lanes  parallel lanes (default 2)
 *   --list   print what each defect selects, run nothing
 *   --all    run every selected test of a defect; by default a defect run stops at its first
 *            failure (--max-failures=1), which is all the proof needs
 *
 * Two figures: all tests, and pinned-only (the suite as a real implementation's CI runs it, with
 * `--grep-invert @assumed`). Each defect first runs its selection without the @assumed tests; when
 * one of those catches it, both figures count it. Only when none does are its @assumed tests run,
 * for the all-tests figure. So the pinned-only figure costs nothing extra for a defect a pinned
 * test catches.
 *
 * Two lanes by default (a 2-core CI machine): each lane has its own mock (manual clock) and runs
 * one Playwright process at a time (one worker) against a proxy in front of it. The proxy defects
 * run as one batch per lane (runBatch: one Playwright process and one worker for the lane's
 * defects, each stopping at its first failure; packages/conformance/suite/defects/batch.ts, D230) behind one
 * switching proxy that applies the defect the suite's fixture names; a mock defect (webhooks) runs in a process of its own against a mock
 * of its own started with `--defect NAME`. Reporters are quiet (JSON to a file); the table goes to stdout and to
 * conformance-report/defects.md. Exit 1 when a defect goes unnoticed, selects no test, or the
 * pass-through run is not clean.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFECT_KINDS, DEFECTS, type Defect } from '../suite/defects/catalogue.ts';
import { DEFECT_PLAN_ENV, type DefectPlan } from '../suite/defects/batch.ts';
import { startProxy, startSwitchingProxy } from '../suite/defects/proxy.ts';
import { judge, testsByDefect, testsOf, type JsonReport, type Outcome, type TestOutcome, type Verdict } from '../suite/defects/report.ts';
import { basePath } from '../../contract/spec/contract.ts';
import { launchMock } from '../../mock/src/node/launch.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const REPORT_DIR = `${ROOT}conformance-report/defects/`;
const OUTPUT_DIR = `${ROOT}test-results/defects/`;
const PLAYWRIGHT = `${ROOT}node_modules/@playwright/test/cli.js`;
const CONFIG = 'packages/conformance/suite/defects/playwright.config.ts';
/** A selected test set runs well within this; past it the run is stopped and counted as failed. */
const RUN_TIMEOUT_MS = 240_000;
const MOCK_START_TIMEOUT_MS = 30_000;

// ---------------------------------------------------------------------------------------------
// Arguments

const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    lanes: { type: 'string', default: '2' },
    list: { type: 'boolean', default: false },
    all: { type: 'boolean', default: false },
  },
  strict: true,
});
const lanes = Math.max(1, Number(args.lanes) || 2);
const only = args.only ? new Set(args.only.split(',').map((s) => s.trim())) : undefined;
if (only) for (const name of only) if (!DEFECTS.some((d) => d.name === name)) fail(`--only: no defect named ${name}`);
const defects = DEFECTS.filter((d) => !only || only.has(d.name));

function fail(message: string): never {
  console.error(`prove-defects: ${message}`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// The catalogue itself

function catalogueProblems(): string[] {
  const problems: string[] = [];
  if (DEFECTS.length < 25) problems.push(`the catalogue has ${DEFECTS.length} defects; at least 25 are required`);
  for (const kind of DEFECT_KINDS) {
    const count = DEFECTS.filter((d) => d.kind === kind).length;
    if (count < 2) problems.push(`kind ${kind} has ${count} defect(s); at least 2 are required`);
  }
  const names = DEFECTS.map((d) => d.name);
  for (const name of new Set(names.filter((n, i) => names.indexOf(n) !== i))) problems.push(`defect ${name} is listed twice`);
  for (const d of DEFECTS) {
    if (d.via === 'proxy' && !d.request && !d.response) problems.push(`defect ${d.name} is injected by the proxy but changes nothing`);
    try {
      new RegExp(d.grep);
    } catch (error) {
      problems.push(`defect ${d.name}: grep ${d.grep} is not a regular expression (${(error as Error).message})`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Processes

interface Mock {
  origin: string;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const child of children) killGroup(child, 'SIGKILL');
    process.exit(130);
  });
}
process.on('exit', () => {
  for (const child of children) killGroup(child, 'SIGKILL');
});

/** Start the mock on a free port (manual clock), in its own process group (packages/mock/src/node/launch.ts). */
async function startMock(label: string, mockDefects: readonly string[] = []): Promise<Mock> {
  const launched = await launchMock({ args: mockDefects.flatMap((d) => ['--defect', d]), log: `${REPORT_DIR}mock-${label}.log`, timeoutMs: MOCK_START_TIMEOUT_MS });
  children.add(launched.child);
  const { origin } = launched;
  if (mockDefects.length > 0) {
    const listed = (await (await fetch(`${origin}/__mock/defects`)).json()) as { defects?: string[] };
    const missing = mockDefects.filter((d) => !listed.defects?.includes(d));
    if (missing.length > 0) throw new Error(`the mock (${label}) does not report the defect(s) ${missing.join(', ')} at GET /__mock/defects`);
  }
  return {
    origin,
    stop: async () => {
      await launched.stop();
      children.delete(launched.child);
    },
  };
}

interface RunResult {
  tests: TestOutcome[];
  errors: string[];
  seconds: number;
}

/** Run Playwright (one worker, no retries, no trace, JSON report to a file) against `origin`. */
interface SuiteOptions {
  grep: string;
  /** Spec files (relative to packages/conformance/suite/tests/) to load; all when absent. */
  files?: readonly string[];
  grepInvert?: string;
  shard?: string;
  mode: 'list' | 'all' | 'first-failure';
}

async function runSuite(name: string, origin: string, { grep, files, grepInvert, shard, mode }: SuiteOptions): Promise<RunResult> {
  const argv = ['--grep', grep, '--reporter=json'];
  if (grepInvert !== undefined) argv.push('--grep-invert', grepInvert);
  // Only the files holding selected tests are loaded (Playwright loads every file before --grep).
  if (files !== undefined) argv.push(...files.map((f) => `packages/conformance/suite/tests/${f}`));
  if (shard !== undefined) argv.push(`--shard=${shard}`);
  if (mode === 'list') argv.push('--list');
  // A failed test restarts the worker (seconds of set-up): stop at the first failure, the proof.
  if (mode === 'first-failure') argv.push('--max-failures=1');
  const run = await runPlaywright(name, origin, argv, {}, RUN_TIMEOUT_MS);
  return { tests: testsOf(run.report), errors: run.errors, seconds: run.seconds };
}

/** One Playwright process of the defects config against `origin` (one worker, no retries, no trace, JSON report to a file), with `argv` added. */
async function runPlaywright(name: string, origin: string, argv: readonly string[], extraEnv: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ report: JsonReport; errors: string[]; seconds: number }> {
  const started = Date.now();
  const reportFile = `${REPORT_DIR}${name}.json`;
  rmSync(reportFile, { force: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CONFORMANCE_BASE_URL: `${origin}${basePath}`,
    // The target is the local mock (behind the proxy): the tests treat it as `npm run conformance` does.
    CONFORMANCE_LOCAL_MOCK: '1',
    CONFORMANCE_ASSUMPTIONS: 'enforce',
    CONFORMANCE_ALLOW_SPEND: '1',
    PLAYWRIGHT_JSON_OUTPUT_FILE: reportFile,
    FORCE_COLOR: '0',
    ...extraEnv,
  };
  for (const key of ['CONFORMANCE_MOCK_PID', 'CONFORMANCE_KEYS', 'CONFORMANCE_KEYS_B']) delete env[key];
  const child = spawn(process.execPath, [PLAYWRIGHT, 'test', '-c', CONFIG, ...argv, '--workers=1', '--retries=0', '--trace=off', `--output=${OUTPUT_DIR}${name}`, '--pass-with-no-tests'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.add(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeoutMs);
  await new Promise<void>((resolve) => child.once('close', () => resolve()));
  clearTimeout(timer);
  children.delete(child);
  writeFileSync(`${REPORT_DIR}${name}.log`, output);
  let report: JsonReport = {};
  try {
    report = JSON.parse(readFileSync(reportFile, 'utf8')) as JsonReport;
  } catch {
    return { report, errors: [`no JSON report (exit ${child.exitCode ?? child.signalCode}); see conformance-report/defects/${name}.log`], seconds: (Date.now() - started) / 1000 };
  }
  const errors = (report.errors ?? []).map((e) => (e.message ?? '').split('\n')[0]!.slice(0, 200));
  return { report, errors, seconds: (Date.now() - started) / 1000 };
}

// ---------------------------------------------------------------------------------------------
// Jobs and lanes

interface Job {
  name: string;
  defect: Defect | undefined;
  /** Proxy defects run in one Playwright process (runBatch), each with the tests it runs in order; `defect` is then undefined. */
  batch?: readonly { defect: Defect; tests: readonly TestOutcome[] }[];
  grep: string;
  files: readonly string[];
  grepInvert?: string;
  shard?: string;
}

interface JobResult extends RunResult {
  job: Job;
}

/** Parallel lanes, each with a correct mock of its own, running one job (one Playwright process) at a time. */
class Lanes {
  private constructor(private readonly mocks: Mock[]) {}

  static async start(count: number): Promise<Lanes> {
    return new Lanes(await Promise.all(Array.from({ length: count }, (_, i) => startMock(`lane-${i + 1}`))));
  }

  async run(jobs: readonly Job[], onDone: (result: JobResult) => void): Promise<JobResult[]> {
    const queue = [...jobs];
    const results: JobResult[] = [];
    await Promise.all(
      this.mocks.map(async (mock) => {
        for (let job = queue.shift(); job; job = queue.shift()) {
          for (const result of job.batch ? await runBatch(job, mock) : [await runJob(job, mock)]) {
            results.push(result);
            onDone(result);
          }
        }
      }),
    );
    return results;
  }

  async stop(): Promise<void> {
    await Promise.all(this.mocks.map((m) => m.stop()));
  }
}

async function runJob(job: Job, laneMock: Mock): Promise<JobResult> {
  const started = Date.now();
  let ownMock: Mock | undefined;
  try {
    ownMock = job.defect?.via === 'mock' ? await startMock(job.name, [job.defect.name]) : undefined;
  } catch (error) {
    return { job, tests: [], errors: [firstLineOf(error)], seconds: (Date.now() - started) / 1000 };
  }
  const proxy = await startProxy((ownMock ?? laneMock).origin, job.defect);
  try {
    const mode = job.defect && !args.all ? 'first-failure' : 'all';
    const result = await runSuite(job.name, proxy.origin, { grep: job.grep, files: job.files, mode, ...(job.grepInvert ? { grepInvert: job.grepInvert } : {}), ...(job.shard ? { shard: job.shard } : {}) });
    if (proxy.forwarded === 0 && result.tests.length > 0) result.errors.push('no request went through the proxy');
    return { job, ...result, seconds: (Date.now() - started) / 1000 };
  } finally {
    await proxy.close();
    await ownMock?.stop();
  }
}

/**
 * Several proxy defects in one Playwright process with one worker on a lane's mock, behind one
 * switching proxy (a memory per defect, as with a proxy of its own). The plan (packages/conformance/suite/defects/
 * batch.ts, D230) repeats each selected test once per defect of the batch that selects it; the
 * suite's fixture names each repeat's defect to the proxy, expects the test to fail, and skips a
 * defect's later tests once one caught it (as --max-failures=1 stopped a run of its own). A caught
 * defect is an expected outcome, so one worker start serves the batch; before, each defect's test
 * ran in a project, and so a worker, of its own.
 */
async function runBatch(job: Job, laneMock: Mock): Promise<JobResult[]> {
  const batch = job.batch!;
  const proxy = await startSwitchingProxy(laneMock.origin, batch.map((b) => b.defect));
  const caughtFile = `${REPORT_DIR}${job.name}.caught`;
  rmSync(caughtFile, { force: true });
  const plan: DefectPlan = { proxy: proxy.origin, tests: {}, ...(args.all ? {} : { caughtFile }) };
  for (const { defect, tests } of batch) for (const test of tests) (plan.tests[test.id] ??= []).push(defect.name);
  const planFile = `${REPORT_DIR}${job.name}.plan.json`;
  writeFileSync(planFile, JSON.stringify(plan, null, 2));
  const files = [...new Set(Object.keys(plan.tests).map((id) => `packages/conformance/suite/tests/${id.split(' › ')[0]!}`))];
  try {
    const run = await runPlaywright(job.name, proxy.origin, ['--reporter=json', ...files], { [DEFECT_PLAN_ENV]: planFile }, RUN_TIMEOUT_MS + Object.keys(plan.tests).length * 10_000);
    const byDefect = testsByDefect(run.report);
    // An error outside the tests (a worker stopped) is the batch's: said once here, and given to a
    // defect only when none of its tests ran (then it is why).
    const batchErrors = run.errors.filter((e) => !e.startsWith('Testing stopped early'));
    if (batchErrors.length > 0) console.log(`  ${job.name}: ${batchErrors.length} error(s) outside its tests, the first: ${batchErrors[0]}`);
    return batch.map(({ defect, tests: selected }) => {
      const ran = byDefect.get(defect.name) ?? [];
      const errors = ran.length === 0 ? [...run.errors] : [];
      // Exactly its selected tests, each once, or the plan went wrong: never judged as if they had run.
      const ids = ran.map((t) => t.id).sort();
      const expected = selected.map((t) => t.id).sort();
      if (JSON.stringify(ids) !== JSON.stringify(expected)) errors.push(`the batch ran ${ids.length} tests for ${defect.name}, not its ${expected.length} selected ones`);
      const tests = ran.map(({ startedAt: _s, endedAt: _e, ...t }) => t);
      if (proxy.forwardedFor(defect.name) === 0 && tests.some((t) => t.outcome === 'passed' || t.outcome === 'failed')) errors.push('no request went through the proxy');
      const seconds = ran.reduce((sum, t) => sum + (t.endedAt !== undefined && t.startedAt !== undefined ? t.endedAt - t.startedAt : 0), 0) / 1000;
      return { job: { name: defect.name, defect, grep: defect.grep, files: [], ...(job.grepInvert !== undefined ? { grepInvert: job.grepInvert } : {}) }, tests, errors, seconds };
    });
  } finally {
    await proxy.close();
  }
}

/** `items` in at most `count` non-empty groups of about equal total `cost` (largest first, each to the lightest group). */
function balanced<T>(items: readonly T[], count: number, cost: (item: T) => number): T[][] {
  const groups = Array.from({ length: count }, () => ({ items: [] as T[], cost: 0 }));
  for (const item of [...items].sort((a, b) => cost(b) - cost(a))) {
    const lightest = groups.reduce((a, b) => (b.cost < a.cost ? b : a));
    lightest.items.push(item);
    lightest.cost += cost(item);
  }
  return groups.map((g) => g.items).filter((g) => g.length > 0);
}

function firstLineOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n').filter((line) => line.trim() !== '').slice(0, 3).join(' / ').slice(0, 300);
}

/** CPU seconds of this process and of every child it waited for (Linux; 0 elsewhere). */
function cpuSeconds(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    // fields[11..14]: utime stime cutime cstime, in clock ticks (100 per second on Linux)
    return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) / 100;
  } catch {
    return 0;
  }
}

/** Playwright's --grep source for the tests a real implementation's CI leaves out. */
const ASSUMED = '@assumed';

function baselineOf(tests: readonly TestOutcome[]): Map<string, Outcome> {
  return new Map<string, Outcome>(tests.map((t) => [t.id, t.outcome]));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// ---------------------------------------------------------------------------------------------
// Report

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** `creatives.spec.ts: GET /creatives lists usable …` from a test id, its rule ids left out. */
function shortName(id: string): string {
  const [file, ...titles] = id.split(' › ');
  const title = titles.join(' › ').replace(/^(?:[A-Z]+-\d+\s+)+/, '');
  return `${file}: ${title.length > 60 ? `${title.slice(0, 57)}…` : title}`;
}

function table(rows: { defect: Defect; verdict: Verdict; pinned: Verdict; seconds: number }[]): string {
  const lines = ['| defect | kind | rules broken | tests selected (pinned) | run | failed | detected | pinned-only | seconds | caught by |', '|---|---|---|---:|---:|---:|---|---|---:|---|'];
  for (const { defect, verdict, pinned, seconds } of rows) {
    const caughtBy = verdict.detected ? verdict.proof.map((t) => shortName(t.id)).slice(0, 2).join('; ') : (verdict.reason ?? '');
    lines.push(
      `| ${defect.name} | ${defect.kind} | ${defect.rules.join(' ')} | ${verdict.selected} (${pinned.selected}) | ${verdict.ran} | ${verdict.failed.length} | ${verdict.detected ? 'yes' : '**NO**'} | ${pinned.detected ? 'yes' : `no: ${cell(pinned.reason ?? '')}`} | ${seconds.toFixed(1)} | ${cell(caughtBy)} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const problems = catalogueProblems();
  if (problems.length > 0 && !only) {
    for (const p of problems) console.error(`prove-defects: ${p}`);
    process.exit(1);
  }
  mkdirSync(REPORT_DIR, { recursive: true });
  rmSync(OUTPUT_DIR, { recursive: true, force: true });
  const started = Date.now();
  const cpuAtStart = cpuSeconds();

  // 1. What each defect selects, from one --list of the whole suite.
  const listed = await runSuite('list', 'http://127.0.0.1:9', { grep: '.', mode: 'list' });
  if (listed.tests.length === 0) fail(`listing the suite failed: ${listed.errors.join('; ')}`);
  // Playwright matches --grep case-insensitively.
  const selects = (grep: string) => (t: TestOutcome) => new RegExp(grep, 'i').test(t.grepTitle);
  const filesOf = (tests: readonly TestOutcome[]) => [...new Set(tests.map((t) => t.id.split(' › ')[0]!))].sort();
  const selection = new Map(defects.map((d) => [d.name, listed.tests.filter(selects(d.grep))]));
  const isAssumed = (t: TestOutcome) => new RegExp(ASSUMED, 'i').test(t.grepTitle);
  const pinnedSelection = new Map(defects.map((d) => [d.name, selection.get(d.name)!.filter((t) => !isAssumed(t))]));
  const assumedSelection = new Map(defects.map((d) => [d.name, selection.get(d.name)!.filter(isAssumed)]));
  if (args.list) {
    for (const d of defects) console.log(`${d.name.padEnd(34)} ${d.kind.padEnd(13)} ${String(selection.get(d.name)!.length).padStart(3)} tests (${String(pinnedSelection.get(d.name)!.length).padStart(3)} pinned)  ${d.grep}`);
    return;
  }
  const union = `(?:${defects.map((d) => d.grep).join(')|(?:')})`;
  const unionTests = listed.tests.filter(selects(union));
  const unionCount = unionTests.length;
  console.log(`prove-defects: ${defects.length} defects over ${listed.tests.length} tests of the suite, ${lanes} lanes; the pass-through run selects ${unionCount} tests`);

  const lanePool = await Lanes.start(lanes);
  const log = (r: JobResult) => {
    const failed = r.tests.filter((t) => t.outcome === 'failed').length;
    const ran = r.tests.filter((t) => t.outcome === 'passed' || t.outcome === 'failed').length;
    const note = r.errors.find((e) => !e.startsWith('Testing stopped early'));
    console.log(`  ${r.job.name.padEnd(36)} ${String(ran).padStart(3)} run ${String(failed).padStart(3)} failed  ${r.seconds.toFixed(1).padStart(5)} s${note ? `  (${note})` : ''}`);
  };
  let results: JobResult[];
  let assumedResults: JobResult[];
  let passThroughTests: TestOutcome[];
  try {
    // 2. The selected tests without any defect, through a pass-through proxy (sharded over the lanes).
    const shards: Job[] = Array.from({ length: lanes }, (_, i) => ({ name: `pass-through-${i + 1}`, defect: undefined, grep: union, files: filesOf(unionTests), shard: `${i + 1}/${lanes}` }));
    passThroughTests = (await lanePool.run(shards, log)).flatMap((r) => r.tests);

    // 3. Each defect, on the tests of its rules that passed without it. Mock defects first (each
    //    starts a mock of its own), then the largest selections.
    const notClean = passThroughTests.filter((t) => t.outcome === 'failed' || t.outcome === 'flaky');
    const grepInvert = notClean.length > 0 ? notClean.map((t) => escapeRegExp(t.id.split(' › ').slice(1).join(' '))).join('|') : undefined;
    const order = (d: Defect) => (d.via === 'mock' ? 1000 : 0) + selection.get(d.name)!.length;
    const pinnedInvert = grepInvert ? `${ASSUMED}|${grepInvert}` : ASSUMED;
    //    Proxy defects in batches (runBatch: one Playwright process for many), one per lane, each
    //    defect run up to its first failure (mostly its first test); then the mock defects, one
    //    process each (each needs a mock of its own).
    const pinnedDefects = [...defects].filter((d) => pinnedSelection.get(d.name)!.length > 0).sort((a, b) => order(b) - order(a));
    const isClean = (t: TestOutcome) => !notClean.some((n) => n.id === t.id);
    const batches = balanced(
      pinnedDefects.filter((d) => d.via === 'proxy'),
      lanes,
      () => 1,
    );
    const jobs: Job[] = [
      ...batches.map((batch, i) => ({ name: `batch-${i + 1}`, defect: undefined, batch: batch.map((defect) => ({ defect, tests: pinnedSelection.get(defect.name)!.filter(isClean) })), grep: '', files: [], grepInvert: pinnedInvert })),
      ...pinnedDefects.filter((d) => d.via === 'mock').map((d) => ({ name: d.name, defect: d, grep: d.grep, files: filesOf(pinnedSelection.get(d.name)!), grepInvert: pinnedInvert })),
    ];
    results = await lanePool.run(jobs, log);
    // 4. Only the defects no pinned test caught: their @assumed tests, for the all-tests figure.
    const caught = new Set(results.filter((r) => judge(r.tests, baselineOf(passThroughTests)).detected).map((r) => r.job.defect!.name));
    const assumedJobs: Job[] = [...defects]
      .filter((d) => !caught.has(d.name) && assumedSelection.get(d.name)!.length > 0)
      .sort((a, b) => order(b) - order(a))
      .map((d) => ({ name: `${d.name}.assumed`, defect: d, grep: `^(?=.*${ASSUMED}).*(?:${d.grep})`, files: filesOf(assumedSelection.get(d.name)!), ...(grepInvert ? { grepInvert } : {}) }));
    assumedResults = await lanePool.run(assumedJobs, log);
  } finally {
    await lanePool.stop();
  }
  const wall = (Date.now() - started) / 1000;
  const cpu = cpuSeconds() - cpuAtStart;

  const baseline = baselineOf(passThroughTests);
  const baselineFailures = passThroughTests.filter((t) => t.outcome === 'failed' || t.outcome === 'flaky');
  const rows = defects.map((defect) => {
    const result = results.find((r) => r.job.defect === defect);
    const assumedResult = assumedResults.find((r) => r.job.defect === defect);
    const pinned = judge(result?.tests ?? [], baseline, result?.errors ?? []);
    if (!result) pinned.reason = 'no test without @assumed selects it';
    const verdict = pinned.detected || !assumedResult ? pinned : judge([...(result?.tests ?? []), ...assumedResult.tests], baseline, [...(result?.errors ?? []), ...assumedResult.errors]);
    if (!verdict.detected && defect.via === 'mock' && verdict.failed.length === 0 && verdict.selected > 0) {
      verdict.reason = `${verdict.reason}; check that the mock applies it (packages/mock-core/src/events/defects.ts, and services.defects reaching the code that sends it)`;
    }
    return {
      defect,
      verdict: { ...verdict, selected: selection.get(defect.name)!.length },
      pinned: { ...pinned, selected: pinnedSelection.get(defect.name)!.length },
      seconds: (result?.seconds ?? 0) + (assumedResult?.seconds ?? 0),
    };
  });
  const undetected = rows.filter((r) => !r.verdict.detected);
  const pinnedUndetected = rows.filter((r) => !r.pinned.detected);
  const retried = rows.reduce((n, r) => n + r.verdict.flaky, 0);
  const count = (outcome: Outcome) => passThroughTests.filter((t) => t.outcome === outcome).length;

  const summary = [
    `# Defect proof`,
    '',
    `Generated by \`npm run conformance:defects\` (packages/conformance/proofs/prove-defects.ts). Each defect of packages/conformance/suite/defects/catalogue.ts is injected`,
    `into a correct mock (by the fault-injecting proxy, or for webhooks by the mock's \`--defect\` switch), and the tests naming the rules it`,
    `breaks run against it, stopping at the first failure. A defect counts as detected when a test that passes without it fails with it.`,
    '',
    `Pass-through (no defect): ${passThroughTests.length} tests, ${count('passed')} passed, ${count('skipped')} skipped, ${baselineFailures.length} failed or retried.`,
    `Defects: ${rows.length} (${DEFECT_KINDS.map((k) => `${k} ${rows.filter((r) => r.defect.kind === k).length}`).join(', ')}); retries ${retried}.`,
    `Detected, all tests: ${rows.length - undetected.length} of ${rows.length} (undetected ${undetected.length}).`,
    `Detected, pinned-only (\`--grep-invert @assumed\`, as a real implementation's CI runs the suite): ${rows.length - pinnedUndetected.length} of ${rows.length}${pinnedUndetected.length ? ` (not by a pinned test: ${pinnedUndetected.map((r) => r.defect.name).join(', ')})` : ''}.`,
    `Time: ${wall.toFixed(0)} s wall, ${cpu.toFixed(0)} s CPU (all processes), ${lanes} lanes.`,
    '',
    table(rows),
    '',
  ];
  if (baselineFailures.length > 0) {
    summary.push('## Failures without any defect', '', ...baselineFailures.map((t) => `- ${cell(t.id)}: ${t.outcome}${t.error ? ` (${cell(t.error)})` : ''}`), '');
  }
  writeFileSync(`${ROOT}conformance-report/defects.md`, summary.join('\n'));
  console.log(`\n${summary.slice(6).join('\n')}`);
  console.log('report: conformance-report/defects.md; logs and JSON reports: conformance-report/defects/');

  const reasons: string[] = [];
  if (passThroughTests.length === 0) reasons.push('the pass-through run ran no test');
  if (baselineFailures.length > 0) reasons.push(`${baselineFailures.length} test(s) failed or were retried without any defect`);
  if (undetected.length > 0) reasons.push(`undetected: ${undetected.map((r) => `${r.defect.name} (${r.verdict.reason})`).join(', ')}`);
  if (retried > 0) reasons.push(`${retried} test(s) were retried`);
  if (problems.length > 0) reasons.push(...problems);
  if (reasons.length > 0) {
    for (const reason of reasons) console.error(`prove-defects: FAIL: ${reason}`);
    process.exit(1);
  }
  console.log(`prove-defects: every defect was detected (${wall.toFixed(0)} s)`);
}

try {
  await main();
} catch (error) {
  console.error(`prove-defects: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
