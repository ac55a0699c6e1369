/**
 * `npm start -- --cors …`: the flags reach the server (one real start), and a malformed origin
 * stops the start.
 */
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// node itself with tsx's loader, not the tsx command: tsx runs the script in a child process of its
// own, which a SIGKILL of the command leaves running (a mock left behind after every run).
const node = process.execPath;
const withTsx = (args: string[]) => ['--import', 'tsx', ...args];

function env(): NodeJS.ProcessEnv {
  const out = { ...process.env };
  delete out['PORT'];
  delete out['HOST'];
  return out;
}

describe('the --cors flags of npm start', () => {
  it('--cors-origin restricts CORS to the listed origins, and the start prints it with the /docs/ URL', async () => {
    const child = spawn(node, withTsx(['packages/mock/src/node/main.ts', '--port', '0', '--clock', 'manual', '--cors-origin', 'http://localhost:3000,http://127.0.0.1:5173']), { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      const origin = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the mock did not start:\n${out}`)), 30_000);
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /listening on (http:\/\/[^/]+)\//.exec(out);
          if (match && out.includes('CORS:')) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
        child.on('exit', (code) => reject(new Error(`the mock exited with ${code}:\n${out}`)));
      });
      expect(out).toContain(`API reference: ${origin}/docs/`);
      expect(out).toContain('CORS: on for http://localhost:3000, http://127.0.0.1:5173');
      const preflight = (from: string) => fetch(`${origin}/api/public/v1/products`, { method: 'OPTIONS', headers: { origin: from, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
      expect((await preflight('http://127.0.0.1:5173')).headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:5173');
      expect((await preflight('http://localhost:4000')).headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('an origin with a path (a trailing slash) stops the start: a browser never sends one', () => {
    const run = spawnSync(node, withTsx(['packages/mock/src/node/main.ts', '--port', '0', '--cors-origin', 'http://localhost:3000/']), { env: env(), encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--cors-origin takes origins such as http://localhost:3000, not "http://localhost:3000/"');
  });
});
