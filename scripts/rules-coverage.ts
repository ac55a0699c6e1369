/**
 * `npm run rules:coverage [-- --report-only] [-- --json]`: which rules of packages/contract/spec/rules.yaml the
 * conformance suite names, read statically from packages/conformance/suite/tests/**\/*.spec.ts (no test runs).
 * How it works and what it decides: docs/internals.md, "scripts/rules-coverage.ts".
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { loadLedger, namingProblems, ruleIdsIn, rulesById } from '../packages/contract/rules/ledger.ts';
import { RECEIVER_CHECKS } from '../packages/exams/src/webhooks.ts';
import { CLIENT_CHECKS } from '../packages/mock-core/src/exam/judge.ts';
import type { Rule } from '../packages/contract/spec/types.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TESTS = join(ROOT, 'packages', 'conformance', 'suite', 'tests');

export interface DeclaredTest {
  file: string;
  line: number;
  title: string;
  /** Titles of the enclosing describe blocks, outermost first. */
  describes: string[];
  tags: string[];
  /** Declared with test.skip / test.fixme (statically, not by a runtime condition). */
  pending: boolean;
  ruleIds: string[];
}

function specFiles(dir: string): string[] {
  let entries: string[] = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    if (name.endsWith('.spec.ts')) return [path];
    if (!name.includes('.')) return specFiles(path);
    return [];
  });
}

function stringOf(node: ts.Node | undefined): string | undefined {
  if (node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))) return node.text;
  return undefined;
}

/** `test`, `test.skip`, `test.describe.serial`... as ['test', 'skip'] / ['test', 'describe', 'serial']. */
function calleePath(expression: ts.Expression): string[] | undefined {
  if (ts.isIdentifier(expression)) return [expression.text];
  if (ts.isPropertyAccessExpression(expression)) {
    const left = calleePath(expression.expression);
    return left ? [...left, expression.name.text] : undefined;
  }
  return undefined;
}

function tagsOf(details: ts.Node | undefined): string[] {
  if (!details || !ts.isObjectLiteralExpression(details)) return [];
  for (const property of details.properties) {
    if (!ts.isPropertyAssignment(property) || property.name.getText() !== 'tag') continue;
    const value = property.initializer;
    const single = stringOf(value);
    if (single !== undefined) return [single];
    if (ts.isArrayLiteralExpression(value)) return value.elements.map(stringOf).filter((t): t is string => t !== undefined);
  }
  return [];
}

/** Every test declared in one spec file, with the rule ids its titles name. */
export function declaredTests(file: string, source: string): DeclaredTest[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: DeclaredTest[] = [];
  const visit = (node: ts.Node, describes: { title: string; tags: string[] }[]): void => {
    if (ts.isCallExpression(node)) {
      const path = calleePath(node.expression);
      const title = stringOf(node.arguments[0]);
      if (path && path[0] === 'test' && title !== undefined) {
        const details = node.arguments.length >= 3 ? node.arguments[1] : undefined;
        const tags = tagsOf(details);
        if (path[1] === 'describe') {
          const body = node.arguments[node.arguments.length - 1];
          if (body) visit(body, [...describes, { title, tags }]);
          return;
        }
        const modifier = path[1];
        if (modifier === undefined || ['only', 'skip', 'fixme', 'fail', 'slow'].includes(modifier)) {
          const titles = [...describes.map((d) => d.title), title];
          found.push({
            file: relative(ROOT, file),
            line: sourceFile.getLineAndCharacterOfPosition(node.getStart()).line + 1,
            title,
            describes: describes.map((d) => d.title),
            tags: [...new Set([...describes.flatMap((d) => d.tags), ...tags, ...titles.flatMap((t) => t.match(/@[\w-]+/g) ?? [])])],
            pending: modifier === 'skip' || modifier === 'fixme',
            ruleIds: ruleIdsIn(titles),
          });
          return;
        }
      }
    }
    ts.forEachChild(node, (child) => visit(child, describes));
  };
  visit(sourceFile, []);
  return found;
}

/** Rules named by a test that runs under `--grep-invert @assumed` (not pending, not tagged @assumed). */
export function coveredWithoutAssumed(tests: readonly DeclaredTest[]): Set<string> {
  return new Set(tests.filter((t) => !t.pending && !t.tags.includes('@assumed')).flatMap((t) => t.ruleIds));
}

/** A rule the conformance suite answers for: the service's (no `party`, or `server`). */
export const isServerRule = (rule: Rule): boolean => rule.party === undefined || rule.party === 'server';

/** The observable client and receiver rules no exam check judges (each must have one). */
export function unjudgedPartyRules(rules: readonly Rule[], checks: readonly { id: string; rules: readonly string[] }[]): Rule[] {
  const judged = new Set(checks.flatMap((c) => c.rules));
  return rules.filter((r) => !isServerRule(r) && r.observable && !judged.has(r.id));
}

/** Exam checks naming a rule that is not an observable client or receiver rule of the ledger. */
export function strayJudges(rules: readonly Rule[], checks: readonly { id: string; rules: readonly string[] }[]): string[] {
  const byId = new Map(rules.map((r) => [r.id, r]));
  return checks.flatMap((c) => c.rules.filter((id) => { const r = byId.get(id); return !r || isServerRule(r) || !r.observable; }).map((id) => `exam check ${c.id} judges ${id}, which is not an observable client or receiver rule`));
}

function main(): void {
  const args = new Set(process.argv.slice(2));
  const ledger = loadLedger();
  const rules = rulesById(ledger);
  const tests = specFiles(TESTS).flatMap((file) => declaredTests(file, readFileSync(file, 'utf8')));

  const covering = new Map<string, DeclaredTest[]>();
  const pending = new Map<string, DeclaredTest[]>();
  for (const t of tests) for (const id of t.ruleIds) (t.pending ? pending : covering).set(id, [...((t.pending ? pending : covering).get(id) ?? []), t]);
  const pinnedCovering = coveredWithoutAssumed(tests);

  const naming = tests.flatMap((t) => namingProblems(t.ruleIds, t.tags, rules).map((p) => `${t.file}:${t.line} "${t.title}" ${p}`));
  const pinnedObservable = ledger.rules.filter((r) => r.status === 'pinned' && r.observable && isServerRule(r));
  const examChecks = [...CLIENT_CHECKS, ...RECEIVER_CHECKS];
  const unjudged = unjudgedPartyRules(ledger.rules, examChecks);
  naming.push(...strayJudges(ledger.rules, examChecks));
  const party = ledger.rules.filter((r) => !isServerRule(r));
  const uncoveredAny = pinnedObservable.filter((r) => !covering.has(r.id));
  const uncovered = pinnedObservable.filter((r) => !pinnedCovering.has(r.id));
  const onlyAssumed = pinnedObservable.filter((r) => covering.has(r.id) && !pinnedCovering.has(r.id));
  const assumed = ledger.rules.filter((r) => r.status === 'assumed' && isServerRule(r));
  const prefixes = [...new Set(ledger.rules.filter(isServerRule).map((r) => r.id.split('-')[0]!))];
  const byPrefix = prefixes.map((prefix) => {
    const mine = pinnedObservable.filter((r) => r.id.startsWith(`${prefix}-`));
    return { prefix, pinnedObservable: mine.length, covered: mine.filter((r) => pinnedCovering.has(r.id)).length, coveredAny: mine.filter((r) => covering.has(r.id)).length };
  });

  if (args.has('--json')) {
    console.log(
      JSON.stringify(
        {
          tests: tests.length,
          rules: ledger.rules.length,
          pinnedObservable: pinnedObservable.length,
          coveredPinnedObservable: pinnedObservable.length - uncovered.length,
          coveredPinnedObservableAnyTest: pinnedObservable.length - uncoveredAny.length,
          uncovered: uncovered.map((r) => r.id),
          onlyAssumed: onlyAssumed.map((r) => r.id),
          pending: [...pending.keys()].filter((id) => !covering.has(id)),
          assumed: { total: assumed.length, covered: assumed.filter((r) => covering.has(r.id)).length },
          byPrefix,
          exam: { rules: party.length, observable: party.filter((r) => r.observable).length, unjudged: unjudged.map((r) => r.id) },
          namingProblems: naming,
        },
        null,
        2,
      ),
    );
  } else {
    const percent = (n: number) => (pinnedObservable.length ? Math.round((100 * n) / pinnedObservable.length) : 100);
    const pinnedOnly = pinnedObservable.length - uncovered.length;
    const any = pinnedObservable.length - uncoveredAny.length;
    console.log(`rules:coverage: ${tests.length} tests in packages/conformance/suite/tests name ${covering.size} distinct rules of ${ledger.rules.length}.`);
    console.log(`  pinned, observable, by a test without @assumed (gates): ${pinnedOnly} of ${pinnedObservable.length} covered (${percent(pinnedOnly)}%)`);
    console.log(`  pinned, observable, by any test (@assumed included): ${any} of ${pinnedObservable.length} covered (${percent(any)}%)`);
    console.log(`  assumed: ${assumed.filter((r) => covering.has(r.id)).length} of ${assumed.length} covered`);
    console.log(`  by area (pinned, observable): ${byPrefix.map((p) => `${p.prefix} ${p.covered}/${p.pinnedObservable}`).join(', ')}`);
    const pendingOnly = [...pending.keys()].filter((id) => !covering.has(id));
    if (pendingOnly.length) console.log(`  pending (only in test.skip/test.fixme): ${pendingOnly.join(' ')}`);
    if (onlyAssumed.length) console.log(`  pinned, observable rules named only by @assumed tests (${onlyAssumed.length}):\n    ${onlyAssumed.map((r) => r.id).join(' ')}`);
    console.log(`  client and receiver rules (judged by the exams, not the suite): ${party.filter((r) => r.observable).length - unjudged.length} of ${party.filter((r) => r.observable).length} observable ones judged by an exam check; ${party.filter((r) => !r.observable).length} not observable`);
    if (unjudged.length) console.log(`  observable client or receiver rules no exam check judges (${unjudged.length}):\n    ${unjudged.map((r) => r.id).join(' ')}`);
    if (uncovered.length) console.log(`  uncovered pinned, observable rules (${uncovered.length}, no test without @assumed):\n    ${uncovered.map((r) => r.id).join(' ')}`);
  }
  for (const problem of naming) console.error(`rules:coverage: ${problem}`);

  if (naming.length > 0) process.exitCode = 1;
  else if ((uncovered.length > 0 || unjudged.length > 0) && !args.has('--report-only')) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
