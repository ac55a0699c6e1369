/**
 * Pure transitions of runs and run items: `(state, event, now) => Transition`. No clock, no store,
 * no ledger: the scheduler (scheduler.ts) decides when events happen and applies the results.
 *
 * Run (D9, D10, RUN-020..032):
 *
 *   ACCEPTED --item_started--> RUNNING --item_settled (last)--> SUCCEEDED | PARTIAL | REFUSED | FAILED
 *   ACCEPTED | RUNNING --stop--> STOPPING (items not started settle `stopped`)
 *   STOPPING --item_settled (last) | drain (nothing running)--> STOPPED
 *   any non-final --expire (24 h after create)--> EXPIRED (unsettled items count as failed)
 *
 * A final run never changes again, so `finalizedAt` is set once and `run.completed` is drafted once
 * (RUN-021). counts always sum to `total`.
 */
import type { Transition } from '../shared.ts';
import { unchanged } from '../shared.ts';
import { isFinal, type ItemOutcome, type Run, type RunItem, type RunStatus } from './model.ts';
import type { DrawnOutcome } from './settings.ts';

export const EXPIRY_MS = 24 * 3600 * 1000;

export type RunEvent =
  | { type: 'item_started' }
  | { type: 'item_settled'; outcome: Exclude<ItemOutcome, 'stopped'> }
  | { type: 'stop'; completesAt: number }
  | { type: 'drain' }
  | { type: 'expire' };

/** D10: which terminal status a run whose items have all settled reaches. */
export function terminalStatus(run: Pick<Run, 'status' | 'total' | 'counts'>): RunStatus {
  const { succeeded, refused } = run.counts;
  if (run.status === 'STOPPING') return 'STOPPED'; // RUN-027
  if (succeeded === run.total) return 'SUCCEEDED'; // RUN-028
  if (succeeded > 0) return 'PARTIAL'; // RUN-029
  if (refused === run.total) return 'REFUSED'; // RUN-030
  return 'FAILED'; // RUN-031
}

function finalize(run: Run, status: RunStatus, now: number): Transition<Run> {
  // RUN-011, RUN-013, RUN-021: finalizedAt set once, estimatedCompletion null once final, one run.completed.
  return { next: { ...run, status, finalizedAt: now, estimatedCompletion: null }, events: [{ type: 'run.completed' }], changed: true };
}

export function runTransition(run: Run, event: RunEvent, now: number): Transition<Run> {
  if (isFinal(run.status)) return unchanged(run);
  switch (event.type) {
    case 'item_started': {
      // RUN-006: nothing starts once STOPPING.
      if (run.status === 'STOPPING' || run.nextPosition >= run.total) return unchanged(run);
      // RUN-026: RUNNING once the first item starts.
      return { next: { ...run, status: 'RUNNING', running: run.running + 1, nextPosition: run.nextPosition + 1 }, events: [], changed: true };
    }
    case 'item_settled': {
      if (run.running <= 0) return unchanged(run);
      const counts = { ...run.counts, [event.outcome]: run.counts[event.outcome] + 1, pending: run.counts.pending - 1 };
      const next: Run = { ...run, counts, running: run.running - 1 };
      // RUN-024: a STOPPING run is final once its in-progress items settle.
      if (counts.pending === 0) return finalize(next, terminalStatus(next), now);
      return { next, events: [], changed: true };
    }
    case 'stop': {
      // RUN-038: a stop of a run already STOPPING answers with the run unchanged.
      if (run.status === 'STOPPING') return unchanged(run);
      // RUN-006, RUN-023: items not started settle `stopped`; running ones finish.
      const notStarted = run.total - run.nextPosition;
      const counts = { ...run.counts, stopped: run.counts.stopped + notStarted, pending: run.counts.pending - notStarted };
      const completesAt = Math.max(now, event.completesAt);
      const estimatedCompletion = { completesAt, durationSeconds: Math.ceil((completesAt - run.createdAt) / 1000) };
      return { next: { ...run, status: 'STOPPING', counts, nextPosition: run.total, estimatedCompletion }, events: [], changed: true };
    }
    case 'drain': {
      if (run.status !== 'STOPPING' || run.running > 0) return unchanged(run);
      return finalize(run, 'STOPPED', now);
    }
    case 'expire': {
      // RUN-032: not final 24 h after create → EXPIRED, unsettled items counted as failed.
      const counts = { ...run.counts, failed: run.counts.failed + run.counts.pending, pending: 0 };
      return finalize({ ...run, counts, running: 0, nextPosition: run.total }, 'EXPIRED', now);
    }
  }
}

export type ItemEvent =
  | { type: 'start'; holdId: string | null; drawn: DrawnOutcome | null; settlesAt: number | null }
  | { type: 'settle'; outcome: ItemOutcome; assetId: string | null };

export function itemTransition(item: RunItem, event: ItemEvent, now: number): Transition<RunItem> {
  switch (event.type) {
    case 'start':
      if (item.status !== 'QUEUED') return unchanged(item);
      return { next: { ...item, status: 'RUNNING', startedAt: now, holdId: event.holdId, drawn: event.drawn, settlesAt: event.settlesAt }, events: [], changed: true };
    case 'settle':
      if (item.status === 'SETTLED') return unchanged(item);
      return {
        next: {
          ...item,
          status: 'SETTLED',
          outcome: event.outcome,
          // RUN-015: the asset once produced, and only then.
          assetId: event.outcome === 'succeeded' ? event.assetId : null,
          settledAt: now,
          holdId: null,
          settlesAt: null,
        },
        events: [],
        changed: true,
      };
  }
}
