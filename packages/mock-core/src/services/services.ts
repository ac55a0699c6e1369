/**
 * The core of the mock, with no way in: the services the pipeline (packages/mock-core/src/pipeline/), the control
 * plane (packages/mock-core/src/control/) and the webhooks (packages/mock-core/src/events/) share, built from the options. Every way in
 * builds them here and only here: the node:http server (packages/mock/src/node/app.ts, buildMock) and the in-process
 * MSW handlers (packages/msw/src/msw.ts, createMockHandlers).
 */
import { Clock } from '../core/clock.ts';
import { ChangeFeed } from './feed.ts';
import { LeaseTable } from '../core/leases.ts';
import type { Defects } from '../events/defects.ts';
import { EventLog } from '../events/log.ts';
import { WebhookService, type WebhookOptions } from '../events/webhooks.ts';
import { handlers } from './handlers.ts';
import type { MediaService } from '../media/serve.ts';
import type { PipelineServices } from '../pipeline/index.ts';
import { RequestJournal } from '../pipeline/journal.ts';
import { ResponseCache, type ResponseCacheOptions } from '../pipeline/response-cache.ts';
import type { HandlerTable } from '../domain/operation.ts';
import { Limiter } from '../ratelimit/limiter.ts';
import { Store } from '../domain/store.ts';
import { ExamRegistry } from '../exam/session.ts';

/** What the core is built from (each way in adds its own options: packages/mock/src/node/app.ts MockOptions). */
export interface CoreOptions {
  clock?: Clock;
  store?: Store;
  /** Replace the handler table (pipeline tests use probe handlers). */
  handlers?: HandlerTable;
  /** Log unexpected errors (default: console.error). */
  logError?: (error: unknown, context: string) => void;
  /** Injected contract violations (`--defect NAME`); default none. */
  defects?: Defects;
  /** Webhook delivery options (tests pass a fake transport; in-process, a fetch or a callback). */
  webhooks?: WebhookOptions;
  /** The kept bytes of cacheable reads (default on, not verified). */
  responseCache?: ResponseCacheOptions;
  /** The origin (and optional path prefix) media URLs are handed out on. */
  publicUrl?: string;
}

/**
 * Holds the answer to a write until the write is on disk (the node adapter's `--state` journal,
 * packages/mock/src/node/state-journal.ts); absent, answers go at once. `accountId`: the account the
 * request named, when its path names one.
 */
export interface WriteBarrier {
  settle(accountId?: string): Promise<void>;
}

/** The pipeline's services plus what the control plane reads (media: the node adapter's, packages/mock/src/node/app.ts). */
export type MockServices = PipelineServices & { defects: Defects; webhooks: WebhookService; media?: MediaService; leases: LeaseTable; journal: RequestJournal; feed: ChangeFeed; exams: ExamRegistry; durability?: WriteBarrier };

export function createServices(options: CoreOptions = {}): MockServices {
  const store = options.store ?? new Store();
  if (options.publicUrl !== undefined) store.publicOrigin = options.publicUrl;
  if (options.defects) store.defects = options.defects;
  const clock = options.clock ?? new Clock({ mode: 'manual' });
  const events = new EventLog();
  const logError = options.logError ?? ((error: unknown, context: string) => console.error(`[mock] unexpected error in ${context}:`, error));
  const services = {
    store,
    clock,
    limiter: new Limiter(),
    events,
    handlers: options.handlers ?? handlers,
    responses: new ResponseCache(options.responseCache),
    logError,
    journal: new RequestJournal(),
    defects: options.defects ?? new Set(),
    // Signed webhooks: listens to the event log, delivers on the clock's schedule.
    webhooks: new WebhookService({ store, clock, events, logError, defects: options.defects }, options.webhooks),
    // Advisory leases through which test runners share this mock (packages/mock-core/src/core/leases.ts).
    leases: new LeaseTable(),
    // The client exams running (packages/mock-core/src/exam/session.ts), by account.
    exams: new ExamRegistry(),
  } as MockServices;
  // The live stream of changes (GET /__mock/stream), fed by the services above.
  services.feed = new ChangeFeed(services);
  return services;
}
