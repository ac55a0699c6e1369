/** Upscales (D14, D21, D34): a re-render of an image the account owns at 2K or 4K, as a NEW asset. */
import type { Schemas } from '../../../../contract/spec/types.ts';
import type { UpscaleTarget } from '../credits/ratecard.ts';
import type { UpscaleDrawn } from '../runs/settings.ts';

export type UpscaleStatus = Schemas['Upscale']['status'];

export function isFinalUpscale(status: UpscaleStatus): boolean {
  return status === 'SUCCEEDED' || status === 'FAILED';
}

/** The source as the request named it (echoed in the representation). */
export type UpscaleSourceRequest = { assetId: string } | { productId: string; image: 'primary' | 'gallery'; index?: number };

export interface Upscale {
  upscaleId: string;
  /** 0-based place among the account's upscales; with the seed, it keys the outcome draw. */
  ordinal: number;
  status: UpscaleStatus;
  source: UpscaleSourceRequest;
  /** The asset the result derives from: the source asset, or the asset holding the product image. */
  parentAssetId: string;
  target: UpscaleTarget;
  credits: { estimated: number; rateCardVersion: string };
  /** The open credit hold while QUEUED or PROCESSING. */
  holdId: string | null;
  /** The new asset, once SUCCEEDED. */
  assetId: string | null;
  failureReason: string | null;
  createdAt: number;
  startedAt: number | null;
  finalizedAt: number | null;
  /** Internal: the outcome, drawn again as it starts (kept so a reloaded state finishes alike). */
  drawn: UpscaleDrawn;
  /** Internal: when PROCESSING ends (null: not processing, or stalled). */
  finishesAt: number | null;
}
