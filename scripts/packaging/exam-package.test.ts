/**
 * The exams' two commands as a team gets them (#24): @creative-generation/exams packed
 * (scripts/packaging/pack-once.ts) and installed into an empty project with nothing else (its dependencies
 * bring the mock server that cgs-client-check starts, D279), and from there
 * - `cgs-client-check -- node node_modules/@creative-generation/exams/examples/client/tasks.js`
 *   (the README's command) passes the example client (exit 0): the JavaScript the package ships
 *   beside the example (issue #35; no tsx in the project);
 * - `cgs-webhooks-check --url --secret` passes the example receiver (exit 0), run from the
 *   project with the `standardwebhooks` the package brought;
 * - both refuse a flag they do not know with exit 2.
 *
 * Its own install (scripts/packaging/package.test.ts keeps its helpers to itself); a step of
 * `npm run test:proofs`, not of npm test (the pack, the install and the exam's real Retry-After waits).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const SLOW = 420_000;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

let work: string;
let project: string;
const children = new Set<ChildProcess>();

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** A command (a bin of the installed package, or `node`) run from the project to its end. */
function complete(command: string, args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; output: string }> {
  const bin = command === 'node' ? process.execPath : join(project, 'node_modules', '.bin', command);
  const child = spawn(bin, args, { cwd: project, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  children.add(child);
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => child.on('exit', (status) => (children.delete(child), resolve({ status, output }))));
}

/** Where the package ships its examples' JavaScript (issue #35): the README's command runs them from there. */
const SHIPPED_EXAMPLES = 'node_modules/@creative-generation/exams/examples';

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cgs-exam-package-'));
  project = join(work, 'project');
  mkdirSync(project);
  // Packed once for the package tests by the project's global setup (scripts/packaging/pack-once.ts): the
  // exams' package and the toolkit's packages below it (they are not on a registry), nothing else (D279).
  const tarballs = inject('packedTarballs');
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'sdk', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`);
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', ...['exams', 'mock', 'mock-core', 'contract'].map((dir) => tarballs[dir]!)], project);
}, SLOW);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  // Removing the installed projects takes more than vitest's 60 s on a slow disk (CI, stop 37): async, with its own timeout.
  if (work) await rm(work, { recursive: true, force: true });
}, SLOW);

describe('the exams from the installed package', () => {
  it('cgs-client-check passes the example client (exit 0), its reports in --out', async () => {
    const result = await complete('cgs-client-check', ['--seed', '2', '--out', 'exam-client', '--', process.execPath, `${SHIPPED_EXAMPLES}/client/tasks.js`]);
    expect(result.output).toMatch(/\[tasks\] done/);
    expect(result.status, result.output).toBe(0);
    const rules = JSON.parse(readFileSync(join(project, 'exam-client', 'rules.json'), 'utf8')) as { rules: { id: string; result: string }[] };
    expect(rules.rules.filter((r) => r.result === 'passed').map((r) => r.id)).toEqual(expect.arrayContaining(['CLIENT-001', 'CLIENT-005', 'CLIENT-019', 'CLIENT-023']));
  }, SLOW);

  it('cgs-client-check fails a faulty variant of it (exit 1)', async () => {
    const result = await complete('cgs-client-check', ['--seed', '2', '--out', 'exam-faulty', '--', process.execPath, `${SHIPPED_EXAMPLES}/client/tasks.js`], { EXAMPLE_CLIENT_FAULT: 'new-key-on-drop' });
    expect(result.status, result.output).toBe(1);
    expect(result.output).toMatch(/CLIENT-023/);
  }, SLOW);

  it('cgs-webhooks-check passes the example receiver on standardwebhooks (exit 0)', async () => {
    const receiver = spawn(process.execPath, [`${SHIPPED_EXAMPLES}/receiver/receiver.js`], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, WEBHOOK_SECRET: SECRET, PORT: '0' } });
    children.add(receiver);
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      receiver.stdout.on('data', (c: Buffer) => {
        output += c.toString();
        const m = /listening on (http:\/\/\S+)/.exec(output);
        if (m) resolve(m[1]!);
      });
      receiver.stderr.on('data', (c: Buffer) => (output += c.toString()));
      receiver.on('exit', (code) => reject(new Error(`the receiver exited ${code}:\n${output}`)));
    });
    const result = await complete('cgs-webhooks-check', ['--url', url, '--secret', SECRET, '--out', 'exam-webhooks']);
    receiver.kill('SIGTERM');
    expect(result.status, result.output).toBe(0);
    expect(readFileSync(join(project, 'exam-webhooks', 'junit.xml'), 'utf8')).toMatch(/<testsuite name="cgs-webhooks-check"/);
  }, SLOW);

  it.each([
    ['cgs-client-check', ['--no-such-flag', '--', 'true']],
    ['cgs-webhooks-check', ['--no-such-flag', '--url', 'http://127.0.0.1:9/', '--secret', SECRET]],
  ])('%s refuses a flag it does not know (exit 2, with the usage)', async (command, args) => {
    const result = await complete(command, args);
    expect(result.status, result.output).toBe(2);
    expect(result.output).toMatch(new RegExp(`usage: ${command}`));
  });
});
