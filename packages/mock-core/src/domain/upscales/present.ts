/** The public representation of an upscale (UPSC-005, UPSC-006, D14). */
import type { Schemas } from '../../../../contract/spec/types.ts';
import { iso, isoOrNull } from '../shared.ts';
import type { Upscale } from './model.ts';

export function presentUpscale(u: Upscale): Schemas['Upscale'] {
  return {
    object: 'upscale',
    upscaleId: u.upscaleId,
    status: u.status,
    source: { ...u.source },
    target: u.target,
    credits: { ...u.credits },
    assetId: u.assetId,
    failureReason: u.failureReason,
    createdAt: iso(u.createdAt),
    finalizedAt: isoOrNull(u.finalizedAt),
  };
}
