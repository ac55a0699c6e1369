/**
 * The public representation of an asset (schema `Asset`; ASST-001..007, ASST-014, D7).
 *
 * Assets always carry `deletedAt` (null while live), so the representation is the same with and
 * without `showDeleted`: GET, list rows, write responses and webhook `data` (EVT-023) all use it,
 * and its hash is the strong ETag (ETAG-002, ETAG-003).
 */
import { mediaFields } from '../../media/links.ts';
import type { Asset } from './model.ts';
import { iso, isoOrNull, metadataField } from '../shared.ts';

export function presentAsset(a: Asset, origin: string): Record<string, unknown> {
  // D49: media of the size the asset states; a video's player and embedCode in its ratio.
  const media = mediaFields(origin, a, a.type === 'VIDEO', { width: a.width, height: a.height });
  return {
    object: 'asset', // ASST-001
    assetId: a.assetId,
    productId: a.productId,
    type: a.type, // ASST-007, D7: STATIC or VIDEO
    url: media.url,
    thumbnailUrl: media.thumbnailUrl, // ASST-002: may be null
    favorited: a.favorited,
    status: a.archived ? 'archived' : 'active', // ASST-004, ASST-014, D7
    name: a.name,
    width: a.width,
    height: a.height,
    durationSec: a.durationSec, // ASST-003: null for a still image
    playerUrl: media.playerUrl,
    embedCode: media.embedCode,
    createdAt: iso(a.createdAt),
    deletedAt: isoOrNull(a.deletedAt), // ASST-002, PAGE-011: always present on assets
    ...(a.notes !== null ? { notes: a.notes } : {}), // optional: only when set
    ...metadataField(a.metadata), // META-008: only when it holds at least one key
    // ASST-005 / ASST-006: derivation only on an asset made by an upscale
    ...(a.derivation !== null ? { derivation: { ...a.derivation } } : {}),
  };
}

/**
 * The canonical representation: what the strong ETag hashes and what webhook `data` renders.
 * For assets it is exactly the public representation (it already carries `deletedAt`).
 */
export function canonicalAsset(a: Asset, origin: string): Record<string, unknown> {
  return presentAsset(a, origin);
}
