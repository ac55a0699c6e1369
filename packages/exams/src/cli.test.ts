/**
 * The exams' command lines: bad options are exit 2 with the usage; the reports are written in the
 * suite's three forms from one run (a receiver on 127.0.0.1 that accepts everything: exit 1, its
 * violations in the console, rules.md and junit.xml).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { clientCheck, parseTasks } from './client-cli.ts';
import { webhooksCheck } from './webhooks-cli.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const out = mkdtempSync(join(tmpdir(), 'exam-cli-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('the exams\' command lines', () => {
  it.each([
    ['cgs-client-check without a command', () => clientCheck(['--seed', '1'])],
    ['cgs-client-check with a bad seed', () => clientCheck(['--seed', '-1', '--', 'true'])],
    ['cgs-client-check with a task outside the list', () => clientCheck(['--tasks', '1-11', '--', 'true'])],
    ['cgs-client-check with an unknown --require', () => clientCheck(['--require', 'pinned', '--', 'true'])],
    ['cgs-webhooks-check without a secret', () => webhooksCheck(['--url', 'http://127.0.0.1:9/'])],
    ['cgs-webhooks-check with a malformed secret', () => webhooksCheck(['--url', 'http://127.0.0.1:9/', '--secret', 'whsec_short'])],
    ['cgs-webhooks-check with a URL that is not http', () => webhooksCheck(['--url', 'ftp://127.0.0.1/', '--secret', SECRET])],
  ])('%s: exit 2 with the usage', async (_name, run) => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await run()).toBe(2);
      expect(errors.mock.calls.flat().join('\n')).toMatch(/usage: cgs-/);
    } finally {
      errors.mockRestore();
    }
  });

  it('cgs-webhooks-check against a receiver that accepts everything: exit 1, and the console, rules.json, rules.md and junit.xml say which rules failed and why', async () => {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(200).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const logs = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      expect(await webhooksCheck(['--url', url, '--secret', SECRET, '--out', out])).toBe(1);
      const printed = logs.mock.calls.flat().join('\n');
      expect(printed).toMatch(/FAIL RECV-003/);
      expect(printed).toMatch(/#\d+ garbled signature: .* answered 200, expected non-2xx/);
      const json = JSON.parse(readFileSync(join(out, 'rules.json'), 'utf8')) as { summary: Record<string, number>; rules: { id: string; result: string }[] };
      expect(json.rules.filter((r) => r.result === 'failed').map((r) => r.id).sort()).toEqual(['RECV-001', 'RECV-002', 'RECV-003', 'RECV-005']);
      expect(readFileSync(join(out, 'rules.md'), 'utf8')).toMatch(/### RECV-002\n\n> A receiver verifies every delivery/);
      expect(readFileSync(join(out, 'junit.xml'), 'utf8')).toMatch(/<testcase classname="cgs-webhooks-check" name="RECV-003 [^"]*"><failure message="RECV-003 violated">/);
    } finally {
      logs.mockRestore();
      server.close();
    }
  });

  it('--tasks: none, numbers and ranges of the task list', () => {
    expect(parseTasks('1-9')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(parseTasks('10,1-3, 3')).toEqual([1, 2, 3, 10]);
    expect(parseTasks('none')).toEqual([]);
    expect([parseTasks('0'), parseTasks('11'), parseTasks('3-1'), parseTasks('a')]).toEqual([undefined, undefined, undefined, undefined]);
  });

  // D259: exit 1 is the program's fault (a failed run, an undone declared task), exit 2 only the exam's or the environment's
  it.each([
    ['a program that does nothing, tasks 1-9 declared (the default)', [], ['node', '-e', ''], 1, /FAIL task 1: list every creative/],
    ['the same under --require none', ['--require', 'none'], ['node', '-e', ''], 0, /-\s+task 1: list every creative to the end, in small pages \(undone\)/],
    ['the same declaring no task', ['--tasks', 'none'], ['node', '-e', ''], 0, /task 1: .*\(not declared\)/],
    ['a program that exits 3', ['--require', 'none'], ['node', '-e', 'process.exit(3)'], 1, /FAIL the program: the program exited 3 before its first request/],
    // The cause leads the report (the line after the title), with the program's stderr, not buried under nine undone tasks.
    ['a program that dies before its first request (a module not found)', [], ['node', '-e', "console.error('node:internal/modules/run_main:123'); console.error('Error [ERR_MODULE_NOT_FOUND]: Cannot find package tsx'); for (let i = 1; i <= 8; i++) console.error('    at frame' + i); console.error('Node.js v20'); process.exit(1)"], 1, /^cgs-client-check \(seed 1\)\n {2}FAIL the program: the program exited 1 before its first request; its stderr ended:\n {4}\| Error \[ERR_MODULE_NOT_FOUND\]: Cannot find package tsx\n {4}\| \.\.\.\n(?: {4}\| .*\n){3} {4}\| Node\.js v20\n {2}mock started/],
    ['a program that cannot start', [], ['./no-such-program-here'], 2, /could not run: the command did not start/],
  ])('cgs-client-check, %s', async (_name, flags, command, code, printed) => {
    const logs = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      expect(await clientCheck([...flags, '--out', join(out, 'client'), '--', ...command])).toBe(code);
      expect(logs.mock.calls.flat().join('\n')).toMatch(printed);
    } finally {
      logs.mockRestore();
    }
  });
});
