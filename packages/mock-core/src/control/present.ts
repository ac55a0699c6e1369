/** Control-plane representations of the mock's state (timestamps as ISO 8601 from the clock). */
import { Collection } from '../core/collection.ts';
import type { ApiKeyRecord } from '../domain/accounts/model.ts';
import { iso, isoOrNull } from '../domain/shared.ts';
import type { AccountState } from '../domain/store.ts';
import type { Clock } from '../core/clock.ts';
import type { DomainEvent } from '../events/model.ts';
import type { AttemptRecord, SentRequest } from '../events/webhooks.ts';

function keyStatus(record: ApiKeyRecord, now: number): 'active' | 'revoked' | 'expired' {
  if (record.revokedAt !== null) return 'revoked';
  if (record.expiresAt !== null && record.expiresAt <= now) return 'expired';
  return 'active';
}

/** A key as stored, never the key itself nor its hash. */
export function presentKey(record: ApiKeyRecord, now: number) {
  return {
    keyId: record.keyId,
    name: record.name,
    last4: record.last4,
    scopes: [...record.scopes],
    createdAt: iso(record.createdAt),
    expiresAt: isoOrNull(record.expiresAt),
    revokedAt: isoOrNull(record.revokedAt),
    status: keyStatus(record, now),
  };
}

/**
 * The size of every collection the account holds, by field name. Found by structure, so that the
 * collections other modules add to AccountState (runs, upscales, ...) are counted without this
 * module knowing them.
 */
function countsOf(account: AccountState): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [name, value] of Object.entries(account)) {
    if (value instanceof Collection || value instanceof Map || value instanceof Set) counts[name] = value.size;
    else if (Array.isArray(value)) counts[name] = value.length;
  }
  return counts;
}

export function presentAccount(account: AccountState, now: number) {
  return {
    accountId: account.accountId,
    name: account.name,
    seed: account.seed,
    createdAt: iso(account.createdAt),
    suspended: account.suspended,
    plan: { ...account.plan, imageSizes: [...account.plan.imageSizes] },
    faults: { ...account.faults },
    settings: { ...account.settings },
    limits: { ...account.limitOverrides },
    credits: account.initialCredits ? { ...account.initialCredits } : null,
    counts: countsOf(account),
    keys: [...account.keys.values()].map((k) => presentKey(k, now)),
  };
}

export function clockState(clock: Clock) {
  return { now: clock.nowIso(), mode: clock.mode, pendingTasks: clock.pending, nextTaskAt: isoOrNull(clock.nextDue() ?? null) };
}

export function presentEvent(event: DomainEvent) {
  return {
    eventId: event.eventId,
    type: event.type,
    timestamp: iso(event.timestamp),
    resource: { ...event.resource },
    actor: event.actor ? { ...event.actor } : null,
    previousAttributes: event.previousAttributes ? structuredClone(event.previousAttributes) : null,
  };
}

export function presentDelivery(row: AttemptRecord, sent: SentRequest | undefined) {
  return {
    deliveryId: row.deliveryId,
    eventId: row.eventId,
    endpointId: row.endpointId,
    type: row.type,
    attempt: row.attempt,
    duplicate: row.duplicate,
    scheduledAt: iso(row.scheduledAt),
    attemptedAt: isoOrNull(row.attemptedAt),
    status: row.status,
    responseStatus: row.responseStatus,
    error: row.error,
    nextAttemptAt: isoOrNull(row.nextAttemptAt),
    givenUp: row.givenUp,
    latencyMs: sent?.latencyMs ?? null,
    request: sent ? { url: sent.url, headers: { ...sent.headers }, body: sent.body } : null,
  };
}
