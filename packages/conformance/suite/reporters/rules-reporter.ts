/**
 * Playwright reporter: for every rule of packages/contract/spec/rules.yaml, whether it passed, failed or was not run,
 * and by which tests. Writes conformance-report/rules.json and conformance-report/rules.md and prints
 * a summary (with the reasons tests were skipped, so a run against a target without /__mock says why).
 *
 * A test checks the rules named in its title (or its describe titles). The response checker also
 * checks rules on every response it sees (RateLimit headers, problem members...); the `api` fixture
 * reports those as `rules-checked` / `rules-violated` annotations, and they count here as well,
 * marked `via: checker`: a rule the checker saw violated is failed, whatever the test asserted.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FullConfig, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import type { Rule } from '../../../contract/spec/types.ts';
import { causeLines, causesOf, firstRuleOf, judgeWith, UNSERVED_TEXT, rulesInMessage, rulesOfAssertion, type Cause, type CauseInput, type FailureRecord } from '../../../contract/rules/causes.ts';
import { loadLedger, namingProblems, ruleIdsIn, rulesById } from '../../../contract/rules/ledger.ts';
import { workingDigest } from '../../../contract/spec/versions.ts';
import { areaOfReason, areasCalled, expandAreas, RESOURCES, resourceOf, taggedAreas } from '../../../contract/rules/areas.ts';

/** The resources of the --area a skip reason names. */
function areaSelection(reason: string | undefined): string[] | undefined {
  const list = areaOfReason(reason);
  return list === undefined ? undefined : expandAreas(list);
}

/** `blocked`: the test failed at a contract violation of other rules, before judging its own. */
type Outcome = 'passed' | 'failed' | 'blocked' | 'skipped';
export type RuleResult = 'passed' | 'failed' | 'not run';

/** One test as the report keeps it (rules.json `tests`): enough to judge every rule again. */
export interface TestRecord {
  /** Failed only because the response checker refused a response (see `violated`). */
  checkerStop: boolean;
  title: string;
  file: string;
  line?: number;
  tags: string[];
  outcome: Outcome;
  reason?: string;
  named: string[];
  checked: string[];
  violated: string[];
  warnings: string[];
  /** The operations of the document the test called, and the areas they and its hooks touch (packages/contract/rules/areas.ts). */
  operations?: string[];
  areas?: string[];
  /** A failed test: its first violation (causes.ts). */
  failure?: FailureRecord;
}

export interface RuleReport {
  id: string;
  section: string;
  rule: string;
  status: Rule['status'];
  observable: boolean;
  decision?: string;
  /** A client's or a webhook receiver's obligation (judged by the exams, not this suite); absent for the service's. */
  party?: 'client' | 'receiver';
  result: RuleResult;
  tests: { title: string; file: string; outcome: Outcome; via: 'title' | 'checker'; reason?: string }[];
  /** A rule no test judged: what would judge it (the hook, key profile or flag the tests naming it lack). */
  judgeWith?: string[];
  /** A rule not judged only because every test naming it lies outside `--area`: the areas those tests touch beyond it. */
  outsideArea?: string[];
}

export interface RulesReporterOptions {
  /** Where rules.json and rules.md go (default: conformance-report/ at the repository root). */
  outputDir?: string;
}

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

function annotation(test: Pick<TestCase, 'annotations'>, type: string): string[] {
  return test.annotations.filter((a) => a.type === type).map((a) => a.description ?? '');
}

function outcomeOf(test: TestCase): Outcome {
  const result = test.results.at(-1);
  if (!result || result.status === 'skipped' || result.status === 'interrupted') return 'skipped';
  return test.outcome() === 'expected' && result.status === 'passed' ? 'passed' : 'failed';
}

const CONTRACT = ' breaks the contract:';

/**
 * Whether a failed test was stopped by the response checker at rules of the ledger (client.ts
 * ContractViolation), before judging the others it names: they are then blocked, not failed. A
 * violation of the document alone (a schema, no rule) may be exactly what the test is about, so it
 * does not block. A response that broke a rule AND the document (a weak ETag also breaks the ETag
 * header's pattern) stopped the test at that rule: blocked (this once counted as a failure of every
 * rule the test names, blaming rules no test judged).
 */
export function isCheckerStop(test: Pick<TestCase, 'annotations'> & { results: readonly Pick<TestResult, 'errors'>[] }): boolean {
  const errors = test.results.at(-1)?.errors ?? [];
  if (errors.length === 0 || !errors.every((e) => (e.message ?? '').includes(CONTRACT))) return false;
  return annotation(test, 'rules-violated').some((d) => d.trim() !== '') || annotation(test, 'document-violated').length === 0;
}

/** Strip the terminal colours Playwright puts in error messages. */
function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

/**
 * A failed test's first violation: the rules of the first response the checker refused (in the
 * order its message names them, before the response's headers and body), or, when the test's own
 * assertion failed, the rules its message names (else, given the test's own rules, those whose text
 * states what the assertion expected: causes.ts rulesOfAssertion) and where it failed.
 */
export function failureOf(result: Pick<TestResult, 'errors'> | undefined, own?: { named: readonly string[]; rules: ReadonlyMap<string, Pick<Rule, 'rule'>> }): FailureRecord | undefined {
  const errors = result?.errors ?? [];
  if (errors.length === 0) return undefined;
  const messages = errors.map((e) => plain(e.message ?? e.value ?? ''));
  const refused = messages.filter((m) => m.includes(CONTRACT));
  if (refused.length > 0) {
    const first = refused[0]!;
    const from = first.lastIndexOf('\n', first.indexOf(CONTRACT)) + 1;
    const head = first.slice(from, first.indexOf(CONTRACT)).replace(/^[\w ]*?(?:Error|Violation): /, '');
    const listed = first.slice(from).split('\n  response headers:')[0]!;
    const cause = /\(cause: ([^)]+)\)/.exec(listed)?.[1];
    return { rules: rulesInMessage(listed), at: head.trim(), responses: refused.length, ...(cause ? { cause } : {}) };
  }
  const error = errors[0]!;
  const where = error.location ? `${relative(ROOT, error.location.file)}:${error.location.line}` : undefined;
  const firstLine = messages[0]!.split('\n').find((l) => l.trim() !== '')?.trim().slice(0, 160) ?? 'failed';
  const named = rulesInMessage(messages[0]!);
  const rules = named.length > 0 || !own ? named : rulesOfAssertion(messages[0]!, own.named, own.rules);
  return { rules, at: where ? `${where}: ${firstLine}` : firstLine, responses: 0 };
}

/**
 * A test as the report keeps it, from its results and annotations: one source for the summary,
 * rules.md, rules.json and the `violated rule` annotations of the JUnit and HTML reports.
 */
export function recordOf(test: TestCase, rules: ReadonlyMap<string, Rule>, maxFailures: number): TestRecord {
  const titles = test.titlePath().slice(3);
  const outcome = outcomeOf(test);
  const reason =
    outcome !== 'skipped'
      ? undefined
      : test.results.length === 0
        ? notRunReason(maxFailures)
        : annotation(test, 'skip').concat(annotation(test, 'fixme')).find((d) => d !== '');
  // Blocked, not failed, only when the checker stopped the test at rules of the ledger: a
  // violation of the document alone (a schema) may be exactly what the test is about.
  const violated = annotation(test, 'rules-violated').flatMap((d) => d.split(' ')).filter(Boolean);
  const checkerStop = outcome === 'failed' && isCheckerStop(test);
  const named = ruleIdsIn(titles);
  const failure = outcome === 'failed' ? failureOf(test.results.at(-1), { named, rules }) : undefined;
  const operations = annotation(test, 'operations').flatMap((d) => d.split(' ')).filter(Boolean);
  const hooksUsed = annotation(test, 'hooks-used').flatMap((d) => d.split(' ')).filter(Boolean);
  const areas = areasCalled(operations, hooksUsed);
  return {
    checkerStop,
    title: titles.join(' › '),
    file: relative(ROOT, test.location.file),
    line: test.location.line,
    tags: test.tags,
    outcome,
    ...(reason ? { reason } : {}),
    named,
    checked: annotation(test, 'rules-checked').flatMap((d) => d.split(' ')).filter(Boolean),
    violated,
    warnings: annotation(test, 'assumption-warning'),
    ...(operations.length > 0 ? { operations } : {}),
    ...(areas.length > 0 ? { areas } : {}),
    ...(failure ? { failure } : {}),
  };
}

/** The rules a failed test's `violated rule` annotations name: its first violated rule (the cause), then up to two more of its failure. */
export function violatedRulesOf(record: CauseInput): string[] {
  const first = firstRuleOf(record);
  return [first, ...(record.failure?.rules ?? []).filter((id) => id !== first && (record.violated.includes(id) || record.named.includes(id)))].slice(0, 3);
}

/** A file name for a test: its spec file, line and title, in safe characters. */
export function testSlug(test: Pick<TestCase, 'title' | 'location'>): string {
  const file = test.location.file.split(/[\\/]/).at(-1)!.replace(/\.spec\.[jt]s$/, '');
  return `${file}-${test.location.line}-${test.title.replace(/[^A-Za-z0-9-]+/g, '-').replace(/^-|-$/g, '').slice(0, 80)}`;
}

/**
 * A failed test's exchanges (the `exchanges.txt` the recorder fixture attached) copied to
 * `<report dir>/exchanges/<test>.txt`, beside junit.xml and rules.md; its path, or undefined.
 */
export function copyExchanges(test: Pick<TestCase, 'title' | 'location'>, result: Pick<TestResult, 'attachments'>, dir: string): string | undefined {
  const attached = result.attachments.find((a) => a.name === 'exchanges.txt' && a.path !== undefined && existsSync(a.path));
  if (!attached) return undefined;
  mkdirSync(dir, { recursive: true });
  const target = join(dir, `${testSlug(test)}.txt`);
  copyFileSync(attached.path!, target);
  return target;
}

/**
 * Playwright writes every failed test's `error-context.md` opening with instructions to a language
 * model ("# Instructions - Following Playwright test failed. - Explain why..."), and no option
 * leaves them out (1.65: the HTML reporter's `noCopyPrompt` hides only its button). The file is
 * replaced by `failure-context.md`, built from the test's errors: what failed, where, the rule it
 * violated and where its exchanges are (#32 item 8).
 */
export function replaceErrorContext(test: Pick<TestCase, 'titlePath' | 'location'>, result: Pick<TestResult, 'attachments' | 'errors'>, violated: readonly string[], exchanges: string | undefined): void {
  const at = result.attachments.findIndex((a) => a.name === 'error-context' && a.path !== undefined);
  if (at < 0) return;
  const original = result.attachments[at]!.path!;
  const lines = [`# ${test.titlePath().slice(3).join(' › ')}`, '', `- Test: ${relative(ROOT, test.location.file)}:${test.location.line}`];
  if (violated.length > 0) lines.push(`- First violated rule: ${violated[0]}`, ...violated.slice(1).map((v) => `- Also: ${v}`));
  if (exchanges) lines.push(`- Exchanges (requests, answers, hook calls): exchanges.txt beside this file, and ${relative(ROOT, exchanges)}`);
  for (const error of result.errors) {
    const where = error.location ? `${relative(ROOT, error.location.file)}:${error.location.line}` : undefined;
    lines.push('', `## Error${where ? ` at ${where}` : ''}`, '', '```', plain(error.message ?? error.value ?? '').trim(), '```');
  }
  const file = join(dirname(original), 'failure-context.md');
  writeFileSync(file, `${lines.join('\n')}\n`);
  rmSync(original, { force: true });
  result.attachments.splice(at, 1, { name: 'failure-context', contentType: 'text/markdown', path: file });
}

/** Why a test has no result: the run stopped at its failures (maxFailures), or was interrupted. */
export function notRunReason(maxFailures: number): string {
  return maxFailures > 0 ? `not run: the run stopped after ${maxFailures} failed test(s) (--max-failures ${maxFailures}; --max-failures 0 judges every test)` : 'not run: the run was interrupted';
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
  private readonly ledger = loadLedger();
  private readonly rules = rulesById(this.ledger);
  private maxFailures = 0;
  /** Errors outside any test (globalSetup refusing the target, a test file that does not load): their first lines. */
  private readonly errors: string[] = [];

  constructor(options: RulesReporterOptions = {}) {
    this.outputDir = options.outputDir ?? join(ROOT, 'conformance-report');
  }

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.suite = suite;
    this.maxFailures = config.maxFailures;
    // The exchanges of an earlier run's failures are never read as this run's.
    if (!listing()) rmSync(join(this.outputDir, 'exchanges'), { recursive: true, force: true });
  }

  /**
   * A failed test gets the text and section of the rule it failed at as an annotation, which the
   * HTML and JUnit reporters (they build their reports at the end of the run) show with the test.
   */
  onTestEnd(test: TestCase, result: TestResult): void {
    if (result.status === 'passed' || result.status === 'skipped' || test.annotations.some((a) => a.type === 'violated rule')) return;
    // The rule the summary and rules.md group this test under (causes.ts firstRuleOf, on the record
    // onEnd builds), first: the JUnit and HTML reports name the same rule for the same test.
    const violated = violatedRulesOf(recordOf(test, this.rules, this.maxFailures));
    for (const id of violated) {
      const rule = this.rules.get(id);
      if (rule) test.annotations.push({ type: 'violated rule', description: `${id} (${rule.section}): ${rule.rule}` });
      else if (id.startsWith('serve ')) test.annotations.push({ type: 'violated rule', description: `${id}: ${UNSERVED_TEXT}` });
    }
    const exchanges = copyExchanges(test, result, join(this.outputDir, 'exchanges'));
    replaceErrorContext(test, result, violated.map((id) => `${id}${this.rules.get(id) ? ` (${this.rules.get(id)!.section}): ${this.rules.get(id)!.rule}` : ''}`), exchanges);
  }

  onError(error: TestError): void {
    const text = plain(error.message ?? error.value ?? '');
    this.errors.push((text.split('\n').find((line) => line.trim() !== '') ?? text).trim().slice(0, 500));
  }

  onEnd(): void {
    if (!this.suite) return;
    if (listing()) {
      console.log(listRules(this.suite.allTests().map((test) => ruleIdsIn(test.titlePath().slice(3))), this.ledger, process.env['CONFORMANCE_AREA'] || undefined).join('\n'));
      return;
    }
    const records: TestRecord[] = this.suite.allTests().map((test) => recordOf(test, this.rules, this.maxFailures));

    const report = judgeRules(records, this.ledger);
    const target = process.env['CONFORMANCE_BASE_URL'] ?? '(unset)';
    // The document and ledger this run checked against (npm run release wants a green run on them, V10).
    const documentDigest = workingDigest();
    console.log(writeRulesReport(this.outputDir, { generatedAt: new Date().toISOString(), target, documentDigest, ...report, ...(this.errors.length > 0 ? { errors: this.errors } : {}) }).join('\n'));
    // The JUnit reporter (before this one) has written its file: the causes go in as a suite of their own.
    addCausesToJUnit(join(this.outputDir, 'junit.xml'), report.causes);
  }
}

/** `--list` (cgs-conformance sets CONFORMANCE_LIST): the tests are listed, none runs, nothing is judged or written. */
function listing(): boolean {
  return process.env['CONFORMANCE_LIST'] === '1' || process.argv.includes('--list');
}

/**
 * What a listing prints after Playwright's list of tests (whose titles name their rules): how many
 * rules the listed tests name, and the service's pinned, observable rules none of them names, which
 * a run of this selection leaves unjudged.
 */
export function listRules(namedByTest: readonly (readonly string[])[], ledger: ReturnType<typeof loadLedger>, area?: string): string[] {
  const named = new Set(namedByTest.flat());
  const pinned = ledger.rules.filter((r) => r.status === 'pinned' && r.observable && (r.party ?? 'server') === 'server');
  const left = pinned.filter((r) => !named.has(r.id)).map((r) => r.id);
  return [
    '',
    `Rules: the ${namedByTest.length} listed test(s)${area ? ` of --area ${area}` : ''} name ${named.size} rule(s), ${pinned.length - left.length} of the ${pinned.length} pinned, observable rules of the service.`,
    ...(left.length > 0
      ? [
          area
            ? `  pinned rules no listed test names: ${left.length}, outside --area ${area} (or left out by a file filter or --grep; a run of this selection leaves them unjudged, and --require pinned does not ask for them, D277): ${left.join(' ')}`
            : `  pinned rules no listed test names (a run of this selection leaves them unjudged): ${left.join(' ')}`,
        ]
      : []),
  ];
}

/**
 * A test that touched an area it is not tagged with (`--area` would run it on a target that lacks
 * that area): the operations of each such area it called. Tags of areas it did not touch this run
 * are left alone (a case may call them only where the account has the data).
 */
export function areaProblems(record: Pick<TestRecord, 'tags' | 'operations' | 'areas'>): string[] {
  const tagged = taggedAreas(record.tags);
  return (record.areas ?? [])
    .filter((area) => !tagged.includes(area))
    .map((area) => {
      const ops = (record.operations ?? []).filter((op) => resourceOf(op) === area);
      return `touches area ${area} (${ops.length > 0 ? ops.join(', ') : 'the webhooks hook'}) but is not tagged @area:${area} (packages/contract/rules/areas.ts)`;
    });
}

/** The rules report of a run: rules.json as written (`rules.md` is rendered from it). */
export interface RulesReport {
  generatedAt: string;
  /** packages/contract/spec/versions.ts workingDigest() of the run's checkout (absent in merged and older reports). */
  documentDigest?: string;
  ledgerVersion: string;
  target: string;
  summary: Summary;
  namingProblems: string[];
  /** The failed tests grouped by their first violated rule, the most widespread first (causes.ts). */
  causes: Cause[];
  rules: RuleReport[];
  tests: TestRecord[];
  /** Errors outside any test (an error in globalSetup, a file that does not load), first lines. */
  errors?: string[];
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
    const judges = new Set<string>();
    for (const r of records) {
      if (r.named.includes(rule.id)) {
        // A test stopped by a violation of other rules has not judged this one; nor has a test that
        // failed on an operation the target does not serve (its cause `serve /path`, D288), whichever
        // assertion noticed it: the same "blocked" the summary's causes name.
        const unserved = r.outcome === 'failed' ? r.failure?.cause : undefined;
        const outcome: Outcome = (r.checkerStop || unserved !== undefined) && !r.violated.includes(rule.id) ? 'blocked' : r.outcome;
        const violation = `a violation of ${r.violated.join(', ') || 'the document'}`;
        const stoppedBy = unserved === undefined ? violation : r.violated.length ? `${unserved} (and ${violation})` : unserved;
        const reason = outcome === 'blocked' ? `stopped by ${stoppedBy}` : r.reason;
        tests.push({ title: r.title, file: r.file, outcome, via: 'title', ...(reason ? { reason } : {}) });
        evidence.push({ outcome, via: 'title' });
        const judge = judgeWith({ outcome, tags: r.tags, violated: r.violated, ...(r.reason !== undefined ? { reason: r.reason } : {}) });
        if (judge) judges.add(judge);
      } else if (r.checked.includes(rule.id)) {
        tests.push({ title: r.title, file: r.file, outcome: r.outcome, via: 'checker' });
        evidence.push({ outcome: r.outcome, via: 'checker', violated: r.violated.includes(rule.id) });
      }
    }
    const result = ruleResult(evidence);
    // Every test naming it skipped for --area: the run's choice of areas, not a lack of the target.
    const outsideArea =
      result === 'not run' && judges.size > 0 && [...judges].every((j) => j.startsWith('outside --area '))
        ? RESOURCES.filter((area) => records.some((r) => r.named.includes(rule.id) && areaOfReason(r.reason) !== undefined && taggedAreas(r.tags).includes(area) && !(areaSelection(r.reason) ?? []).includes(area)))
        : undefined;
    if (result === 'not run' && tests.every((t) => t.via === 'checker')) judges.add(tests.length ? 'a test that names it (only the response checker saw it, in tests that did not pass)' : 'a test that names it: none ran in this run (--grep, --shard or a file filter left it out), or none exists');
    return {
      id: rule.id,
      section: rule.section,
      rule: rule.rule,
      status: rule.status,
      observable: rule.observable,
      ...(rule.decision ? { decision: rule.decision } : {}),
      ...(rule.party === 'client' || rule.party === 'receiver' ? { party: rule.party } : {}),
      result,
      tests,
      ...(result === 'not run' ? { judgeWith: [...judges] } : {}),
      ...(outsideArea ? { outsideArea } : {}),
    };
  });

  const naming = records.flatMap((r) => [...namingProblems(r.named, r.tags, rules), ...areaProblems(r)].map((p) => `${r.file}: "${r.title}" ${p}`));
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
    // The service's pinned, observable rules: what the suite answers for (a client's or a receiver's are the exams').
    pinnedObservable: count((r) => r.status === 'pinned' && r.observable && r.party === undefined),
    assumed: count((r) => r.status === 'assumed'),
    tests: {
      total: records.length,
      passed: records.filter((r) => r.outcome === 'passed').length,
      failed: records.filter((r) => r.outcome === 'failed').length,
      skipped: records.filter((r) => r.outcome === 'skipped').length,
    },
  };
  return { ledgerVersion: ledger.version, summary, namingProblems: naming, causes: causesOf(records, rules), rules: reports, tests: records };
}

/** Writes rules.json and rules.md into `outputDir`; returns the summary lines to print. */
export function writeRulesReport(outputDir: string, report: RulesReport): string[] {
  const { summary, rules: reports, namingProblems: naming, tests: records } = report;
  mkdirSync(outputDir, { recursive: true });
  writeFileSync(join(outputDir, 'rules.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(outputDir, 'rules.md'), markdown(report.ledgerVersion, report.target, summary, reports, naming, report.causes));
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
  out.push(...outsideAreaLines(reports));
  // cgs-conformance prints them in its own summary, last on the screen (CONFORMANCE_GATE=1).
  if (report.causes.length && process.env['CONFORMANCE_GATE'] !== '1') out.push('  failures by their first violated rule (fix the first first):', ...causeLines(report.causes));
  const reasons = new Map<string, number>();
  // The tests outside --area on one line (their reasons differ only by the areas each touches).
  const reasonOf = (r: TestRecord) => (areaOfReason(r.reason) !== undefined ? `outside --area ${areaOfReason(r.reason)}` : (r.reason ?? '(no reason given)'));
  for (const r of records) if (r.outcome === 'skipped') reasons.set(reasonOf(r), (reasons.get(reasonOf(r)) ?? 0) + 1);
  if (reasons.size) {
    out.push('  skipped tests, by reason:');
    for (const [reason, n] of reasons) out.push(`    ${n} × ${reason}`);
  }
  const warnings = records.reduce((n, r) => n + r.warnings.length, 0);
  if (warnings) out.push(`  ${warnings} response(s) disagreed with a decided gap (x-assumption) without failing: see "assumption-warning" in rules.json`);
  for (const problem of naming) out.push(`  naming: ${problem}`);
  return out;
}


function markdown(version: string, target: string, summary: { all: Counts; pinnedObservable: Counts; assumed: Counts; tests: Record<string, number> }, reports: RuleReport[], naming: string[], causes: readonly Cause[]): string {
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
  if (causes.length) {
    lines.push('## Failures by cause', '', 'Each failed test under the first rule it violated, the most widespread first: fix the first first.', '');
    lines.push('| Rule | Section | Rule text | Tests | Responses | First at | Blocked (not judged) |', '|---|---|---|---|---|---|---|');
    for (const c of causes) lines.push(`| ${c.rule} | ${escapeCell(c.section)} | ${escapeCell(c.text)} | ${c.tests} | ${c.responses} | ${escapeCell(c.first)} | ${c.blocked.join(' ') || '—'} |`);
    lines.push('');
  }
  const pinnedNotRun = reports.filter((r) => r.status === 'pinned' && r.observable && r.party === undefined && r.result === 'not run');
  const unjudged = pinnedNotRun.filter((r) => r.outsideArea === undefined);
  const outside = pinnedNotRun.filter((r) => r.outsideArea !== undefined);
  if (outside.length) {
    const area = areaOfJudge(outside[0]!);
    lines.push(`## Pinned rules outside --area ${area}`, '', `${outside.length} pinned rule(s) named only by tests that touch an area outside --area ${area}: not judged by this run, not required by \`--require pinned\` (D277). A run with their areas judges them.`, '');
    lines.push('| Rule | Section | Its tests also touch |', '|---|---|---|');
    for (const r of outside) lines.push(`| ${r.id} | ${escapeCell(r.section)} | ${r.outsideArea!.join(', ')} |`);
    lines.push('');
  }
  if (unjudged.length) {
    lines.push('## Pinned rules not judged', '', 'What would judge each (`cgs-conformance --require pinned` fails the gate on them).', '');
    lines.push('| Rule | Section | Would be judged with |', '|---|---|---|');
    for (const r of unjudged) lines.push(`| ${r.id} | ${escapeCell(r.section)} | ${escapeCell((r.judgeWith ?? []).join('; ') || '—')} |`);
    lines.push('');
  }
  lines.push('## Rules', '', '| Rule | Status | Result | Tests (named) | Checked by the response checker in |', '|---|---|---|---|---|');
  for (const r of reports) {
    const named = r.tests.filter((t) => t.via === 'title').map((t) => `${t.outcome === 'passed' ? '✅' : t.outcome === 'failed' ? '❌' : t.outcome === 'blocked' ? '⛔' : '⏭️'} ${escapeCell(t.title)}${t.reason ? ` (${escapeCell(t.reason)})` : ''}`);
    const checker = r.tests.filter((t) => t.via === 'checker').length;
    const status = `${r.status}${r.observable ? '' : ', not observable'}${r.decision ? `, ${r.decision}` : ''}`;
    lines.push(`| ${r.id} | ${status} | ${r.result} | ${named.join('<br>') || '—'} | ${checker ? `${checker} test(s)` : '—'} |`);
  }
  return `${lines.join('\n')}\n`;
}

/** `outside --area read` → `read`. */
function areaOfJudge(rule: Pick<RuleReport, 'judgeWith'>): string {
  return (rule.judgeWith ?? []).find((j) => j.startsWith('outside --area '))?.slice('outside --area '.length) ?? '?';
}

/**
 * The summary's line for the pinned rules a run's --area left out (named only by tests of other
 * areas): counted and named apart from the rules the chosen areas' tests left unjudged.
 */
export function outsideAreaLines(reports: readonly RuleReport[]): string[] {
  const outside = reports.filter((r) => r.status === 'pinned' && r.observable && r.party === undefined && r.result === 'not run' && r.outsideArea !== undefined);
  if (outside.length === 0) return [];
  const byArea = new Map<string, number>();
  for (const r of outside) for (const a of r.outsideArea!) byArea.set(a, (byArea.get(a) ?? 0) + 1);
  return [
    `  outside --area ${areaOfJudge(outside[0]!)}: ${outside.length} pinned rule(s) not judged, their tests touching ${[...byArea].map(([a, n]) => `${a} (${n})`).join(', ')}: ${outside.map((r) => r.id).join(' ')}`,
  ];
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

function xmlEscape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/**
 * The causes as a suite of their own in a JUnit file (one failed test case per cause, its message
 * the rule's text, counts and first failure), so a CI page that shows JUnit shows what to fix first.
 * Idempotent: a suite written before is replaced. Does nothing when the file is absent.
 */
export function addCausesToJUnit(file: string, causes: readonly Cause[]): void {
  if (!existsSync(file)) return;
  const SUITE = 'cgs-conformance: failures by their first violated rule';
  let xml = readFileSync(file, 'utf8').replace(new RegExp(`\\s*<testsuite name="${SUITE}"[\\s\\S]*?</testsuite>`), '');
  if (causes.length === 0 || !xml.includes('</testsuites>')) {
    writeFileSync(file, xml);
    return;
  }
  const cases = causes.map((c) => {
    const message = `${c.rule}${c.section ? ` (${c.section})` : ''}: ${c.text} Violated in ${c.responses} response(s) of ${c.tests} test(s), first at ${c.first}.`;
    const blocked = c.blocked.length ? `\nBlocked, not judged: ${c.blocked.join(' ')}` : '';
    return `<testcase name="${xmlEscape(`${c.rule}: ${c.text}`)}" classname="rules" time="0">\n<failure message="${xmlEscape(message)}" type="RuleViolated">${xmlEscape(message + blocked)}</failure>\n</testcase>`;
  });
  const suite = `<testsuite name="${SUITE}" tests="${causes.length}" failures="${causes.length}" skipped="0" errors="0" time="0">\n${cases.join('\n')}\n</testsuite>\n`;
  xml = xml.replace('</testsuites>', `${suite}</testsuites>`);
  writeFileSync(file, xml);
}
