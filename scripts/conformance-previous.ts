/**
 * `npm run conformance:previous -- --ref <git ref|release> [--api-version current|next] [--grep <regex>]
 *                                  [--expect-failures <regex>]`
 * runs the conformance suite as it was at <ref> against the current mock (old clients still work).
 * How it works and what it decides: docs/internals.md, "scripts/conformance-previous.ts".
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { RELEASES_DIR, ROOT, latestRelease, parseApiVersion, type ApiVersion } from '../packages/contract/spec/versions.ts';

const USAGE = `usage: npm run conformance:previous -- --ref <git ref|release> [--api-version current|next] [--grep <regex>] [--expect-failures <regex>]

Runs the conformance suite as it was at <ref> against the current mock ("clients written against
the old version still work"). packages/conformance/suite/README.md "The previous suite" says more.

  --ref <ref>               a commit, branch or tag; \`release\`: the commit that cut the latest release
  --api-version <v>         the mock serves \`current\` (default) or \`next\` (packages/contract/spec/overlays/next.yaml)
  --grep <regex>            only the tests whose titles match (Playwright's --grep)
  --expect-failures <regex> succeed only when the failed tests are exactly those whose titles match,
                            and at least one fails (npm test: the pending version breaks exactly the
                            read-plane 429 test of the old suite). Without it the exit status is the suite's.
  --help, -h                this text`;

function fail(message: string): never {
  console.error(`conformance:previous: ${message}\n${USAGE}`);
  process.exit(2);
}

let values: { ref?: string; 'api-version'?: string; grep?: string; 'expect-failures'?: string; help?: boolean };
try {
  ({ values } = parseArgs({ options: { ref: { type: 'string' }, 'api-version': { type: 'string' }, grep: { type: 'string' }, 'expect-failures': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }));
} catch (error) {
  fail((error as Error).message);
}
if (values.help === true) {
  console.log(USAGE);
  process.exit(0);
}
if (values.ref === undefined || values.ref === '') fail('--ref is required');
let apiVersion: ApiVersion;
try {
  apiVersion = parseApiVersion(values['api-version'], '--api-version');
} catch (error) {
  fail((error as Error).message);
}
const expectFailures = values['expect-failures'] === undefined ? undefined : new RegExp(values['expect-failures']);

/** The mock's entry points as released suites know them (1.9.0: `tsx mock/main.ts`, `import('../../mock/handlers.ts')`). */
const OLD_LAYOUT: Record<string, string> = {
  'main.ts': "import './adapters/node/main.ts';\n",
  'handlers.ts': "export * from './services/handlers.ts';\n",
};
/**
 * Where today's mock is for a suite of the layout before the packages (D289: mock/ at the root):
 * each entry of its mock/ (and of mock/adapters/), as a path of this checkout.
 */
const MOCK_BEFORE_PACKAGES: Record<string, string> = {
  ...Object.fromEntries(readdirSync(join(ROOT, 'packages/mock-core/src')).map((entry) => [entry, `packages/mock-core/src/${entry}`])),
  'adapters/node': 'packages/mock/src/node',
  'adapters/console': 'packages/mock/src/console',
  'adapters/web': 'packages/mock/src/web',
  'adapters/msw': 'packages/msw/src',
};
/** A suite of the layout of the packages: what is taken from <ref>, and what is today's. */
const SUITE_PACKAGES = ['packages/conformance', 'packages/contract'];
const MOCK_PACKAGES = ['packages/mock-core', 'packages/msw', 'packages/mock'];

const git = (args: string[]): string => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
let commit: string;
try {
  // `release`: the commit that cut the latest release (the first to add its folder, under
  // packages/contract/spec/releases/ or, before the packages, spec/releases/).
  const latest = latestRelease();
  const added = (...folders: string[]) => git(['log', '--diff-filter=A', '--format=%H', '--', ...folders]).split('\n').filter(Boolean).at(-1) ?? '';
  const ref = values.ref === 'release' ? (latest === undefined ? '' : added(`${RELEASES_DIR}/${latest}`, `spec/releases/${latest}`)) : values.ref;
  commit = git(['rev-parse', '--verify', `${ref}^{commit}`]);
} catch {
  fail(`${values.ref} is not a commit of this repository (a clone with its history is needed)`);
}

// One directory per checkout and commit (tsx's compile cache is keyed by path: a second run is faster).
const tree = join(tmpdir(), `cgs-previous-${createHash('sha256').update(ROOT).digest('hex').slice(0, 8)}-${commit.slice(0, 12)}`);
rmSync(tree, { recursive: true, force: true });
mkdirSync(tree, { recursive: true });
const started = Date.now();
try {
  // The suite of <ref>: its tests, checks, fixtures, document and configuration; the layout of
  // the packages (packages/conformance/suite/) or the one before it (conformance/ at the root).
  const packaged = spawnSync('git', ['cat-file', '-e', `${commit}:packages/conformance/suite/playwright.config.ts`], { cwd: ROOT }).status === 0;
  const paths = packaged ? [...SUITE_PACKAGES, 'package.json', 'tsconfig.json'] : ['conformance', 'spec', 'package.json', 'tsconfig.json'];
  const archive = spawnSync('git', ['archive', '--format=tar', commit, ...paths], { cwd: ROOT, maxBuffer: 256 << 20 });
  if (archive.status !== 0) fail(`git archive ${commit}: ${archive.stderr.toString().trim()}`);
  const untar = spawnSync('tar', ['-x', '-C', tree], { input: archive.stdout });
  if (untar.status !== 0) fail(`tar: ${untar.stderr.toString().trim()}`);
  // Today's mock and today's dependencies (Node follows the links: today's mock reads today's document).
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
  if (packaged) {
    for (const path of MOCK_PACKAGES) symlinkSync(join(ROOT, path), join(tree, path), 'dir');
  } else {
    mkdirSync(join(tree, 'mock', 'adapters'), { recursive: true });
    for (const [entry, path] of Object.entries(MOCK_BEFORE_PACKAGES)) if (entry !== 'adapters') symlinkSync(join(ROOT, path), join(tree, 'mock', entry));
    // The paths an older suite starts and reads the mock by, before the mock's root moved into
    // core/ and adapters/node/ (D66): each one a module that hands on to today's.
    for (const [path, text] of Object.entries(OLD_LAYOUT)) if (!existsSync(join(tree, 'mock', path))) writeFileSync(join(tree, 'mock', path), text);
  }
  const config = packaged ? 'packages/conformance/suite/playwright.config.ts' : 'conformance/playwright.config.ts';
  if (!existsSync(join(tree, config))) fail(`${values.ref} has no ${config}`);

  const report = join(tree, 'previous-report.json');
  const env: NodeJS.ProcessEnv = { ...process.env, MOCK_API_VERSION: apiVersion, PLAYWRIGHT_JSON_OUTPUT_NAME: report };
  // The old suite checks against ITS document: nothing may switch it to another one.
  delete env['CONFORMANCE_API_VERSION'];
  delete env['CGS_API_VERSION'];
  delete env['CONFORMANCE_BASE_URL'];
  // One worker: the older suite's global setup starts a mock per worker, each compiled afresh in the tree.
  const args = ['test', '-c', config, '--reporter=line,json', '--workers=1', ...(values.grep ? ['--grep', values.grep] : [])];
  console.log(`conformance:previous: the suite of ${values.ref} (${commit.slice(0, 12)}) against the current mock (--api-version ${apiVersion})`);
  const run = spawnSync(join(ROOT, 'node_modules/.bin/playwright'), args, { cwd: tree, env, stdio: 'inherit' });
  const suiteStatus = run.status ?? 1;

  const failed: string[] = [];
  let passed = 0;
  try {
    type Suite = { suites?: Suite[]; specs?: { title: string; ok: boolean }[] };
    const walk = (suite: Suite): void => {
      for (const spec of suite.specs ?? []) {
        if (spec.ok) passed += 1;
        else failed.push(spec.title);
      }
      for (const child of suite.suites ?? []) walk(child);
    };
    for (const suite of (JSON.parse(readFileSync(report, 'utf8')) as { suites: Suite[] }).suites) walk(suite);
  } catch (error) {
    fail(`no report from the suite of ${values.ref}: ${(error as Error).message}`);
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`conformance:previous: ${passed} passed, ${failed.length} failed in ${seconds} s${failed.length > 0 ? `:\n${failed.map((t) => `  - ${t}`).join('\n')}` : ''}`);
  if (passed + failed.length === 0) {
    console.error(`conformance:previous: no test of ${values.ref} ran${values.grep ? ` (--grep ${values.grep})` : ''}`);
    process.exitCode = 1;
  } else if (expectFailures === undefined) process.exitCode = suiteStatus;
  else {
    const unexpected = failed.filter((t) => !expectFailures.test(t));
    if (failed.length === 0) {
      console.error(`conformance:previous: expected failures matching ${expectFailures} (the old suite should notice the change), but every test passed`);
      process.exitCode = 1;
    } else if (unexpected.length > 0) {
      console.error(`conformance:previous: failures outside ${expectFailures}:\n${unexpected.map((t) => `  - ${t}`).join('\n')}`);
      process.exitCode = 1;
    } else console.log(`conformance:previous: exactly the expected tests failed (${expectFailures})`);
  }
} finally {
  rmSync(tree, { recursive: true, force: true });
}
