/** Control plane, keys: createKey, revokeKey, expireKey (the interface's key rules stay enforced). */
import { createKey, expireKey, KeyRequestError, revokeKey } from '../domain/accounts/service.ts';
import type { Scope } from '../domain/accounts/model.ts';
import { isoOrNull } from '../domain/shared.ts';
import { ControlError, invalidField, type ControlHandlers } from './types.ts';
import { presentKey } from './present.ts';
import type { AccountState } from '../domain/store.ts';

interface CreateKeyBody {
  name?: string;
  scopes: Scope[];
  expiresInDays?: number | null;
  legacy?: boolean;
}

/** Which request field a key rule is about (the domain's messages name it). */
function fieldOf(message: string): string {
  return /expire|legacy/i.test(message) ? 'expiresInDays' : 'scopes';
}

declare module '../domain/store.ts' {
  interface AccountState {
    /**
     * The full value of the keys the mock minted itself (D133), by keyId: the provisioned set of
     * createAccount, of the demo account and of a scenario's accounts, and the console's key.
     * Keys made with createKey are never kept.
     */
    mintedKeys?: Record<string, string>;
    /** The console's read key (getConsoleKey), one per account. */
    consoleKeyId?: string;
  }
}

/** Keeps the full values of keys the mock minted (provisioned sets, the console key). */
export function keepMinted(account: AccountState, keys: Iterable<{ keyId: string; key: string }>): void {
  account.mintedKeys ??= {};
  for (const { keyId, key } of keys) account.mintedKeys[keyId] = key;
}

function keyNotFound(keyId: string): ControlError {
  return new ControlError(404, 'KEY_NOT_FOUND', `The account has no key ${keyId}.`);
}

export const keyHandlers: ControlHandlers = {
  listMintedKeys(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const now = ctx.services.clock.now();
    const minted = account.mintedKeys ?? {};
    const data = [...account.keys.values()].filter((k) => minted[k.keyId] !== undefined).map((k) => {
      const { keyId, name, scopes, status } = presentKey(k, now);
      return { keyId, name, key: minted[k.keyId], scopes, status };
    });
    return { status: 200, body: { data } };
  },

  getConsoleKey(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const now = ctx.services.clock.now();
    const known = account.consoleKeyId === undefined ? undefined : account.keys.get(account.consoleKeyId);
    const value = known && account.mintedKeys?.[known.keyId];
    if (known && value !== undefined && presentKey(known, now).status === 'active') {
      return { status: 200, body: { keyId: known.keyId, name: known.name, key: value, scopes: [...known.scopes], status: 'active' } };
    }
    const created = createKey(ctx.services.store, account, { name: 'console', scopes: ['read', 'runs:read'], expiresInDays: null, legacy: false, now });
    keepMinted(account, [{ keyId: created.record.keyId, key: created.key }]);
    account.consoleKeyId = created.record.keyId;
    return { status: 200, body: { keyId: created.record.keyId, name: 'console', key: created.key, scopes: [...created.record.scopes], status: 'active' } };
  },

  createKey(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const body = request.body as CreateKeyBody;
    try {
      const created = createKey(ctx.services.store, account, {
        name: body.name ?? 'key',
        scopes: body.scopes,
        expiresInDays: body.expiresInDays ?? null,
        legacy: body.legacy === true,
        now: ctx.services.clock.forAccount(account.accountId).now(),
      });
      const { record } = created;
      return { status: 201, body: { keyId: record.keyId, key: created.key, name: record.name, scopes: [...record.scopes], expiresAt: isoOrNull(record.expiresAt) } };
    } catch (error) {
      if (error instanceof KeyRequestError) throw invalidField(fieldOf(error.message), error.message, `The key breaks a key rule: ${error.message}.`);
      throw error;
    }
  },

  revokeKey(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const now = ctx.services.clock.forAccount(account.accountId).now();
    const record = revokeKey(account, request.params.keyId!, now);
    if (!record) throw keyNotFound(request.params.keyId!);
    return { status: 200, body: presentKey(record, now) };
  },

  expireKey(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const now = ctx.services.clock.forAccount(account.accountId).now();
    const record = expireKey(account, request.params.keyId!, now);
    if (!record) throw keyNotFound(request.params.keyId!);
    return { status: 200, body: presentKey(record, now) };
  },
};
