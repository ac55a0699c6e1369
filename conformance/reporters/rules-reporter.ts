/**
 * Playwright reporter: for every rule of spec/rules.yaml, whether it passed, failed or was not run,
 * and by which tests. Writes conformance-report/rules.json and conformance-report/rules.md and prints
 * a summary (with the reasons tests were skipped, so a run against a target without /__mock says why).
 *
 * A test checks the rules named in its title (or its describe titles). The response checker also
 * checks rules on every response it sees (RateLimit headers, problem members...); the `api` fixture
 * reports those as `rules-checked` / `rules-violated` annotations, and they count here as well,
 * marked `via: checker`: a rule the checker saw violated is failed, whatever the test asserted.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FullConfig, Reporter, Suite, TestCase } from '@playwright/test/reporter';
import type { Rule } from '../../spec/types.ts';
import { loadLedger, namingProblems, ruleIdsIn, rulesById } from './ledger.ts';
import { workingDigest } from '../../spec/versions.ts';

/** `blocked`: the test failed at a contract violation of other rules, before judging its own. */
type Outcome = 'passed' | 'failed' | 'blocked' | 'skipped';
export type RuleResult = 'passed' | 'failed' | 'not run';

/** One test as the report keeps it (rules.json `tests`): enough to judge every rule again. */
export interface TestRecord {
  /** Failed only because the response checker refused a response (see `violated`). */
  checkerStop: boolean;
  title: string;
  file: string;
  tags: string[];
  outcome: Outcome;
  reason?: string;
  named: string[];
  checked: string[];
  violated: string[];
  warnings: string[];
}

export interface RuleReport {
  id: string;
  section: string;
  rule: string;
  status: Rule['status'];
  observable: boolean;
  decision?: string;
  result: RuleResult;
  tests: { title: string; file: string; outcome: Outcome; via: 'title' | 'checker'; reason?: string }[];
}

export interface RulesReporterOptions {
  /** Where rules.json and rules.md go (default: conformance-report/ at the repository root). */
  outputDir?: string;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function annotation(test: TestCase, type: string): string[] {
  return test.annotations.filter((a) => a.type === type).map((a) => a.description ?? '');
}

function outcomeOf(test: TestCase): Outcome {
  const result = test.results.at(-1);
  if (!result || result.status === 'skipped' || result.status === 'interrupted') return 'skipped';
  return test.outcome() === 'expected' && result.status === 'passed' ? 'passed' : 'failed';
}

/** Whether the test failed only at responses the checker refused (client.ts ContractViolation). */
function stoppedByChecker(test: TestCase): boolean {
  const errors = test.results.at(-1)?.errors ?? [];
  return errors.length > 0 && errors.every((e) => (e.message ?? '').includes('breaks the contract:'));
}

/** Passed, failed or not run, from the tests that name a rule and the checker's findings. */
export function ruleResult(tests: readonly { outcome: Outcome; via: 'title' | 'checker'; violated?: boolean }[]): RuleResult {
  if (tests.some((t) => (t.via === 'title' && t.outcome === 'failed') || t.violated === true)) return 'failed';
  if (tests.some((t) => t.outcome === 'passed' || (t.via === 'checker' && t.violated === false))) return 'passed';
  return 'not run';
}

export default class RulesReporter implements Reporter {
  private suite: Suite | undefined;
  private readonly outputDir: string;

  constructor(options: RulesReporterOptions = {}) {
    this.outputDir = options.outputDir ?? join(ROOT, 'conformance-report');
  }

  printsToStdio(): boolean {
    return false;
  }

  onBegin(_config: FullConfig, suite: Suite): void {
    this.suite = suite;
  }

  onEnd(): void {
    if (!this.suite) return;
    const records: TestRecord[] = this.suite.allTests().map((test) => {
      const titles = test.titlePath().slice(3);
      const outcome = outcomeOf(test);
      const reason = outcome === 'skipped' ? annotation(test, 'skip').concat(annotation(test, 'fixme')).find((d) => d !== '') : undefined;
      // Blocked, not failed, only when the checker stopped the test at rules of the ledger: a
      // violation of the document alone (a schema) may be exactly what the test is about.
      const checkerStop = outcome === 'failed' && stoppedByChecker(test) && annotation(test, 'document-violated').length === 0;
      return {
        checkerStop,
        title: titles.join(' › '),
        file: relative(ROOT, test.location.file),
        tags: test.tags,
        outcome,
        ...(reason ? { reason } : {}),
        named: ruleIdsIn(titles),
        checked: annotation(test, 'rules-checked').flatMap((d) => d.split(' ')).filter(Boolean),
        violated: annotation(test, 'rules-violated').flatMap((d) => d.split(' ')).filter(Boolean),
        warnings: annotation(test, 'assumption-warning'),
      };
    });

    const report = judgeRules(records, loadLedger());
    const target = process.env['CONFORMANCE_BASE_URL'] ?? '(unset)';
    // The document and ledger this run checked against (npm run release wants a green run on them, V10).
    const documentDigest = workingDigest(ROOT);
    console.log(writeRulesReport(this.outputDir, { generatedAt: new Date().toISOString(), target, documentDigest, ...report }).join('\n'));
  }
}

/** The rules report of a run: rules.json as written (`rules.md` is rendered from it). */
export interface RulesReport {
  generatedAt: string;
  /** spec/versions.ts workingDigest() of the run's checkout (absent in merged and older reports). */
  documentDigest?: string;
  ledgerVersion: string;
  target: string;
  summary: Summary;
  namingProblems: string[];
  rules: RuleReport[];
  tests: TestRecord[];
}

interface Summary {
  all: Counts;
  pinnedObservable: Counts;
  assumed: Counts;
  tests: { total: number; passed: number; failed: number; skipped: number };
}

/** Every rule of the ledger judged from the tests' records (what a run, or merged shards, saw). */
export function judgeRules(records: TestRecord[], ledger: ReturnType<typeof loadLedger>): Omit<RulesReport, 'generatedAt' | 'target'> {
  const rules = rulesById(ledger);
  const reports: RuleReport[] = ledger.rules.map((rule) => {
    const tests: RuleReport['tests'] = [];
    const evidence: { outcome: Outcome; via: 'title' | 'checker'; violated?: boolean }[] = [];
    for (const r of records) {
      if (r.named.includes(rule.id)) {
        // A test stopped by a violation of other rules has not judged this one.
        const outcome: Outcome = r.checkerStop && !r.violated.includes(rule.id) ? 'blocked' : r.outcome;
        const reason = outcome === 'blocked' ? `stopped by a violation of ${r.violated.join(', ') || 'the document'}` : r.reason;
        tests.push({ title: r.title, file: r.file, outcome, via: 'title', ...(reason ? { reason } : {}) });
        evidence.push({ outcome, via: 'title' });
      } else if (r.checked.includes(rule.id)) {
        tests.push({ title: r.title, file: r.file, outcome: r.outcome, via: 'checker' });
        evidence.push({ outcome: r.outcome, via: 'checker', violated: r.violated.includes(rule.id) });
      }
    }
    return {
      id: rule.id,
      section: rule.section,
      rule: rule.rule,
      status: rule.status,
      observable: rule.observable,
      ...(rule.decision ? { decision: rule.decision } : {}),
      result: ruleResult(evidence),
      tests,
    };
  });

  const naming = records.flatMap((r) => namingProblems(r.named, r.tags, rules).map((p) => `${r.file}: "${r.title}" ${p}`));
  const count = (filter: (r: RuleReport) => boolean) => {
    const selected = reports.filter(filter);
    return {
      total: selected.length,
      passed: selected.filter((r) => r.result === 'passed').length,
      failed: selected.filter((r) => r.result === 'failed').length,
      notRun: selected.filter((r) => r.result === 'not run').length,
    };
  };
  const summary = {
    all: count(() => true),
    pinnedObservable: count((r) => r.status === 'pinned' && r.observable),
    assumed: count((r) => r.status === 'assumed'),
    tests: {
      total: records.length,
      passed: records.filter((r) => r.outcome === 'passed').length,
      failed: records.filter((r) => r.outcome === 'failed').length,
      skipped: records.filter((r) => r.outcome === 'skipped').length,
    },
  };
  return { ledgerVersion: ledger.version, summary, namingProblems: naming, rules: reports, tests: records };
}

/** Writes rules.json and rules.md into `outputDir`; returns the summary lines to print. */
export function writeRulesReport(outputDir: string, report: RulesReport): string[] {
  const { summary, rules: reports, namingProblems: naming, tests: records } = report;
  mkdirSync(outputDir, { recursive: true });
  writeFileSync(join(outputDir, 'rules.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(outputDir, 'rules.md'), markdown(report.ledgerVersion, report.target, summary, reports, naming));
  const line = (label: string, c: Counts) => `${label}: ${c.passed} passed, ${c.failed} failed, ${c.notRun} not run (of ${c.total})`;
  const out = [
    '',
    `Rules (${relative(process.cwd(), join(outputDir, 'rules.md'))}):`,
    `  ${line('all rules', summary.all)}`,
    `  ${line('pinned, observable', summary.pinnedObservable)}`,
    `  ${line('assumed', summary.assumed)}`,
  ];
  const failed = reports.filter((r) => r.result === 'failed').map((r) => r.id);
  if (failed.length) out.push(`  failed: ${failed.join(' ')}`);
  const reasons = new Map<string, number>();
  for (const r of records) if (r.outcome === 'skipped') reasons.set(r.reason ?? '(no reason given)', (reasons.get(r.reason ?? '(no reason given)') ?? 0) + 1);
  if (reasons.size) {
    out.push('  skipped tests, by reason:');
    for (const [reason, n] of reasons) out.push(`    ${n} × ${reason}`);
  }
  const warnings = records.reduce((n, r) => n + r.warnings.length, 0);
  if (warnings) out.push(`  ${warnings} response(s) disagreed with a decided gap (x-assumption) without failing: see "assumption-warning" in rules.json`);
  for (const problem of naming) out.push(`  naming: ${problem}`);
  return out;
}


function markdown(version: string, target: string, summary: { all: Counts; pinnedObservable: Counts; assumed: Counts; tests: Record<string, number> }, reports: RuleReport[], naming: string[]): string {
  const row = (label: string, c: Counts) => `| ${label} | ${c.total} | ${c.passed} | ${c.failed} | ${c.notRun} |`;
  const lines = [
    `# Rule coverage of the conformance run`,
    '',
    `Ledger ${version}; target ${target}; tests: ${summary.tests['passed']} passed, ${summary.tests['failed']} failed, ${summary.tests['skipped']} skipped.`,
    '',
    '| Rules | Total | Passed | Failed | Not run |',
    '|---|---|---|---|---|',
    row('all', summary.all),
    row('pinned, observable', summary.pinnedObservable),
    row('assumed', summary.assumed),
    '',
  ];
  if (naming.length) lines.push('## Naming problems', '', ...naming.map((n) => `- ${n}`), '');
  lines.push('## Rules', '', '| Rule | Status | Result | Tests (named) | Checked by the response checker in |', '|---|---|---|---|---|');
  for (const r of reports) {
    const named = r.tests.filter((t) => t.via === 'title').map((t) => `${t.outcome === 'passed' ? '✅' : t.outcome === 'failed' ? '❌' : t.outcome === 'blocked' ? '⛔' : '⏭️'} ${escapeCell(t.title)}${t.reason ? ` (${escapeCell(t.reason)})` : ''}`);
    const checker = r.tests.filter((t) => t.via === 'checker').length;
    const status = `${r.status}${r.observable ? '' : ', not observable'}${r.decision ? `, ${r.decision}` : ''}`;
    lines.push(`| ${r.id} | ${status} | ${r.result} | ${named.join('<br>') || '—'} | ${checker ? `${checker} test(s)` : '—'} |`);
  }
  return `${lines.join('\n')}\n`;
}

interface Counts {
  total: number;
  passed: number;
  failed: number;
  notRun: number;
}

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}
