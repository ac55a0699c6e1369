/**
 * Upscale progression on the injected clock: QUEUED for a moment, PROCESSING for a while (longer
 * for 4K), then SUCCEEDED (the hold is charged and the new asset added) or FAILED (the hold is
 * released). The outcome is drawn from (seed, the upscale's ordinal) and the account's `upscaleOutcomeMix`;
 * `stall` stays PROCESSING (holding its credits) so IMAGE_UPSCALE_IN_PROGRESS can be drilled.
 */
import { mediaBase, productLabel } from '../../media/links.ts';
import { nextId, type AccountState } from '../store.ts';
import { newAsset, type Asset } from '../assets/model.ts';
import { chargeHold, creditsOf, releaseHold } from '../credits/ledger.ts';
import { LONG_EDGE_PX } from '../credits/ratecard.ts';
import { pick, unit } from '../runs/draw.ts';
import { scheduleFor, type GenerationEnv } from '../runs/scheduler.ts';
import { UPSCALE_OUTCOMES, effectiveSpeed, type UpscaleDrawn } from '../runs/settings.ts';
import type { Upscale } from './model.ts';
import { upscaleTransition, type UpscaleEvent } from './transitions.ts';

export const QUEUED_SECONDS = 2;
export const PROCESSING_SECONDS: Readonly<Record<Upscale['target'], number>> = { '2K': 6, '4K': 10 };

export type UpscaleEnv = Pick<GenerationEnv, 'account' | 'store' | 'clock'>;

function apply(env: UpscaleEnv, upscaleId: string, event: UpscaleEvent): Upscale {
  const upscale = env.account.upscales.get(upscaleId)!;
  const t = upscaleTransition(upscale, event, env.clock.now());
  if (t.changed) env.account.upscales.set(upscaleId, t.next);
  return t.next;
}

function scaled(env: UpscaleEnv, seconds: number): number {
  return Math.max(1, Math.round((seconds * 1000) / effectiveSpeed(env.store, env.account)));
}

/**
 * The outcome an upscale will have, drawn from (seed, its ordinal) and the mix in effect when it
 * starts processing (updateGeneration applies to upscales that start after the change).
 */
export function drawUpscale(account: AccountState, ordinal: number): UpscaleDrawn {
  return pick(account.generation.upscaleOutcomeMix, UPSCALE_OUTCOMES, unit(account.generation.seed, `upscale#${ordinal}`, 0, 'upscale'));
}

export function launchUpscale(env: UpscaleEnv, upscale: Upscale): void {
  scheduleFor(env, upscale.createdAt + scaled(env, QUEUED_SECONDS), () => begin(env, upscale.upscaleId));
}

/** QUEUED → PROCESSING; a stalled upscale never finishes. */
function begin(env: UpscaleEnv, upscaleId: string): void {
  const upscale = env.account.upscales.get(upscaleId);
  if (!upscale || upscale.status !== 'QUEUED') return;
  const drawn = drawUpscale(env.account, upscale.ordinal); // drawn as it starts, under the settings then
  const finishesAt = drawn === 'stall' ? null : env.clock.now() + scaled(env, PROCESSING_SECONDS[upscale.target]);
  apply(env, upscaleId, { type: 'start', finishesAt, drawn });
  if (finishesAt !== null) scheduleFor(env, finishesAt, () => finish(env, upscaleId));
}

/** UPSC-004: charged only for a delivered image; released when nothing is delivered. */
function finish(env: UpscaleEnv, upscaleId: string): void {
  const { account, clock } = env;
  const upscale = account.upscales.get(upscaleId);
  if (!upscale || upscale.status !== 'PROCESSING') return;
  const now = clock.now();
  if (upscale.drawn !== 'succeeded') {
    if (upscale.holdId !== null) releaseHold(creditsOf(account), upscale.holdId, now);
    apply(env, upscaleId, { type: 'fail', reason: 'render_failed' });
    return;
  }
  if (upscale.holdId !== null) chargeHold(creditsOf(account), upscale.holdId, now);
  const asset = deliverAsset(account, upscale, now);
  apply(env, upscaleId, { type: 'deliver', assetId: asset.assetId });
}

/** Re-arm an upscale's next step from saved state (tasks are not saved, see packages/mock/src/node/persistence.ts). */
export function resumeUpscale(env: UpscaleEnv, upscale: Upscale): void {
  if (upscale.status === 'QUEUED') launchUpscale(env, upscale);
  else if (upscale.status === 'PROCESSING' && upscale.finishesAt !== null) scheduleFor(env, upscale.finishesAt, () => finish(env, upscale.upscaleId));
}

/**
 * UPSC-001, UPSC-002, ASST-005: the result is a NEW asset with `derivation`; the parent is never
 * changed. `rootAssetId` follows a chain of upscales back to the first, non-derived asset.
 */
export function deliverAsset(account: AccountState, upscale: Upscale, now: number): Asset {
  const parent = account.assets.get(upscale.parentAssetId);
  if (!parent) throw new Error(`upscale ${upscale.upscaleId}: parent asset ${upscale.parentAssetId} is gone`);
  const edge = LONG_EDGE_PX[upscale.target];
  const factor = edge / Math.max(parent.width, parent.height);
  const assetId = nextId(account, 'ast');
  const asset = newAsset({
    assetId,
    productId: parent.productId,
    type: 'STATIC',
    url: mediaBase(assetId, productLabel(account.products.get(parent.productId))), // D49: the picture at the target size
    name: `${parent.name} (upscaled ${upscale.target})`,
    width: Math.max(1, Math.round(parent.width * factor)),
    height: Math.max(1, Math.round(parent.height * factor)),
    createdAt: now,
    derivation: {
      kind: 'ai_rerender',
      operation: 'image_upscale',
      parentAssetId: parent.assetId,
      rootAssetId: parent.derivation?.rootAssetId ?? parent.assetId,
    },
  });
  account.assets.set(assetId, asset);
  return asset;
}
