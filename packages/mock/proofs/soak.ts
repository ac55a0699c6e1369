/**
 * `npm run soak`: the concurrency soak on loopback (packages/mock/proofs/lib/soak.ts). Starts the mock on
 * 127.0.0.1 (port 0) in this process, runs many keep-alive clients over real sockets for a bounded
 * time and number of requests, runs the exact concurrency scenarios under that load, and prints the
 * figures (requests, statuses, 5xx, invariants checked, latency, heap after forced GC). Exit code 1
 * when anything failed. Run with `node --expose-gc` (the npm script does); without it the flag is
 * switched on at run time.
 *
 *   --seconds S      length of the mixed load (default 60)
 *   --clients C      concurrent clients (default 16)
 *   --seed X         seed of the clients' choices (default 1)
 *   --requests N     stop the mixed load after N requests (default: time only)
 */
import { parseArgs } from 'node:util';
import { formatSoakFigures, runSoak } from './lib/soak.ts';

function fail(message: string): never {
  console.error(`soak: ${message}`);
  process.exit(2);
}

function integer(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) fail(`--${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  return value;
}

let values: Record<string, string | undefined>;
try {
  ({ values } = parseArgs({
    options: { seconds: { type: 'string' }, clients: { type: 'string' }, seed: { type: 'string' }, requests: { type: 'string' } },
    strict: true,
    allowPositionals: false,
  }) as { values: Record<string, string | undefined> });
} catch (error) {
  fail(`${(error as Error).message}\nusage: npm run soak -- [--seconds S] [--clients C] [--seed X] [--requests N]`);
}

// Bounded: at most an hour, 200 clients (loopback only).
const seconds = integer('seconds', values.seconds, 60, 1, 3600);
const clients = integer('clients', values.clients, 16, 1, 200);
const seed = integer('seed', values.seed, 1, 0, 2 ** 31 - 1);
const maxRequests = values.requests === undefined ? undefined : integer('requests', values.requests, 0, 1, 10_000_000);
const command = ['npm run soak --', `--seconds ${seconds}`, `--clients ${clients}`, `--seed ${seed}`, ...(maxRequests ? [`--requests ${maxRequests}`] : [])].join(' ');

console.log(`soak: ${command}`);
const { figures, failures } = await runSoak({ seconds, clients, seed, ...(maxRequests ? { maxRequests } : {}), log: (line) => console.log(line) });
console.log(formatSoakFigures(figures));
if (failures.length > 0) {
  console.error(`\nsoak FAILED:\n${failures.join('\n')}`);
  process.exit(1);
}
console.log(`\nreproduce: ${command}`);
process.exit(0);
