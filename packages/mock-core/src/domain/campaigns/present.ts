/**
 * The public representation of a campaign (CAMP-003, CAMP-004, D8), exactly as
 * `#/components/schemas/Campaign`. `status` and `creativeCount` are derived when presented, so
 * the ETag (a hash of this representation) changes when they change without an edit (ETAG-001,
 * ERR-034). A campaign always carries `deletedAt`, so every view is the canonical one.
 *
 * Decided here (the interface and D8 leave it open):
 * - the creatives a campaign "holds" are its live ones; for a deleted campaign, the ones deleted
 *   with it (exactly those a restore brings back), so a deleted campaign still shows its size;
 * - `creativeCount` counts every creative it holds, generated or not (one per covered product);
 * - `status`: CREATING until creation finishes, then IN_PROGRESS while a held creative is not
 *   APPROVED or REJECTED, else COMPLETED (also when it holds none).
 */
import type { Schemas } from '../../../../contract/spec/types.ts';
import type { AccountState } from '../store.ts';
import type { Creative } from '../creatives/model.ts';
import { iso, isoOrNull, metadataField } from '../shared.ts';
import type { Campaign, CampaignStatus } from './model.ts';

/** Every creative of the campaign, in creation order. */
export function creativesOf(account: AccountState, campaign: Campaign): Creative[] {
  const out: Creative[] = [];
  for (const id of campaign.creativeIds) {
    const c = account.creatives.get(id);
    if (c) out.push(c);
  }
  return out;
}

/** The creatives the campaign holds (see the header). */
function heldCreatives(campaign: Campaign, creatives: readonly Creative[]): Creative[] {
  return campaign.deletedAt === null ? creatives.filter((c) => c.deletedAt === null) : creatives.filter((c) => c.deletedAt !== null && c.deletedWithCampaign);
}

/** D8, CAMP-004. */
export function campaignStatus(campaign: Campaign, creatives: readonly Creative[], now: number): CampaignStatus {
  if (now < campaign.creatingUntil) return 'CREATING';
  const held = heldCreatives(campaign, creatives);
  return held.every((c) => c.status === 'APPROVED' || c.status === 'REJECTED') ? 'COMPLETED' : 'IN_PROGRESS';
}

export function presentCampaign(campaign: Campaign, creatives: readonly Creative[], now: number): Schemas['Campaign'] {
  return {
    object: 'campaign',
    campaignId: campaign.campaignId,
    name: campaign.name,
    status: campaignStatus(campaign, creatives, now),
    brandId: campaign.brandId,
    creativeCount: heldCreatives(campaign, creatives).length,
    createdAt: iso(campaign.createdAt),
    deletedAt: isoOrNull(campaign.deletedAt),
    ...metadataField(campaign.metadata),
  };
}

/**
 * The canonical representation (the showDeleted form, which for a campaign is its only form): the
 * strong ETag (ETAG-001..003) and the `data` of campaign events (EVT-023). It depends on `now`
 * because `status` does (CREATING).
 */
export function canonicalCampaign(account: AccountState, campaign: Campaign, now: number): Schemas['Campaign'] {
  return presentCampaign(campaign, creativesOf(account, campaign), now);
}
