#!/usr/bin/env node
/**
 * cgs-conformance-merge: the reports of a sharded gate (`cgs-conformance --shard i/n --report-dir
 * DIR` on several machines) merged into one (mergeReports of conformance/reporters/merge.ts, as
 * `npm run conformance:merge` does): OUT/rules.json and rules.md, and from the blob reports
 * OUT/html/ and OUT/junit.xml. Exit 1 when a test or a rule failed in the merged report, 2 on a
 * usage or merge error.
 *
 *   cgs-conformance-merge shard-1/ shard-2/ shard-3/ [--out conformance-report] [--rules-only]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { mergeReports } from '../conformance/reporters/merge.ts';

const USAGE = 'usage: cgs-conformance-merge <shard report dirs...> [--out DIR (default ./conformance-report)] [--rules-only]';
let parsed: { values: { out?: string; 'rules-only'?: boolean }; positionals: string[] };
try {
  parsed = parseArgs({ options: { out: { type: 'string' }, 'rules-only': { type: 'boolean' } }, allowPositionals: true, strict: true });
  if (parsed.positionals.length === 0) throw new Error('name at least one shard report directory');
} catch (error) {
  console.error(`cgs-conformance-merge: ${(error as Error).message}\n${USAGE}`);
  process.exit(2);
}
try {
  const result = mergeReports({ inputs: parsed.positionals.map((dir) => resolve(dir)), outputDir: resolve(parsed.values.out ?? 'conformance-report'), rulesOnly: parsed.values['rules-only'] === true });
  console.log(result.lines.join('\n'));
  const { tests } = result.report.summary;
  console.log(`tests: ${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped (of ${tests.total})`);
  process.exit(tests.failed > 0 || result.report.summary.all.failed > 0 ? 1 : 0);
} catch (error) {
  console.error(`cgs-conformance-merge: ${(error as Error).message}`);
  process.exit(2);
}
