/**
 * The conformance hooks document (packages/contract/spec/conformance-hooks.yaml) against what it promises: its
 * version is its own, the last of its `x-version-history` (D200), each operation belongs to one declared hook, every hook
 * but `capabilities` is listed in the capability table of its description, and every rule id of
 * `x-unlocks` is a rule of packages/contract/spec/rules.yaml.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { hooksRoutes } from './generated/conformance-hooks.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const read = (path: string): string => readFileSync(`${root}${path}`, 'utf8');

interface HooksDocument {
  info: { version: string; description: string; 'x-version-history': { version: string; summary: string }[] };
  tags: { name: string }[];
  paths: Record<string, Record<string, { operationId: string; tags: string[]; 'x-unlocks': string[] }>>;
}

const hooks = parse(read('packages/contract/spec/conformance-hooks.yaml')) as HooksDocument;
const rules = new Set((parse(read('packages/contract/spec/rules.yaml')) as { rules: { id: string }[] }).rules.map((r) => r.id));

/** What a document says, checked: the problems found (empty when it keeps its promises). */
function hooksProblems(doc: HooksDocument, ruleIds: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const history = doc.info['x-version-history'].map((entry) => entry.version);
  if (!/^\d+\.\d+\.\d+$/.test(doc.info.version)) problems.push(`info.version ${doc.info.version} is not MAJOR.MINOR.PATCH`);
  if (history.at(-1) !== doc.info.version) problems.push(`info.version ${doc.info.version} is not the last entry of x-version-history (${history.join(', ')})`);
  const declared = new Set(doc.tags.map((t) => t.name));
  const used = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const where = `${method.toUpperCase()} ${path}`;
      const [hook] = operation.tags;
      if (hook === undefined || !declared.has(hook)) problems.push(`${where}: hook ${String(hook)} is not a declared tag`);
      else used.add(hook);
      for (const id of operation['x-unlocks']) if (!ruleIds.has(id)) problems.push(`${where}: x-unlocks ${id} is not a rule of packages/contract/spec/rules.yaml`);
    }
  }
  for (const name of declared) {
    if (!used.has(name)) problems.push(`hook ${name} has no operation`);
    if (name !== 'capabilities' && !doc.info.description.includes(`| \`${name}\` |`)) problems.push(`hook ${name} is missing from the capability table`);
  }
  if (doc.paths['/capabilities']?.get?.operationId !== 'getCapabilities') problems.push('GET /capabilities (the one required operation) is missing');
  return problems;
}

describe('packages/contract/spec/conformance-hooks.yaml', () => {
  it('keeps its promises: a version with its history entry, one declared hook per operation, known rule ids', () => {
    expect(hooksProblems(hooks, rules)).toEqual([]);
  });

  it('names the hooks the suite tags tests with (docs of the team: accounts, clock, faults, actors, webhooks, rate-limits)', () => {
    const hookNames = new Set(Object.values(hooksRoutes).map((r) => r.hook));
    for (const name of ['capabilities', 'accounts', 'clock', 'faults', 'actors', 'webhooks', 'rate-limits']) expect(hookNames).toContain(name);
  });

  it('finds each kind of broken promise', () => {
    const broken = structuredClone(hooks);
    broken.info.version = '9.9.9';
    const unversioned = structuredClone(hooks);
    unversioned.info.version = 'next';
    broken.paths['/accounts']!.post!['x-unlocks'] = ['NOPE-001'];
    broken.paths['/accounts/{accountId}/faults']!.patch!.tags = ['nothing'];
    broken.info.description = broken.info.description.replace('| `events` |', '| events |');
    delete broken.paths['/capabilities'];
    const problems = hooksProblems(broken, rules);
    expect(problems.some((p) => p.includes('info.version 9.9.9 is not the last entry of x-version-history'))).toBe(true);
    expect(hooksProblems(unversioned, rules).some((p) => p.includes('info.version next is not MAJOR.MINOR.PATCH'))).toBe(true);
    expect(problems.some((p) => p.includes('NOPE-001'))).toBe(true);
    expect(problems.some((p) => p.includes('hook nothing'))).toBe(true);
    expect(problems.some((p) => p.includes('hook events is missing'))).toBe(true);
    expect(problems.some((p) => p.includes('hook faults has no operation'))).toBe(true);
    expect(problems.some((p) => p.includes('GET /capabilities'))).toBe(true);
  });
});
