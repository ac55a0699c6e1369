/**
 * The gate's promise, proven by withdrawal (#32, D264): what a target does not serve or does not
 * have is skipped with its reason, never failed. The mock started with `--hooks-withhold` plays a
 * target that serves and lists less (packages/mock-core/src/hooks/withhold.ts); for each group of withdrawn things the
 * pinned suite runs against it (behind a front hiding /__mock, through the hooks alone, a real clock,
 * as packages/conformance/proofs/prove-real-target.ts --hooks) and must show:
 *
 * 1. no failure the full target does not have (the full target's run has none: it is the baseline);
 * 2. every test that needed a withdrawn thing, and passed on the full target, is skipped with a
 *    reason naming one of the group's withdrawn things, or passes without it;
 * 3. every pinned rule judged on the full target and not now is accounted for with a withdrawn thing
 *    as what would judge it (rules.json `judgeWith`).
 *
 * Which tests a withdrawal touches comes from the suite itself, not a hand list: on the full target
 * every test records what it asked of the hooks (fixtures/index.ts `hooks-used`: each hook it called,
 * each fault, action, actor kind, operationId and flag it needed; `CONFORMANCE_HOOKS_USED`), and a
 * group runs exactly the tests whose record names one of its things (for `data`: every test that
 * made an account). The withdrawable things are those records' union, so a capability the suite
 * starts to use joins the proof by itself.
 *
 *   npx tsx packages/conformance/proofs/prove-monotonic.ts [--from DIR] [--only N[,N]] [--workers N]
 *
 * - --from DIR: the full target's run (test-results/DIR: rules.json and hooks-used.jsonl of
 *   `prove-real-target.ts --hooks --pinned-only --out DIR`); without it, that run is made first.
 * Reports: test-results/monotonic/<group>/ and the table in test-results/monotonic/monotonic.md.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startFront } from '../suite/defects/front.ts';
import { capabilityLabel, hookOfCapability, isHookName, type Capability } from '../suite/fixtures/hooks.ts';
import type { RulesReport } from '../suite/reporters/rules-reporter.ts';
import { launchMock } from '../../mock/src/node/launch.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PLAYWRIGHT = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');
const BASE = '/api/public/v1';
const OUT = join(ROOT, 'test-results', 'monotonic');

const { values } = parseArgs({ options: { from: { type: 'string' }, only: { type: 'string' }, workers: { type: 'string' } }, strict: true });

interface Used {
  file: string;
  line: number;
  title: string;
  used: Capability[];
}
type TestRow = RulesReport['tests'][number];

/** A test across runs: its file and title (lines move when a file is edited; titles are unique in a file). */
const keyOf = (file: string, title: string): string => `${basename(file)} › ${title}`;

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => resolve({ code: code ?? 1, output }));
  });
}

// ---------------------------------------------------------------------------------------------
// The full target: its run, and what each of its tests asked of the hooks

const started = Date.now();
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
let fromDir = values.from === undefined ? undefined : join(ROOT, 'test-results', values.from);
if (fromDir === undefined || !existsSync(join(fromDir, 'hooks-used.jsonl'))) {
  const name = 'monotonic-full';
  console.log(`the full target's run (no --from with hooks-used.jsonl): packages/conformance/proofs/prove-real-target.ts --hooks --pinned-only --clock real --out ${name}`);
  const full = await run(process.execPath, ['--import', 'tsx', join(ROOT, 'packages', 'conformance', 'proofs', 'prove-real-target.ts'), '--hooks', '--pinned-only', '--clock', 'real', '--out', name], process.env);
  if (full.code !== 0) {
    console.log(full.output.slice(-6000));
    throw new Error('the full target did not pass: nothing to compare with');
  }
  fromDir = join(ROOT, 'test-results', name);
}
const baseline = JSON.parse(readFileSync(join(fromDir, 'rules.json'), 'utf8')) as RulesReport;
if (baseline.summary.tests.failed !== 0) throw new Error(`the full target's run (${fromDir}) has ${baseline.summary.tests.failed} failure(s): the proof compares with a conforming run`);
const uses = readFileSync(join(fromDir, 'hooks-used.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Used);
const baselineTests = new Map(baseline.tests.map((t) => [keyOf(t.file, t.title), t]));
const judgedBefore = new Set(baseline.rules.filter((r) => r.status === 'pinned' && r.observable && r.result !== 'not run' && !r.party).map((r) => r.id));
const everything = [...new Set(uses.flatMap((u) => u.used))].sort();

// ---------------------------------------------------------------------------------------------
// The groups: every thing the suite used, withdrawn once (grouped so that the proof stays short)

const entries = (prefix: string, except: readonly string[] = []): string[] => everything.filter((c) => c.startsWith(prefix) && !except.includes(c));
const GROUPS: { name: string; withhold: string[] }[] = [
  { name: 'data-ratelimits-outcomes', withhold: ['data', 'rate-limits', 'outcomes'] },
  { name: 'actors-clock', withhold: ['actors', 'clock'] },
  { name: 'faults-webhooks-events', withhold: ['faults', 'webhooks', 'events'] },
  {
    name: 'entries-and-flags',
    withhold: [
      ...entries('faults:'),
      ...entries('actions:', ['actions:generateCreatives']),
      ...entries('kinds:', ['kinds:user', 'kinds:api_key']),
      ...entries('operations:'),
      ...['accounts.rateCard', 'webhooks.duplicates', 'webhooks.deliveryLog', 'actors.generateUntil'].filter((f) => everything.includes(f)),
    ],
  },
  { name: 'generate-credits-kinds', withhold: ['actions:generateCreatives', 'accounts.credits', ...entries('kinds:').filter((k) => k === 'kinds:user' || k === 'kinds:api_key')] },
];
const only = values.only?.split(',');
const groups = GROUPS.map((g, i) => ({ ...g, index: i + 1 })).filter((g) => only === undefined || only.includes(String(g.index)) || only.includes(g.name));
// Every thing the suite used is withdrawn by some group (but `accounts` itself: the keys-only proof, packages/conformance/proofs/prove-real-target.ts without --hooks, runs the suite with no hook at all).
const covered = new Set(GROUPS.flatMap((g) => g.withhold));
const uncovered = everything.filter((c) => c !== 'accounts' && !covered.has(c) && !covered.has(hookOfCapability(c)) && !(c.startsWith('kinds:') && covered.has('actors')));
if (uncovered.length > 0) throw new Error(`used by the suite and withdrawn by no group: ${uncovered.join(', ')} (add them to GROUPS)`);

/** Whether a test's record says it needed a withdrawn thing. */
function needs(u: Used, withhold: readonly string[]): boolean {
  return u.used.some((c) => withhold.includes(c) || withhold.includes(hookOfCapability(c)) || (withhold.includes('data') && c === 'accounts'));
}

/** The phrases that name a withdrawn thing in a skip reason and in `judgeWith`. */
function names(withhold: readonly string[]): { reason: (r: string) => boolean; judge: (j: string) => boolean } {
  const reasons = withhold.flatMap((w) => (w === 'data' ? ['skipped because '] : isHookName(w) ? [`needs hook ${w}:`] : [`needs capability ${capabilityLabel(w)}:`]));
  const judges = withhold.flatMap((w) => (w === 'data' ? ['data: '] : isHookName(w) ? [`hook ${w}`] : [`capability ${capabilityLabel(w)} `]));
  return { reason: (r) => reasons.some((p) => r.includes(p)), judge: (j) => judges.some((p) => j.includes(p)) };
}

// ---------------------------------------------------------------------------------------------
// Each group against its partial target

interface Row {
  group: string;
  withheld: string;
  tests: number;
  failed: number;
  skippedNaming: number;
  passedWithout: number;
  unexplained: string[];
  rulesLost: number;
  rulesUnaccounted: string[];
  seconds: number;
}
const rows: Row[] = [];
for (const group of groups) {
  const t0 = Date.now();
  const dir = join(OUT, group.name);
  mkdirSync(dir, { recursive: true });
  const touched = uses.filter((u) => needs(u, group.withhold) && baselineTests.get(keyOf(u.file, u.title))?.outcome === 'passed');
  const token = `ctl_${randomBytes(24).toString('hex')}`;
  const mock = await launchMock({ clock: 'real', env: { CGS_CONTROL_TOKEN: token }, controlToken: token, args: ['--hooks-withhold', group.withhold.join(',')], log: join(dir, 'mock.log'), timeoutMs: 120_000 });
  const front = await startFront(mock.origin, { hide: ['/__mock'], reasons: 'keep', rechunk: false, headers: false, compress: false });
  const env: NodeJS.ProcessEnv = { ...process.env, CONFORMANCE_BASE_URL: `${front.origin}${BASE}`, CONFORMANCE_HOOKS_URL: `${front.origin}/__hooks`, CONFORMANCE_HOOKS_TOKEN: token, CONFORMANCE_REPORT_DIR: dir, CONFORMANCE_CONSOLE_REPORTER: 'dot', CONFORMANCE_ALLOW_SPEND: '1' };
  for (const name of ['CONFORMANCE_LOCAL_MOCK', 'CONFORMANCE_LOCAL_MOCK_URLS', 'CONFORMANCE_MOCK_PID', 'CONFORMANCE_KEYS', 'CONFORMANCE_KEYS_B', 'CONFORMANCE_CONTROL_TOKEN', 'CONFORMANCE_HOOKS_USED']) delete env[name];
  // The touched tests by file and title (a line moves when a file is edited after the full run).
  const files = [...new Set(touched.map((u) => u.file))];
  const grep = touched.map((u) => u.title.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|');
  const result = await run(process.execPath, [PLAYWRIGHT, 'test', '-c', 'packages/conformance/suite/playwright.config.ts', '--trace=off', '--max-failures', '0', '--grep', grep, '--grep-invert', '@assumed', ...(values.workers ? ['--workers', values.workers] : []), ...files], env);
  await front.close();
  await mock.stop();
  writeFileSync(join(dir, 'output.txt'), result.output);
  const report = JSON.parse(readFileSync(join(dir, 'rules.json'), 'utf8')) as RulesReport;
  const now = new Map<string, TestRow>(report.tests.map((t) => [keyOf(t.file, t.title), t]));
  const named = names(group.withhold);
  const unexplained: string[] = [];
  let skippedNaming = 0;
  let passedWithout = 0;
  for (const u of touched) {
    const t = now.get(keyOf(u.file, u.title));
    if (t === undefined) unexplained.push(`${keyOf(u.file, u.title)} did not run`);
    else if (t.outcome === 'passed') passedWithout += 1;
    else if (t.outcome === 'skipped' && named.reason(t.reason ?? '')) skippedNaming += 1;
    else unexplained.push(`${keyOf(u.file, u.title)} ${t.outcome}${t.reason ? ` (${t.reason.slice(0, 200)})` : ''}`);
  }
  // The pinned rules these tests judged on the full target, not judged now: each names a withdrawn thing as what would judge it.
  const touchedRules = new Set(touched.flatMap((u) => baselineTests.get(keyOf(u.file, u.title))?.named ?? []));
  const lost = report.rules.filter((r) => judgedBefore.has(r.id) && touchedRules.has(r.id) && r.result === 'not run');
  const rulesUnaccounted = lost.filter((r) => !(r.judgeWith ?? []).some(named.judge)).map((r) => `${r.id} (${(r.judgeWith ?? []).join('; ')})`);
  const row: Row = {
    group: `${group.index} ${group.name}`,
    withheld: group.withhold.join(', '),
    tests: touched.length,
    failed: report.summary.tests.failed,
    skippedNaming,
    passedWithout,
    unexplained,
    rulesLost: lost.length,
    rulesUnaccounted,
    seconds: (Date.now() - t0) / 1000,
  };
  rows.push(row);
  console.log(`${row.group}: withheld ${row.withheld}; ${row.tests} tests touched: ${row.failed} failed, ${row.skippedNaming} skipped naming it, ${row.passedWithout} passed without it; ${row.rulesLost} pinned rules unjudged, ${row.rulesUnaccounted.length} not accounted for; ${row.seconds.toFixed(1)} s`);
  for (const line of [...unexplained, ...rulesUnaccounted.map((r) => `unaccounted rule ${r}`)].slice(0, 20)) console.log(`  ${line}`);
  if (row.failed > 0) console.log(result.output.slice(-6000));
}

const seconds = (Date.now() - started) / 1000;
const table = [
  '| Group | Withheld | Tests touched | Failed | Skipped naming it | Passed without it | Pinned rules unjudged (accounted for) | Seconds |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.group} | ${r.withheld} | ${r.tests} | ${r.failed} | ${r.skippedNaming} | ${r.passedWithout} | ${r.rulesLost} (${r.rulesLost - r.rulesUnaccounted.length}) | ${r.seconds.toFixed(1)} |`),
];
writeFileSync(join(OUT, 'monotonic.md'), `${table.join('\n')}\n\nTotal ${seconds.toFixed(1)} s; the full target's run: ${fromDir}.\n`);
console.log(table.join('\n'));
console.log(`monotonicity: ${rows.length} group(s), ${everything.length} things the suite used (${everything.join(', ')}), ${seconds.toFixed(1)} s`);
const bad = rows.filter((r) => r.failed > 0 || r.unexplained.length > 0 || r.rulesUnaccounted.length > 0);
if (bad.length > 0) {
  console.log(`NOT monotonic in: ${bad.map((r) => r.group).join(', ')}`);
  process.exit(1);
}
process.exit(0);
