/** `npm run contract:diff`: the JSON shape and the exit statuses (0 is the gate step of npm test). */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, loadSource, versionOf } from '../packages/contract/spec/versions.ts';

const run = (...args: string[]) => spawnSync(join(ROOT, 'node_modules/.bin/tsx'), ['scripts/contract-diff.ts', ...args], { cwd: ROOT, encoding: 'utf8' });

describe('npm run contract:diff', () => {
  it('prints one JSON object for tools and exits 1 when the policy refuses (working → next without its notice dates)', () => {
    const result = run('--base', 'working', '--head', 'next', '--format', 'json');
    expect(result.status, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout) as { base: string; head: string; allowed: boolean; changes: { severity: string; location: string; message: string }[] };
    expect(Object.keys(report)).toEqual(['base', 'head', 'allowed', 'changes']);
    expect(report).toMatchObject({ base: versionOf(loadSource('working')), head: versionOf(loadSource('next')), allowed: false });
    expect(report.changes.filter((c) => c.severity === 'breaking')).toHaveLength(24);
    expect(report.changes[0]).toEqual({ severity: 'breaking', location: 'GET /products › response 429', message: 'media type changed from text/plain to application/problem+json' });
    expect(new Set(report.changes.map((c) => c.severity))).toEqual(new Set(['breaking', 'documentation']));
  });

  it('the default diff leads with the changes since git HEAD, then those since the last release (V11)', () => {
    const result = run();
    expect(result.status, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[2]).toMatch(/^### Since HEAD \(git\): /);
    expect(lines.findIndex((l) => l.startsWith('### Since HEAD'))).toBeLessThan(lines.findIndex((l) => l.startsWith('Changes from ')));
    expect(run('--since', 'no-such-ref-or-file').status).toBe(2);
  });

  it('exits 2 on unreadable input, saying which', () => {
    const result = run('--base', 'no-such-ref-or-file', '--head', 'working');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('no-such-ref-or-file: not a file, a directory, a release or a git ref');
    expect(run('--format', 'xml').status).toBe(2);
  });
});
