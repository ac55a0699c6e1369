/**
 * Each package of packages/ as its user gets it (D279, issue #35): packed (scripts/packaging/pack-once.ts),
 * installed alone into an empty project with nothing beside it but its declared peer, and each of
 * its commands and exports run from there:
 *
 * - every package: every file its README, docs and examples link is shipped (D291) (its dependencies are exactly its imports:
 *   scripts/packaging/package-dependencies.test.ts);
 * - @creative-generation/mock: cgs-mock answers the API, /docs/ and /console/; cgs-webhooks-listen;
 * - @creative-generation/conformance (with @playwright/test): --help, --list, a run against the mock
 *   it starts itself; cgs-proxy and cgs-conformance-merge;
 * - @creative-generation/exams: cgs-client-check runs a program against the mock it starts;
 *   cgs-webhooks-check;
 * - @creative-generation/msw (with msw): the README's snippet runs, and none of the server's or the
 *   suite's packages is installed;
 * - @creative-generation/contract: its documents and types resolve.
 *
 * The packages the toolkit's own packages depend on are not on a registry: each project installs
 * the tarballs of the package and of its own packages below it (as npm would fetch them), nothing
 * else. The install size of each project is printed (docs/packages.md records it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { brokenLinks, SCOPE } from '../build.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BASE = '/api/public/v1';
const INSTALL = 600_000;
const SLOW = 300_000;
const DEV = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies;
/** What a project using only the in-process mock must not get: the server's and the suite's packages. */
const NOT_FOR_FRONTENDS = ['@playwright/test', 'playwright', 'playwright-core', 'fastify', 'light-my-request', 'swagger-ui-dist', 'htm', '@creative-generation/mock'];

interface Manifest {
  name: string;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as Manifest;

let work: string;
const projects: Record<string, string> = {};
const sizes: Record<string, string> = {};

function run(command: string, args: string[], cwd: string): { status: number | null; output: string } {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
function ok(command: string, args: string[], cwd: string): string {
  const { status, output } = run(command, args, cwd);
  if (status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${status}:\n${output}`);
  return output;
}
const bin = (dir: string, command: string): string => join(projects[dir]!, 'node_modules', '.bin', command);

/** The package and the toolkit's packages it depends on, transitively: the tarballs a project installs. */
function closure(dir: string): string[] {
  const out = new Set<string>([dir]);
  for (const name of Object.keys(manifest(dir).dependencies ?? {})) if (name.startsWith(`${SCOPE}/`)) for (const d of closure(name.slice(SCOPE.length + 1))) out.add(d);
  return [...out];
}

/** An empty project with the package installed alone (and `extra`: its declared peer). */
function install(dir: string, extra: string[]): void {
  const project = join(work, dir);
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: `try-${dir}`, version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`);
  const tarballs = inject('packedTarballs');
  ok('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', ...closure(dir).map((d) => tarballs[d]!), ...extra], project);
  projects[dir] = project;
  sizes[dir] = ok('du', ['-sk', 'node_modules'], project).split('\t')[0]!;
}

/** A command started from its project, resolved once `ready` matches its output. */
function start(dir: string, command: string, args: string[], ready: RegExp): Promise<{ kill: () => void; output: () => string; match: RegExpMatchArray }> {
  const child = spawn(bin(dir, command), args, { cwd: projects[dir]!, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) resolve({ kill: () => child.kill('SIGKILL'), output: () => output, match });
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('exit', (code) => reject(new Error(`${command} exited ${code} before it was ready:\n${output}`)));
  });
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cgs-packages-'));
  install('contract', []);
  install('msw', [`msw@${DEV['msw']}`]);
  install('mock', []);
  install('conformance', [`@playwright/test@${DEV['@playwright/test']}`]);
  install('exams', []);
  console.log(`install sizes (du -sk node_modules, kB): ${JSON.stringify(sizes)}`);
}, INSTALL);

afterAll(async () => {
  // Removing the installed projects takes more than vitest's 60 s on a slow disk (CI, stop 37): async, with its own timeout.
  if (work) await rm(work, { recursive: true, force: true });
}, SLOW);

describe('every package', () => {
  it.each(['contract', 'msw', 'mock', 'conformance', 'exams'])('%s: every relative link and image of every shipped Markdown file is in the installed package (D291)', (dir) => {
    const installed = join(projects[dir]!, 'node_modules', manifest(dir).name);
    const readme = readFileSync(join(installed, 'README.md'), 'utf8');
    expect([...readme.matchAll(/\]\(([^)#:]+)\)/g)].length).toBeGreaterThan(0);
    expect(brokenLinks(installed)).toEqual([]);
  });
});

describe('@creative-generation/mock, installed alone', () => {
  it('cgs-mock answers the API with its demo keys, /docs/ and /console/', async () => {
    const mock = await start('mock', 'cgs-mock', ['--port', '0', '--clock', 'real', '--seed', '7'], /listening on (http:\/\/127\.0\.0\.1:\d+)\/api\/public\/v1[\s\S]*Console: /);
    try {
      const origin = mock.match[1]!;
      const key = /^\s+read\s+(cgs_[0-9a-f]{64})$/m.exec(mock.output())?.[1];
      const products = await fetch(`${origin}${BASE}/products?limit=1`, { headers: { authorization: `Bearer ${key}` } });
      expect(products.status).toBe(200);
      expect(((await products.json()) as { data: unknown[] }).data).toHaveLength(1);
      expect((await fetch(`${origin}/docs/`)).status).toBe(200);
      expect((await fetch(`${origin}/console/`)).status).toBe(200);
    } finally {
      mock.kill();
    }
  }, SLOW);

  it('cgs-webhooks-listen answers --help', () => {
    expect(ok(bin('mock', 'cgs-webhooks-listen'), ['--help'], projects['mock']!)).toContain('usage: cgs-webhooks-listen');
  });
});

describe('@creative-generation/conformance, installed with @playwright/test', () => {
  it('cgs-conformance --help and --list', () => {
    expect(ok(bin('conformance', 'cgs-conformance'), ['--help'], projects['conformance']!)).toContain('usage: cgs-conformance');
    expect(ok(bin('conformance', 'cgs-conformance'), ['--list'], projects['conformance']!)).toMatch(/Total: \d+ tests in \d+ files/);
  });

  it('without --base-url, runs against the mock it starts itself (the mock package it brought)', () => {
    const { status, output } = run(bin('conformance', 'cgs-conformance'), ['--report-dir', 'report', '--workers', '1', '--grep', 'ETAG-002'], projects['conformance']!);
    expect(output).toMatch(/started 1 mock\(s\), one per worker/);
    expect(output).toContain('verdict: CONFORMS');
    expect(status, output).toBe(0);
  }, SLOW);

  it('cgs-proxy and cgs-conformance-merge answer --help', () => {
    expect(ok(bin('conformance', 'cgs-proxy'), ['--help'], projects['conformance']!)).toContain('usage: cgs-proxy');
    expect(ok(bin('conformance', 'cgs-conformance-merge'), ['--help'], projects['conformance']!)).toContain('usage: cgs-conformance-merge');
  });
});

describe('@creative-generation/exams, installed alone', () => {
  it('cgs-client-check runs a program against the mock it starts and judges it', () => {
    const { status, output } = run(bin('exams', 'cgs-client-check'), ['--out', 'exam', '--', process.execPath, '-e', "console.log('[program] ' + process.env.CGS_BASE_URL)"], projects['exams']!);
    expect(output).toMatch(/\[program\] http:\/\/127\.0\.0\.1:\d+\/api\/public\/v1/);
    expect(output).toMatch(/reports: /);
    // A program that does nothing is judged (0, or 1 where the exam asks for its tasks), never "could not run".
    expect(status, output).not.toBe(2);
  }, SLOW);

  it('cgs-webhooks-check answers --help', () => {
    expect(ok(bin('exams', 'cgs-webhooks-check'), ['--help'], projects['exams']!)).toContain('usage: cgs-webhooks-check');
  });
});

describe('@creative-generation/msw, installed with msw', () => {
  it("the README's snippet runs as it is, as JavaScript (issue #35: it was TypeScript)", () => {
    const readme = readFileSync(join(projects['msw']!, 'node_modules', manifest('msw').name, 'README.md'), 'utf8');
    const snippet = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(snippet).toContain('createMockHandlers');
    writeFileSync(join(projects['msw']!, 'snippet.mjs'), `${snippet}console.log(JSON.stringify({ status: res.status }));\nmock.dispose();\n`);
    expect(JSON.parse(ok(process.execPath, ['snippet.mjs'], projects['msw']!).trim())).toEqual({ status: 200 });
  });

  it("gets none of the server's or the suite's packages", () => {
    for (const name of NOT_FOR_FRONTENDS) expect(existsSync(join(projects['msw']!, 'node_modules', name)), name).toBe(false);
  });
});

describe('@creative-generation/contract, installed alone', () => {
  it('its documents and types resolve', () => {
    const out = ok(process.execPath, ['--input-type=module', '-e', `for (const p of ['openapi.yaml', 'openapi.json', 'rules.yaml', 'types']) console.log(import.meta.resolve('${manifest('contract').name}/' + p))`], projects['contract']!);
    for (const url of out.trim().split('\n')) expect(existsSync(fileURLToPath(url)), url).toBe(true);
  });
});
