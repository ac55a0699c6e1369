/**
 * The demo account of `--seed N` (and of `createMockHandlers({ seed })`): always the same id, data
 * and keys for a seed. One place for the server (packages/mock/src/node/main.ts) and the in-process handlers
 * (packages/msw/src/msw.ts).
 */
import type { MockServices } from '../services/services.ts';
import { SCOPES } from '../domain/accounts/model.ts';
import { createAccount, provisionKeys } from '../domain/accounts/service.ts';
import { hashKey } from '../domain/accounts/keys.ts';
import { sha256Hex } from '../../../contract/platform/crypto.ts';

export const DEMO_ACCOUNT_ID = 'acc_demo';

/** Creates the demo account of a seed: its data (packages/mock-core/src/seed/demo.ts) and its keys (demoKeys). */
export async function seedDemo(services: MockServices, seed: number): Promise<void> {
  const { seedAccount } = await import('./demo.ts'); // faker: loaded after the port is open
  const now = services.clock.now();
  const demo = createAccount(services.store, { accountId: DEMO_ACCOUNT_ID, name: 'Demo account', tier: 'enterprise', seed, now });
  seedAccount(demo, { now, seed });
  // The demo keys are derived from the seed and printed at start; the console lists them (D133).
  demo.mintedKeys = Object.fromEntries(Object.values(provisionKeys(services.store, demo, now, demoSecret(seed))).map((k) => [k.keyId, k.key]));
}

function demoSecret(seed: number): string {
  return `demo-seed-${seed}`;
}

/**
 * The demo keys of a seed by name (each scope, and `all`), derived as provisionKeys derives them
 * (sha256 of `<secret>:<name>`), only those the store holds (after a state load, the saved demo
 * account's).
 */
export function demoKeys(services: Pick<MockServices, 'store'>, seed: number): [string, string][] {
  const names = [...SCOPES, 'all'];
  return names
    .map((name): [string, string] => [name, `cgs_${sha256Hex(`${demoSecret(seed)}:${name}`)}`])
    .filter(([, key]) => services.store.keysByHash.has(hashKey(key)));
}
