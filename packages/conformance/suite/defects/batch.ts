/**
 * What a batch run of packages/conformance/proofs/prove-defects.ts shares between the runner, the Playwright config
 * (playwright.config.ts, loaded by every worker: keep this module free of imports), the suite's
 * fixtures (plan.ts) and the switching proxy (proxy.ts).
 *
 * A batch is several proxy defects in one Playwright process with ONE worker (D230). Its plan maps
 * each selected test to the defects it runs for, in order; the project repeats every test that
 * many times (`repeatEach`), and repeat i of a test runs under the i-th defect of its list. Before a
 * planned test, the fixture names its defect to the switching proxy (SELECT_PATH, DEFECT_HEADER)
 * and marks the test as expected to fail (`testInfo.fail()`): a test that catches its defect is an
 * expected outcome, so the worker stays (Playwright restarts a worker only after an unexpected
 * one), and one worker start serves the whole batch instead of one per defect. A defect's later
 * tests are skipped once one of them caught it (`caughtFile`), as --max-failures=1 stopped a run of
 * its own.
 */

/** A batch's plan (JSON in the file named by DEFECT_PLAN_ENV). */
export interface DefectPlan {
  /** The switching proxy's origin (`http://127.0.0.1:PORT`). */
  proxy: string;
  /** Per selected test (`file › describe › title`), the defects it runs for: repeat i runs under the i-th. */
  tests: Record<string, string[]>;
  /** Where each caught defect's name is appended, one a line; absent with --all (every planned test runs). */
  caughtFile?: string;
}

/** The environment variable naming the plan file; unset, the fixture does nothing. */
export const DEFECT_PLAN_ENV = 'DEFECT_PLAN';

/** The one project of a batch run (its name is part of what Playwright's grep sees). */
export const BATCH_PROJECT = 'defect-batch';

/** The request header naming a defect; the proxy removes it, the target never sees it. */
export const DEFECT_HEADER = 'x-cgs-defect';

/** A POST here, with DEFECT_HEADER, makes that defect the proxy's current one; the proxy answers 204 itself. */
export const SELECT_PATH = '/__defect-proxy/select';

/** How many times the batch's project repeats each test: the longest defect list of a test. */
export function repeatsOf(plan: Pick<DefectPlan, 'tests'>): number {
  return Math.max(1, ...Object.values(plan.tests).map((defects) => defects.length));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The --grep selecting exactly the plan's tests: `<project> <file> <title path> [@tags]`. */
export function grepOfPlan(plan: Pick<DefectPlan, 'tests'>): string {
  const titles = Object.keys(plan.tests).map((id) => escapeRegExp(id.split(' › ').join(' ')));
  return `^${escapeRegExp(BATCH_PROJECT)} (?:${titles.join('|')})(?: @\\S+)*$`;
}
