/**
 * `--scenario FILE` at start (D254, D255): a refusal is one paragraph and exit 1 (no stack trace),
 * whatever the file holds; with `--state`, a scenario is made once into the state (its content hash
 * recorded), a restart with the same file makes nothing, a file of other content is made.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchControl } from '../control/routes.ts';
import { Store } from '../domain/store.ts';
import { restoreState, serializeState, parseSnapshot } from '../../../mock/src/node/persistence.ts';
import { createHarness } from '../testkit/harness.ts';
import { scenarioAtStart, scenarioRefusal } from './start.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cgs-scenario-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ONE = 'scenario: 1\naccounts:\n  - as: shop\n    account: { name: Shop, empty: true }\n';
const OTHER = 'scenario: 1\naccounts:\n  - account: { name: Other, empty: true }\n';

/** Runs the mock with `args` until it prints its control plane line (then SIGTERM) or exits; its output and exit code. */
function run(args: string[]): Promise<{ code: number | null; out: string }> {
  const { PORT: _port, HOST: _host, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/mock/src/node/main.ts', '--port', '0', '--clock', 'manual', ...args], { cwd: process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listen = (chunk: Buffer): void => {
    out += chunk.toString();
    if (out.includes('Control plane:')) child.kill('SIGTERM');
  };
  child.stdout.on('data', listen);
  child.stderr.on('data', listen);
  const killer = setTimeout(() => child.kill('SIGKILL'), 45_000);
  // 'close', not 'exit': the output is read to its end (exit may come before the last of stdout).
  return new Promise((resolve) => child.on('close', (code) => (clearTimeout(killer), resolve({ code, out }))));
}

describe('the console message of a refused --scenario', () => {
  it('names each problem at file:line:column, after what went wrong', async () => {
    const h = await createHarness();
    try {
      const error = await scenarioAtStart({ services: h.mock.services, dispatch: () => Promise.reject(new Error('not reached')) }, 'scenario: 1\naccounts:\n  - colour: red\n', 'a.yaml', false).catch((e: unknown) => e);
      expect(scenarioRefusal('a.yaml', error)).toMatch(/^--scenario a\.yaml was not loaded: a\.yaml does not follow .*\n {2}a\.yaml:3:\d+ accounts\[0\]\.colour: is not a field here$/);
    } finally {
      await h.close();
    }
  });
});

describe('npm start -- --scenario FILE', { timeout: 120_000 }, () => {
  const laughs = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]', ...'bcdefg'.split('').map((n, i) => `${n}: &${n} [${Array(9).fill(`*${'abcdefg'[i]}`).join(', ')}]`), ''].join('\n');
  for (const [name, text, said] of [
    ['an empty file', '', /must be object/],
    ['an alias bomb', laughs, /maxAliasCount/],
  ] as const) {
    it(`${name}: exit 1 with one paragraph, no stack trace`, async () => {
      const file = join(dir, `${name.replaceAll(' ', '-')}.yaml`);
      writeFileSync(file, text);
      const { code, out } = await run(['--scenario', file]);
      expect(code, out).toBe(1);
      expect(out).toMatch(said);
      expect(out).toContain(`mock: --scenario ${file} was not loaded:`);
      expect(out, 'a stack trace').not.toMatch(/\n\s+at /);
      expect(out).not.toMatch(/\n\s*\n/); // one paragraph
    });
  }

  it('with --state: the same scenario is made once (2 accounts after three starts); another file is made as well', async () => {
    const state = join(dir, 'state.json');
    const one = join(dir, 'one.yaml');
    const other = join(dir, 'other.yaml');
    writeFileSync(one, ONE);
    writeFileSync(other, OTHER);
    const first = await run(['--state', state, '--scenario', one]);
    expect(first.code, first.out).toBe(0);
    expect(first.out).toMatch(/State saved to .*\(2 accounts/);
    const second = await run(['--state', state, '--scenario', one]);
    expect(second.code, second.out).toBe(0);
    expect(second.out).toMatch(/Scenario .*one\.yaml \(sha256 [0-9a-f]{12}\) was made into this state at .*; not made again\./);
    expect(second.out).toMatch(/State saved to .*\(2 accounts/);
    const third = await run(['--state', state, '--scenario', other]);
    expect(third.code, third.out).toBe(0);
    expect(third.out).toMatch(/State saved to .*\(3 accounts/);
  });
});

describe('the record of made scenarios (Store.scenarios)', () => {
  it('is saved with the state and read back, so the next start finds it', async () => {
    const h = await createHarness();
    try {
      const services = h.mock.services;
      const target = { services, dispatch: (request: { method: string; url: string; body?: string | undefined }) => dispatchControl(services, {}, { ...request, headers: {} }) };
      const made = await scenarioAtStart(target, ONE, 'one.yaml', true);
      expect('made' in made).toBe(true);
      const store = new Store();
      restoreState(store, parseSnapshot(serializeState(h.mock.services.store, h.clock)));
      expect(store.scenarios.get(made.hash)).toMatchObject({ name: 'one.yaml', accountIds: [expect.any(String)] });
      // Once in the same state: found, nothing made.
      const before = h.mock.services.store.accounts.size;
      const again = await scenarioAtStart(target, ONE, 'one.yaml', true);
      expect('already' in again).toBe(true);
      expect(h.mock.services.store.accounts.size).toBe(before);
      // Without --state every start is a fresh store: made again.
      expect('made' in (await scenarioAtStart(target, ONE, 'one.yaml', false))).toBe(true);
    } finally {
      await h.close();
    }
  });
});
