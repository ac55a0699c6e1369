/**
 * The webhook payload envelope (Events / Payload envelope; EVT-021..037), rendered when the
 * notification is SENT (EVT-024): `data` is read from the account's current state with the
 * canonical (showDeleted) presenter of the resource, so a retry shows the newest state.
 *
 *   { type, timestamp, data, previousAttributes? (only *.updated), actor? (absent on run.completed) }
 *
 * - `timestamp` is the time of the change, ISO 8601 UTC (D30), not of the delivery (EVT-022).
 * - `previousAttributes` exactly as recorded, on `*.updated` only (EVT-026); `{}` when the change
 *   left nothing to list (D33).
 * - `actor` carries `apiKeyId` for `api_key` only and nothing else (EVT-035, EVT-037).
 * - The event id is not in the body: it is the `webhook-id` header (EVT-028).
 */
import type { Actor } from '../domain/accounts/model.ts';
import { canonicalAsset } from '../domain/assets/present.ts';
import { canonicalCampaign } from '../domain/campaigns/present.ts';
import { isReadable } from '../domain/creatives/model.ts';
import { canonicalCreative } from '../domain/creatives/present.ts';
import { presentRun } from '../domain/runs/present.ts';
import { iso } from '../domain/shared.ts';
import type { AccountState } from '../domain/store.ts';
import type { DomainEvent, EventType } from './model.ts';

export interface WebhookPayload {
  type: EventType;
  timestamp: string;
  data: unknown;
  previousAttributes?: Record<string, unknown>;
  actor?: Actor;
}

export function isUpdateEvent(type: EventType): boolean {
  return type.endsWith('.updated');
}

/** The public actor: `{ kind, apiKeyId }` for an API key, `{ kind }` for everyone else. */
export function publicActor(actor: Actor): Actor {
  return actor.kind === 'api_key' ? { kind: 'api_key', apiKeyId: actor.apiKeyId } : { kind: actor.kind };
}

/** The resource's canonical representation now, or undefined when it has none (gone, unreadable). */
export function renderData(account: AccountState, resource: DomainEvent['resource'], now: number, origin: string): unknown {
  switch (resource.kind) {
    case 'creative': {
      const creative = account.creatives.get(resource.id);
      return creative && isReadable(creative) ? canonicalCreative(account, creative, origin) : undefined;
    }
    case 'asset': {
      const asset = account.assets.get(resource.id);
      return asset ? canonicalAsset(asset, origin) : undefined;
    }
    case 'campaign': {
      const campaign = account.campaigns.get(resource.id);
      return campaign ? canonicalCampaign(account, campaign, now) : undefined;
    }
    case 'run': {
      const run = account.runs.get(resource.id);
      return run ? presentRun(run) : undefined; // GET /runs/{runId}'s shape (EVT-008)
    }
  }
}

/** The payload of `event` rendered at `now`, or undefined when its resource cannot be rendered. */
export function renderPayload(account: AccountState, event: DomainEvent, now: number, origin: string): WebhookPayload | undefined {
  const data = renderData(account, event.resource, now, origin);
  if (data === undefined) return undefined;
  return {
    type: event.type,
    timestamp: iso(event.timestamp),
    data,
    ...(isUpdateEvent(event.type) ? { previousAttributes: structuredClone(event.previousAttributes ?? {}) } : {}),
    ...(event.type !== 'run.completed' && event.actor ? { actor: publicActor(event.actor) } : {}),
  };
}
