/**
 * Deliveries (D15): a creative rendered in one delivery ratio. They are made when a generation
 * finishes (dashboard actions), never through the API, and never change afterwards.
 */
import { mediaBase } from '../../media/links.ts';
import type { Creative } from '../creatives/model.ts';
import type { Delivery } from './model.ts';

/** The delivery of a freshly rendered creative in the ratio it is shown in, labelled `label` (D49). */
export function renderDelivery(c: Creative, aspectRatio: string, deliveryId: string, now: number, label: string | null): Delivery {
  if (c.url === null || (c.mediaType !== 'image' && c.mediaType !== 'video')) throw new Error(`creative ${c.creativeId} has no rendition to deliver`);
  return {
    deliveryId,
    creativeId: c.creativeId,
    campaignId: c.campaignId,
    productId: c.productId,
    aspectRatio,
    mediaType: c.mediaType,
    url: mediaBase(deliveryId, label),
    createdAt: now,
  };
}
