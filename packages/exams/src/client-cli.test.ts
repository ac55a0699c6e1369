/**
 * cgs-client-check's own mock and its packages (D260), the command run from the checkout through
 * tsx as a process of its own:
 * - with the server's packages unresolvable (a module hook refuses fastify, light-my-request,
 *   swagger-ui-dist and htm, as in a project that did not install the optional peers), `--help`
 *   answers and `--mock-url` runs the exam on a running mock; only the mock started here names
 *   the missing packages (exit 2);
 * - `--port` and `--host` bind the mock started here (the program's CGS_BASE_URL names them);
 *   a host beyond loopback is refused without a control token, a short token too, and both flags
 *   with `--mock-url`.
 *
 * Broken on purpose: the static `import { buildMock }` put back into client.ts (or the package
 * check back into packages/exams/bin/cgs-client-check.ts before the arguments are read) fails the first test.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMock, type Mock } from '../../mock/src/node/app.ts';
import { Clock } from '../../mock-core/src/core/clock.ts';
import { reachable } from './client.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const BIN = join(ROOT, 'packages/exams/bin/cgs-client-check.ts');
const work = mkdtempSync(join(tmpdir(), 'client-cli-'));
/** Refuses the server's packages as an install without the optional peers would (ERR_MODULE_NOT_FOUND). */
const BLOCK = join(work, 'block-server-packages.mjs');
writeFileSync(
  BLOCK,
  `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`export async function resolve(specifier, context, next) {
  if (/^(fastify|light-my-request|swagger-ui-dist|htm)(\\\\/|$)/.test(specifier)) {
    const error = new Error('Cannot find package ' + specifier + ' (blocked by the test)');
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}\`));
`,
);
/** The examined program: prints what it was given, exits 0. */
const PROGRAM = [process.execPath, '-e', "console.log('[program] CGS_BASE_URL=' + process.env.CGS_BASE_URL)"];

function cli(args: string[], options: { block?: boolean; bin?: string } = {}): Promise<{ status: number | null; output: string }> {
  const child = spawn(process.execPath, [...(options.block ? ['--import', BLOCK] : []), '--import', 'tsx', options.bin ?? BIN, '--out', join(work, 'out'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CGS_CONTROL_TOKEN: '' } });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => child.on('exit', (status) => resolve({ status, output })));
}

let mock: Mock;
let origin: string;
beforeAll(async () => {
  mock = buildMock({ clock: new Clock({ mode: 'real' }), logError: () => {} });
  await mock.app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(mock.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await mock.app.close();
  rmSync(work, { recursive: true, force: true });
});

describe('cgs-client-check without the server\'s packages', () => {
  it('the hook does refuse them (the check below is not vacuous): the mock started here names them, exit 2', async () => {
    const run = await cli(['--', ...PROGRAM], { block: true });
    expect(run.status, run.output).toBe(2);
    expect(run.output).toContain('cgs-client-check needs fastify, light-my-request, swagger-ui-dist, htm');
    expect(run.output).toContain('--mock-url');
    expect(run.output).not.toContain('[program]');
  });

  it('--help answers (exit 0) and --mock-url runs the exam on a running mock; cgs-webhooks-check needs none of them either', async () => {
    const [help, exam, webhooks] = await Promise.all([cli(['--help'], { block: true }), cli(['--mock-url', origin, '--', ...PROGRAM], { block: true }), cli(['--help'], { block: true, bin: join(ROOT, 'packages/exams/bin/cgs-webhooks-check.ts') })]);
    expect(webhooks.status, webhooks.output).toBe(0);
    expect(webhooks.output).toMatch(/usage: cgs-webhooks-check/);
    expect(help.status, help.output).toBe(0);
    expect(help.output).toMatch(/--host H .*default 127\.0\.0\.1/);
    expect(exam.output).not.toContain('needs fastify');
    expect(exam.output).toContain(`[program] CGS_BASE_URL=${origin}/api/public/v1`);
    expect(exam.output).toMatch(/requests judged/);
  });
});

describe('cgs-client-check --port and --host (the mock started here)', () => {
  let blocker: Server;
  let free: number;
  beforeAll(async () => {
    // A port free a moment ago: listened on, then released.
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    free = (blocker.address() as AddressInfo).port;
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
  });

  it('bind the mock there: the program\'s CGS_BASE_URL names that address and port', async () => {
    const run = await cli(['--host', '127.0.0.1', '--port', String(free), '--', ...PROGRAM]);
    expect(run.output).toContain(`[program] CGS_BASE_URL=http://127.0.0.1:${free}/api/public/v1`);
    expect(run.output).toContain(`mock started at http://127.0.0.1:${free}`);
  });

  it.each([
    ['a host beyond loopback without a control token', ['--host', '0.0.0.0'], /refusing to bind the exam's mock to 0\.0\.0\.0, which is not a loopback address, without a control token/],
    ['a LAN address without a control token', ['--host', '192.168.1.20'], /refusing to bind the exam's mock to 192\.168\.1\.20/],
    ['a control token shorter than 16 characters beyond loopback', ['--host', '0.0.0.0', '--control-token', 'short-token'], /--control-token .* must be 16 to 512 visible ASCII characters/],
    ['--port with --mock-url', ['--mock-url', 'http://127.0.0.1:9', '--port', '4010'], /--host and --port are for the mock started here: not with --mock-url/],
    ['--host with --mock-url', ['--mock-url', 'http://127.0.0.1:9', '--host', '127.0.0.1'], /--host and --port are for the mock started here/],
    ['a port out of range', ['--port', '70000'], /--port must be an integer from 0 to 65535/],
  ])('refuses %s (exit 2, with the usage; the program never runs)', async (_name, args, message) => {
    const run = await cli([...args, '--', ...PROGRAM]);
    expect(run.status, run.output).toBe(2);
    expect(run.output).toMatch(message);
    expect(run.output).toMatch(/usage: cgs-client-check/);
    expect(run.output).not.toContain('[program]');
  });

  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['localhost', 'localhost'],
    ['0.0.0.0', '127.0.0.1'],
    ['::', '[::1]'],
    ['[::]', '[::1]'],
    ['::1', '[::1]'],
    ['192.168.1.20', '192.168.1.20'],
  ])('a mock bound to %s is reached by the program at %s', (host, address) => {
    expect(reachable(host)).toBe(address);
  });
});
