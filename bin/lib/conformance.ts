/**
 * What `cgs-conformance` (bin/cgs-conformance.ts) does before and after Playwright runs the suite,
 * as pure functions: its command line turned into the suite's environment (conformance/fixtures/env.ts)
 * and Playwright's arguments, and the rules report (rules.json of conformance/reporters/rules-reporter.ts)
 * turned into the one-screen summary and the verdict.
 */
import { resolve } from 'node:path';
import { readEnv } from '../../conformance/fixtures/env.ts';

export const USAGE = `usage: cgs-conformance [--base-url URL] [--keys FILE|JSON] [--keys-b FILE|JSON] [--allow-spend]
                       [--pinned-only] [--report-dir DIR] [--shard I/N] [--control-token TOKEN]
                       [--reporter list|dot|line] [playwright test options...]

  --base-url URL        the implementation, including /api/public/v1 (CONFORMANCE_BASE_URL).
                        Without it, the suite starts the packaged mock (one per worker) and runs against it.
  --keys FILE|JSON      profile name → key, a JSON object or a file holding one (CONFORMANCE_KEYS):
                        read, runs:read, runs:write, creatives:write, creatives:review, assets:write,
                        campaigns:write, all. Not needed by a target that serves the /__mock control plane.
  --keys-b FILE|JSON    the same for a second account: the ownership tests (CONFORMANCE_KEYS_B)
  --allow-spend         run the tests that spend credits (CONFORMANCE_ALLOW_SPEND=1)
  --pinned-only         leave out the tests of decided gaps (--grep-invert @assumed): what the interface pins
  --report-dir DIR      junit.xml, html/, rules.json, rules.md, test-results/ (default ./conformance-report)
  --shard I/N           run shard I of N (Playwright's sharding)
  --control-token TOKEN the bearer token of a mock's /__mock control plane (CONFORMANCE_CONTROL_TOKEN)
  --reporter NAME       what prints while the run goes: list, dot (default) or line
  anything else         passed to \`playwright test\` as is (--grep, --workers, --retries, test files...)

Exit status: 0 only when the implementation conforms (every test that ran passed, no rule failed,
and at least one test ran); 1 when it does not; 2 on a usage error.`;

export class UsageError extends Error {}

export interface ConformancePlan {
  /** Environment for the Playwright process, on top of the caller's. */
  env: Record<string, string>;
  /** Arguments after `playwright test -c <config>`. */
  playwrightArgs: string[];
  reportDir: string;
  help: boolean;
}

const VALUE_FLAGS = new Set(['base-url', 'keys', 'keys-b', 'report-dir', 'shard', 'control-token', 'reporter']);
const BOOLEAN_FLAGS = new Set(['allow-spend', 'pinned-only', 'help']);
const CONSOLE_REPORTERS = new Set(['list', 'dot', 'line']);

/** A JSON object of profile → key, given inline or as a file; checked as the suite checks it. */
function keysValue(flag: string, raw: string, cwd: string, readFile: (path: string) => string): string {
  let text = raw.trim();
  if (!text.startsWith('{')) {
    try {
      text = readFile(resolve(cwd, raw));
    } catch (error) {
      throw new UsageError(`--${flag} ${raw}: neither a JSON object nor a readable file (${(error as Error).message})`);
    }
  }
  try {
    readEnv({ CONFORMANCE_KEYS: text });
  } catch (error) {
    throw new UsageError(`--${flag}: ${(error as Error).message.replace('CONFORMANCE_KEYS', 'the keys')}`);
  }
  return text.trim();
}

export function planRun(argv: readonly string[], cwd: string, readFile: (path: string) => string): ConformancePlan {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  const passthrough: string[] = [];
  const grepInvert: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--') {
      passthrough.push(...argv.slice(i + 1));
      break;
    }
    const match = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    const name = match?.[1];
    if (name && (VALUE_FLAGS.has(name) || name === 'grep-invert')) {
      const value = match[2] ?? argv[++i];
      if (value === undefined || (match[2] === undefined && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
      if (name === 'grep-invert') grepInvert.push(value);
      else values.set(name, value);
    } else if (name && BOOLEAN_FLAGS.has(name)) {
      if (match[2] !== undefined) throw new UsageError(`--${name} takes no value`);
      flags.add(name);
    } else {
      passthrough.push(arg);
    }
  }

  const env: Record<string, string> = {};
  const baseUrl = values.get('base-url');
  if (baseUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new UsageError(`--base-url ${baseUrl} is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--base-url must be http or https, not ${url.protocol}`);
    env['CONFORMANCE_BASE_URL'] = baseUrl.replace(/\/+$/, '');
  }
  const keys = values.get('keys');
  if (keys !== undefined) env['CONFORMANCE_KEYS'] = keysValue('keys', keys, cwd, readFile);
  const keysB = values.get('keys-b');
  if (keysB !== undefined) env['CONFORMANCE_KEYS_B'] = keysValue('keys-b', keysB, cwd, readFile);
  if ((keys !== undefined || keysB !== undefined) && baseUrl === undefined) throw new UsageError('--keys and --keys-b are keys of the --base-url target: give --base-url too');
  if (flags.has('allow-spend')) env['CONFORMANCE_ALLOW_SPEND'] = '1';
  const token = values.get('control-token');
  if (token !== undefined) {
    if (token === '') throw new UsageError('--control-token is empty');
    env['CONFORMANCE_CONTROL_TOKEN'] = token;
  }
  const reporter = values.get('reporter') ?? 'dot';
  if (!CONSOLE_REPORTERS.has(reporter)) {
    throw new UsageError(`--reporter is list, dot or line (the HTML, JUnit and rules reports are always written to --report-dir), not ${reporter}`);
  }
  env['CONFORMANCE_CONSOLE_REPORTER'] = reporter;
  const reportDir = resolve(cwd, values.get('report-dir') ?? 'conformance-report');
  env['CONFORMANCE_REPORT_DIR'] = reportDir;

  const playwrightArgs: string[] = [];
  const shard = values.get('shard');
  if (shard !== undefined) {
    const parts = /^(\d+)\/(\d+)$/.exec(shard);
    if (!parts || Number(parts[1]) < 1 || Number(parts[1]) > Number(parts[2])) throw new UsageError(`--shard is I/N with 1 ≤ I ≤ N, not ${shard}`);
    playwrightArgs.push(`--shard=${shard}`);
  }
  if (flags.has('pinned-only')) grepInvert.unshift('@assumed');
  if (grepInvert.length === 1) playwrightArgs.push(`--grep-invert=${grepInvert[0]}`);
  else if (grepInvert.length > 1) playwrightArgs.push(`--grep-invert=${grepInvert.map((g) => `(?:${g})`).join('|')}`);
  playwrightArgs.push(...passthrough);
  return { env, playwrightArgs, reportDir, help: flags.has('help') };
}

// ---------------------------------------------------------------------------------------------
// The summary

/** The parts of rules.json the summary reads. */
export interface RulesJson {
  target: string;
  summary: {
    pinnedObservable: { total: number; passed: number; failed: number; notRun: number };
    tests: { total: number; passed: number; failed: number; skipped: number };
  };
  rules: { id: string; section: string; result: 'passed' | 'failed' | 'not run' }[];
}

/** `Authentication 3` → `Authentication`; `Endpoints / Conventions 1; Authentication 1` → `Endpoints`. */
export function chapterOf(section: string): string {
  return section.split(/ \/ |;/)[0]!.replace(/\s+\d+(?:-\d+)?$/, '').trim();
}

export interface Verdict {
  conforming: boolean;
  lines: string[];
}

export function summarize(report: RulesJson, playwrightStatus: number, reportDir: string): Verdict {
  const chapters = new Map<string, { passed: number; failed: number; notRun: number }>();
  for (const rule of report.rules) {
    const chapter = chapterOf(rule.section);
    const counts = chapters.get(chapter) ?? { passed: 0, failed: 0, notRun: 0 };
    if (rule.result === 'passed') counts.passed += 1;
    else if (rule.result === 'failed') counts.failed += 1;
    else counts.notRun += 1;
    chapters.set(chapter, counts);
  }
  const width = Math.max(24, ...[...chapters.keys()].map((c) => c.length));
  const row = (label: string, passed: number | string, failed: number | string, notRun: number | string) =>
    `  ${label.padEnd(width)} ${String(passed).padStart(7)} ${String(failed).padStart(7)} ${String(notRun).padStart(8)}`;
  const total = { passed: 0, failed: 0, notRun: 0 };
  const lines = ['', `Conformance of ${report.target}: rules by section of the interface specification`, row('section', 'passed', 'failed', 'not run')];
  for (const [chapter, c] of chapters) {
    lines.push(row(chapter, c.passed, c.failed, c.notRun));
    total.passed += c.passed;
    total.failed += c.failed;
    total.notRun += c.notRun;
  }
  const pinned = report.summary.pinnedObservable;
  lines.push(row('all rules', total.passed, total.failed, total.notRun), row('pinned and observable', pinned.passed, pinned.failed, pinned.notRun));
  const tests = report.summary.tests;
  lines.push(`  tests: ${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped (of ${tests.total})`);
  const failedRules = report.rules.filter((r) => r.result === 'failed').map((r) => r.id);
  if (failedRules.length) lines.push(`  failed rules: ${failedRules.join(' ')}`);
  lines.push(`  reports: ${reportDir}/rules.md, ${reportDir}/junit.xml, ${reportDir}/html/index.html`);

  const reasons: string[] = [];
  if (playwrightStatus !== 0) reasons.push(`Playwright exited ${playwrightStatus}`);
  if (tests.failed > 0) reasons.push(`${tests.failed} test(s) failed`);
  if (failedRules.length > 0) reasons.push(`${failedRules.length} rule(s) failed`);
  if (tests.passed === 0) reasons.push('no test passed: nothing was checked');
  const conforming = reasons.length === 0;
  lines.push(conforming ? '  verdict: CONFORMS' : `  verdict: DOES NOT CONFORM (${reasons.join('; ')})`);
  return { conforming, lines };
}
