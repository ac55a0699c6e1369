/** `npm run conformance:previous -- --help` documents its options, --expect-failures among them (issue #25 item 9). */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../packages/contract/spec/versions.ts';

const run = (args: string[]) => spawnSync(join(ROOT, 'node_modules/.bin/tsx'), ['scripts/conformance-previous.ts', ...args], { cwd: ROOT, encoding: 'utf8' });

describe('conformance:previous --help', () => {
  it('prints the usage with every option explained and exits 0', () => {
    const help = run(['--help']);
    expect(help.status, help.stderr).toBe(0);
    for (const option of ['--ref', '--api-version', '--grep', '--expect-failures', '--help']) expect(help.stdout).toContain(option);
    expect(help.stdout).toMatch(/--expect-failures <regex> succeed only when the failed tests are exactly those/);
  }, 60_000);

  it('still refuses an unknown option (exit 2, with the usage)', () => {
    const wrong = run(['--nope']);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('usage: npm run conformance:previous');
  }, 60_000);
});
