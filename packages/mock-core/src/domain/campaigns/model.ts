/** Campaigns group creatives for a brand. */

export type CampaignStatus = 'CREATING' | 'IN_PROGRESS' | 'COMPLETED';

export interface Campaign {
  campaignId: string;
  name: string;
  brandId: string;
  /** The campaign's delivery ratio, shown on creatives that have none of their own. */
  aspectRatio: string;
  createdAt: number;
  deletedAt: number | null;
  metadata: Record<string, string>;
  /** Creatives in creation order. */
  creativeIds: string[];
  /** Until this time the campaign is still being created (CREATING; not deletable). */
  creatingUntil: number;
  /** Until this time a delete or restore is still finishing its creatives. */
  cascadeUntil: number;
}
