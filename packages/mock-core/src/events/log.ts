/** Recording events of a change: the account's log plus listeners (the webhook scheduler). */
import { randomHex } from '../../../contract/platform/crypto.ts';
import type { Actor } from '../domain/accounts/model.ts';
import type { AccountState } from '../domain/store.ts';
import type { DomainEvent, EventDraft, ResourceKind } from './model.ts';

export type EventListener = (account: AccountState, event: DomainEvent) => void;

export class EventLog {
  private readonly listeners: EventListener[] = [];

  /** Adds a listener; returns what removes it. */
  onEvent(listener: EventListener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  record(account: AccountState, resource: { kind: ResourceKind; id: string }, drafts: readonly EventDraft[], actor: Actor | undefined, now: number): DomainEvent[] {
    const recorded: DomainEvent[] = [];
    for (const draft of drafts) {
      const event: DomainEvent = {
        eventId: `msg_${randomHex(12)}`,
        type: draft.type,
        timestamp: now,
        resource,
        ...(actor && draft.type !== 'run.completed' ? { actor } : {}),
        ...(draft.previousAttributes ? { previousAttributes: draft.previousAttributes } : {}),
      };
      account.events.push(event);
      recorded.push(event);
      for (const listener of this.listeners) listener(account, event);
    }
    return recorded;
  }
}
