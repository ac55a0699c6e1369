/**
 * packages/contract/spec/conformance-hooks.yaml's `x-unlocks` against the suite (D201): for each hook (a capability,
 * the tag of its operations), the rules named in the titles of the conformance tests tagged
 * `@hook:<name>` are the union of the `x-unlocks` of its operations, no more and no less. A test that
 * needs a hook names what the hook buys; a rule listed there is judged by a test that needs it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { RULE_ID } from '../../contract/rules/ledger.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const TESTS = 'packages/conformance/suite/tests/';

interface Operation { operationId: string; tags: string[]; 'x-unlocks': string[] }
interface HooksDocument { paths: Record<string, Record<string, Operation | unknown>> }

/** Per hook, the union of its operations' `x-unlocks`. */
export function unlocksByHook(doc: HooksDocument): Map<string, Set<string>> {
  const byHook = new Map<string, Set<string>>();
  for (const item of Object.values(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const { tags, 'x-unlocks': unlocks } = operation as Operation;
      const set = byHook.get(tags[0]!) ?? new Set<string>();
      for (const id of unlocks) set.add(id);
      byHook.set(tags[0]!, set);
    }
  }
  return byHook;
}

export interface TaggedTest { file: string; title: string; tags: string[] }

function text(node: ts.Node | undefined): string | undefined {
  if (node === undefined) return undefined;
  if (ts.isStringLiteralLike(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((s) => `\${…}${s.literal.text}`).join('');
  return undefined;
}

/** The tests of one spec file: `test(title, { tag }, body)` calls, with their titles and tags. */
export function testsOf(file: string, source: string): TaggedTest[] {
  const found: TaggedTest[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'test') {
      const title = text(node.arguments[0]);
      const details = node.arguments[1];
      let tags: string[] = [];
      if (details && ts.isObjectLiteralExpression(details)) {
        for (const property of details.properties) {
          if (!ts.isPropertyAssignment(property) || property.name.getText() !== 'tag') continue;
          const value = property.initializer;
          tags = ts.isArrayLiteralExpression(value) ? value.elements.map((e) => text(e) ?? '?') : [text(value) ?? '?'];
        }
      }
      if (title !== undefined) found.push({ file, title, tags });
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true));
  return found;
}

/** Per hook, the rule ids named in the titles of the tests tagged `@hook:<name>`. */
export function judgedByHook(tests: readonly TaggedTest[]): Map<string, Set<string>> {
  const byHook = new Map<string, Set<string>>();
  for (const t of tests) {
    for (const tag of t.tags) {
      if (!tag.startsWith('@hook:')) continue;
      const set = byHook.get(tag.slice('@hook:'.length)) ?? new Set<string>();
      for (const match of t.title.matchAll(RULE_ID)) set.add(match[0]);
      byHook.set(tag.slice('@hook:'.length), set);
    }
  }
  return byHook;
}

/** Where the document and the suite disagree, hook by hook. */
export function unlocksProblems(unlocks: Map<string, Set<string>>, judged: Map<string, Set<string>>): string[] {
  const problems: string[] = [];
  for (const hook of [...new Set([...unlocks.keys(), ...judged.keys()])].sort()) {
    const listed = unlocks.get(hook);
    const named = judged.get(hook) ?? new Set<string>();
    if (listed === undefined) {
      problems.push(`@hook:${hook} tags tests, and packages/contract/spec/conformance-hooks.yaml has no such hook`);
      continue;
    }
    const missing = [...named].filter((id) => !listed.has(id)).sort();
    const unjudged = [...listed].filter((id) => !named.has(id)).sort();
    if (missing.length > 0) problems.push(`${hook}: tests tagged @hook:${hook} judge ${missing.join(', ')}, missing from the x-unlocks of its operations`);
    if (unjudged.length > 0) problems.push(`${hook}: x-unlocks lists ${unjudged.join(', ')}, named by no test tagged @hook:${hook}`);
  }
  return problems;
}

const doc = parse(readFileSync(`${root}packages/contract/spec/conformance-hooks.yaml`, 'utf8')) as HooksDocument;
const specFiles = readdirSync(`${root}${TESTS}`).filter((f) => f.endsWith('.spec.ts')).sort();
const tests = specFiles.flatMap((f) => testsOf(`${TESTS}${f}`, readFileSync(`${root}${TESTS}${f}`, 'utf8')));

describe('x-unlocks of packages/contract/spec/conformance-hooks.yaml', () => {
  it('reads the suite: every hook-tagged test of packages/conformance/suite/tests, with its tags', () => {
    const tagged = tests.filter((t) => t.tags.some((tag) => tag.startsWith('@hook:')));
    // Every `@hook:` in a test file sits in the tags of a test this scanner read (none missed).
    const written = specFiles.reduce((n, f) => n + (readFileSync(`${root}${TESTS}${f}`, 'utf8').match(/'@hook:[a-z-]+'/g)?.length ?? 0), 0);
    expect(tagged.reduce((n, t) => n + t.tags.filter((tag) => tag.startsWith('@hook:')).length, 0)).toBe(written);
    expect(tagged.length).toBeGreaterThan(100);
  });

  it('lists, per hook, exactly the rules its tagged tests name', () => {
    expect(unlocksProblems(unlocksByHook(doc), judgedByHook(tests))).toEqual([]);
  });

  it('finds a rule missing from a hook, one no tagged test names, and an unknown hook', () => {
    const unlocks = new Map([['clock', new Set(['RUN-012', 'RUN-013'])]]);
    const judged = judgedByHook([
      { file: 'a', title: 'RUN-012 RUN-014 a run settles', tags: ['@hook:clock'] },
      { file: 'a', title: 'RUN-013 untagged', tags: [] },
      { file: 'a', title: 'PAGE-006 sparse pages', tags: ['@hook:pages'] },
    ]);
    expect(unlocksProblems(unlocks, judged)).toEqual([
      'clock: tests tagged @hook:clock judge RUN-014, missing from the x-unlocks of its operations',
      'clock: x-unlocks lists RUN-013, named by no test tagged @hook:clock',
      '@hook:pages tags tests, and packages/contract/spec/conformance-hooks.yaml has no such hook',
    ]);
  });
});
