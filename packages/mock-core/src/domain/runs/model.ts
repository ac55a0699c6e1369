/**
 * Runs and run items (D9-D12). A run plans `total` = products × creativesPerProduct items
 * (RUN-001); items start when a worker slot frees, run for a while, and settle with an outcome.
 */
import type { Schemas } from '../../../../contract/spec/types.ts';
import type { ImageSize } from '../accounts/model.ts';
import type { Modality } from '../credits/ratecard.ts';
import type { DrawnOutcome } from './settings.ts';

export type RunStatus = Schemas['RunStatus'];

export const TERMINAL_STATUSES: ReadonlySet<RunStatus> = new Set(['SUCCEEDED', 'PARTIAL', 'FAILED', 'REFUSED', 'STOPPED', 'EXPIRED']);

export function isFinal(status: RunStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

/** How an item ends (D12); `stopped` only for items a stop kept from starting. */
export type ItemOutcome = 'succeeded' | 'failed' | 'refused' | 'stopped';

export interface RunCounts {
  succeeded: number;
  failed: number;
  refused: number;
  stopped: number;
  /** Items not settled yet (queued or running). counts always sum to total. */
  pending: number;
}

export interface Run {
  runId: string;
  /** 0-based place among the account's runs: with the seed, it keys the run's draws, so the same scenario replays alike on a fresh account (ids carry a random account tag). */
  ordinal: number;
  status: RunStatus;
  total: number;
  productIds: string[];
  creativesPerProduct: number;
  presetId: string;
  modality: Modality;
  /** null for a video run (imageSize applies to images only). */
  imageSize: ImageSize | null;
  referenceSource: 'PRIMARY' | 'ALL' | null;
  /** The price pinned at create time (RUN-043). */
  credits: { estimated: number; perCreative: number; rateCardVersion: string };
  counts: RunCounts;
  /** Items started and not yet settled. */
  running: number;
  /** Position of the next item to start (items start in request order). */
  nextPosition: number;
  createdAt: number;
  finalizedAt: number | null;
  /** D11: null once final. */
  estimatedCompletion: { completesAt: number; durationSeconds: number } | null;
}

export type ItemStatus = 'QUEUED' | 'RUNNING' | 'SETTLED';

export interface RunItem {
  jobId: string;
  runId: string;
  productId: string;
  position: number;
  status: ItemStatus;
  outcome: ItemOutcome | null;
  /** The produced asset (an id into account.assets), once succeeded. */
  assetId: string | null;
  startedAt: number | null;
  settledAt: number | null;
  /** Internal: the open credit hold while running. */
  holdId: string | null;
  /** Internal: the outcome drawn when the item started (kept so a reloaded state settles alike). */
  drawn: DrawnOutcome | null;
  /** Internal: when a running item will settle (null: stalled, or not running). */
  settlesAt: number | null;
}
