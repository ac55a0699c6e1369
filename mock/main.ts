/**
 * `npm start`: serve the stateful mock at http://HOST:PORT/api/public/v1 and print the demo keys.
 * Flags: --port N (or PORT), --host H (or HOST), --seed N, --clock real|manual.
 */
import { parseArgs } from 'node:util';
import { buildMock } from './app.ts';
import { Clock } from './clock.ts';
import { createAccount, provisionKeys } from './domain/accounts/service.ts';
import { seedAccount } from './seed/demo.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '4010' },
    host: { type: 'string', default: process.env.HOST ?? '127.0.0.1' },
    seed: { type: 'string', default: '42' },
    clock: { type: 'string', default: 'real' },
  },
});

const clockMode = values.clock === 'manual' ? 'manual' : 'real';
const clock = new Clock({ mode: clockMode });
const { app, services } = buildMock({ clock });
const seed = Number(values.seed);
const now = clock.now();
const demo = createAccount(services.store, { accountId: 'acc_demo', name: 'Demo account', tier: 'enterprise', seed, now });
seedAccount(demo, { now, seed });
const keys = provisionKeys(services.store, demo, now, `demo-seed-${seed}`);

const port = Number(values.port);
await app.listen({ port, host: values.host });
const base = `http://${values.host}:${port}/api/public/v1`;
console.log(`Creative Generation Service mock listening on ${base} (clock: ${clockMode}, seed: ${seed})`);
console.log('Demo account acc_demo keys (stable for this seed):');
for (const [name, k] of Object.entries(keys)) console.log(`  ${name.padEnd(17)} ${k.key}`);
console.log(`Control plane: http://${values.host}:${port}/__mock`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}
