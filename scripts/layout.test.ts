/**
 * The shape of the code (docs/layout.md, D65), held against its imports: no module imports itself
 * back through others (type-only imports count: they tie the files as much for a reader), the
 * bottom layers reach no higher, and nothing that ships imports the test support. Tests, generated
 * code and fixtures are left out of the graph.
 */
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../packages/contract/spec/versions.ts';
import { packageOf } from './build.ts';

const SOURCE = /^(packages\/[^/]+\/(?!dist\/|docs\/|examples\/)|scripts\/).*\.ts$/;
const LEFT_OUT = /\.(test|spec)\.ts$|\/generated\/|\/fixtures\/|\/tests\//;

/**
 * Each module's relative imports (static, dynamic and type-only; `dynamic: false` leaves out the
 * `import()`s, which load when the code runs, not when the module loads), resolved to repository paths.
 */
export function importGraph(files: readonly string[], read: (path: string) => string, { dynamic = true } = {}): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  const specifier = dynamic ? /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm : /(?:\bfrom\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (const file of files) {
    const targets = new Set<string>();
    for (const [, spec] of read(file).matchAll(specifier)) {
      const target = normalize(join(dirname(file), spec!));
      if (known.has(target)) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Every circle of the graph, each as the files of one strongly connected component (Tarjan). */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (node: string): void => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) out.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return out;
}

/** The modules `from` loads, itself included, following the graph. */
export function reachable(graph: Map<string, string[]>, from: string): Set<string> {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    stack.push(...(graph.get(file) ?? []));
  }
  return seen;
}

const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => SOURCE.test(f) && !LEFT_OUT.test(f));
const readSource = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const graph = importGraph(files, readSource);
const reaches = (from: RegExp, to: RegExp): string[] =>
  [...graph].flatMap(([file, targets]) => (from.test(file) ? targets.filter((t) => to.test(t)).map((t) => `${file} -> ${t}`) : []));

describe('the shape of the code', () => {
  it('finds a circle where there is one (the checker itself)', () => {
    const g = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']], ['d.ts', ['a.ts']]]);
    expect(circles(g)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    const read = (p: string) => ({ 'x/a.ts': "import type { B } from './b.ts';", 'x/b.ts': "export const v = await import('../x/a.ts');" })[p] ?? '';
    expect(circles(importGraph(['x/a.ts', 'x/b.ts'], read))).toEqual([['x/a.ts', 'x/b.ts']]);
  });

  it('follows only the imports that load with a module when asked to (the checker itself)', () => {
    const read = (p: string) => ({ 'x/main.ts': "import { a } from './a.ts';\nconst { b } = await import('./b.ts');", 'x/a.ts': '', 'x/b.ts': "import { c } from './c.ts';", 'x/c.ts': '' })[p] ?? '';
    const all = ['x/main.ts', 'x/a.ts', 'x/b.ts', 'x/c.ts'];
    expect([...reachable(importGraph(all, read, { dynamic: false }), 'x/main.ts')].sort()).toEqual(['x/a.ts', 'x/main.ts']);
    expect([...reachable(importGraph(all, read), 'x/main.ts')].sort()).toEqual(all.sort());
  });

  it("the node entry point passes the document version in before anything reads the document: nothing main.ts loads with it reads packages/contract/spec/contract.ts (D210)", () => {
    const loadedWithMain = reachable(importGraph(files, readSource, { dynamic: false }), 'packages/mock/src/node/main.ts');
    expect(loadedWithMain).toContain('packages/contract/spec/api-versions.ts');
    expect([...loadedWithMain].filter((file) => file === 'packages/contract/spec/contract.ts' || (graph.get(file) ?? []).includes('packages/contract/spec/contract.ts'))).toEqual([]);
  });

  it('has no import circles', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(circles(graph)).toEqual([]);
  });

  it('the bottom layers reach no higher: packages/contract/platform/ imports nothing of packages/contract/spec/; packages/mock-core/src/core/ nothing of the rest of the mock; the domain nothing of the pipeline, of the wiring or of a way in', () => {
    expect([
      ...reaches(/^packages\/contract\/platform\//, /^packages\/contract\/spec\//),
      ...reaches(/^packages\/mock-core\/src\/core\//, /^packages\/(?!contract\/|mock-core\/src\/core\/)/),
      ...reaches(/^packages\/mock-core\/src\/domain\//, /^packages\/(mock-core\/src\/(pipeline|services|control)\/|msw\/|mock\/)/),
    ]).toEqual([]);
  });

  it('the core runs anywhere: nothing of packages/mock-core/ but its test support imports a way in (packages/msw/, packages/mock/)', () => {
    expect(reaches(/^packages\/mock-core\/src\/(?!testkit\/)/, /^packages\/(msw|mock)\//)).toEqual([]);
  });

  it('nothing that ships imports the test support (packages/mock-core/src/testkit/)', () => {
    expect(reaches(/^packages\/[^/]+\/(?!proofs\/)(?!.*testkit\/)/, /^packages\/mock-core\/src\/testkit\//)).toEqual([]);
  });

  it("the packages' direction is the floors' (D279): each package imports only itself and the packages below it", () => {
    // packages/<dir>/ and what it may import (scripts/build.ts: a package's sources are its folder but proofs/).
    const below: Record<string, string[]> = {
      contract: ['contract'],
      'mock-core': ['contract', 'mock-core'],
      msw: ['contract', 'mock-core', 'msw'],
      mock: ['contract', 'mock-core', 'mock'],
      conformance: ['contract', 'mock-core', 'mock', 'conformance'],
      exams: ['contract', 'mock-core', 'mock', 'exams'],
    };
    const shipped = [...graph].filter(([file]) => packageOf(file) !== undefined && !/(^|\/)(testkit|browser)\/|playwright\.config\.ts$|harness\.ts$/.test(file));
    expect(shipped.length).toBeGreaterThan(100);
    const upward = shipped.flatMap(([file, targets]) => targets.filter((t) => !below[packageOf(file)!]!.includes(packageOf(t) ?? '?')).map((t) => `${file} (${packageOf(file)}) -> ${t} (${packageOf(t) ?? 'no package'})`));
    expect(upward).toEqual([]);
  });
});
