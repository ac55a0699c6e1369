/** The public representation of a product (PROD-*, D3). */
import type { Product } from './model.ts';
import { mediaUrl } from '../../media/links.ts';
import { iso } from '../shared.ts';

export function presentProduct(p: Product, origin: string): Record<string, unknown> {
  const size = { width: p.primaryImageWidth, height: p.primaryImageHeight };
  return {
    object: 'product',
    productId: p.productId,
    sku: p.sku,
    title: p.title,
    brandId: p.brandId,
    primaryImageUrl: mediaUrl(origin, p.primaryImageUrl, size, 'png'), // D49
    galleryImageUrls: p.galleryImageUrls.map((url) => mediaUrl(origin, url, size, 'png')),
    createdAt: iso(p.createdAt),
  };
}
