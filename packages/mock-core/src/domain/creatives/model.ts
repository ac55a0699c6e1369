/** Creatives: the generated media of a campaign, one or more per product. */

export type CreativeStatus = 'NOT_GENERATED' | 'QUEUED' | 'GENERATING' | 'PENDING' | 'APPROVED' | 'REJECTED';
export type CreativeMediaType = 'image' | 'video' | '3d' | 'playable';

export interface Creative {
  creativeId: string;
  productId: string;
  campaignId: string;
  brandId: string;
  mediaType: CreativeMediaType;
  status: CreativeStatus;
  /** Public representation; null until first generated. */
  url: string | null;
  thumbnailUrl: string | null;
  playerUrl: string | null;
  /** The ratio set on the creative itself (null: the campaign's ratio shows). */
  ownAspectRatio: string | null;
  approvedAt: number | null;
  rejectionReason: string | null;
  deletedAt: number | null;
  /** Set when the creative was deleted by its campaign's cascade (restored with it). */
  deletedWithCampaign: boolean;
  metadata: Record<string, string>;
  createdAt: number;
  /** Free crop jobs queued by ratio changes (observable only through the control plane). */
  cropJobs: number;
}

/** Only image and video creatives with a public representation are usable through the API. */
export function isReadable(c: Creative): boolean {
  return (c.mediaType === 'image' || c.mediaType === 'video') && c.url !== null && c.status !== 'NOT_GENERATED';
}
