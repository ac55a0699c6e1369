/**
 * `npm run conformance:merge -- <shard report dirs...> [--out DIR] [--rules-only]`: the reports of
 * a sharded run (`npm run conformance -- --shard i/n` on several machines, each report dir holding
 * its rules.json and blob/report-<i>-of-<n>.zip) merged into one: DIR/rules.json and rules.md, and,
 * from the blob reports, DIR/html/ and DIR/junit.xml (default DIR: conformance-report/merged).
 * Exit 1 when a rule failed in the merged report, 2 on a usage or merge error.
 * The same as a function: mergeReports of conformance/reporters/merge.ts.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { mergeReports } from '../conformance/reporters/merge.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({ options: { out: { type: 'string' }, 'rules-only': { type: 'boolean' } }, allowPositionals: true, strict: true });
}
try {
  parsed = parse();
  if (parsed.positionals.length === 0) throw new Error('name at least one shard report directory');
} catch (error) {
  console.error(`conformance:merge: ${(error as Error).message}\nusage: npm run conformance:merge -- <shard report dirs...> [--out DIR] [--rules-only]`);
  process.exit(2);
}

try {
  const result = mergeReports({ inputs: parsed.positionals, outputDir: parsed.values.out ?? `${ROOT}conformance-report/merged`, rulesOnly: parsed.values['rules-only'] === true });
  console.log(result.lines.join('\n'));
  const { tests } = result.report.summary;
  console.log(`tests: ${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped (of ${tests.total})`);
  process.exit(tests.failed > 0 || result.report.summary.all.failed > 0 ? 1 : 0);
} catch (error) {
  console.error(`conformance:merge: ${(error as Error).message}`);
  process.exit(2);
}
