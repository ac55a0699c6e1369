/**
 * The event log. A transition returns event drafts; the operation records them with the actor
 * and the time of the change. The payload's `data` is rendered when the notification is SENT
 * (interface: Events / Payload envelope), so the log keeps a reference, not a snapshot.
 */
import type { Actor } from '../domain/accounts/model.ts';

export type EventType =
  | 'run.completed'
  | 'creative.approved'
  | 'creative.rejected'
  | 'creative.updated'
  | 'creative.deleted'
  | 'creative.restored'
  | 'asset.updated'
  | 'asset.archived'
  | 'asset.unarchived'
  | 'asset.deleted'
  | 'asset.restored'
  | 'campaign.created'
  | 'campaign.updated'
  | 'campaign.deleted'
  | 'campaign.restored';

export type ResourceKind = 'creative' | 'asset' | 'campaign' | 'run';

/** What a pure transition says happened. */
export interface EventDraft {
  type: EventType;
  previousAttributes?: Record<string, unknown>;
}

export interface DomainEvent {
  /** `msg_<id>`: the webhook-id, stable across deliveries. */
  eventId: string;
  type: EventType;
  /** Epoch ms of the change. */
  timestamp: number;
  resource: { kind: ResourceKind; id: string };
  /** Absent on run.completed. */
  actor?: Actor;
  previousAttributes?: Record<string, unknown>;
}
