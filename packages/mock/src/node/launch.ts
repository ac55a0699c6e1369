/**
 * Starting the node mock from another process, in one place: `freePort` and `launchMock` (spawn
 * main, wait until its control plane answers, stop it with its process group). Used by the suite's
 * global setup (which the package ships), the defect proof and the benchmarks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { createServer } from 'node:net';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A TCP port on 127.0.0.1 that was free a moment ago (listen on 0, read the port, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** main beside this module: main.ts through tsx in the checkout, main.js in the package. */
const MAIN = fileURLToPath(new URL(`./main${extname(fileURLToPath(import.meta.url))}`, import.meta.url));
/** The checkout's root (the package's dist/ once built): where tsx is found. */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Runs the mock and stops it when its stdin closes, which happens when the launching process exits
 * in any way (also when it is killed), so that no mock outlives it.
 */
const WATCHDOG = `
const { spawn } = require('node:child_process');
const [command, ...args] = process.argv.slice(1);
const mock = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
const stop = () => { if (mock.exitCode === null) mock.kill('SIGTERM'); };
process.stdin.on('end', stop).on('error', stop).resume();
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
mock.on('exit', (code) => process.exit(code ?? 0));
`;

export interface LaunchOptions {
  /** Flags after `--port P --host 127.0.0.1 --clock <clock>` (`--defect NAME`, ...). */
  args?: readonly string[];
  /** Node's own flags before the module (`--cpu-prof`, ...). */
  nodeArgs?: readonly string[];
  clock?: 'manual' | 'real';
  /** Added to this process's environment (CGS_CONTROL_TOKEN, MOCK_API_VERSION, ...). */
  env?: NodeJS.ProcessEnv;
  /** Sent on the readiness probe: the token the mock was started with, if any. */
  controlToken?: string;
  /** Where stdout and stderr go: a file (truncated), or kept in memory (`output()`, the last 20,000 characters). */
  log?: string;
  /** Stop the mock when this process exits in any way (a watchdog between the two; implies its own process group). */
  stopWithParent?: boolean;
  /** Let this process exit while the mock runs (the suite's global setup; teardown stops it by pid). */
  unref?: boolean;
  timeoutMs?: number;
  /** A port of the caller's choosing (one attempt); by default a free one, tried up to three times. */
  port?: number;
}

export interface LaunchedMock {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  child: ChildProcess;
  /** What it printed so far (empty when it logs to a file). */
  output(): string;
  /** SIGTERM to its process group, SIGKILL after 5 s. */
  stop(): Promise<void>;
  /** A signal to its process group, at once (for an `exit` handler, which cannot wait). */
  kill(signal?: NodeJS.Signals): void;
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Starts `main --port <free> --host 127.0.0.1 --clock manual` in its own process group and waits
 * until GET /__mock/clock answers 200 (the demo account is seeded by then). A mock that exits at
 * start (a port taken meanwhile) is tried again, three times in all.
 */
export async function launchMock(options: LaunchOptions = {}): Promise<LaunchedMock> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  let lastOutput = '';
  for (let attempt = 1; attempt <= (options.port === undefined ? 3 : 1); attempt += 1) {
    const port = options.port ?? (await freePort());
    const origin = `http://127.0.0.1:${port}`;
    const command = [process.execPath, ...(options.nodeArgs ?? []), ...(MAIN.endsWith('.ts') ? ['--import', 'tsx'] : []), MAIN, '--port', String(port), '--host', '127.0.0.1', '--clock', options.clock ?? 'manual', ...(options.args ?? [])];
    const out = options.log === undefined ? 'pipe' : openSync(options.log, 'w');
    const child = options.stopWithParent
      ? spawn(process.execPath, ['-e', WATCHDOG, ...command], { cwd: ROOT, env: { ...process.env, ...options.env }, stdio: ['pipe', out, out], detached: true })
      : spawn(command[0]!, command.slice(1), { cwd: ROOT, env: { ...process.env, ...options.env }, stdio: ['ignore', out, out], detached: true });
    // The watchdog's stdin stays open for as long as this process lives (without keeping it alive).
    if (options.stopWithParent) (child.stdin as unknown as { unref(): void }).unref();
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let exited = false;
    child.once('exit', () => (exited = true));
    const launched: LaunchedMock = {
      origin,
      child,
      output: () => output,
      kill: (signal = 'SIGTERM') => signalGroup(child, signal),
      stop: async () => {
        signalGroup(child, 'SIGTERM');
        const deadline = Date.now() + 5_000;
        while (child.exitCode === null && child.signalCode === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
        signalGroup(child, 'SIGKILL');
      },
    };
    const deadline = Date.now() + timeoutMs;
    while (!exited && Date.now() < deadline) {
      try {
        const response = await fetch(`${origin}/__mock/clock`, { headers: options.controlToken ? { authorization: `Bearer ${options.controlToken}` } : {}, signal: AbortSignal.timeout(2_000) });
        await response.arrayBuffer();
        if (response.status === 200) {
          if (options.unref) child.unref();
          return launched;
        }
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    lastOutput = output;
    if (!exited) {
      await launched.stop();
      throw new Error(`the mock did not answer at ${origin} within ${timeoutMs} ms${options.log ? `; see ${options.log}` : `:\n${output}`}`);
    }
  }
  throw new Error(`the mock exited three times at start${options.log ? `; see ${options.log}` : `:\n${lastOutput}`}`);
}
