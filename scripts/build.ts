/**
 * `npm run build` (run by each package's `prepack`, so `npm pack -w <package>` always ships a fresh
 * build): the JavaScript of every package of packages/ in its dist/ (D279, docs/packages.md), for the commands of bin/ to start without compiling TypeScript at run time
 * (a CI gate waits for cgs-mock on every job) and for Playwright, which does not transform files
 * under node_modules (it would not load the suite's .ts tests from an installed package).
 * How it works and what it decides: docs/internals.md, "scripts/build.ts".
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The npm scope of the workspaces' packages. */
export const SCOPE = '@creative-generation';

/**
 * The packages (packages/<dir>/, D279): each one's sources live in its folder, and its dist/ keeps
 * their paths inside it (packages/mock/src/node/app.ts is dist/src/node/app.js). An import that
 * reaches into another package is written as that package's `<name>/internal/<path>` (its exports
 * map `./internal/*` to `./dist/*`). The direction is the floors' (docs/layout.md): contract <-
 * mock-core <- msw, mock <- conformance, exams. `node`: the package runs only in Node.
 */
export const PACKAGES: readonly { dir: string; node: boolean }[] = [
  // The documents, the rules ledger and its reader, the generated types, the contract's reader.
  { dir: 'contract', node: false },
  // The mock's engine, shared by the in-process mock and the server.
  { dir: 'mock-core', node: false },
  // The in-process mock for MSW.
  { dir: 'msw', node: false },
  // The mock server: cgs-mock, the console, /docs/, cgs-webhooks-listen.
  { dir: 'mock', node: true },
  // The gate: the suite, cgs-conformance, cgs-proxy, the merge.
  { dir: 'conformance', node: true },
  // The exams: cgs-client-check, cgs-webhooks-check.
  { dir: 'exams', node: true },
];

/** What a package's folder holds beside its sources: never built into dist/. */
const NOT_SOURCES = ['dist', 'proofs', 'docs', 'examples', 'node_modules', 'README.md', 'package.json'];

/** The package (its dir under packages/) of a repository path and the path inside it, or undefined. */
export function placeOf(path: string): { dir: string; inside: string } | undefined {
  const match = /^packages\/([^/]+)\/(.+)$/.exec(path);
  if (!match || !PACKAGES.some((p) => p.dir === match[1]) || NOT_SOURCES.includes(match[2]!.split('/')[0]!)) return undefined;
  return { dir: match[1]!, inside: match[2]! };
}

/** The package (its dir under packages/) of a source path, or undefined. */
export function packageOf(path: string): string | undefined {
  return placeOf(path)?.dir;
}

/**
 * A module's (or declaration's) text with its relative specifiers that reach into another package
 * written as that package's `internal/` path; in a package that runs only in Node, a file read
 * beside another package's modules (`new URL('../../spec/rules.yaml', import.meta.url)`) too,
 * through `import.meta.resolve`. `path` is the module's path in the repository.
 */
export function crossPackage(path: string, text: string): string {
  const own = packageOf(path.replace(/\.d\.ts$|\.js$/, '.ts')) ?? packageOf(path);
  const target = (specifier: string): string | undefined => {
    const resolved = normalize(join(dirname(path), specifier)).replaceAll('\\', '/');
    const place = placeOf(resolved.replace(/\.js$/, '.ts')) ?? placeOf(resolved);
    return place === undefined || place.dir === own ? undefined : `${SCOPE}/${place.dir}/internal/${resolved.slice(`packages/${place.dir}/`.length)}`;
  };
  let out = text.replace(/(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\2/g, (whole, lead: string, quote: string, specifier: string) => {
    const rewritten = target(specifier);
    return rewritten === undefined ? whole : `${lead}${quote}${rewritten}${quote}`;
  });
  if (PACKAGES.find((p) => p.dir === own)?.node) {
    out = out.replace(/new URL\((['"])(\.{1,2}\/[^'"]+)\1, import\.meta\.url\)/g, (whole, quote: string, specifier: string) => {
      const rewritten = target(specifier);
      return rewritten === undefined ? whole : `new URL(import.meta.resolve(${quote}${rewritten}${quote}))`;
    });
  }
  return out;
}

/**
 * Declarations shipped: the modules that only declare types (`<package>/types`), and the public
 * surface of `<package>/msw` (packages/msw/src/msw.ts and what its exported types name; the types of
 * the mock's internals behind `services` are not shipped, D61).
 */
const DECLARATIONS = ['packages/contract/spec/types.ts', 'packages/contract/spec/generated/openapi.ts', 'packages/contract/spec/generated/rules.ts', 'packages/contract/spec/generated/mock-control.ts', 'packages/contract/spec/api-versions.ts', 'packages/msw/src/msw.ts', 'packages/msw/src/control.ts', 'packages/mock-core/src/services/services.ts', 'packages/mock-core/src/core/clock.ts'];

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
 * What a package does not ship: what is not its sources (dist/, proofs/, its copied docs and
 * examples), unit tests, the mock's test support (packages/mock-core/src/testkit/), and the
 * Playwright tests and harnesses of the mock's own pages (packages/mock/src/console/,
 * packages/mock/src/web/browser/). The conformance suite (packages/conformance/suite/, run by
 * cgs-conformance) is shipped whole.
 */
const isTest = (path: string): boolean => {
  const place = placeOf(path);
  if (place === undefined || path.endsWith('.test.ts')) return true;
  if (place.dir === 'mock-core' && place.inside.startsWith('src/testkit/')) return true;
  if (!['mock-core', 'msw', 'mock'].includes(place.dir)) return false;
  return path.endsWith('.spec.ts') || path.endsWith('playwright.config.ts') || place.inside.startsWith('src/web/browser/') || place.inside === 'src/console/harness.ts';
};

/** The test frameworks (and property-testing library) no shipped module may import. */
const TEST_FRAMEWORKS = ['vitest', 'fast-check', '@playwright/test'];
/** Where @playwright/test is the product: the conformance suite that cgs-conformance runs (its package's suite/). */
const SUITE = { dir: 'conformance', path: 'suite/' };

/**
 * The modules under `outDir`, the dist/ of package `pkg`, that import a test framework (vitest,
 * fast-check anywhere; @playwright/test outside the conformance suite), as `path: specifier`. The
 * build fails on any.
 */
export function testFrameworkImports(outDir: string, pkg: string): string[] {
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
        if (framework === '@playwright/test' && pkg === SUITE.dir && path.startsWith(SUITE.path)) continue;
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
 * behind every import of ours (scripts/packaging/package.test.ts compiles one).
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

/** Where a package's files go: `<packagesDir>/<dir>/dist/`. */
const distOf = (packagesDir: string, dir: string): string => join(packagesDir, dir, 'dist');

/**
 * Files a package ships beside dist/, copied from the repository at build time (the docs and
 * examples its README links; D282): `[from, to]` under packages/<dir>/.
 */
export const SHIPPED: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  contract: [['docs/versioning.md', 'docs/versioning.md'], ['docs/sdk-generators.md', 'docs/sdk-generators.md']],
  'mock-core': [],
  msw: [['docs/msw.md', 'docs/msw.md'], ['docs/frontend.md', 'docs/frontend.md'], ['examples/msw/client.ts', 'examples/msw/client.ts'], ['examples/msw/flows.ts', 'examples/msw/flows.ts'], ['examples/scenarios', 'examples/scenarios']],
  mock: [
    ['docs/mock.md', 'docs/mock.md'],
    ['docs/frontend.md', 'docs/frontend.md'],
    ['examples/scenarios', 'examples/scenarios'],
    // The pictures docs/mock.md shows (D291).
    ...['media', 'api-reference', 'console-accounts', 'console-data', 'console-runs', 'console-upscales', 'console-webhooks', 'console-requests'].map((name) => [`docs/${name}.png`, `docs/${name}.png`] as const),
  ],
  conformance: [['docs/gate.md', 'docs/gate.md'], ['docs/conformance.md', 'docs/conformance.md'], ['docs/hooks.md', 'docs/hooks.md'], ['packages/conformance/suite/README.md', 'docs/suite.md'], ['examples/ci', 'examples/ci']],
  exams: [['docs/client-check.md', 'docs/client-check.md'], ['examples/client', 'examples/client'], ['examples/receiver', 'examples/receiver']],
};

/** The repository's imports of a shipped example, as a project that installed the packages writes them. */
const EXAMPLE_IMPORTS: Readonly<Record<string, string>> = {
  "'../../packages/contract/spec/types.ts'": `'${SCOPE}/contract/types'`,
  "'../../packages/msw/src/msw.ts'": `'${SCOPE}/msw'`,
};

/**
 * A shipped Markdown file's relative links as the installed package resolves them (D291): a link to
 * a file the package ships points to its copy; to a file of another package's sources, names it
 * under that package (`@creative-generation/contract/dist/spec/...`, installed beside it) as text;
 * to anything else (a test, a decision record, a doc the package does not ship), becomes text naming
 * the repository path. `from` is the file's repository path, `to` its path inside the package.
 */
export function installedLinks(text: string, from: string, to: string, shipped: readonly (readonly [string, string])[]): string {
  const rewrite = (whole: string, bang: string, label: string, target: string): string => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) return whole;
    const [path, fragment] = target.split('#') as [string, string | undefined];
    const repoPath = normalize(join(dirname(from), decodeURIComponent(path))).replaceAll('\\', '/');
    for (const [source, inside] of shipped) {
      if (repoPath !== source && !repoPath.startsWith(`${source}/`)) continue;
      const installed = inside + repoPath.slice(source.length);
      const link = (relative(dirname(to), installed).replaceAll('\\', '/') || installed.split('/').pop()!) + (path.endsWith('/') ? '/' : '');
      return `${bang}[${label}](${link}${fragment === undefined ? '' : `#${fragment}`})`;
    }
    const place = placeOf(repoPath);
    const other = place && !repoPath.endsWith('.ts');
    const named = other ? `\`${SCOPE}/${place.dir}/dist/${place.inside}\`` : `\`${repoPath}\``;
    const shown = label.replace(/^`(.*)`$/, '$1').replace(/\/$/, '');
    if (shown === repoPath || shown === place?.inside) return other ? named : `${named} (in the repository)`;
    return `${label} (${named}${other ? '' : ' in the repository'})`;
  };
  // Fenced blocks kept as they are: a `[a](b)` there is not a link.
  return text
    .split(/(```[\s\S]*?```)/)
    .map((part) => (part.startsWith('```') ? part : part.replace(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g, rewrite)))
    .join('');
}

/** Examples shipped with their JavaScript beside them (`node .../examples/client/tasks.js` runs after a plain install). */
const JS_EXAMPLES = ['examples/client', 'examples/receiver'];

function copyInto(from: string, to: string, shipped: readonly (readonly [string, string])[] = [], packageDir = ''): void {
  if (statSync(from).isDirectory()) {
    for (const name of readdirSync(from)) if (!name.endsWith('.test.ts')) copyInto(join(from, name), join(to, name), shipped, packageDir);
    return;
  }
  mkdirSync(dirname(to), { recursive: true });
  if (from.endsWith('.md') && packageDir) {
    const text = installedLinks(readFileSync(from, 'utf8'), relative(ROOT, from).replaceAll('\\', '/'), relative(packageDir, to).replaceAll('\\', '/'), shipped);
    return writeFileSync(to, text);
  }
  if (!from.endsWith('.ts') || from.startsWith(join(ROOT, 'packages'))) return copyFileSync(from, to);
  let text = readFileSync(from, 'utf8');
  for (const [repository, installed] of Object.entries(EXAMPLE_IMPORTS)) text = text.replaceAll(repository, installed);
  writeFileSync(to, text);
  // A runnable example gets its JavaScript beside it, for Node 20 without tsx (issue #35).
  if (JS_EXAMPLES.some((dir) => relative(ROOT, from).replaceAll('\\', '/').startsWith(`${dir}/`))) {
    const { outputText } = ts.transpileModule(text, { compilerOptions: COMPILER_OPTIONS, fileName: from });
    writeFileSync(to.replace(/\.ts$/, '.js'), outputText);
  }
}

/**
 * Every relative link and image of every Markdown file a package ships (its README, and the .md
 * files under its docs/ and examples/) that names no file inside the package (D291): `file: link`.
 * `packageDir` is the package as installed (its root holds README.md, dist/, docs/, examples/);
 * `readme`, where the README is read from when the build writes elsewhere than packages/.
 */
export function brokenLinks(packageDir: string, readme: string = join(packageDir, 'README.md')): string[] {
  const markdown: [string, string][] = [[readme, packageDir]];
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) markdown.push([path, dir]);
    }
  };
  for (const top of ['docs', 'examples']) walk(join(packageDir, top));
  const broken: string[] = [];
  const root = resolve(packageDir);
  for (const [file, base] of markdown) {
    // Code spans and fenced blocks left out: a `[a](b)` in code is not a link.
    const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
    const targets = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g), ...text.matchAll(/<img\s[^>]*src="([^"]+)"/g)].map((m) => m[1]!);
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
      const path = resolve(base, decodeURIComponent(target.split('#')[0]!));
      const inside = path === root || path.startsWith(`${root}/`);
      let exists = false;
      try {
        exists = statSync(path).isFile() || statSync(path).isDirectory();
      } catch {
        exists = false;
      }
      if (!inside || !exists) broken.push(`${relative(packageDir, file === readme ? join(packageDir, 'README.md') : file)}: ${target}`);
    }
  }
  return broken;
}

/**
 * Copies what each package ships beside dist/ (SHIPPED) into `<packagesDir>/<dir>/`, its Markdown's
 * links as the installed package resolves them, and fails on a link of a shipped Markdown file
 * (README included) that names no file of the package (D291).
 */
export function shipDocs(packagesDir: string = join(ROOT, 'packages')): void {
  for (const pkg of PACKAGES) {
    for (const [from, to] of SHIPPED[pkg.dir] ?? []) {
      rmSync(join(packagesDir, pkg.dir, to), { recursive: true, force: true });
      copyInto(join(ROOT, from), join(packagesDir, pkg.dir, to), SHIPPED[pkg.dir], join(packagesDir, pkg.dir));
    }
    const broken = brokenLinks(join(packagesDir, pkg.dir), join(ROOT, 'packages', pkg.dir, 'README.md'));
    if (broken.length > 0) throw new Error(`build: ${broken.length} link(s) of ${pkg.dir}'s shipped Markdown name no file of the installed package (ship the file, or rewrite the link: SHIPPED, D291):\n  ${broken.join('\n  ')}`);
  }
}

export function build(packagesDir: string = join(ROOT, 'packages')): { modules: number; ms: number } {
  const started = performance.now();
  for (const pkg of PACKAGES) rmSync(distOf(packagesDir, pkg.dir), { recursive: true, force: true });
  const write = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  /** The file of a source path in its package's dist/; a path no package owns fails the build. */
  const placed = (source: string): string => {
    const place = placeOf(source);
    if (place === undefined) throw new Error(`build: ${source} is in no package's sources (scripts/build.ts, PACKAGES)`);
    return join(distOf(packagesDir, place.dir), place.inside);
  };
  const files = PACKAGES.flatMap((p) => filesUnder(`packages/${p.dir}`)).filter((f) => !isTest(f));
  const sources = files.filter(isModule);
  for (const source of sources) {
    const text = readFileSync(join(ROOT, source), 'utf8');
    const { outputText, diagnostics } = ts.transpileModule(text, { compilerOptions: COMPILER_OPTIONS, fileName: source, reportDiagnostics: true });
    if (diagnostics?.length) throw new Error(`${source}: ${ts.flattenDiagnosticMessageText(diagnostics[0]!.messageText, '\n')}`);
    write(placed(source).replace(/\.ts$/, '.js'), crossPackage(source, outputText));
  }
  const declared = join(packagesDir, '.declarations');
  rmSync(declared, { recursive: true, force: true });
  declarations(declared, (path, text) => {
    const source = relative(declared, path).replaceAll('\\', '/');
    write(placed(source.replace(/\.d\.ts$/, '.ts')).replace(/\.ts$/, '.d.ts'), crossPackage(source, text));
  });
  rmSync(declared, { recursive: true, force: true });
  // Files the modules read beside themselves (packages/mock-core/src/media/clips/*.webm, ...): every file of the
  // source folders that is not TypeScript.
  for (const asset of files.filter((f) => !f.endsWith('.ts'))) copyInto(join(ROOT, asset), placed(asset));
  // The document as plain JSON, for tools that do not read YAML (the generated copy wraps it with its hash).
  const generated = JSON.parse(readFileSync(join(ROOT, 'packages/contract/spec/generated/openapi.json'), 'utf8')) as { document: unknown };
  write(join(distOf(packagesDir, 'contract'), 'openapi.json'), `${JSON.stringify(generated.document, null, 2)}\n`);
  shipDocs(packagesDir);
  for (const pkg of PACKAGES) {
    const leaked = testFrameworkImports(distOf(packagesDir, pkg.dir), pkg.dir);
    if (leaked.length > 0) throw new Error(`build: ${leaked.length} shipped module(s) of ${pkg.dir} import a test framework (move test support to packages/mock-core/src/testkit/ or a *.test.ts):\n  ${leaked.join('\n  ')}`);
  }
  return { modules: sources.length, ms: Math.round(performance.now() - started) };
}

/**
 * The packages a package's shipped modules import (bare specifiers, `node:` left out; type-only
 * imports are gone from the JavaScript), by package name: what its dependencies and peers must be,
 * exactly (scripts/build.test.ts holds each package.json to it).
 */
/** Resolved only on a branch the shipped JavaScript never takes (packages/conformance/proxy/server.ts: the worker under tsx). */
const DEV_ONLY = ['tsx/esm/api'];

export function importedPackages(distDir: string): Set<string> {
  const found = new Set<string>();
  const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\(\s*|\.resolve\(\s*|createRequire\(import\.meta\.url\)\(\s*)['"]([^'"]+)['"]/g;
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        walk(path);
        continue;
      }
      if (!/\.(js|mjs|cjs)$/.test(name)) continue;
      // Comments left out (a JSDoc example names packages the module does not import).
      const code = readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
      for (const [, spec] of code.matchAll(specifier)) {
        if (DEV_ONLY.includes(spec!) || spec!.startsWith('.') || spec!.startsWith('node:') || spec!.startsWith('/')) continue;
        found.add(spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!);
      }
    }
  };
  walk(distDir);
  return found;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { out: { type: 'string', default: join(ROOT, 'packages') } }, strict: true });
  const outDir = resolve(values.out);
  const { modules, ms } = build(outDir);
  console.log(`build: ${modules} modules, the documents and the type declarations in ${PACKAGES.map((p) => relative(process.cwd(), distOf(outDir, p.dir))).join(', ')} (${ms} ms)`);
}
