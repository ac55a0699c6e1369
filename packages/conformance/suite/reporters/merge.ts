/**
 * Merging the reports of a sharded run (`--shard i/n` on several machines) into one: the rules
 * report (rules.json, rules.md) from the shards' rules.json, and the HTML and JUnit reports from
 * their blob reports with Playwright's own `merge-reports`.
 *
 * A shard's rules.json keeps every test it ran as a record (`tests`: outcome, rules named, rules
 * the response checker verified or saw violated), so the merged report judges every rule again
 * from all of them, exactly as one run over all the tests would (`judgeRules`).
 *
 * As a function: `mergeRulesReports(reports)`, `mergeReports({ inputs, outputDir })`; as a script:
 * `npm run conformance:merge -- <shard report dirs...> [--out <dir>]` (scripts/conformance-merge.ts).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { loadLedger } from '../../../contract/rules/ledger.ts';
import { addCausesToJUnit, judgeRules, writeRulesReport, type RulesReport, type TestRecord } from './rules-reporter.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/** Playwright's command line, resolved from this module: the checkout's, or the installed package's dependency. */
const PLAYWRIGHT_CLI = createRequire(import.meta.url).resolve('@playwright/test/cli');

/** Which of two records of the same test stands: a failure is never hidden by a pass elsewhere. */
const RANK: Record<TestRecord['outcome'], number> = { failed: 3, blocked: 2, passed: 1, skipped: 0 };

/**
 * One rules report from the reports of several shards (in shard order): their tests together,
 * every rule judged again from them. A test reported by two shards counts once, by its worse
 * outcome. The shards must have used the same rule ledger.
 */
export function mergeRulesReports(reports: readonly RulesReport[], ledger = loadLedger()): RulesReport {
  if (reports.length === 0) throw new Error('no rules report to merge');
  const versions = new Set(reports.map((r) => r.ledgerVersion));
  if (versions.size > 1 || !versions.has(ledger.version)) {
    throw new Error(`the shards used rule ledgers ${[...versions].join(', ')}, this checkout has ${ledger.version}: merge with the ledger they ran with`);
  }
  const byTest = new Map<string, TestRecord>();
  for (const report of reports) {
    for (const record of report.tests) {
      const key = `${record.file}\u0000${record.title}`;
      const seen = byTest.get(key);
      if (!seen || RANK[record.outcome] > RANK[seen.outcome]) byTest.set(key, record);
    }
  }
  const targets = [...new Set(reports.map((r) => r.target))];
  return { generatedAt: new Date().toISOString(), target: targets.join(', '), ...judgeRules([...byTest.values()], ledger) };
}

/** Every file named `name` under these paths (a path may be the file itself), in path order. */
function findFiles(paths: readonly string[], accept: (file: string) => boolean): string[] {
  const found: string[] = [];
  const visit = (path: string): void => {
    const stat = statSync(path);
    if (stat.isFile()) {
      if (accept(path)) found.push(path);
      return;
    }
    for (const entry of readdirSync(path).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))) visit(join(path, entry));
  };
  for (const path of paths) visit(resolve(path));
  return found;
}

export interface MergeOptions {
  /** Shard report directories (or rules.json files and blob .zip files), searched recursively. */
  inputs: readonly string[];
  /** Where rules.json, rules.md, junit.xml and html/ of the merged run go. */
  outputDir: string;
  /** Skip the HTML and JUnit merge (blob reports), e.g. when only rules.json files were kept. */
  rulesOnly?: boolean;
}

export interface MergeResult {
  report: RulesReport;
  /** The rules.json files merged, in order. */
  rulesFiles: string[];
  /** The blob reports merged into html/ and junit.xml (none: not merged). */
  blobs: string[];
  /** The summary lines (as the rules reporter prints them). */
  lines: string[];
}

/**
 * Merges the shards' reports found under `inputs` into `outputDir`: rules.json and rules.md, and,
 * from their blob reports (`*.zip` written by the blob reporter), html/ and junit.xml.
 */
export function mergeReports(options: MergeOptions): MergeResult {
  const outputDir = resolve(options.outputDir);
  const rulesFiles = findFiles(options.inputs, (f) => basename(f) === 'rules.json' && !f.startsWith(`${outputDir}/`));
  if (rulesFiles.length === 0) throw new Error(`no rules.json under ${options.inputs.join(', ')}`);
  const report = mergeRulesReports(rulesFiles.map((f) => JSON.parse(readFileSync(f, 'utf8')) as RulesReport));
  const lines = writeRulesReport(outputDir, report);

  const blobs = options.rulesOnly ? [] : findFiles(options.inputs, (f) => f.endsWith('.zip') && basename(f).startsWith('report') && !f.startsWith(`${outputDir}/`));
  if (blobs.length > 0) {
    // merge-reports reads one directory of blob reports.
    const dir = mkdtempSync(join(tmpdir(), 'cgs-blobs-'));
    try {
      blobs.forEach((blob, index) => copyFileSync(blob, join(dir, `${index + 1}-${basename(blob)}`)));
      const merged = spawnSync(process.execPath, [PLAYWRIGHT_CLI, 'merge-reports', '--reporter', 'html,junit', dir], {
        cwd: ROOT,
        env: { ...process.env, PLAYWRIGHT_HTML_OUTPUT_DIR: join(outputDir, 'html'), PLAYWRIGHT_HTML_OPEN: 'never', PLAYWRIGHT_JUNIT_OUTPUT_FILE: join(outputDir, 'junit.xml') },
        encoding: 'utf8',
      });
      if (merged.status !== 0) throw new Error(`playwright merge-reports failed (${merged.status}):\n${merged.stdout}\n${merged.stderr}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    lines.push(`  merged ${blobs.length} blob report(s): ${join(outputDir, 'html', 'index.html')}, ${join(outputDir, 'junit.xml')}`);
    if (!existsSync(join(outputDir, 'html', 'index.html'))) throw new Error(`merge-reports wrote no ${join(outputDir, 'html', 'index.html')}`);
    addCausesToJUnit(join(outputDir, 'junit.xml'), report.causes);
  }
  mkdirSync(outputDir, { recursive: true });
  return { report, rulesFiles, blobs, lines: [`Merged ${rulesFiles.length} shard report(s) into ${outputDir}`, ...lines] };
}
