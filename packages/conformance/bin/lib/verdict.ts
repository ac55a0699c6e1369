/** The rules report (rules.json of packages/conformance/suite/reporters/rules-reporter.ts) turned into cgs-conformance's one-screen summary and its exit status (packages/conformance/bin/lib/conformance.ts, EXIT). */
import { causeLines, type Cause } from '../../../contract/rules/causes.ts';
import { EXIT, type ExitStatus, type Requirements } from './conformance.ts';

/** The parts of rules.json the verdict reads. */
export interface RulesJson {
  target: string;
  summary: {
    pinnedObservable: { total: number; passed: number; failed: number; notRun: number };
    tests: { total: number; passed: number; failed: number; skipped: number };
  };
  rules: { id: string; section: string; result: 'passed' | 'failed' | 'not run'; status?: string; observable?: boolean; party?: string; judgeWith?: string[]; outsideArea?: string[] }[];
  causes?: Cause[];
  tests?: { title: string; outcome: string; reason?: string; tags: string[] }[];
  /** Errors outside any test (the reporter's onError: globalSetup, a file that does not load). */
  errors?: string[];
}

/** `Authentication 3` → `Authentication`; `Endpoints / Conventions 1; Authentication 1` → `Endpoints`. */
export function chapterOf(section: string): string {
  return section.split(/ \/ |;/)[0]!.replace(/\s+\d+(?:-\d+)?$/, '').trim();
}

export interface Verdict {
  exit: ExitStatus;
  /** exit 0 (kept for callers that read it). */
  conforming: boolean;
  lines: string[];
}

/** What the verdict knows of the run besides the report. */
export interface VerdictContext {
  requirements: Requirements;
  sharded: boolean;
}

const NO_REQUIREMENTS: VerdictContext = { requirements: { pinned: false, hooks: [], keyProfiles: [] }, sharded: false };

/** The service's pinned, observable rules no test judged, with what would judge each (a client's or receiver's rules are the exams'), those outside --area apart. */
function pinnedNotRun(report: RulesJson): RulesJson['rules'] {
  return report.rules.filter((r) => r.status === 'pinned' && r.observable !== false && (r.party === undefined || r.party === 'server') && r.result === 'not run');
}

/**
 * The service's pinned, observable rules the run left unjudged, with what would judge each: not
 * those named only by tests outside --area (outsideArea), which the run chose not to judge (D277).
 */
export function unjudgedPinned(report: RulesJson): { id: string; section: string; judgeWith: string[] }[] {
  return pinnedNotRun(report)
    .filter((r) => r.outsideArea === undefined)
    .map((r) => ({ id: r.id, section: r.section, judgeWith: r.judgeWith ?? [] }));
}

/** The pinned rules named only by tests outside --area, and the --area (from what would judge them). */
export function outsideAreaPinned(report: RulesJson): { area: string; ids: string[] } | undefined {
  const outside = pinnedNotRun(report).filter((r) => r.outsideArea !== undefined);
  if (outside.length === 0) return undefined;
  const area = (outside[0]!.judgeWith ?? []).find((j) => j.startsWith('outside --area '))?.slice('outside --area '.length) ?? '?';
  return { area, ids: outside.map((r) => r.id) };
}

/** `12 × --allow-spend; 3 × hook clock (--hooks-url)`: what the unjudged rules wait for, most first. */
function tally(unjudged: readonly { judgeWith: string[] }[]): string {
  const counts = new Map<string, number>();
  for (const r of unjudged) for (const j of r.judgeWith.length ? r.judgeWith : ['(no reason recorded)']) counts.set(j, (counts.get(j) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([j, n]) => `${n} × ${j}`).join('; ');
}

/** A required hook or key profile the run lacked: the tests skipped for it. */
function missingRequired(report: RulesJson, requirements: Requirements): string[] {
  const missing: string[] = [];
  const skipped = (report.tests ?? []).filter((t) => t.outcome === 'skipped');
  for (const hook of requirements.hooks) {
    const tests = skipped.filter((t) => new RegExp(`needs hook ${hook}\\b`).test(t.reason ?? ''));
    if (tests.length > 0) missing.push(`hook ${hook} (--require hook:${hook}): ${tests.length} test(s) skipped, e.g. "${tests[0]!.reason}": give --hooks-url a target that serves it (docs/hooks.md)`);
  }
  for (const profile of requirements.keyProfiles) {
    const tests = skipped.filter((t) => (t.reason ?? '').includes(`needs key profile ${profile}`) || (t.reason ?? '').includes(`no "${profile}" key profile`));
    if (tests.length > 0) missing.push(`key profile ${profile} (--require key-profile:${profile}): ${tests.length} test(s) skipped, e.g. "${tests[0]!.reason}": add a "${profile}" key to --keys`);
  }
  return missing;
}

/**
 * The summary and the exit status of a run: `report` is its rules.json (undefined when Playwright
 * wrote none), `playwrightStatus` Playwright's exit status.
 */
export function summarize(report: RulesJson | undefined, playwrightStatus: number, reportDir: string, context: VerdictContext = NO_REQUIREMENTS): Verdict {
  if (!report) {
    return {
      exit: EXIT.couldNotJudge,
      conforming: false,
      lines: [
        `  verdict: COULD NOT JUDGE (Playwright exited ${playwrightStatus} before writing ${reportDir}/rules.json: nothing was judged; its output above says why, e.g. an error in globalSetup or a test file filter that matches no file)`,
      ],
    };
  }
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
  if (report.causes?.length) lines.push('  failures by their first violated rule (fix the first first):', ...causeLines(report.causes));
  lines.push(`  reports: ${reportDir}/rules.md, ${reportDir}/junit.xml, ${reportDir}/html/index.html`);

  // Could not judge: nothing ran, or a hook or key profile the run was told it needs was missing.
  const unjudgeable: string[] = [];
  if (tests.total === 0) unjudgeable.push(report.errors?.length ? `the run stopped before any test: ${report.errors[0]}` : 'no test was selected (--grep, --shard or a test file filter left none)');
  else if (tests.passed === 0 && tests.failed === 0) unjudgeable.push(`every test was skipped (${tests.skipped}): see "skipped tests, by reason" above`);
  unjudgeable.push(...missingRequired(report, context.requirements));
  if (unjudgeable.length > 0) {
    lines.push(`  verdict: COULD NOT JUDGE (${unjudgeable.join('; ')})`);
    return { exit: EXIT.couldNotJudge, conforming: false, lines };
  }

  const reasons: string[] = [];
  if (playwrightStatus !== 0 && tests.failed === 0) reasons.push(`Playwright exited ${playwrightStatus}`);
  const stopped = (report.tests ?? []).filter((t) => t.outcome === 'skipped' && (t.reason ?? '').startsWith('not run: the run stopped after')).length;
  if (tests.failed > 0) reasons.push(`${tests.failed} test(s) failed${stopped > 0 ? `, and the run stopped there: ${stopped} test(s) not run (--max-failures 0 judges every test)` : ''}`);
  if (failedRules.length > 0) reasons.push(`${failedRules.length} rule(s) failed`);
  if (tests.passed === 0) reasons.push('no test passed: nothing was checked');

  const unjudged = unjudgedPinned(report);
  const outside = outsideAreaPinned(report);
  // D277: what --area leaves out is counted and named, and --require pinned does not ask for it.
  if (outside) lines.push(`  outside --area ${outside.area}: ${outside.ids.length} pinned rule(s) not judged, named only by tests of other areas (not required by --require pinned; rules.md "Pinned rules outside --area" lists each)`);
  if (unjudged.length > 0 && context.requirements.pinned && !context.sharded) {
    reasons.push(`${unjudged.length} pinned rule(s) not judged, and --require pinned asks for every one`);
    lines.push(`  pinned rules not judged (--require pinned), with what would judge each:`);
    for (const r of unjudged) lines.push(`    ${r.id} (${r.section}): ${r.judgeWith.join('; ') || 'no reason recorded'}`);
  }
  if (reasons.length > 0) {
    lines.push(`  verdict: DOES NOT CONFORM (${reasons.join('; ')})`);
    return { exit: EXIT.doesNotConform, conforming: false, lines };
  }
  if (unjudged.length === 0 && outside) {
    lines.push(`  verdict: CONFORMS on --area ${outside.area} (every pinned rule its tests name was judged; ${outside.ids.length} of ${pinned.total} pinned rules lie outside it)`);
  } else if (unjudged.length === 0) {
    lines.push('  verdict: CONFORMS (every pinned rule judged)');
  } else if (context.sharded && context.requirements.pinned) {
    lines.push(`  verdict: CONFORMS in this shard; ${unjudged.length} pinned rule(s) not judged here, which --require pinned judges on the merged report (cgs-conformance-merge --require pinned)`);
  } else {
    lines.push(
      `  verdict: CONFORMS on what was judged${outside ? ` of --area ${outside.area}` : ''}, but ${unjudged.length} of ${pinned.total} pinned rules were NOT judged (${tally(unjudged)}); rules.md lists each. Add --require pinned to fail the gate when pinned rules go unjudged.`,
    );
  }
  return { exit: EXIT.conforms, conforming: true, lines };
}
