/**
 * Deliveries (D15): a creative rendered in one delivery ratio. They are made when a generation
 * finishes (dashboard actions), never through the API, and never change afterwards.
 */
import type { Creative } from '../creatives/model.ts';
import type { Delivery } from './model.ts';

/** The delivery of a freshly rendered creative in the ratio it is shown in. */
export function renderDelivery(c: Creative, aspectRatio: string, deliveryId: string, now: number): Delivery {
  if (c.url === null || (c.mediaType !== 'image' && c.mediaType !== 'video')) throw new Error(`creative ${c.creativeId} has no rendition to deliver`);
  const extension = c.mediaType === 'video' ? 'mp4' : 'png';
  return {
    deliveryId,
    creativeId: c.creativeId,
    campaignId: c.campaignId,
    productId: c.productId,
    aspectRatio,
    mediaType: c.mediaType,
    url: `https://media.creative-generation.invalid/${c.creativeId}/${deliveryId}-${aspectRatio.replace(':', 'x')}.${extension}`,
    createdAt: now,
  };
}
