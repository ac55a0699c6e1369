/**
 * Before the run: pick the target. With CONFORMANCE_BASE_URL set, check that it answers and that
 * accounts are available (the accounts hook of CONFORMANCE_HOOKS_URL, or CONFORMANCE_KEYS); a
 * target that serves the mock's /__mock and no hooks URL given gets its own /__hooks. Without it, start the mock
 * one per worker on a free loopback port with a control token (packages/mock/src/node/launch.ts: tsx in
 * the checkout, the compiled main.js in the package), and point the workers at them through the
 * environment (global-teardown.ts stops them),
 * its hooks included (CONFORMANCE_HOOKS_URL=<origin>/__hooks): the suite sets every scene through
 * the hooks, on the mock as on any target.
 */
import type { FullConfig } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { controlHeaders } from './fixtures/control.ts';
import { readEnv } from './fixtures/env.ts';
import { contractMismatch } from './fixtures/hooks.ts';
import { launchMock } from '../../mock/src/node/launch.ts';

const REPORT_DIR = process.env['CONFORMANCE_REPORT_DIR'] ? `${resolve(process.env['CONFORMANCE_REPORT_DIR'])}/` : fileURLToPath(new URL('../conformance-report/', import.meta.url));

/**
 * The mock's control plane answers GET /__mock/clock with `{ now, mode }`. A mock started with a
 * control token answers 401 without it (or with another): that stops the run, with what to set.
 */
async function servesControlPlane(origin: string, token: string | undefined): Promise<boolean> {
  let response: Response;
  try {
    response = await fetch(`${origin}/__mock/clock`, { headers: controlHeaders(token), signal: AbortSignal.timeout(5_000) });
  } catch {
    return false;
  }
  if (response.status === 401 && (response.headers.get('www-authenticate') ?? '').includes('mock-control')) {
    throw new Error(
      token === undefined
        ? `${origin}/__mock needs a control token (the mock was started with --control-token): set CONFORMANCE_CONTROL_TOKEN`
        : `${origin}/__mock refused the control token of CONFORMANCE_CONTROL_TOKEN (401)`,
    );
  }
  try {
    if (response.status !== 200) return false;
    const body = (await response.json()) as { now?: unknown; mode?: unknown };
    return typeof body.now === 'string' && (body.mode === 'manual' || body.mode === 'real');
  } catch {
    return false;
  }
}

async function startMock(index: number, controlToken: string): Promise<{ baseURL: string; pid: number }> {
  mkdirSync(REPORT_DIR, { recursive: true });
  const mock = await launchMock({
    // The control token by environment, not on the command line (where `ps` would show it). The
    // mock serves the version the suite checks against (CONFORMANCE_API_VERSION, default current),
    // unless MOCK_API_VERSION says otherwise (npm run conformance:previous sets it).
    env: { CGS_CONTROL_TOKEN: controlToken, MOCK_API_VERSION: process.env['MOCK_API_VERSION'] || process.env['CONFORMANCE_API_VERSION'] || 'current' },
    controlToken,
    log: `${REPORT_DIR}mock-${index}.log`,
    stopWithParent: true,
    unref: true,
  });
  return { baseURL: `${mock.origin}/api/public/v1`, pid: mock.child.pid! };
}

/**
 * Whether `hooksURL` answers GET /capabilities with 200 (a 401 stops the run, with what to set; so
 * does a `contractVersion` of another major than the suite's, naming both, D200).
 */
async function servesHooks(hooksURL: string, token: string | undefined): Promise<boolean> {
  let response: Response;
  try {
    response = await fetch(`${hooksURL}/capabilities`, { headers: controlHeaders(token), signal: AbortSignal.timeout(5_000) });
  } catch {
    return false;
  }
  if (response.status === 401) {
    throw new Error(`${hooksURL} needs the hooks token: set CONFORMANCE_HOOKS_TOKEN (or CONFORMANCE_CONTROL_TOKEN)${token === undefined ? '' : '; the one given was refused'}`);
  }
  const body = (await response.json().catch(() => undefined)) as { contractVersion?: unknown } | undefined;
  if (response.status !== 200) return false;
  const mismatch = typeof body?.contractVersion === 'string' ? contractMismatch(hooksURL, body.contractVersion) : undefined;
  if (mismatch !== undefined) throw new Error(mismatch);
  return true;
}

export default async function globalSetup(config: FullConfig): Promise<void> {
  if (process.env['CONFORMANCE_BASE_URL'] && process.env['CONFORMANCE_LOCAL_MOCK'] !== '1') {
    delete process.env['CONFORMANCE_LOCAL_MOCK'];
    const env = readEnv();
    const origin = new URL(env.baseURL!).origin;
    const hasControlPlane = await servesControlPlane(origin, env.controlToken);
    // A mock given as the target (it serves /__mock) serves its hooks beside it (D140).
    if (env.hooksURL === undefined && hasControlPlane && (await servesHooks(`${origin}/__hooks`, env.hooksToken))) {
      process.env['CONFORMANCE_HOOKS_URL'] = `${origin}/__hooks`;
    }
    const hooksURL = process.env['CONFORMANCE_HOOKS_URL'];
    const hooks = hooksURL === undefined ? false : await servesHooks(hooksURL.replace(/\/+$/, ''), env.hooksToken);
    if (hooksURL !== undefined && !hooks) throw new Error(`CONFORMANCE_HOOKS_URL=${hooksURL} does not answer GET /capabilities with 200`);
    if (!hooks && !env.keys) {
      throw new Error(`${env.baseURL}: no accounts hook (CONFORMANCE_HOOKS_URL) and no CONFORMANCE_KEYS: set CONFORMANCE_KEYS to a JSON object of profile name → key (read, runs:read, runs:write, ...)`);
    }
    console.log(
      `conformance: target ${env.baseURL} (${hooks ? `hooks at ${hooksURL}` : 'no hooks'}; ${hasControlPlane ? 'with' : 'without'} the /__mock control plane for leases; @spend ${env.allowSpend ? 'on' : 'off'}; assumptions ${env.assumptions})`,
    );
    return;
  }
  // One mock per worker slot: each worker owns its mock's clock, so no test sees time moved by a
  // test of another worker (window-sensitive checks stay exact).
  // Each started with a control token (CONFORMANCE_CONTROL_TOKEN, or a random one), which the
  // fixtures send on every control request: every run proves the suite passes it through.
  const controlToken = process.env['CONFORMANCE_CONTROL_TOKEN'] || `ctl_${randomBytes(24).toString('hex')}`;
  const count = Math.max(1, config.workers);
  const mocks = await Promise.all(Array.from({ length: count }, (_, i) => startMock(i, controlToken)));
  process.env['CONFORMANCE_CONTROL_TOKEN'] = controlToken;
  process.env['CONFORMANCE_BASE_URL'] = mocks[0]!.baseURL;
  // Each worker uses the hooks of its own mock (env.ts); this names the first one's.
  process.env['CONFORMANCE_HOOKS_URL'] = `${new URL(mocks[0]!.baseURL).origin}/__hooks`;
  process.env['CONFORMANCE_LOCAL_MOCK_URLS'] = mocks.map((m) => m.baseURL).join(',');
  process.env['CONFORMANCE_LOCAL_MOCK'] = '1';
  process.env['CONFORMANCE_MOCK_PID'] = mocks.map((m) => m.pid).join(',');
  process.env['CONFORMANCE_ALLOW_SPEND'] = '1';
  console.log(`conformance: started ${count} mock(s), one per worker, at ${mocks.map((m) => m.baseURL).join(', ')} (manual clocks, hooks at <origin>/__hooks; logs in ${REPORT_DIR}mock-<n>.log)`);
}
