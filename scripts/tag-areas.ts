/**
 * Tags every conformance test with the areas it touches (`@area:<resource>`, packages/contract/rules/areas.ts),
 * derived from the operations it called in a run, not by hand:
 *
 *   npx playwright test -c packages/conformance/suite/playwright.config.ts --max-failures=0   # against the mock: every test runs
 *   npx tsx scripts/tag-areas.ts [conformance-report/rules.json] [--check]
 *
 * It reads each test's `areas` from rules.json (the rules reporter records the operations a test
 * called and the hooks it used) and adds the missing `@area:` tags to the test's `tag` details in
 * its spec file (a test defined in a loop gets the union of its instances'). Tags are only added:
 * a case may touch an area only where the account has the data, and each run reports a test that
 * touched an area it is not tagged with (rules-reporter.ts areaProblems). `--check` writes nothing
 * and exits 1 when a tag is missing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { RESOURCES, taggedAreas } from '../packages/contract/rules/areas.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

interface Tagging {
  file: string;
  line: number;
  areas: string[];
}

/** The `@area:` tags each test call (file, line) needs, from a run's tests. */
export function areasBySite(tests: readonly { file: string; line?: number; areas?: string[] }[]): Tagging[] {
  const sites = new Map<string, Tagging>();
  for (const t of tests) {
    if (t.line === undefined || !t.areas?.length) continue;
    const key = `${t.file}:${t.line}`;
    const site = sites.get(key) ?? { file: t.file, line: t.line, areas: [] };
    site.areas = RESOURCES.filter((r) => site.areas.includes(r) || t.areas!.includes(r));
    sites.set(key, site);
  }
  return [...sites.values()];
}

/** The source with `areas` added to the tags of the `test(...)` call at `line` (1-based); unchanged when it has them. */
export function tagTestAt(source: string, line: number, areas: readonly string[]): { source: string; added: string[] } {
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true);
  let call: ts.CallExpression | undefined;
  const visit = (node: ts.Node): void => {
    if (call) return;
    if (ts.isCallExpression(node) && /^test(\.(only|fixme|fail|slow))?$/.test(node.expression.getText(file)) && file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1 === line) {
      call = node;
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (!call) throw new Error(`no test(...) call at line ${line}`);
  const [, details] = call.arguments;
  if (!details) throw new Error(`the test at line ${line} has no body`);
  const existing: string[] = [];
  let edit: { at: number; end: number; text: string };
  const tagsOf = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');
  if (call.arguments.length === 2) {
    const added = areas.map((a) => `@area:${a}`);
    edit = { at: details.getStart(file), end: details.getStart(file), text: `{ tag: [${tagsOf(added)}] }, ` };
    return { source: source.slice(0, edit.at) + edit.text + source.slice(edit.end), added };
  }
  if (!ts.isObjectLiteralExpression(details)) throw new Error(`the test at line ${line} has details that are not an object literal`);
  const tag = details.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText(file) === 'tag');
  if (tag && ts.isArrayLiteralExpression(tag.initializer)) existing.push(...tag.initializer.elements.filter(ts.isStringLiteral).map((e) => e.text));
  else if (tag && ts.isStringLiteral(tag.initializer)) existing.push(tag.initializer.text);
  else if (tag) throw new Error(`the test at line ${line} has a tag that is not a string or an array of strings`);
  const missing = areas.filter((a) => !taggedAreas(existing).includes(a)).map((a) => `@area:${a}`);
  if (missing.length === 0) return { source, added: [] };
  if (!tag) {
    const at = details.getStart(file) + 1;
    edit = { at, end: at, text: ` tag: [${tagsOf(missing)}],${details.properties.length === 0 ? ' ' : ''}` };
  } else {
    edit = { at: tag.initializer.getStart(file), end: tag.initializer.getEnd(), text: `[${tagsOf([...existing, ...missing])}]` };
  }
  return { source: source.slice(0, edit.at) + edit.text + source.slice(edit.end), added: missing };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  const report = args.find((a) => !a.startsWith('--')) ?? join(ROOT, 'conformance-report/rules.json');
  const { tests } = JSON.parse(readFileSync(report, 'utf8')) as { tests: { file: string; line?: number; areas?: string[] }[] };
  const byFile = new Map<string, Tagging[]>();
  for (const site of areasBySite(tests)) byFile.set(site.file, [...(byFile.get(site.file) ?? []), site]);
  let missing = 0;
  for (const [file, sites] of byFile) {
    const path = join(ROOT, file);
    let source = readFileSync(path, 'utf8');
    // From the last line up: an edit never moves a line still to be edited.
    for (const site of sites.sort((a, b) => b.line - a.line)) {
      const result = tagTestAt(source, site.line, site.areas);
      if (result.added.length > 0) console.log(`${file}:${site.line} ${check ? 'lacks' : '+'} ${result.added.join(' ')}`);
      missing += result.added.length;
      source = result.source;
    }
    if (!check) writeFileSync(path, source);
  }
  console.log(`${missing} @area tag(s) ${check ? 'missing' : 'added'}`);
  if (check && missing > 0) process.exit(1);
}
