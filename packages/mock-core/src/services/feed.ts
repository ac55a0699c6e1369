/**
 * The change feed behind the control plane's live stream (`GET /__mock/stream`, server-sent events,
 * packages/mock-core/src/control/stream.ts) and what it carries:
 * the clock moved (through the control plane), an event recorded, a webhook attempt made or
 * settled, an API request journaled, a reset, and which of an account's collections changed (a
 * run, an upscale, a creative... made, changed or settled, by anyone: the API, another actor, the
 * clock). The message names and data are documented in packages/contract/spec/mock-control.yaml (streamChanges);
 * the console (packages/mock/src/console/) is its first reader.
 * How it works and what it decides: docs/internals.md, "packages/mock-core/src/services/feed.ts".
 */
import { realInterval, type Clock } from '../core/clock.ts';
import { clockState, presentDelivery, presentEvent } from '../control/present.ts';
import type { EventLog } from '../events/log.ts';
import type { AttemptRecord, WebhookService } from '../events/webhooks.ts';
import type { RequestJournal } from '../pipeline/journal.ts';
import type { AccountState, Store } from '../domain/store.ts';

/** Where a control stream writes (packages/mock-core/src/control/routes.ts wraps the raw response). */
export interface ControlStreamSink {
  write(chunk: string): void;
  /** Bytes written but not yet taken by the client. */
  backlog(): number;
  /** Ends the response. */
  close(): void;
}

/** The services the feed listens to (packages/mock-core/src/services/services.ts hands it the mock's). */
export interface FeedSources {
  store: Store;
  clock: Clock;
  events: EventLog;
  journal: RequestJournal;
  webhooks: WebhookService;
}

/** Unsent bytes past which a watcher that does not read is dropped (documented: 1 MiB). */
export const STREAM_BACKLOG_BYTES = 1024 * 1024;
export const KEEP_ALIVE_MS = 15_000;
/** Real milliseconds between two looks at the watched accounts' collections (documented: 250 ms). */
export const SWEEP_MS = 250;

/** The collections of an account whose changes `changed` reports (documented in packages/contract/spec/mock-control.yaml). */
export const WATCHED_COLLECTIONS = ['products', 'creatives', 'campaigns', 'assets', 'deliveries', 'runs', 'upscales'] as const;
type Versions = Record<(typeof WATCHED_COLLECTIONS)[number], number>;

function versionsOf(account: AccountState): Versions {
  const out = {} as Versions;
  for (const name of WATCHED_COLLECTIONS) out[name] = account[name].version;
  return out;
}

interface Watcher {
  accountId: string | undefined;
  sink: ControlStreamSink;
}

/** One server-sent message: `event:` and one `data:` line of JSON. */
export function sseMessage(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

export class ChangeFeed {
  private readonly watchers = new Set<Watcher>();
  private unhook: (() => void) | undefined;
  /** The versions last reported per account (an account replaced by a reset starts afresh; forgotten when nobody watches). */
  private seen = new WeakMap<AccountState, Versions>();
  private sweepQueued = false;

  constructor(private readonly services: FeedSources) {}

  get watching(): number {
    return this.watchers.size;
  }

  /** Sends a message to every watcher of the account (every watcher when `accountId` is undefined). */
  publish(name: string, accountId: string | undefined, data: unknown): void {
    if (this.watchers.size === 0) return;
    const message = sseMessage(name, data);
    for (const watcher of this.watchers) {
      if (accountId !== undefined && watcher.accountId !== undefined && watcher.accountId !== accountId) continue;
      if (watcher.sink.backlog() > STREAM_BACKLOG_BYTES) {
        this.remove(watcher);
        watcher.sink.close();
        continue;
      }
      watcher.sink.write(message);
    }
  }

  clockMoved(): void {
    this.publish('clock', undefined, clockState(this.services.clock));
    this.sweep();
  }

  /** Sends `changed` for each watched account whose collections changed since the last look. */
  sweep(): void {
    if (this.watchers.size === 0) return;
    const { accounts } = this.services.store;
    const everyone = [...this.watchers].some((w) => w.accountId === undefined);
    const ids = everyone ? [...accounts.keys()] : [...new Set([...this.watchers].map((w) => w.accountId!))];
    for (const id of ids) {
      const account = accounts.get(id);
      if (!account) continue;
      const now = versionsOf(account);
      const before = this.seen.get(account);
      this.seen.set(account, now);
      if (!before) continue;
      const collections = WATCHED_COLLECTIONS.filter((name) => now[name] !== before[name]);
      if (collections.length > 0) this.publish('changed', id, { accountId: id, collections });
    }
  }

  /** A sweep once the current synchronous work is done (a change and its event land together). */
  private soon(): void {
    if (this.sweepQueued) return;
    this.sweepQueued = true;
    queueMicrotask(() => {
      this.sweepQueued = false;
      this.sweep();
    });
  }

  /** Adds a watcher; returns what removes it. */
  watch(accountId: string | undefined, sink: ControlStreamSink): () => void {
    const watcher: Watcher = { accountId, sink };
    // The baseline: changes from now on are reported.
    for (const account of accountId === undefined ? this.services.store.accounts.values() : [this.services.store.accounts.get(accountId)]) {
      if (account && !this.seen.has(account)) this.seen.set(account, versionsOf(account));
    }
    this.watchers.add(watcher);
    if (!this.unhook) this.unhook = this.hook();
    sink.write(sseMessage('ready', { clock: clockState(this.services.clock) }));
    const stopKeepAlive = realInterval(KEEP_ALIVE_MS, () => sink.write(': keep-alive\n\n'));
    return () => {
      stopKeepAlive();
      this.remove(watcher);
    };
  }

  /** Closes every stream (the mock is closing). */
  closeAll(): void {
    for (const watcher of [...this.watchers]) {
      this.remove(watcher);
      watcher.sink.close();
    }
  }

  private remove(watcher: Watcher): void {
    this.watchers.delete(watcher);
    if (this.watchers.size === 0 && this.unhook) {
      this.unhook();
      this.unhook = undefined;
      this.seen = new WeakMap();
    }
  }

  private hook(): () => void {
    const { services } = this;
    const offRequest = services.journal.onRecord((account, record) => {
      if (this.watchers.size === 0) return;
      const { method, fullPath: path } = record.request;
      this.soon();
      this.publish('request', account.accountId, {
        accountId: account.accountId,
        request: { seq: record.seq, requestId: record.requestId, at: new Date(record.at).toISOString(), method, path, status: record.response.status, keyId: record.keyId ?? null },
      });
    });
    const offAttempt = services.webhooks.onAttempt((account, row: AttemptRecord) => {
      this.publish('delivery', account.accountId, { accountId: account.accountId, delivery: presentDelivery(row, services.webhooks.sentRequest(row)) });
    });
    const offEvent = services.events.onEvent((account, event) => {
      this.publish('event', account.accountId, { accountId: account.accountId, event: presentEvent(event) });
      this.soon();
    });
    const stopSweeps = realInterval(SWEEP_MS, () => this.sweep());
    return () => {
      stopSweeps();
      offRequest();
      offAttempt();
      offEvent();
    };
  }
}
