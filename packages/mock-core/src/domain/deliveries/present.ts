/** The public representation of a delivery (CRTV-013, D15), exactly as `#/components/schemas/Delivery`. */
import type { Schemas } from '../../../../contract/spec/types.ts';
import { mediaUrl, RENDITION_EDGE, sizeForRatio } from '../../media/links.ts';
import { iso } from '../shared.ts';
import type { Delivery } from './model.ts';

export function presentDelivery(d: Delivery, origin: string): Schemas['Delivery'] {
  return {
    object: 'delivery',
    deliveryId: d.deliveryId,
    creativeId: d.creativeId,
    campaignId: d.campaignId,
    productId: d.productId,
    aspectRatio: d.aspectRatio,
    mediaType: d.mediaType,
    url: mediaUrl(origin, d.url, sizeForRatio(d.aspectRatio, RENDITION_EDGE), d.mediaType === 'video' ? 'webm' : 'png'), // D49
    createdAt: iso(d.createdAt),
  };
}
