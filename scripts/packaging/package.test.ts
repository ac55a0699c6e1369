/**
 * The packages as a team gating its implementation gets them (D279): packed once
 * (scripts/packaging/pack-once.ts), the gate's, the mock server's and the in-process mock's tarballs (with
 * the contract and the mock's core they depend on) installed into an empty project (from npm's cache: --prefer-offline), and each
 * command run from there, in that project's directory:
 *
 * - cgs-mock answers (the same keys for a seed as `npm start`);
 * - `@creative-generation/contract/openapi.yaml`, `/openapi.json` and `/types` resolve, and the types
 *   compile in a small typed client (openapi-fetch over the generated `paths`) that lists, gets with
 *   an ETag, PATCHes with If-Match and meets a 412, against the packaged mock;
 * - cgs-webhooks-listen verifies a signed delivery and refuses a forged one;
 * - cgs-conformance passes against the packaged mock shared by its workers (the whole suite), writes
 *   JUnit, HTML and the rules report to --report-dir, and exits 1 against the same mock behind a
 *   defect of the catalogue; without --base-url it starts the packaged mock itself;
 * - cgs-proxy forwards, reports a defect's violations with their rule ids, writes its rules report on
 *   SIGINT, and its exit status gates with --fail-on-violation.
 *
 * A frontend project (a package.json with msw and vite only, msw another 2.x than the toolkit's
 * own) installs @creative-generation/msw: it gets none of the server's or the suite's packages and
 * none of their commands, one msw (its own), `@creative-generation/msw` answers a request there,
 * `vite build` bundles the in-process mock. The gate project gets msw as a peer it did not name (npm
 * installs it), one copy. Each package alone, with each of its commands: scripts/packaging/packages.test.ts.
 *
 * One file, one pack and one install per project for all: it is the most expensive test file (see README).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { defectNamed } from '../../packages/conformance/suite/defects/catalogue.ts';
import { startProxy, type Proxy } from '../../packages/conformance/suite/defects/proxy.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The packages (D279): the documents and types, and the in-process mock. */
const CONTRACT = '@creative-generation/contract';
const MSW = '@creative-generation/msw';
/** The tarballs of packages/<dir> and of the toolkit's packages it depends on (they are not on a registry). */
function tarballsOf(...dirs: string[]): string[] {
  const tarballs = inject('packedTarballs');
  const out = new Set<string>();
  const visit = (dir: string) => {
    out.add(tarballs[dir]!);
    const own = JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const name of Object.keys(own.dependencies ?? {})) if (name.startsWith('@creative-generation/')) visit(name.slice('@creative-generation/'.length));
  };
  for (const dir of dirs) visit(dir);
  return [...out];
}
const BASE = '/api/public/v1';
/** A command run in the installed project: the whole suite took 114 s of 240 beside the gate in test:proofs (D241). */
const SLOW = 360_000;
/** npm pack (its build), npm install: minutes on a loaded machine. */
const INSTALL = 600_000;

let work: string;
let project: string;
const DEV = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies;
/** The packages a project using only `<package>/msw` must not get (the server's and the suite's, and their telemetry). */
const NOT_FOR_FRONTENDS = ['@playwright/test', 'playwright', 'playwright-core', 'fastify', 'light-my-request', 'swagger-ui-dist', '@scarf/scarf', 'htm'];

/**
 * The example an IDE shows on hover over createMockHandlers (its JSDoc @example in the shipped
 * declarations of a project's installed toolkit), as a module to compile as it is.
 */
function hoverExample(dir: string): string {
  const declarations = readFileSync(join(dir, 'node_modules', MSW, 'dist/src/msw.d.ts'), 'utf8');
  const jsdoc = /\/\*\*((?:(?!\*\/)[\s\S])*?)\*\/\s*export declare function createMockHandlers/.exec(declarations)?.[1];
  const example = /@example\n([\s\S]*)$/.exec(jsdoc ?? '')?.[1]?.split('\n').map((line) => line.replace(/^\s*\* ?/, '')).join('\n');
  expect(example, 'the JSDoc @example of createMockHandlers in msw.d.ts').toContain('createMockHandlers(');
  return `${example}\nexport {};\n`;
}

/** Every copy of a package under node_modules (nested ones too), with its version. */
function copiesOf(dir: string, name: string): { path: string; version: string }[] {
  const out: { path: string; version: string }[] = [];
  const visit = (modules: string) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      const names = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((n) => `${entry}/${n}`) : [entry];
      for (const pkg of names) {
        const path = join(modules, pkg);
        if (pkg === name) out.push({ path, version: (JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) as { version: string }).version });
        visit(join(path, 'node_modules'));
      }
    }
  };
  visit(join(dir, 'node_modules'));
  return out;
}
const children = new Set<ChildProcess>();

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** A command of the installed package, from the project's directory; resolves once `ready` matches its output. */
async function start(command: string, args: string[], ready: RegExp): Promise<Started & { match: RegExpMatchArray }> {
  const child = spawn(join(project, 'node_modules', '.bin', command), args, { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => (children.delete(child), resolve(code))));
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      const m = ready.exec(output);
      if (m) resolve(m);
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    void exited.then((code) => reject(new Error(`${command} exited ${code} before it was ready:\n${output}`)));
  });
  return { child, output: () => output, exited, match };
}

/** Run a command of the installed package to its end. */
function complete(command: string, args: string[]): Promise<{ status: number | null; output: string }> {
  const child = spawn(join(project, 'node_modules', '.bin', command), args, { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => child.on('exit', (status) => (children.delete(child), resolve({ status, output }))));
}

let mock: Started & { match: RegExpMatchArray };
let origin: string;
const keys: Record<string, string> = {};

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cgs-package-'));
  project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'gate', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`);
  // Packed once for the package tests by the project's global setup (scripts/packaging/pack-once.ts). What
  // the README tells a team gating its implementation to install: the gate and its peer; with the
  // mock server (cgs-mock, cgs-webhooks-listen) and the in-process mock, for the tests below.
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballsOf('conformance', 'mock', 'msw'), `@playwright/test@${DEV['@playwright/test']}`, `openapi-fetch@${DEV['openapi-fetch']}`], project);

  mock = await start('cgs-mock', ['--port', '0', '--clock', 'real', '--seed', '7'], /listening on (http:\/\/127\.0\.0\.1:\d+)\/api\/public\/v1[\s\S]*Control plane/);
  origin = mock.match[1]!;
  for (const [, name, key] of mock.output().matchAll(/^\s+(\S+)\s+(cgs_[0-9a-f]{64})$/gm)) keys[name!] = key!;
}, INSTALL);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  // Removing the installed projects takes more than vitest's 60 s on a slow disk (CI, stop 37): async, with its own timeout.
  if (work) await rm(work, { recursive: true, force: true });
}, SLOW);

describe('the installed package', () => {
  it('cgs-mock serves the API and prints the demo keys of its seed', async () => {
    expect(Object.keys(keys)).toContain('all');
    const response = await fetch(`${origin}${BASE}/products?limit=1`, { headers: { authorization: `Bearer ${keys['read']}` } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(1);
    // The same seed gives the same keys as `npm start -- --seed 7` (packages/mock/src/node/main.ts derives them).
    expect(keys['read']).toMatch(/^cgs_[0-9a-f]{64}$/);
  });

  it('exports the documents and the generated types', () => {
    const resolved = run(process.execPath, ['--input-type=module', '-e', `for (const p of ['openapi.yaml', 'openapi.json', 'types', 'rules.yaml']) console.log(import.meta.resolve('${CONTRACT}/' + p))`], project).trim().split('\n').map((u) => fileURLToPath(u));
    expect(parse(readFileSync(resolved[0]!, 'utf8'))).toEqual(parse(readFileSync(join(ROOT, 'packages/contract/spec/openapi.yaml'), 'utf8')));
    expect(JSON.parse(readFileSync(resolved[1]!, 'utf8'))).toEqual(parse(readFileSync(join(ROOT, 'packages/contract/spec/openapi.yaml'), 'utf8')));
    expect(existsSync(resolved[3]!)).toBe(true);
    // The control document the packaged mock reads at start, already parsed (scripts/build.ts).
    const control = JSON.parse(readFileSync(join(project, 'node_modules', CONTRACT, 'dist/spec/generated/mock-control.json'), 'utf8')) as { document: unknown };
    expect(control.document).toEqual(parse(readFileSync(join(ROOT, 'packages/contract/spec/mock-control.yaml'), 'utf8')));
  }, SLOW);

  it('the types compile in an openapi-fetch client that lists, gets with an ETag, PATCHes with If-Match and meets a 412', () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM'], types: [], strict: true, noUncheckedIndexedAccess: true, outDir: 'out', skipLibCheck: false }, include: ['client.ts', 'inprocess.ts', 'hover.ts'] }),
    );
    writeFileSync(join(project, 'hover.ts'), hoverExample(project));
    // <package>/msw, compiled in the same run (its test below runs it): the control API and the fetch results typed.
    writeFileSync(
      join(project, 'inprocess.ts'),
      `import { setupServer } from 'msw/node';
import { createMockHandlers, ControlProblem, type components } from '${MSW}';

const mock = createMockHandlers({ baseUrl: 'http://api.test', seed: 7 });
const server = setupServer(...mock.handlers);
server.listen({ onUnhandledRequest: 'error' });
await mock.ready;
const created = await mock.control.createAccount({ plan: 'growth', empty: true });
const key: string = created.keys['all']!.key;
// @ts-expect-error createAccount takes the document's CreateAccountRequest: no such field
void (() => mock.control.createAccount({ tier: 'pro' }));
const response = await fetch('http://api.test/api/public/v1/products?limit=1', { headers: { authorization: \`Bearer \${mock.demo!.keys['read']!.key}\` } });
const page = (await response.json()) as { data: components['schemas']['Product'][] };
const mine = await fetch('http://api.test/api/public/v1/products', { headers: { authorization: \`Bearer \${key}\` } });
const clock = await mock.control.advanceClock(60);
const missing = await mock.control.getAccount('acc_none').catch((error: unknown) => (error instanceof ControlProblem ? error.code : String(error)));
server.close();
mock.dispose();
console.log(JSON.stringify({ status: response.status, products: page.data.length, demoKey: mock.demo!.keys['read']!.key, mine: mine.status, now: clock.now, missing }));
`,
    );
    writeFileSync(
      join(project, 'client.ts'),
      `import createClient from 'openapi-fetch';
import type { paths, Schemas } from '${CONTRACT}/types';

declare const process: { argv: string[] };
const [baseUrl, key] = process.argv.slice(2) as [string, string];
const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${key}\` } });

const list = await client.GET('/creatives', { params: { query: { limit: 2 } } });
const first: Schemas['Creative'] | undefined = list.data?.data[0];
if (!first) throw new Error(\`list answered \${list.response.status}\`);
const got = await client.GET('/creatives/{creativeId}', { params: { path: { creativeId: first.creativeId } } });
const etag = got.response.headers.get('etag') ?? '';
const patched = await client.PATCH('/creatives/{creativeId}', { params: { path: { creativeId: first.creativeId }, header: { 'If-Match': etag } }, body: { metadata: { sdk: 'typed' } } });
const stale = await client.PATCH('/creatives/{creativeId}', { params: { path: { creativeId: first.creativeId }, header: { 'If-Match': etag } }, body: { metadata: { sdk: 'stale' } } });
// @ts-expect-error the document has no such path: the types are the document's, not any
void client.GET('/no-such-path');
// @ts-expect-error a creative's id is creativeId
void first.id;
console.log(JSON.stringify({
  listed: list.response.status,
  count: list.data?.data.length,
  got: got.response.status,
  etag,
  patched: patched.response.status,
  patchedEtag: patched.response.headers.get('etag'),
  metadata: patched.data?.metadata,
  stale: stale.response.status,
  staleCode: typeof stale.error === 'object' ? stale.error.code : stale.error,
}));
`,
    );
    run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], project);
    const result = JSON.parse(run(process.execPath, [join(project, 'out/client.js'), `${origin}${BASE}`, keys['all']!], project)) as Record<string, unknown>;
    expect(result).toMatchObject({ listed: 200, count: 2, got: 200, patched: 200, metadata: { sdk: 'typed' }, stale: 412, staleCode: 'PRECONDITION_FAILED' });
    expect(result['etag']).toMatch(/^"/);
    expect(result['patchedEtag']).not.toBe(result['etag']);
  }, SLOW);

  it('<package>/msw: the in-process mock answers through msw/node, with the demo keys of cgs-mock for the same seed', () => {
    const result = JSON.parse(run(process.execPath, [join(project, 'out/inprocess.js')], project)) as Record<string, unknown>;
    expect(result).toEqual({ status: 200, products: 1, demoKey: keys['read'], mine: 200, now: '2026-01-01T00:01:00.000Z', missing: 'ACCOUNT_NOT_FOUND' });
  });

  it('cgs-webhooks-listen verifies a signed delivery and refuses a forged one', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const listener = await start('cgs-webhooks-listen', ['--port', '0', '--secret', secret], /Listening for webhooks on (http:\/\/127\.0\.0\.1:\d+\/)/);
    const url = listener.match[1]!;
    const body = JSON.stringify({ type: 'creative.approved', timestamp: new Date().toISOString(), data: { creativeId: 'crt_1', status: 'APPROVED' } });
    const id = 'msg_package_test';
    const now = new Date();
    const signature = new Webhook(secret).sign(id, now, body);
    const headers = { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)) };
    expect((await fetch(url, { method: 'POST', body, headers: { ...headers, 'webhook-signature': signature } })).status).toBe(204);
    expect((await fetch(url, { method: 'POST', body, headers: { ...headers, 'webhook-signature': 'v1,Zm9yZ2Vk' } })).status).toBe(400);
    listener.child.kill('SIGTERM');
    await listener.exited;
    expect(listener.output()).toContain('✓ creative.approved  msg_package_test');
    expect(listener.output()).toContain('✗ rejected msg_package_test');
  });
});

describe('cgs-conformance from the installed package', () => {
  // The whole suite through the packaged command against one packaged mock shared by its workers
  // (the gate's own mode, #14); the defect run needs only the ETag rules it breaks.
  const subset = ['--grep', 'ETAG-00[1-4]'];
  let faulty: Proxy | undefined;
  afterAll(async () => faulty?.close());

  it('passes (the whole suite) against the packaged mock shared by its workers, with JUnit, HTML and the rules report in --report-dir', async () => {
    const reportDir = join(work, 'report');
    const { status, output } = await complete('cgs-conformance', ['--base-url', `${origin}${BASE}`, '--allow-spend', '--report-dir', reportDir]);
    expect(output).toContain('verdict: CONFORMS');
    expect(status, output).toBe(0);
    expect(output).toMatch(/Resources and their fields\s+\d+\s+0\s+\d+/);
    expect(readdirSync(reportDir).sort()).toEqual(expect.arrayContaining(['html', 'junit.xml', 'rules.json', 'rules.md']));
    const rules = JSON.parse(readFileSync(join(reportDir, 'rules.json'), 'utf8')) as {
      rules: { id: string; result: string }[];
      summary: { pinnedObservable: { total: number; passed: number }; tests: { total: number; failed: number } };
    };
    expect(rules.rules.find((r) => r.id === 'ETAG-002')?.result).toBe('passed');
    // The whole suite ran: every pinned, observable rule passed through the packaged command.
    expect(rules.summary.pinnedObservable.passed).toBe(rules.summary.pinnedObservable.total);
    expect(rules.summary.tests.total).toBeGreaterThan(200);
    expect(rules.summary.tests.failed).toBe(0);
    expect(readFileSync(join(reportDir, 'junit.xml'), 'utf8')).toContain('<testsuites');
    // The shards' merge from the package (one report here: the rules are merged the same way).
    const merged = await complete('cgs-conformance-merge', [reportDir, '--out', join(work, 'merged'), '--rules-only']);
    expect(merged.status, merged.output).toBe(0);
    expect((JSON.parse(readFileSync(join(work, 'merged', 'rules.json'), 'utf8')) as { rules: { id: string; result: string }[] }).rules.find((r) => r.id === 'ETAG-002')?.result).toBe('passed');
  }, SLOW);

  it('exits 1 when the implementation does not conform (the packaged mock behind the etag-weak defect)', async () => {
    faulty = await startProxy(origin, defectNamed('etag-weak'));
    const reportDir = join(work, 'report-defect');
    const { status, output } = await complete('cgs-conformance', ['--base-url', `${faulty.origin}${BASE}`, '--report-dir', reportDir, '--max-failures=1', ...subset]);
    expect(output).toContain('DOES NOT CONFORM');
    expect(status, output).toBe(1);
    expect(output).toMatch(/failed rules: .*ETAG-00[23]/);
  }, SLOW);

  it('without --base-url, starts the packaged mock itself (one per worker) and runs against it', async () => {
    const reportDir = join(work, 'report-local');
    const { status, output } = await complete('cgs-conformance', ['--report-dir', reportDir, '--workers', '1', '--grep', 'ETAG-002']);
    expect(output).toMatch(/started 1 mock\(s\), one per worker/);
    expect(status, output).toBe(0);
    expect(readFileSync(join(reportDir, 'mock-0.log'), 'utf8')).toContain('listening on http://127.0.0.1:');
  }, SLOW);

  it('refuses a usage error with status 2', async () => {
    const { status, output } = await complete('cgs-conformance', ['--shard', '3/2']);
    expect(status).toBe(2);
    expect(output).toContain('--shard is I/N');
  });
});

describe('cgs-proxy from the installed package', () => {
  async function proxyRun(target: string, failOnViolation: boolean): Promise<{ status: number | null; output: string; reportDir: string }> {
    const reportDir = join(work, `proxy-${failOnViolation}-${Date.now()}`);
    const proxy = await start('cgs-proxy', ['--target', `${target}${BASE}`, '--port', '0', '--report-dir', reportDir, ...(failOnViolation ? ['--fail-on-violation'] : [])], /cgs-proxy: (http:\/\/127\.0\.0\.1:\d+)\/api/);
    const through = proxy.match[1]!;
    const list = (await (await fetch(`${through}${BASE}/creatives?limit=1`, { headers: { authorization: `Bearer ${keys['read']}` } })).json()) as { data: { creativeId: string }[] };
    const one = await fetch(`${through}${BASE}/creatives/${list.data[0]!.creativeId}`, { headers: { authorization: `Bearer ${keys['read']}` } });
    await one.arrayBuffer();
    proxy.child.kill('SIGINT');
    const status = await proxy.exited;
    return { status, output: proxy.output(), reportDir };
  }

  it('forwards to a conforming implementation and exits 0 with --fail-on-violation', async () => {
    const { status, output, reportDir } = await proxyRun(origin, true);
    expect(output).toContain('2 forwarded, 2 checked, 0 broke the contract');
    expect(status, output).toBe(0);
    expect(existsSync(join(reportDir, 'rules.md'))).toBe(true);
  }, SLOW);

  it('reports the violations of a defective one with their rule ids, and exits 1 with --fail-on-violation', async () => {
    const faulty = await startProxy(origin, defectNamed('etag-weak'));
    try {
      const { status, output, reportDir } = await proxyRun(faulty.origin, true);
      expect(output).toMatch(/✗ GET \/api\/public\/v1\/creatives\/\S+ → 200 {2}\[ETAG-002\] etag: /);
      expect(status, output).toBe(1);
      const report = JSON.parse(readFileSync(join(reportDir, 'rules.json'), 'utf8')) as { rules: { id: string; result: string }[] };
      expect(report.rules.find((r) => r.id === 'ETAG-002')?.result).toBe('failed');
      // Without --fail-on-violation the same traffic exits 0: the flag is the gate.
      expect((await proxyRun(faulty.origin, false)).status).toBe(0);
    } finally {
      await faulty.close();
    }
  }, SLOW);
});

describe('a frontend project: a package.json with msw and vite only', () => {
  // Another msw 2 than the toolkit's own devDependency: the project's copy is the one the mock uses.
  const FRONTEND_MSW = '2.14.7';
  const VITE = '7.3.8';
  let front: string;

  beforeAll(() => {
    front = join(work, 'front');
    mkdirSync(front);
    writeFileSync(join(front, 'package.json'), `${JSON.stringify({ name: 'front', version: '1.0.0', private: true, type: 'module', devDependencies: { msw: FRONTEND_MSW, vite: VITE } }, null, 2)}\n`);
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballsOf('msw')], front);
    // The installed size (docs/frontend.md): printed, not asserted.
    console.log(`frontend project: ${run('du', ['-sh', 'node_modules'], front).trim()}, ${readdirSync(join(front, 'node_modules')).length} top-level entries`);
  }, INSTALL);

  it('gets none of the server\'s or the suite\'s packages, and one msw: its own', () => {
    expect(existsSync(join(front, 'node_modules', MSW, 'package.json'))).toBe(true);
    expect(NOT_FOR_FRONTENDS.flatMap((name) => copiesOf(front, name).map((c) => c.path))).toEqual([]);
    expect(copiesOf(front, 'msw')).toEqual([{ path: join(front, 'node_modules', 'msw'), version: FRONTEND_MSW }]);
  });

  it('<package>/msw answers a request there (msw/node, the demo key)', () => {
    writeFileSync(
      join(front, 'inprocess.mjs'),
      `import { setupServer } from 'msw/node';
import { createMockHandlers } from '${MSW}';
const mock = createMockHandlers({ baseUrl: 'http://api.test' });
const server = setupServer(...mock.handlers);
server.listen({ onUnhandledRequest: 'error' });
await mock.ready;
const response = await fetch('http://api.test/api/public/v1/products?limit=1', { headers: { authorization: 'Bearer ' + mock.demo.keys.read.key } });
const page = await response.json();
server.close();
mock.dispose();
console.log(JSON.stringify({ status: response.status, products: page.data.length }));
`,
    );
    expect(JSON.parse(run(process.execPath, ['inprocess.mjs'], front))).toEqual({ status: 200, products: 1 });
  });

  it('the example of createMockHandlers\' JSDoc typechecks there (strict, skipLibCheck false: no declaration it reaches names fastify)', () => {
    writeFileSync(join(front, 'hover.ts'), hoverExample(front));
    writeFileSync(
      join(front, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM'], types: [], strict: true, noUncheckedIndexedAccess: true, noEmit: true, skipLibCheck: false }, include: ['hover.ts'] }),
    );
    run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', front], front);
  }, SLOW);

  it('vite build bundles the in-process mock (its sizes printed for docs/frontend.md)', () => {
    writeFileSync(join(front, 'index.html'), '<!doctype html><html><body><script type="module" src="/main.js"></script></body></html>\n');
    writeFileSync(
      join(front, 'main.js'),
      `import { setupWorker } from 'msw/browser';
import { createMockHandlers } from '${MSW}';
const mock = createMockHandlers({ baseUrl: location.origin });
setupWorker(...mock.handlers).start().then(() => mock.ready).then(() => { document.body.dataset.key = mock.demo.keys.read.keyId; });
`,
    );
    // CI may force colour (FORCE_COLOR): the sizes are read from the text without its escape codes.
    const output = stripVTControlCharacters(run(process.execPath, [join(front, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'info'], front));
    console.log(output);
    expect(output).toMatch(/✓ built in/);
    const chunks = [...output.matchAll(/dist\/assets\/(\S+)\.js\s+([\d,.]+) kB │ gzip:\s+([\d,.]+) kB/g)];
    expect(chunks.length).toBeGreaterThan(1); // the demo data is a chunk of its own
  }, SLOW);

  it('has none of the commands: they are the mock\'s, the gate\'s and the exams\' packages (D279)', () => {
    for (const command of ['cgs-mock', 'cgs-conformance', 'cgs-client-check']) expect(existsSync(join(front, 'node_modules', '.bin', command)), command).toBe(false);
  });
});

describe('the gate project did not name msw', () => {
  it('npm installed the peer once, at its top level', () => {
    const copies = copiesOf(project, 'msw');
    expect(copies.map((c) => c.path)).toEqual([join(project, 'node_modules', 'msw')]);
  });
});
