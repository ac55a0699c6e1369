/**
 * Proof that sharding loses nothing (`npm run conformance:shards`): the suite's tests of a few files
 * run as N shards (`--shard i/N`), N separate Playwright processes at once, each against a mock of
 * its own (the local mode, one worker), each writing its own report dir with rules.json and a blob
 * report; `mergeReports` (packages/conformance/suite/reporters/merge.ts) merges them; the merged rules report must
 * equal the report of one run over the same tests: every rule with the same result from the same
 * tests with the same outcomes, and every test once, with the same outcome and the same rules named,
 * verified and violated. The merged HTML report must exist.
 *
 *   npx tsx packages/conformance/proofs/prove-shards.ts [--shards 3] [--baseline FILE] [--files a.spec.ts,b.spec.ts]
 *
 * The one run is the baseline's rules.json (default conformance-report/rules.json, which the
 * `npm run conformance` step of npm test has just written), restricted to those files; without
 * one, the files are run once more, unsharded. Exit 1 when the reports differ.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadLedger } from '../../contract/rules/ledger.ts';
import { mergeReports } from '../suite/reporters/merge.ts';
import { judgeRules, type RulesReport, type TestRecord } from '../suite/reporters/rules-reporter.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const OUT = join(ROOT, 'test-results', 'shards');
const PLAYWRIGHT = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');
/** Files whose tests run in a few seconds, with @control and checker-verified rules among them. */
const DEFAULT_FILES = ['products.spec.ts', 'presets.spec.ts', 'metadata.spec.ts'];

const { values } = parseArgs({ options: { shards: { type: 'string' }, baseline: { type: 'string' }, files: { type: 'string' } }, strict: true });
const shards = Number(values.shards ?? '3');
if (!Number.isInteger(shards) || shards < 2 || shards > 8) throw new Error('--shards is 2 to 8');
const files = (values.files?.split(',') ?? DEFAULT_FILES).map((f) => `packages/conformance/suite/tests/${f.replace(/^(packages\/conformance\/suite|conformance)\/tests\//, '')}`);

/** One Playwright run of `files` in the local mode (its own mock), reports in `reportDir`. */
function playwright(reportDir: string, extra: string[]): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env, CONFORMANCE_REPORT_DIR: reportDir, CONFORMANCE_CONSOLE_REPORTER: 'dot' };
  for (const name of ['CONFORMANCE_BASE_URL', 'CONFORMANCE_LOCAL_MOCK', 'CONFORMANCE_LOCAL_MOCK_URLS', 'CONFORMANCE_MOCK_PID', 'CONFORMANCE_KEYS', 'CONFORMANCE_KEYS_B', 'CONFORMANCE_BLOB']) delete env[name];
  const child = spawn(process.execPath, [PLAYWRIGHT, 'test', '-c', 'packages/conformance/suite/playwright.config.ts', '--workers', '1', ...extra, ...files], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      if (code !== 0) console.log(`--- ${reportDir} (exit ${code}):\n${output.slice(-4000)}`);
      resolve(code ?? 1);
    }),
  );
}

const key = (r: TestRecord): string => `${r.file} › ${r.title}`;
const sorted = (xs: readonly string[]): string[] => [...xs].sort();

/** What must be equal: per test its outcome and rules; per rule its result and evidence. */
function comparable(report: Pick<RulesReport, 'rules' | 'tests'>) {
  return {
    tests: Object.fromEntries(
      [...report.tests].sort((a, b) => key(a).localeCompare(key(b))).map((r) => [key(r), { outcome: r.outcome, named: r.named, checked: sorted(r.checked), violated: sorted(r.violated), skipReason: r.reason ?? null }]),
    ),
    rules: Object.fromEntries(report.rules.map((r) => [r.id, { result: r.result, tests: sorted(r.tests.map((t) => `${t.via} ${t.outcome} ${t.file} › ${t.title}`)) }])),
  };
}

function differences(a: unknown, b: unknown, path = ''): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) || Array.isArray(b)) return [`${path}: one run ${JSON.stringify(a)}, shards ${JSON.stringify(b)}`];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((k) => differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], path ? `${path}.${k}` : k));
}

const started = Date.now();
rmSync(OUT, { recursive: true, force: true });
const codes = await Promise.all(Array.from({ length: shards }, (_, i) => playwright(join(OUT, `shard-${i + 1}`), ['--shard', `${i + 1}/${shards}`])));
const shardSeconds = (Date.now() - started) / 1000;

const merged = mergeReports({ inputs: Array.from({ length: shards }, (_, i) => join(OUT, `shard-${i + 1}`)), outputDir: join(OUT, 'merged') });
console.log(merged.lines.join('\n'));

const baselineFile = values.baseline ?? join(ROOT, 'conformance-report', 'rules.json');
const inFiles = (r: TestRecord): boolean => files.includes(r.file);
let baseline: TestRecord[] | undefined;
if (existsSync(baselineFile)) {
  const report = JSON.parse(readFileSync(baselineFile, 'utf8')) as RulesReport;
  const selected = report.tests.filter(inFiles);
  // A baseline from another selection (a --grep run, another checkout) does not hold these tests.
  if (selected.length > 0 && report.ledgerVersion === merged.report.ledgerVersion) baseline = selected;
}
let source = `${baselineFile} (its tests of ${files.length} files)`;
if (!baseline) {
  source = 'one unsharded run of the same files';
  const code = await playwright(join(OUT, 'one'), []);
  if (code !== 0) console.log(`the unsharded run exited ${code}`);
  baseline = (JSON.parse(readFileSync(join(OUT, 'one', 'rules.json'), 'utf8')) as RulesReport).tests.filter(inFiles);
}
const one = judgeRules(baseline, loadLedger());

const problems: string[] = [];
const perShard = Array.from({ length: shards }, (_, i) => (JSON.parse(readFileSync(join(OUT, `shard-${i + 1}`, 'rules.json'), 'utf8')) as RulesReport).tests.map(key));
perShard.forEach((tests, i) => {
  if (tests.length === 0) problems.push(`shard ${i + 1}/${shards} ran no test`);
});
const all = perShard.flat();
if (new Set(all).size !== all.length) problems.push('a test ran in more than one shard');
if (merged.blobs.length !== shards) problems.push(`${merged.blobs.length} blob reports for ${shards} shards`);
problems.push(...differences(comparable(one), comparable(merged.report)));

console.log(
  `\n${shards} shards (${perShard.map((t) => t.length).join(' + ')} tests, exit codes ${codes.join(', ')}) ran in ${shardSeconds.toFixed(1)} s; ` +
    `merged rules report vs ${source}: ${problems.length === 0 ? 'the same' : `${problems.length} difference(s)`}`,
);
for (const problem of problems.slice(0, 40)) console.log(`  ${problem}`);
process.exit(problems.length === 0 && codes.every((c) => c === 0) ? 0 : 1);
