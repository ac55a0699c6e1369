/**
 * Smoke test: Prism 5.14.2 (`npm run mock:prism`) can serve the document and its static answer to
 * GET /creatives is a valid CreativeList. Prism serves the paths without the /api/public/v1 base.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validatorFor } from './contract.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const STARTUP_LIMIT_MS = 30_000;
const API_KEY = `cgs_${'0123456789abcdef'.repeat(4)}`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

let prism: ChildProcess | undefined;
let output = '';
let baseUrl = '';

async function waitUntilAnswering(): Promise<void> {
  const deadline = Date.now() + STARTUP_LIMIT_MS;
  while (Date.now() < deadline) {
    if (prism?.exitCode !== null) throw new Error(`prism exited (${String(prism?.exitCode)}):\n${output}`);
    try {
      await fetch(`${baseUrl}/products`, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`prism did not answer within ${STARTUP_LIMIT_MS} ms:\n${output}`);
}

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  prism = spawn(join(root, 'node_modules', '.bin', 'prism'), ['mock', join(root, 'packages', 'contract', 'spec', 'openapi.yaml'), '--host', '127.0.0.1', '--port', String(port)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  prism.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  prism.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitUntilAnswering();
}, STARTUP_LIMIT_MS + 5_000);

afterAll(async () => {
  const child = prism;
  if (child === undefined || child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
});

describe('prism mock', () => {
  it('answers GET /creatives with a valid CreativeList', async () => {
    const response = await fetch(`${baseUrl}/creatives`, { headers: { authorization: `Bearer ${API_KEY}` } });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
    const validate = validatorFor('#/components/schemas/CreativeList');
    expect(validate(JSON.parse(text)), JSON.stringify(validate.errors)).toBe(true);
  });
});
