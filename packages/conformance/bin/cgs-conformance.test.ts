/**
 * cgs-conformance as a CI step runs it (tsx packages/conformance/bin/cgs-conformance.ts from the checkout; the packaged
 * command is scripts/packaging/package.test.ts's): exit 2 for each setup error, with the message that says what
 * to do, before Playwright starts (what comes after Playwright, e.g. no test selected, is
 * packages/conformance/bin/lib/conformance.test.ts's summarize).
 * The target is a small fake on a loopback port that answers like a deployment without /__mock,
 * a mock that wants its control token, or a target that refuses every key.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const SLOW = 180_000;

/** `kind`: what the fake answers at /__mock/clock and to a key. */
type Kind = 'keys-only' | 'wants-token' | 'refuses-keys';
const servers: Server[] = [];
let work: string;

async function fake(kind: Kind): Promise<string> {
  const server = createServer((request, response) => {
    const url = request.url ?? '/';
    if (url.startsWith('/__mock/')) {
      if (kind === 'wants-token') response.writeHead(401, { 'www-authenticate': 'Bearer realm="mock-control"' }).end();
      else response.writeHead(404).end();
      return;
    }
    if (!url.startsWith('/api/public/v1/')) return void response.writeHead(404).end();
    const accepted = kind === 'keys-only' && request.headers.authorization === 'Bearer cgs_good';
    if (accepted) response.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[],"hasMore":false}');
    else response.writeHead(401, { 'content-type': 'application/problem+json' }).end('{"status":401}');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1`;
}

function gate(args: string[]): Promise<{ status: number | null; output: string }> {
  const child = spawn(TSX, ['packages/conformance/bin/cgs-conformance.ts', '--report-dir', join(work, String(Math.random()).slice(2)), ...args], { cwd: ROOT, env: { ...process.env, FORCE_COLOR: '0', CONFORMANCE_BASE_URL: '', CONFORMANCE_KEYS: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => child.on('exit', (status) => resolve({ status, output })));
}

let urls: Record<Kind, string>;
let closedPort: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cgs-gate-'));
  urls = { 'keys-only': await fake('keys-only'), 'wants-token': await fake('wants-token'), 'refuses-keys': await fake('refuses-keys') };
  // A port that was just free: nothing listens there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = String((probe.address() as AddressInfo).port);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  rmSync(work, { recursive: true, force: true });
});

describe('cgs-conformance exits 2 when it could not judge, saying what to do', () => {
  it('for each setup error', async () => {
    const cases: [string, string[], RegExp][] = [
      ['an unknown flag', ['--pinned-onyl'], /unknown option --pinned-onyl \(cgs-conformance --help lists them/],
      ['an unreachable target', ['--base-url', `http://127.0.0.1:${closedPort}/api/public/v1`, '--keys', '{"read":"cgs_good"}'], /could not judge the target: cannot reach .* \(ECONNREFUSED\): start the implementation, or correct --base-url/],
      ['a missing control token', ['--base-url', urls['wants-token']], /wants a control token .*: pass --control-token TOKEN/],
      ['no keys for a target without a control plane', ['--base-url', urls['keys-only']], /serves no \/__mock control plane, so the suite needs your accounts' keys: pass --keys/],
      ['refused credentials', ['--base-url', urls['refuses-keys'], '--keys', '{"read":"cgs_a","all":"cgs_b"}'], /refused every key given \(2 tried, each 401 on GET \/products\)/],
      ['a required key profile missing', ['--base-url', urls['keys-only'], '--keys', '{"read":"cgs_good"}', '--require', 'key-profile:all'], /needs key profile all \(--require key-profile:all\), and --keys has none/],
      ['a required hook without --hooks-url', ['--base-url', urls['keys-only'], '--keys', '{"read":"cgs_good"}', '--require', 'hook:clock'], /needs hook\(s\) clock .*pass --hooks-url/],
    ];
    const runs = await Promise.all(cases.map(([, args]) => gate(args)));
    const seen = runs.map((run, i) => ({ case: cases[i]![0], status: run.status, said: cases[i]![2].test(run.output) ? 'what to do' : run.output.slice(-600) }));
    expect(seen).toEqual(cases.map(([name]) => ({ case: name, status: 2, said: 'what to do' })));
  }, SLOW);

  it('a usage error (a --keys file that is not there) is the last thing printed: one line and where the usage is, not the usage', async () => {
    const run = await gate(['--keys', join(work, 'no-such-keys.json')]);
    expect(run.status).toBe(2);
    expect(run.output.trim().split('\n')).toEqual([expect.stringMatching(/^cgs-conformance: --keys .*no-such-keys\.json: neither JSON nor a readable file \(ENOENT/), '(cgs-conformance --help for the usage)']);
  }, SLOW);
});

describe('cgs-conformance --list', () => {
  it('lists the tests and their rules without a reachable target: no probe, exit 0 (#32 item 7)', async () => {
    const run = await gate(['--base-url', `http://127.0.0.1:${closedPort}/api/public/v1`, '--keys', '{"read":"cgs_good"}', '--list', 'pagination.spec.ts']);
    expect(run.output).not.toMatch(/could not judge|COULD NOT JUDGE/);
    expect(run.output).toMatch(/PAGE-003 PAGE-005 PAGE-007 PAGE-008 GEN-006 walking \/products/);
    expect(run.output).toMatch(/Rules: the 5 listed test\(s\) name \d+ rule\(s\)/);
    expect(run.status).toBe(0);
  }, SLOW);
});
