/**
 * Proves `cgs-conformance --area` on the mock (#32 item 7, D277): a run of the chosen areas,
 * pinned-only and `--require pinned` (not with a file filter, which leaves other rules out), must exit 0 with no failure and no naming problem, and no
 * test that ran may have called an operation outside the chosen areas, judged from the operations
 * each test called (rules.json `operations`, recorded by the response checker) and the plane of
 * each operation's tag in packages/contract/spec/openapi.yaml, not from the tests' @area tags.
 *
 *   npx tsx packages/conformance/proofs/prove-area.ts [--area read] [--out DIR] [test file filters...]
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { operations } from '../../contract/spec/contract.ts';
import { expandAreas } from '../../contract/rules/areas.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const { values, positionals } = parseArgs({ options: { area: { type: 'string', default: 'read' }, out: { type: 'string', default: 'conformance-report/area' } }, allowPositionals: true });
const area = values.area!;
const out = resolve(ROOT, values.out!);
const chosen = expandAreas(area);
const started = Date.now();
const run = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'packages/conformance/bin/cgs-conformance.ts'), '--area', area, '--pinned-only', ...(positionals.length === 0 ? ['--require', 'pinned'] : []), '--report-dir', out, ...positionals], { cwd: ROOT, stdio: 'inherit' });
const seconds = (Date.now() - started) / 1000;

interface Report {
  summary: { pinnedObservable: { total: number; passed: number; failed: number; notRun: number }; tests: { total: number; passed: number; failed: number; skipped: number } };
  namingProblems: string[];
  rules: { outsideArea?: string[] }[];
  tests: { title: string; file: string; line?: number; outcome: string; reason?: string; operations?: string[] }[];
}
const report = JSON.parse(readFileSync(join(out, 'rules.json'), 'utf8')) as Report;
const problems: string[] = [];
if (run.status !== 0) problems.push(`cgs-conformance exited ${run.status}, not 0`);
if (report.summary.tests.failed > 0) problems.push(`${report.summary.tests.failed} test(s) failed`);
for (const p of report.namingProblems) problems.push(`naming: ${p}`);
// The area of an operation read from the document itself: its path's resource, or the plane of its tag.
const PLANE: Record<string, string> = { 'read-plane': 'read', writes: 'read', 'generation-plane': 'generation' };
const inArea = (operationId: string): boolean => {
  const op = operations.get(operationId);
  if (!op) return false;
  const names = area.split(',').map((a) => a.trim());
  return names.includes(PLANE[op.tag] ?? '?') || chosen.includes(op.operationId === 'estimateRun' ? 'estimate' : op.path.split('/')[1]!);
};
for (const t of report.tests.filter((x) => x.outcome !== 'skipped')) {
  const outside = (t.operations ?? []).filter((op) => !inArea(op));
  if (outside.length > 0) problems.push(`${t.file}:${t.line} "${t.title.slice(0, 80)}" ran under --area ${area} and called ${outside.join(', ')}`);
}
const outsideTests = report.tests.filter((t) => (t.reason ?? '').startsWith(`outside --area ${area}:`)).length;
const outsideRules = report.rules.filter((r) => r.outsideArea !== undefined).length;
const { tests, pinnedObservable: p } = report.summary;
console.log(
  `\nprove-area --area ${area}: exit ${run.status}; tests ${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped (${outsideTests} outside the area) of ${tests.total}; pinned observable ${p.passed} judged, ${p.failed} failed, ${p.notRun} not run of ${p.total} (${outsideRules} rule(s) outside the area); ${seconds.toFixed(1)} s`,
);
if (problems.length > 0) {
  console.error(`prove-area: FAILED\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('prove-area: every test that ran called only operations of the chosen areas; 0 failures');
