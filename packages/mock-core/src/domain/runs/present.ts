/**
 * Public representations of runs and run items (RUN-007..015, RUN-018, D11, D12).
 * `presentRun` is also what `run.completed` carries as `data` (EVT-008): render it at send time.
 */
import type { Schemas } from '../../../../contract/spec/types.ts';
import type { AccountState } from '../store.ts';
import { presentAsset } from '../assets/present.ts';
import { iso, isoOrNull } from '../shared.ts';
import { isFinal, type Run, type RunItem } from './model.ts';

/**
 * One Run shape everywhere (RUN-007). `counts` is always present except on a list row of a run
 * that is not final (RUN-010): pass `{ listRow: true }` for GET /runs rows.
 */
export function presentRun(run: Run, options: { listRow?: boolean } = {}): Schemas['Run'] {
  const withCounts = !options.listRow || isFinal(run.status);
  return {
    object: 'run',
    runId: run.runId,
    status: run.status,
    total: run.total,
    credits: { estimated: run.credits.estimated, rateCardVersion: run.credits.rateCardVersion },
    ...(withCounts ? { counts: { ...run.counts } } : {}),
    createdAt: iso(run.createdAt),
    finalizedAt: isoOrNull(run.finalizedAt),
    estimatedCompletion: run.estimatedCompletion
      ? { completesAt: iso(run.estimatedCompletion.completesAt), durationSeconds: run.estimatedCompletion.durationSeconds }
      : null,
  };
}

export function presentItem(account: AccountState, item: RunItem, origin: string): Schemas['RunItem'] {
  const asset = item.assetId === null ? undefined : account.assets.get(item.assetId);
  return {
    object: 'run_item',
    jobId: item.jobId,
    runId: item.runId,
    productId: item.productId,
    position: item.position,
    status: item.status,
    outcome: item.outcome,
    // The asset in the one Asset shape of GET /assets/{id}; a deleted one shows deletedAt.
    asset: asset ? (presentAsset(asset, origin) as Schemas['Asset']) : null,
    startedAt: isoOrNull(item.startedAt),
    settledAt: isoOrNull(item.settledAt),
  };
}
