/**
 * The conformance suite: `npx playwright test -c packages/conformance/suite/playwright.config.ts` (npm run conformance),
 * or `cgs-conformance` from the installed package (packages/conformance/bin/cgs-conformance.ts; this file compiled to dist/).
 * Against CONFORMANCE_BASE_URL when set, else against the mock that globalSetup starts.
 * Environment: packages/conformance/suite/fixtures/env.ts. Reports: playwright-report/ (HTML),
 * conformance-report/junit.xml, conformance-report/rules.json and rules.md at the repository's root,
 * or under CONFORMANCE_REPORT_DIR when set (html/, junit.xml, rules.json, rules.md, test-results/).
 */
import { extname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { isExternalTarget } from './fixtures/env.ts';

const root = (path: string): string => fileURLToPath(new URL(`../../../${path}`, import.meta.url));
/** A module beside this one, with this module's own extension (.ts in the checkout, .js in dist/). */
const own = (name: string): string => fileURLToPath(new URL(`./${name}${extname(fileURLToPath(import.meta.url))}`, import.meta.url));
const reportDir = process.env['CONFORMANCE_REPORT_DIR'] ? resolve(process.env['CONFORMANCE_REPORT_DIR']) : undefined;
const out = (inRepo: string, inReportDir: string): string => (reportDir ? resolve(reportDir, inReportDir) : root(inRepo));
/** What prints while the run goes: `list` (default), or CONFORMANCE_CONSOLE_REPORTER (`dot`, `line`). */
const consoleReporter = (process.env['CONFORMANCE_CONSOLE_REPORTER'] || 'list') as 'list' | 'dot' | 'line';

/**
 * `--shard i/n` (Playwright's sharding across machines), or CONFORMANCE_BLOB=1: also a blob report,
 * conformance-report/blob/report-<i>-of-<n>.zip, which `npm run conformance:merge` turns, with the
 * shards' rules.json, into one HTML, JUnit and rules report (packages/conformance/suite/reporters/merge.ts).
 */
function shardOf(argv: readonly string[]): { index: number; total: number } | undefined {
  const at = argv.findIndex((a) => a === '--shard' || a.startsWith('--shard='));
  const value = at < 0 ? undefined : argv[at]!.startsWith('--shard=') ? argv[at]!.slice('--shard='.length) : argv[at + 1];
  const match = /^(\d+)\/(\d+)$/.exec(value ?? '');
  return match ? { index: Number(match[1]), total: Number(match[2]) } : undefined;
}
const shard = shardOf(process.argv);
const blob: ReporterDescription[] =
  shard || process.env['CONFORMANCE_BLOB'] === '1'
    ? [['blob', { outputDir: out('conformance-report/blob', 'blob'), fileName: shard ? `report-${shard.index}-of-${shard.total}.zip` : 'report.zip' }]]
    : [];

export default defineConfig({
  testDir: './tests',
  fullyParallel: true,
  forbidOnly: Boolean(process.env['CI']),
  retries: 0,
  workers: 2,
  // Against a real target the pacer may sleep up to a rate-limit window (60 s) inside a test.
  timeout: isExternalTarget() ? 180_000 : 30_000,
  expect: { timeout: 5_000 },
  reporter: [
    [consoleReporter],
    // No "Copy prompt" button for a language model; the failure context is the rules reporter's (failure-context.md).
    ['html', { outputFolder: out('playwright-report', 'html'), open: 'never', noCopyPrompt: true }],
    ['junit', { outputFile: out('conformance-report/junit.xml', 'junit.xml') }],
    [own('reporters/rules-reporter'), { outputDir: out('conformance-report', '.') }],
    ...blob,
  ] satisfies ReporterDescription[],
  outputDir: out('test-results/conformance', 'test-results'),
  globalSetup: own('global-setup'),
  globalTeardown: own('global-teardown'),
  use: {
    trace: 'retain-on-failure',
  },
});
