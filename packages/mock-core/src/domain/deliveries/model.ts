/** Deliveries (decided, D15): a creative rendered in one delivery ratio. */

export interface Delivery {
  deliveryId: string;
  creativeId: string;
  campaignId: string;
  productId: string;
  aspectRatio: string;
  mediaType: 'image' | 'video';
  url: string;
  createdAt: number;
}
