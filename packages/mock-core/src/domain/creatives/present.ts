/**
 * The public representation of a creative (CRTV-003..011, D5, D6), exactly as
 * `#/components/schemas/Creative`:
 * - `aspectRatio` shows the creative's own ratio, or its campaign's when it has none (CRTV-008);
 * - `deletedAt` only with showDeleted (PAGE-011), and always in the canonical form;
 * - `metadata` only when it holds a key (CRTV-010, META-008);
 * - `status` per D6 (CRTV-011); `product` with expand=product (PAGE-001, PAGE-002).
 */
import type { Schemas } from '../../../../contract/spec/types.ts';
import type { AccountState } from '../store.ts';
import { mediaFields, RENDITION_EDGE, sizeForRatio } from '../../media/links.ts';
import { presentProduct } from '../catalog/present.ts';
import { iso, isoOrNull, metadataField } from '../shared.ts';
import { isReadable, type Creative } from './model.ts';

export interface CreativeView {
  showDeleted: boolean;
  expandProduct: boolean;
  /** The origin media URLs are handed out on (Store.publicOrigin, D49). */
  origin: string;
}

/** The ratio a creative is shown in: its own, else its campaign's (CRTV-008). */
export function shownAspectRatio(account: AccountState, c: Creative): string | null {
  return c.ownAspectRatio ?? account.campaigns.get(c.campaignId)?.aspectRatio ?? null;
}

export function presentCreative(account: AccountState, c: Creative, view: CreativeView): Schemas['Creative'] {
  if (!isReadable(c) || (c.mediaType !== 'image' && c.mediaType !== 'video') || c.url === null || c.status === 'NOT_GENERATED') {
    throw new Error(`creative ${c.creativeId} has no public representation`); // callers answer 404 first (CRTV-001, CRTV-005)
  }
  const product = account.products.get(c.productId);
  const aspectRatio = shownAspectRatio(account, c);
  // D49: the media in the ratio the creative shows (1:1 when it has none), so the picture, the
  // player and the embedCode's iframe always match `aspectRatio` (#17 item 10).
  const media = mediaFields(view.origin, c as { url: string; thumbnailUrl: string | null; playerUrl: string | null }, c.mediaType === 'video', sizeForRatio(aspectRatio, RENDITION_EDGE));
  // Built field by field, in the schema's order (the JSON is byte-for-byte what a literal with
  // conditional spreads gives), without the throwaway objects of `...(cond ? {...} : {})`.
  const out: Schemas['Creative'] = {
    object: 'creative',
    creativeId: c.creativeId,
    productId: c.productId,
    campaignId: c.campaignId,
    brandId: c.brandId,
    sku: product?.sku ?? null,
    mediaType: c.mediaType,
    url: media.url,
    thumbnailUrl: media.thumbnailUrl,
    aspectRatio,
    approvedAt: isoOrNull(c.approvedAt),
    playerUrl: media.playerUrl,
    embedCode: media.embedCode,
  } as Schemas['Creative'];
  if (view.showDeleted) out.deletedAt = c.deletedAt === null ? null : iso(c.deletedAt);
  const metadata = metadataField(c.metadata).metadata;
  if (metadata !== undefined) out.metadata = metadata;
  out.status = c.status;
  if (view.expandProduct && product) out.product = presentProduct(product, view.origin) as Schemas['Product'];
  return out;
}

/**
 * The canonical representation: the showDeleted form without expansions. Its hash is the strong
 * ETag (ETAG-002, ETAG-003) and it is the `data` of creative events (EVT-023).
 */
export function canonicalCreative(account: AccountState, c: Creative, origin: string): Schemas['Creative'] {
  return presentCreative(account, c, { showDeleted: true, expandProduct: false, origin });
}
