/** Control plane, campaigns: listCampaignCreatives (a campaign's creatives as the dashboard sees them, a page at a time). */
import { isReadable } from '../domain/creatives/model.ts';
import { isoOrNull } from '../domain/shared.ts';
import { ControlError, type ControlHandlers } from './types.ts';

export const campaignHandlers: ControlHandlers = {
  listCampaignCreatives(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const campaignId = request.params.campaignId!;
    const campaign = account.campaigns.get(campaignId);
    if (!campaign) throw new ControlError(404, 'NOT_FOUND', `There is no campaign ${campaignId} in account ${account.accountId}.`);
    const limit = (request.query.limit as number | undefined) ?? 50;
    const offset = (request.query.offset as number | undefined) ?? 0;
    const data = campaign.creativeIds
      .slice(offset, offset + limit)
      .map((id) => account.creatives.get(id))
      .filter((c) => c !== undefined)
      .map((c) => ({ creativeId: c.creativeId, productId: c.productId, status: c.status, mediaType: c.mediaType, readable: isReadable(c), deletedAt: isoOrNull(c.deletedAt) }));
    return { status: 200, body: { data, total: campaign.creativeIds.length } };
  },
};
