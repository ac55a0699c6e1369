/**
 * globalSetup against a target given by URL refuses, before any test, hooks of another major
 * version of the contract than the suite's, naming both versions (D200); the same major passes.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FullConfig } from '@playwright/test';
import { afterEach, describe, expect, it } from 'vitest';
import globalSetup from './global-setup.ts';
import { SUITE_HOOKS_VERSION } from './fixtures/hooks.ts';

const NAMES = ['CONFORMANCE_BASE_URL', 'CONFORMANCE_HOOKS_URL', 'CONFORMANCE_LOCAL_MOCK', 'CONFORMANCE_KEYS', 'CONFORMANCE_CONTROL_TOKEN', 'CONFORMANCE_HOOKS_TOKEN'];
const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
let server: Server | undefined;

afterEach(async () => {
  for (const name of NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

/** A target without /__mock whose hooks report `contractVersion`; answers its origin. */
async function target(contractVersion: string): Promise<string> {
  server = createServer((req, res) => {
    if (req.url === '/__hooks/capabilities') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ contractVersion, hooks: ['accounts'] }));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function setUp(contractVersion: string): Promise<void> {
  const origin = await target(contractVersion);
  for (const name of NAMES) delete process.env[name];
  process.env['CONFORMANCE_BASE_URL'] = `${origin}/api/public/v1`;
  process.env['CONFORMANCE_HOOKS_URL'] = `${origin}/__hooks`;
  await globalSetup({ workers: 1 } as FullConfig);
}

describe('globalSetup and the hooks contract version', () => {
  const [major, minor] = SUITE_HOOKS_VERSION.split('.').map(Number) as [number, number];
  it.each([
    ['another major version is refused, naming both', `${major + 1}.0.0`, true],
    ['any other major version', `${major + 2}.3.1`, true],
    ['the same major version, another minor, is judged', `${major}.${minor + 5}.0`, false],
  ])('%s', async (_, contractVersion, refused) => {
    const run = setUp(contractVersion);
    if (refused) await expect(run).rejects.toThrow(new RegExp(`hooks contract ${contractVersion.replace(/\./g, '\\.')}, and this suite the hooks contract ${SUITE_HOOKS_VERSION.replace(/\./g, '\\.')}`));
    else await expect(run).resolves.toBeUndefined();
  });
});
