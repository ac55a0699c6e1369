/**
 * Decision references (#17 item 9): every `x-assumption` of packages/contract/spec/openapi.yaml,
 * packages/contract/spec/mock-control.yaml, packages/contract/spec/conformance-hooks.yaml and packages/contract/spec/schemas/conformance-config.schema.json names at least one decision of docs/decisions.md, every id it names exists
 * there, every decision is cited by some `x-assumption` (it is marked where it lives), and every
 * `decision:` of packages/contract/spec/rules.yaml exists. Whether a citation says what the decision says is read by
 * people; this keeps the references from pointing nowhere.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

/** The decision ids of docs/decisions.md: the first cell of each table row (`| D12 | ...`). */
export function decisionIds(markdown: string): string[] {
  return [...markdown.matchAll(/^\|\s*(D\d+)\s*\|/gm)].map((m) => m[1]!);
}

/** Every `x-assumption` text in a parsed document, with its place. */
export function assumptions(node: unknown, at = '#'): { at: string; text: string }[] {
  if (Array.isArray(node)) return node.flatMap((child, i) => assumptions(child, `${at}/${i}`));
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => (key === 'x-assumption' ? [{ at, text: String(value) }] : assumptions(value, `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`)));
}

export const citedIn = (text: string): string[] => [...text.matchAll(/\bD(\d+)\b/g)].map((m) => `D${m[1]}`);

/** The problems of a set of documents against the decisions: empty when every reference holds. */
export function referenceProblems(decisions: readonly string[], marks: readonly { at: string; text: string }[], ruleDecisions: readonly { id: string; decision: string }[]): string[] {
  const known = new Set(decisions);
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const d of decisions) if (seen.has(d) || !(seen.add(d), true)) problems.push(`${d} is defined twice in docs/decisions.md`);
  const cited = new Set<string>();
  for (const { at, text } of marks) {
    const ids = citedIn(text);
    if (ids.length === 0) problems.push(`${at}: the x-assumption names no decision`);
    for (const id of ids) {
      if (!known.has(id)) problems.push(`${at}: cites ${id}, which docs/decisions.md does not define`);
      cited.add(id);
    }
  }
  for (const d of decisions) if (!cited.has(d)) problems.push(`${d} is cited by no x-assumption`);
  for (const { id, decision } of ruleDecisions) for (const d of citedIn(decision)) if (!known.has(d)) problems.push(`rule ${id}: decision ${d} does not exist`);
  return problems;
}

describe('decision references', () => {
  it('every x-assumption names existing decisions, every decision is cited, every rule\'s decision exists', () => {
    const marks = [
      ...assumptions(parse(read('packages/contract/spec/openapi.yaml'))).map((m) => ({ ...m, at: `packages/contract/spec/openapi.yaml ${m.at}` })),
      ...assumptions(parse(read('packages/contract/spec/mock-control.yaml'))).map((m) => ({ ...m, at: `packages/contract/spec/mock-control.yaml ${m.at}` })),
      ...assumptions(parse(read('packages/contract/spec/conformance-hooks.yaml'))).map((m) => ({ ...m, at: `packages/contract/spec/conformance-hooks.yaml ${m.at}` })),
      // The tools' own documents (the gate's config file: its decisions are marked there).
      ...['packages/contract/spec/schemas/conformance-config.schema.json'].flatMap((path) => assumptions(JSON.parse(read(path))).map((m) => ({ ...m, at: `${path} ${m.at}` }))),
    ];
    const rules = (parse(read('packages/contract/spec/rules.yaml')) as { rules: { id: string; decision?: string }[] }).rules.filter((r) => r.decision !== undefined) as { id: string; decision: string }[];
    expect(decisionIds(read('docs/decisions.md')).length).toBeGreaterThan(0);
    expect(referenceProblems(decisionIds(read('docs/decisions.md')), marks, rules)).toEqual([]);
  });

  it('reports a citation of a missing decision, an x-assumption citing none, an uncited decision and a rule naming a missing one', () => {
    const problems = referenceProblems(['D1', 'D2'], [{ at: '#/a', text: 'decided (D1, D9)' }, { at: '#/b', text: 'decided' }], [{ id: 'ERR-001', decision: 'D7' }]);
    expect(problems).toEqual(['#/a: cites D9, which docs/decisions.md does not define', '#/b: the x-assumption names no decision', 'D2 is cited by no x-assumption', 'rule ERR-001: decision D7 does not exist']);
  });
});
