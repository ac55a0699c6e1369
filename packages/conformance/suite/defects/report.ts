/**
 * Reading Playwright's JSON report and judging a defect run against the pass-through run: pure
 * functions, shared by packages/conformance/proofs/prove-defects.ts and its unit test (report.test.ts).
 */

/** The parts of Playwright's JSON report read here. */
export interface JsonReport {
  suites?: JsonSuite[];
  errors?: { message?: string }[];
  stats?: { expected: number; unexpected: number; flaky: number; skipped: number };
}

interface JsonSuite {
  title: string;
  file?: string;
  specs?: JsonSpec[];
  suites?: JsonSuite[];
}

interface JsonSpec {
  title: string;
  file: string;
  tags?: string[];
  tests: JsonTest[];
}

interface Annotation {
  type: string;
  description?: string;
}

interface JsonTest {
  status?: 'expected' | 'unexpected' | 'flaky' | 'skipped';
  annotations?: Annotation[];
  results?: { status: string; retry?: number; error?: { message?: string }; startTime?: string; duration?: number; annotations?: Annotation[] }[];
}

/** `not-run`: selected, but the run stopped before it (--max-failures). */
export type Outcome = 'passed' | 'failed' | 'flaky' | 'skipped' | 'not-run';

export interface TestOutcome {
  /** `file › describe › title`: the same for one test in every run. */
  id: string;
  /** What Playwright's --grep is matched against: file, titles, tags, space-separated. */
  grepTitle: string;
  outcome: Outcome;
  /** The first line of the first failure, when it failed. */
  error?: string;
}

function tagged(tag: string): string {
  return tag.startsWith('@') ? tag : `@${tag}`;
}

/** Every test of a report with its outcome (`--list` reports give `skipped` for all). */
export function testsOf(report: JsonReport): TestOutcome[] {
  return specsOf(report).map(({ id, grepTitle, spec }) => outcomeOf(id, grepTitle, spec.tests[0]));
}

/** A test of a batch run, with when it ran (`ms` since the epoch; undefined when it did not run). */
export interface BatchTest extends TestOutcome {
  startedAt?: number;
  endedAt?: number;
}

/**
 * The tests of a batch run (packages/conformance/suite/defects/batch.ts) by the defect each ran under (its
 * `defect` annotation), in the order they ran. Each such test was expected to fail, so its outcome
 * is read from its result, not from Playwright's expected/unexpected: failed or timed out is
 * `failed` (the defect caught), passed is `passed`, skipped (caught by an earlier test) `skipped`.
 * Repeats that ran under no defect carry no annotation and are left out.
 */
export function testsByDefect(report: JsonReport): Map<string, BatchTest[]> {
  const byDefect = new Map<string, BatchTest[]>();
  for (const { id, grepTitle, spec } of specsOf(report)) {
    for (const test of spec.tests) {
      const annotations = [...(test.annotations ?? []), ...(test.results ?? []).flatMap((r) => r.annotations ?? [])];
      const defect = annotations.find((a) => a.type === 'defect')?.description;
      if (defect === undefined) continue;
      const results = test.results ?? [];
      const last = results.at(-1);
      let outcome: Outcome;
      if (results.length > 1) outcome = 'flaky';
      else if (last === undefined) outcome = 'not-run';
      else if (last.status === 'failed' || last.status === 'timedOut') outcome = 'failed';
      else if (last.status === 'passed') outcome = 'passed';
      else outcome = 'skipped';
      const error = results.find((r) => r.error?.message)?.error?.message;
      const startedAt = last?.startTime === undefined ? undefined : Date.parse(last.startTime);
      const timing = startedAt === undefined ? {} : { startedAt, endedAt: startedAt + (last!.duration ?? 0) };
      const entry: BatchTest = { id, grepTitle, outcome, ...(outcome === 'failed' && error ? { error: firstLine(error) } : {}), ...timing };
      byDefect.set(defect, [...(byDefect.get(defect) ?? []), entry]);
    }
  }
  for (const tests of byDefect.values()) tests.sort((a, b) => (a.startedAt ?? Infinity) - (b.startedAt ?? Infinity));
  return byDefect;
}

function specsOf(report: JsonReport): { id: string; grepTitle: string; spec: JsonSpec }[] {
  const out: { id: string; grepTitle: string; spec: JsonSpec }[] = [];
  const visit = (suite: JsonSuite, titles: string[]): void => {
    const here = suite.file !== undefined && titles.length === 0 ? [suite.title] : [...titles, suite.title];
    for (const spec of suite.specs ?? []) out.push({ id: [...here, spec.title].join(' › '), grepTitle: [...here, spec.title, ...(spec.tags ?? []).map(tagged)].join(' '), spec });
    for (const child of suite.suites ?? []) visit(child, here);
  };
  for (const suite of report.suites ?? []) visit(suite, []);
  return out;
}

function outcomeOf(id: string, grepTitle: string, test: JsonTest | undefined): TestOutcome {
  const results = test?.results ?? [];
  let outcome: Outcome;
  if (test?.status === 'unexpected') outcome = 'failed';
  else if (test?.status === 'flaky' || results.some((r) => (r.retry ?? 0) > 0)) outcome = 'flaky';
  else if (test?.status === 'expected' && results.some((r) => r.status === 'passed')) outcome = 'passed';
  else if (results.length === 0) outcome = 'not-run';
  else outcome = 'skipped';
  const error = results.find((r) => r.error?.message)?.error?.message;
  return { id, grepTitle, outcome, ...(outcome === 'failed' && error ? { error: firstLine(error) } : {}) };
}

function firstLine(message: string): string {
  // eslint-style colour codes from Playwright's messages
  const plain = message.replace(/\u001b\[[0-9;]*m/g, '');
  return (plain.split('\n').find((line) => line.trim() !== '') ?? '').trim().slice(0, 200);
}

export interface Verdict {
  /** Tests the defect's grep selected. */
  selected: number;
  /** Tests that ran to a verdict (passed or failed). */
  ran: number;
  /** Tests that failed under the defect. */
  failed: TestOutcome[];
  /** Failed under the defect and passed in the pass-through run: the proof. */
  proof: TestOutcome[];
  /** Tests retried (must never happen: the suite runs with retries 0). */
  flaky: number;
  detected: boolean;
  /** Why the defect does not count as detected, when it does not. */
  reason?: string;
}

/** Judge a defect run: detected when a test that passed without the defect failed with it. */
export function judge(defectRun: readonly TestOutcome[], passThrough: ReadonlyMap<string, Outcome>, runErrors: readonly string[] = []): Verdict {
  const failed = defectRun.filter((t) => t.outcome === 'failed');
  const proof = failed.filter((t) => passThrough.get(t.id) === 'passed');
  const flaky = defectRun.filter((t) => t.outcome === 'flaky').length;
  const ran = defectRun.filter((t) => t.outcome === 'passed' || t.outcome === 'failed').length;
  const verdict: Verdict = { selected: defectRun.length, ran, failed, proof, flaky, detected: proof.length > 0 };
  if (defectRun.length === 0) verdict.reason = runErrors.length > 0 ? `the run failed: ${runErrors[0]}` : 'its grep selected no test';
  else if (failed.length === 0) verdict.reason = 'every selected test passed';
  else if (proof.length === 0) verdict.reason = 'the tests that failed did not pass without the defect either';
  return verdict;
}
