#!/usr/bin/env node
/**
 * cgs-conformance-merge: the reports of a sharded gate (`cgs-conformance --shard i/n --report-dir
 * DIR` on several machines) merged into one (mergeReports of packages/conformance/suite/reporters/merge.ts, as
 * `npm run conformance:merge` does): OUT/rules.json and rules.md, and from the blob reports
 * OUT/html/ and OUT/junit.xml; then the verdict of the whole run (packages/conformance/bin/lib/conformance.ts summarize):
 * exit 0 conforms, 1 does not (with --require pinned, or CONFORMANCE_REQUIRE=pinned: also when a
 * pinned rule went unjudged in every shard), 2 on a usage or merge error, or nothing judged.
 *
 *   cgs-conformance-merge shard-1/ shard-2/ shard-3/ [--out conformance-report] [--rules-only] [--require pinned]
 */
import { resolve } from 'node:path';
import { EXIT, parseMergeArgs } from './lib/conformance.ts';
import { summarize, type RulesJson } from './lib/verdict.ts';
import { requirePackages, SUITE_PACKAGES } from '../../mock/src/help-requires.ts';

const USAGE = `usage: cgs-conformance-merge <shard report dirs...> [--out DIR] [--rules-only] [--require pinned]

Merges the --report-dir of each shard of cgs-conformance --shard I/N into one report and judges it.

  --out DIR          where the merged rules.json, rules.md, html/ and junit.xml go (default ./conformance-report)
  --rules-only       merge only the rules report, not the HTML and JUnit (default: all of them)
  --require pinned   also fail when a pinned rule went unjudged in every shard (default: off; env CONFORMANCE_REQUIRE)
  --help             print this help and exit`;
let args: ReturnType<typeof parseMergeArgs>;
try {
  args = parseMergeArgs(process.argv.slice(2));
} catch (error) {
  console.error(`cgs-conformance-merge: ${(error as Error).message}\n${USAGE}`);
  process.exit(EXIT.couldNotJudge);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
// Playwright merges the HTML and JUnit reports: an optional peer dependency, checked before it loads.
requirePackages('cgs-conformance-merge', SUITE_PACKAGES);
const { mergeReports } = await import('../suite/reporters/merge.ts');
try {
  const outputDir = resolve(args.out ?? 'conformance-report');
  const result = mergeReports({ inputs: args.inputs.map((dir) => resolve(dir)), outputDir, rulesOnly: args.rulesOnly });
  console.log(result.lines.join('\n'));
  const requirePinned = args.requirePinned || (process.env['CONFORMANCE_REQUIRE'] ?? '').split(',').includes('pinned');
  const verdict = summarize(result.report as unknown as RulesJson, 0, outputDir, { requirements: { pinned: requirePinned, hooks: [], keyProfiles: [] }, sharded: false });
  console.log(verdict.lines.join('\n'));
  process.exit(verdict.exit);
} catch (error) {
  console.error(`cgs-conformance-merge: ${(error as Error).message}`);
  process.exit(EXIT.couldNotJudge);
}
