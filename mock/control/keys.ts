/** Control plane, keys: createKey, revokeKey, expireKey (the interface's key rules stay enforced). */
import { createKey, expireKey, KeyRequestError, revokeKey } from '../domain/accounts/service.ts';
import type { Scope } from '../domain/accounts/model.ts';
import { isoOrNull } from '../domain/shared.ts';
import { ControlError, invalidField, type ControlHandlers } from './types.ts';
import { presentKey } from './present.ts';

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

function keyNotFound(keyId: string): ControlError {
  return new ControlError(404, 'KEY_NOT_FOUND', `The account has no key ${keyId}.`);
}

export const keyHandlers: ControlHandlers = {
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
