/**
 * Pure transitions of an upscale (UPSC-007, D14):
 *
 *   QUEUED --start--> PROCESSING --deliver--> SUCCEEDED (assetId set)
 *   QUEUED | PROCESSING --fail--> FAILED (failureReason set)
 *
 * SUCCEEDED and FAILED are final: nothing changes them again, so `finalizedAt` is set once.
 */
import type { Transition } from '../shared.ts';
import { unchanged } from '../shared.ts';
import { isFinalUpscale, type Upscale } from './model.ts';

export type UpscaleEvent = { type: 'start'; finishesAt: number | null; drawn?: Upscale['drawn'] } | { type: 'deliver'; assetId: string } | { type: 'fail'; reason: string };

export function upscaleTransition(upscale: Upscale, event: UpscaleEvent, now: number): Transition<Upscale> {
  if (isFinalUpscale(upscale.status)) return unchanged(upscale);
  switch (event.type) {
    case 'start':
      if (upscale.status !== 'QUEUED') return unchanged(upscale);
      return { next: { ...upscale, status: 'PROCESSING', startedAt: now, finishesAt: event.finishesAt, drawn: event.drawn ?? upscale.drawn }, events: [], changed: true };
    case 'deliver':
      if (upscale.status !== 'PROCESSING') return unchanged(upscale);
      return { next: { ...upscale, status: 'SUCCEEDED', assetId: event.assetId, holdId: null, finishesAt: null, finalizedAt: now }, events: [], changed: true };
    case 'fail':
      return { next: { ...upscale, status: 'FAILED', failureReason: event.reason, holdId: null, finishesAt: null, finalizedAt: now }, events: [], changed: true };
  }
}
