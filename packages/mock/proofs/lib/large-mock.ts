/**
 * The mock with two benchmark accounts, for the O(page) check of `npm run bench`: one with
 * `--small` readable creatives (default 100) and one with `--large` (default 100,000), both made by
 * seedLarge (packages/mock-core/src/seed/demo.ts) on an empty catalog, manual clock. Prints one line of JSON once it
 * listens: {"port", "pid", "seedMs", "accounts": {"small": {accountId, readKey}, "large": {...}}}.
 *
 *   node --import tsx packages/mock/proofs/lib/large-mock.ts [--port N] [--small N] [--large N] [--response-cache on|off]
 *
 * The response cache (packages/mock-core/src/pipeline/response-cache.ts) is off by default here: the O(page) check
 * measures the cost of computing a page, not of resending kept bytes.
 *
 * Everything else is the ordinary mock (buildMock from packages/mock/src/node/app.ts), control plane included.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { buildMock } from '../../src/node/app.ts';
import { Clock } from '../../../mock-core/src/core/clock.ts';
import { createAccount, provisionKeys } from '../../../mock-core/src/domain/accounts/service.ts';
import { seedLarge } from '../../../mock-core/src/seed/demo.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    small: { type: 'string', default: '100' },
    large: { type: 'string', default: '100000' },
    'response-cache': { type: 'string', default: 'off' },
  },
  strict: true,
});

const clock = new Clock({ mode: 'manual' });
if (!['on', 'off'].includes(values['response-cache'])) throw new Error('--response-cache is on or off');
const { app, services } = buildMock({ clock, responseCache: { enabled: values['response-cache'] === 'on' } });
const now = clock.now();

const t0 = performance.now();
const accounts: Record<string, { accountId: string; readKey: string; creatives: number }> = {};
for (const [name, creatives] of [
  ['small', Number(values.small)],
  ['large', Number(values.large)],
] as const) {
  const account = createAccount(services.store, { name: `Benchmark ${name}`, tier: 'enterprise', now, seed: 7 });
  seedLarge(account, { now, seed: 7, creatives });
  const keys = provisionKeys(services.store, account, now);
  accounts[name] = { accountId: account.accountId, readKey: keys.read!.key, creatives };
}
const seedMs = Math.round(performance.now() - t0);

await app.listen({ port: Number(values.port), host: '127.0.0.1' });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : Number(values.port);
process.stdout.write(`${JSON.stringify({ port, pid: process.pid, seedMs, accounts })}\n`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
