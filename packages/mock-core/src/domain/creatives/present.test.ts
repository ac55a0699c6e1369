import { describe, expect, it } from 'vitest';
import { planFor } from '../accounts/service.ts';
import { newAccountState } from '../store.ts';
import { presentProduct } from '../catalog/present.ts';
import type { Product } from '../catalog/model.ts';
import { mediaFields, RENDITION_EDGE, sizeForRatio } from '../../media/links.ts';
import { iso, isoOrNull, metadataField } from '../shared.ts';
import type { Creative } from './model.ts';
import { presentCreative, shownAspectRatio, type CreativeView } from './present.ts';

/** The representation as the literal with conditional spreads wrote it: the bytes must not move. */
function reference(account: ReturnType<typeof newAccountState>, c: Creative, view: CreativeView): unknown {
  const product = account.products.get(c.productId);
  const media = mediaFields(view.origin, c as { url: string; thumbnailUrl: string | null; playerUrl: string | null }, c.mediaType === 'video', sizeForRatio(shownAspectRatio(account, c), RENDITION_EDGE));
  return {
    object: 'creative',
    creativeId: c.creativeId,
    productId: c.productId,
    campaignId: c.campaignId,
    brandId: c.brandId,
    sku: product?.sku ?? null,
    mediaType: c.mediaType,
    url: media.url,
    thumbnailUrl: media.thumbnailUrl,
    aspectRatio: shownAspectRatio(account, c),
    approvedAt: isoOrNull(c.approvedAt),
    playerUrl: media.playerUrl,
    embedCode: media.embedCode,
    ...(view.showDeleted ? { deletedAt: c.deletedAt === null ? null : iso(c.deletedAt) } : {}),
    ...metadataField(c.metadata),
    status: c.status,
    ...(view.expandProduct && product ? { product: presentProduct(product, view.origin) } : {}),
  };
}

describe('presentCreative', () => {
  it('CRTV-003..011: the same JSON as the literal form, for every view, deleted or not, with or without metadata and product', () => {
    const account = newAccountState({ accountId: 'acc_t', name: 't', tag: 'aaaaaa', plan: planFor('enterprise'), createdAt: 0, seed: 1 });
    const product: Product = { productId: 'prd_1', brandId: 'brd_1', sku: 'SKU-1', title: 'P', primaryImageUrl: 'https://x/p.png', primaryImageWidth: 1000, primaryImageHeight: 1000, galleryImageUrls: [], createdAt: 0 };
    account.products.set(product.productId, product);
    const base: Creative = {
      creativeId: 'crv_1', productId: 'prd_1', campaignId: 'cmp_1', brandId: 'brd_1', mediaType: 'image', status: 'PENDING',
      url: 'https://x/c.png', thumbnailUrl: 'https://x/t.png', playerUrl: null, ownAspectRatio: '1:1',
      approvedAt: null, rejectionReason: null, deletedAt: null, deletedWithCampaign: false, metadata: {}, createdAt: 0, cropJobs: 0,
    };
    const variants: Creative[] = [
      base,
      { ...base, approvedAt: 1_767_225_600_123, status: 'APPROVED', metadata: { a: '1', b: '2' } },
      { ...base, deletedAt: 1_767_225_600_000, productId: 'prd_missing', ownAspectRatio: null },
      { ...base, mediaType: 'video', url: '/media/crv_1/SKU-1', thumbnailUrl: '/media/crv_1/SKU-1', playerUrl: '/media/crv_1/SKU-1', ownAspectRatio: '4:5' },
    ];
    for (const c of variants) {
      for (const showDeleted of [false, true]) {
        for (const expandProduct of [false, true]) {
          const view = { showDeleted, expandProduct, origin: 'http://mock.test' };
          expect(JSON.stringify(presentCreative(account, c, view))).toBe(JSON.stringify(reference(account, c, view)));
        }
      }
    }
  });
});
