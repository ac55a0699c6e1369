/**
 * `npm run build` (run by `prepack`, so `npm pack` always ships a fresh build): the package's
 * JavaScript in dist/, for the commands of bin/ to start without compiling TypeScript at run time
 * (a CI gate waits for cgs-mock on every job) and for Playwright, which does not transform files
 * under node_modules (it would not load the suite's .ts tests from an installed package).
 * How it works and what it decides: docs/internals.md, "scripts/build.ts".
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What the package runs: every module under these folders, tests excluded. */
const SOURCE_DIRS = ['bin', 'platform', 'mock', 'proxy', 'conformance', 'spec'];
/** Single modules from elsewhere. */
const SOURCE_FILES = ['scripts/webhooks-listen.ts'];
/**
 * Declarations shipped: the modules that only declare types (`<package>/types`), and the public
 * surface of `<package>/msw` (mock/adapters/msw/msw.ts and what its exported types name; the types of
 * the mock's internals behind `services` are not shipped, D61).
 */
const DECLARATIONS = ['spec/types.ts', 'spec/generated/openapi.ts', 'spec/generated/rules.ts', 'spec/generated/mock-control.ts', 'spec/api-versions.ts', 'mock/adapters/msw/msw.ts', 'mock/adapters/msw/control.ts', 'mock/services/services.ts', 'mock/core/clock.ts'];

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  // ES modules (the package is "type": "module"); transpileModule does not read package.json.
  module: ts.ModuleKind.ES2022,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  rewriteRelativeImportExtensions: true,
  sourceMap: false,
};

/** Every file under `dir` (relative paths), node_modules left out. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(join(ROOT, dir));
  } catch {
    return out;
  }
  for (const name of entries) {
    const path = join(dir, name);
    if (name === 'node_modules') continue;
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

const isModule = (path: string): boolean => path.endsWith('.ts') && !path.endsWith('.d.ts');
/**
 * What the package does not ship: unit tests, the mock's test support (mock/testkit/), and the
 * Playwright tests and harnesses of the mock's own pages (mock/adapters/console/, mock/adapters/web/browser/). The
 * conformance suite (conformance/, run by cgs-conformance) is shipped whole.
 */
const isTest = (path: string): boolean =>
  path.endsWith('.test.ts') || path.startsWith('mock/testkit/') || (path.startsWith('mock/') && (path.endsWith('.spec.ts') || path.endsWith('playwright.config.ts') || path.startsWith('mock/adapters/web/browser/') || path === 'mock/adapters/console/harness.ts'));

/** The test frameworks (and property-testing library) no shipped module may import. */
const TEST_FRAMEWORKS = ['vitest', 'fast-check', '@playwright/test'];
/** Where @playwright/test is the product: the conformance suite that cgs-conformance runs. */
const SUITE_DIR = 'conformance/';

/**
 * The modules under `outDir` that import a test framework (vitest, fast-check anywhere;
 * @playwright/test outside the conformance suite), as `path: specifier`. The build fails on any.
 */
export function testFrameworkImports(outDir: string): string[] {
  const found: string[] = [];
  const specifier = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(outDir, dir))) {
      const path = dir === '' ? name : `${dir}/${name}`;
      if (statSync(join(outDir, path)).isDirectory()) {
        walk(path);
        continue;
      }
      if (!/\.(js|mjs|cjs)$/.test(name)) continue;
      for (const [, spec] of readFileSync(join(outDir, path), 'utf8').matchAll(specifier)) {
        const framework = TEST_FRAMEWORKS.find((f) => spec === f || spec!.startsWith(`${f}/`));
        if (framework === undefined) continue;
        if (framework === '@playwright/test' && path.startsWith(SUITE_DIR)) continue;
        found.push(`${path}: ${spec}`);
      }
    }
  };
  walk('');
  return found;
}

/** The .ts specifiers of a declaration, rewritten to .js (declaration emit keeps them as written). */
function rewriteSpecifiers(text: string): string {
  return text.replace(/(from\s+['"]\.{1,2}\/[^'"]+)\.ts(['"])/g, '$1.js$2');
}

/**
 * The declarations of the public entries (DECLARATIONS) and of every module they reach: one
 * program, type-checked as a consumer sees it (no Node types, the DOM's lib: the in-process path
 * must not need Node), so that a consumer compiling with `skipLibCheck: false` finds a declaration
 * behind every import of ours (bin/package.test.ts compiles one).
 */
function declarations(outDir: string, write: (path: string, text: string) => void): void {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
    strict: true,
    declaration: true,
    emitDeclarationOnly: true,
    allowImportingTsExtensions: true,
    rewriteRelativeImportExtensions: true,
    resolveJsonModule: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    rootDir: ROOT,
    outDir,
  };
  const program = ts.createProgram(DECLARATIONS.map((source) => join(ROOT, source)), options);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const first = diagnostics[0];
  if (first) throw new Error(`declarations: ${first.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(first.messageText, '\n')} (${diagnostics.length} in all)`);
  const written = new Set<string>();
  const emitted = program.emit(undefined, (path, text) => {
    written.add(path);
    write(path, rewriteSpecifiers(text));
  });
  if (emitted.diagnostics.length > 0) throw new Error(`declarations: ${emitted.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; ')}`);
  const missing = DECLARATIONS.filter((source) => !written.has(join(outDir, source.replace(/\.ts$/, '.d.ts'))));
  if (missing.length > 0) throw new Error(`declarations: none written for ${missing.join(', ')}`);
}

export function build(outDir: string): { modules: number; ms: number } {
  const started = performance.now();
  rmSync(outDir, { recursive: true, force: true });
  const write = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  const files = SOURCE_DIRS.flatMap(filesUnder);
  const sources = [...files.filter((f) => isModule(f) && !isTest(f)), ...SOURCE_FILES];
  for (const source of sources) {
    const text = readFileSync(join(ROOT, source), 'utf8');
    const { outputText, diagnostics } = ts.transpileModule(text, { compilerOptions: COMPILER_OPTIONS, fileName: source, reportDiagnostics: true });
    if (diagnostics?.length) throw new Error(`${source}: ${ts.flattenDiagnosticMessageText(diagnostics[0]!.messageText, '\n')}`);
    write(join(outDir, source.replace(/\.ts$/, '.js')), outputText);
  }
  declarations(outDir, write);
  // Files the modules read beside themselves (mock/media/clips/*.webm, ...): every file of the
  // source folders that is not TypeScript.
  for (const asset of files.filter((f) => !f.endsWith('.ts'))) {
    mkdirSync(dirname(join(outDir, asset)), { recursive: true });
    copyFileSync(join(ROOT, asset), join(outDir, asset));
  }
  // The document as plain JSON, for tools that do not read YAML (the generated copy wraps it with its hash).
  const generated = JSON.parse(readFileSync(join(ROOT, 'spec/generated/openapi.json'), 'utf8')) as { document: unknown };
  write(join(outDir, 'openapi.json'), `${JSON.stringify(generated.document, null, 2)}\n`);
  const leaked = testFrameworkImports(outDir);
  if (leaked.length > 0) throw new Error(`build: ${leaked.length} shipped module(s) import a test framework (move test support to mock/testkit/ or a *.test.ts):\n  ${leaked.join('\n  ')}`);
  return { modules: sources.length, ms: Math.round(performance.now() - started) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { out: { type: 'string', default: 'dist' } }, strict: true });
  const outDir = join(process.cwd(), values.out);
  const { modules, ms } = build(outDir);
  console.log(`build: ${modules} modules, the documents and the type declarations in ${relative(process.cwd(), outDir) || '.'}/ (${ms} ms)`);
}
