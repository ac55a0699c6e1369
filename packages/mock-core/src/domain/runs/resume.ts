/**
 * After a saved state is loaded (packages/mock/src/node/persistence.ts restores data, not the clock's tasks), re-arm
 * the generation plane: every run that is not final and every upscale still QUEUED or PROCESSING
 * picks up where it stopped. Call once after `restoreState`, with the mock's clock and EventLog.
 */
import type { Clock } from '../../core/clock.ts';
import type { EventLog } from '../../events/log.ts';
import type { Store } from '../store.ts';
import { resumeUpscale } from '../upscales/scheduler.ts';
import { resumeRun, type GenerationEnv } from './scheduler.ts';

export function resumeGeneration(store: Store, clock: Clock, events: EventLog): void {
  for (const account of store.accounts.values()) {
    // run.completed carries no actor (EVT-027).
    const time = clock.forAccount(account.accountId); // the account's own clock (D91)
    const env: GenerationEnv = { account, store, clock: time, emit: (resource, drafts) => events.record(account, resource, drafts, undefined, time.now()) };
    for (const run of account.runs.values()) resumeRun(env, run);
    for (const upscale of account.upscales.values()) resumeUpscale(env, upscale);
  }
}
