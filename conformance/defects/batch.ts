/**
 * What a batch run of scripts/prove-defects.ts shares between the runner, the Playwright config
 * (playwright.config.ts, loaded by every worker: keep this module free of imports) and the
 * switching proxy (proxy.ts).
 *
 * A batch is several proxy defects in one Playwright process. Each defect's selected tests form a
 * chain of projects of one test each, in the order a run of their own would run them, each
 * depending on the one before: Playwright runs a project only when the projects it depends on
 * passed, so a defect's tests stop at its first failure (what `--max-failures=1` did for a run of
 * its own), and every project has a fresh worker of its own. Every request of a project's tests
 * names its defect in DEFECT_HEADER (`use.extraHTTPHeaders`), for the switching proxy.
 */

/** One project of a batch: one test of a defect's selection. */
export interface BatchProject {
  /** A name no defect's grep matches (Playwright matches a project's grep against its name too). */
  name: string;
  /** The defect whose test it is: the value of DEFECT_HEADER on its requests. */
  defect: string;
  /** The spec file of the test (relative to conformance/tests/). */
  file: string;
  /** The test's title path below the file, space-separated, as Playwright's grep sees it. */
  title: string;
  /** The --grep-invert of the defect's run (regular expression source), applied as well. */
  grepInvert?: string;
  /** The project of the defect's test before this one. */
  after?: string;
}

/** The request header naming the defect of the test's project; the proxy removes it, the target never sees it. */
export const DEFECT_HEADER = 'x-cgs-defect';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The --grep selecting exactly the project's one test: `<project> <file> <title path> [@tags]`. */
export function grepOfBatchProject(project: Pick<BatchProject, 'name' | 'file' | 'title'>): string {
  return `^${escapeRegExp(`${project.name} ${project.file} ${project.title}`)}(?: @\\S+)*$`;
}
