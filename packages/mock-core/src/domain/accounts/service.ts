/**
 * Accounts and keys (AUTH-*). Keys are `cgs_` + 64 lowercase hex, shown once and stored as a
 * sha256 hash. A key with any write scope must expire 30, 90 or 365 days after creation (legacy
 * runs:write keys may have none); a read-only key may have none. Scopes are fixed at creation.
 */
import { randomHex, sha256Hex } from '../../../../contract/platform/crypto.ts';
import { plans } from '../../../../contract/spec/tables.ts';
import { hashKey } from './keys.ts';
import { newAccountState, type AccountState, type Store } from '../store.ts';
import { SCOPES, WRITE_SCOPES, type ApiKeyRecord, type Plan, type PlanTier, type Scope } from './model.ts';

export const KEY_LIFETIMES_DAYS = [30, 90, 365] as const;
const DAY_MS = 24 * 3600 * 1000;

export class KeyRequestError extends Error {}

export function planFor(tier: PlanTier, overrides: Partial<Omit<Plan, 'tier'>> = {}): Plan {
  const defaults = plans.defaults[tier];
  if (!defaults) throw new KeyRequestError(`unknown plan tier ${tier}; one of ${plans.tiers.join(', ')}`);
  return { tier, ...defaults, imageSizes: [...defaults.imageSizes] as Plan['imageSizes'], ...overrides };
}

export interface CreateAccountInput {
  name?: string;
  tier?: PlanTier;
  plan?: Partial<Omit<Plan, 'tier'>>;
  seed?: number;
  now: number;
  /** Fixed account id (the demo account); otherwise `acc_<n>`. */
  accountId?: string;
}

export function createAccount(store: Store, input: CreateAccountInput): AccountState {
  const number = store.nextAccountNumber();
  const accountId = input.accountId ?? `acc_${number.toString(36).padStart(4, '0')}${randomHex(3)}`;
  const tag = sha256Hex(accountId).slice(0, 6);
  const account = newAccountState({
    accountId,
    name: input.name ?? `Account ${number}`,
    tag,
    plan: planFor(input.tier ?? 'enterprise', input.plan),
    createdAt: input.now,
    seed: input.seed ?? number,
  });
  store.addAccount(account);
  return account;
}

export interface CreateKeyInput {
  name: string;
  scopes: Scope[];
  /** 30, 90 or 365; required with any write scope; null/absent for a read-only key. */
  expiresInDays?: number | null;
  /** A runs:write key created before the expiry rule (no expiry). */
  legacy?: boolean;
  now: number;
  /** Derive the key from this secret instead of random bytes (the demo account's stable keys). */
  deriveFrom?: string;
}

export interface CreatedKey {
  record: ApiKeyRecord;
  /** The full key: shown once, never stored. */
  key: string;
}

export function createKey(store: Store, account: AccountState, input: CreateKeyInput): CreatedKey {
  const scopes = [...new Set(input.scopes)];
  if (scopes.length === 0) throw new KeyRequestError('a key carries at least one scope');
  for (const scope of scopes) if (!SCOPES.includes(scope)) throw new KeyRequestError(`unknown scope ${scope}`);
  if (scopes.includes('runs:read') && !scopes.includes('read') && !scopes.includes('runs:write')) {
    throw new KeyRequestError('runs:read requires read on the key');
  }
  const hasWrite = scopes.some((s) => WRITE_SCOPES.includes(s));
  const days = input.expiresInDays ?? null;
  if (days !== null && !(KEY_LIFETIMES_DAYS as readonly number[]).includes(days)) {
    throw new KeyRequestError('expiresInDays is 30, 90 or 365');
  }
  if (hasWrite && days === null) {
    const legacyAllowed = input.legacy === true && scopes.every((s) => s === 'runs:write' || !WRITE_SCOPES.includes(s));
    if (!legacyAllowed) throw new KeyRequestError('a key with a write scope must expire in 30, 90 or 365 days');
  }
  const secret = input.deriveFrom
    ? sha256Hex(input.deriveFrom)
    : randomHex(32);
  const key = `cgs_${secret}`;
  const record: ApiKeyRecord = {
    keyId: `key_${account.tag}${(account.keys.size + 1).toString(36).padStart(3, '0')}${randomHex(2)}`,
    accountId: account.accountId,
    name: input.name,
    hash: hashKey(key),
    last4: key.slice(-4),
    scopes,
    createdAt: input.now,
    expiresAt: days === null ? null : input.now + days * DAY_MS,
    revokedAt: null,
  };
  store.addKey(record);
  return { record, key };
}

/** One key per scope, named after it, plus `all` with every scope (the control plane's contract). */
export function provisionKeys(store: Store, account: AccountState, now: number, derive?: string): Record<string, { keyId: string; key: string; scopes: Scope[] }> {
  const out: Record<string, { keyId: string; key: string; scopes: Scope[] }> = {};
  const sets: [string, Scope[]][] = [...SCOPES.map((s): [string, Scope[]] => [s, s === 'runs:read' ? ['runs:read', 'read'] : [s]]), ['all', [...SCOPES]]];
  for (const [name, scopes] of sets) {
    const hasWrite = scopes.some((s) => WRITE_SCOPES.includes(s));
    const created = createKey(store, account, {
      name,
      scopes,
      expiresInDays: hasWrite ? 365 : null,
      now,
      ...(derive ? { deriveFrom: `${derive}:${name}` } : {}),
    });
    out[name] = { keyId: created.record.keyId, key: created.key, scopes };
  }
  return out;
}

export function revokeKey(account: AccountState, keyId: string, now: number): ApiKeyRecord | undefined {
  const record = account.keys.get(keyId);
  if (record && record.revokedAt === null) record.revokedAt = now;
  return record;
}

/** Make a key expire now (the control plane's shortcut for "time passed"). */
export function expireKey(account: AccountState, keyId: string, now: number): ApiKeyRecord | undefined {
  const record = account.keys.get(keyId);
  if (record && (record.expiresAt === null || record.expiresAt > now)) record.expiresAt = now;
  return record;
}
