/** The public representation of a product (PROD-*, D3). */
import type { Product } from './model.ts';
import { iso } from '../shared.ts';

export function presentProduct(p: Product): Record<string, unknown> {
  return {
    object: 'product',
    productId: p.productId,
    sku: p.sku,
    title: p.title,
    brandId: p.brandId,
    primaryImageUrl: p.primaryImageUrl,
    galleryImageUrls: [...p.galleryImageUrls],
    createdAt: iso(p.createdAt),
  };
}
