/**
 * Stage: authenticate (401) and authorize (403).
 * Interface: Authentication 1-8. The 401 body is uniform whatever the cause, and the 403 shares
 * its detail text, so a lapsed plan, a missing scope and a bad token cannot be told apart by detail.
 */
import type { OperationInfo } from '../../../contract/spec/contract.ts';
import { resolvePointer } from '../../../contract/spec/contract.ts';
import { hashKey } from '../domain/accounts/keys.ts';
import type { ApiKeyRecord, Scope } from '../domain/accounts/model.ts';
import { ApiError } from '../core/errors.ts';
import type { AccountState, Store } from '../domain/store.ts';

export const UNIFORM_AUTH_DETAIL = 'The request could not be authorized.';

const securityScheme = resolvePointer('#/components/securitySchemes/bearer') as Record<string, unknown>;
const KEY_PATTERN = new RegExp(String(securityScheme['x-key-pattern']));
const SCOPE_IMPLIES = securityScheme['x-scope-implies'] as Record<Scope, Scope[]>;

/** Every scope a key effectively holds, implications included (AUTH: runs:write implies runs:read...). */
export function effectiveScopes(scopes: readonly Scope[]): ReadonlySet<Scope> {
  let held = scopeMemo.get(scopes);
  if (held === undefined) {
    const out = new Set<Scope>();
    const pending = [...scopes];
    while (pending.length > 0) {
      const scope = pending.pop()!;
      if (out.has(scope)) continue;
      out.add(scope);
      pending.push(...(SCOPE_IMPLIES[scope] ?? []));
    }
    held = out;
    scopeMemo.set(scopes, held);
  }
  return held;
}
// Per scopes array (a key's scopes never change in place: a new key record gets a new array).
const scopeMemo = new WeakMap<readonly Scope[], ReadonlySet<Scope>>();

/** Campaign, creative and asset writes carry ENTITLEMENT_LOST on every 401 (D2). */
export function unauthorized(operation: OperationInfo | undefined): ApiError {
  return new ApiError(operation?.tag === 'writes' ? 'ENTITLEMENT_LOST' : 'UNAUTHORIZED', UNIFORM_AUTH_DETAIL);
}

/** The bearer token of the request, if it has the right shape; else undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  return match?.[1];
}

const CAMPAIGN_WRITES_NEEDING_PLAN = new Set(['updateCampaign', 'deleteCampaign', 'undeleteCampaign']);

export interface Authenticated {
  key: ApiKeyRecord;
  account: AccountState;
}

/** AUTH-*: missing, malformed, unknown, revoked or expired key, or a lapsed plan: 401. */
export function authenticate(store: Store, operation: OperationInfo, authorization: string | undefined, now: number | ((accountId: string) => number)): Authenticated {
  const token = bearerToken(authorization);
  if (!token || !KEY_PATTERN.test(token)) throw unauthorized(operation);
  const key = store.keysByHash.get(hashKey(token));
  if (!key || key.revokedAt !== null) throw unauthorized(operation);
  // Expiry is judged on the key's account's clock (D91).
  if (key.expiresAt !== null && key.expiresAt <= (typeof now === 'number' ? now : now(key.accountId))) throw unauthorized(operation);
  const account = store.accounts.get(key.accountId);
  if (!account || account.suspended) throw unauthorized(operation);
  // Entitlement is re-checked on every request.
  if (operation.scopes.includes('runs:write') && !account.plan.runsWrite) throw unauthorized(operation);
  if (CAMPAIGN_WRITES_NEEDING_PLAN.has(operation.operationId) && !account.plan.campaigns) throw unauthorized(operation);
  return { key, account };
}

/** 403 API_TOKEN_SCOPE_DENIED when the key lacks a scope the operation needs. */
export function authorize(operation: OperationInfo, key: ApiKeyRecord): void {
  const held = effectiveScopes(key.scopes);
  for (const needed of operation.scopes) {
    if (!held.has(needed as Scope)) throw new ApiError('API_TOKEN_SCOPE_DENIED', UNIFORM_AUTH_DETAIL);
  }
}
