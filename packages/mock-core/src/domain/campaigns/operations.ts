/**
 * Campaign operations: listCampaigns, getCampaign, createCampaign, updateCampaign,
 * deleteCampaign, undeleteCampaign.
 *
 * Another account's campaign, and (on a write other than undelete) a deleted one, answer the same
 * 404 (GEN-004, ERR-020). Writes answer the campaign as GET returns it (GEN-008, CAMP-023) with the
 * strong ETag of its canonical form (ETAG-001, ETAG-003). A plan without campaigns never reaches
 * PATCH, DELETE or undelete (401 ENTITLEMENT_LOST in authenticate, D31).
 */
import { basePath } from '../../../../contract/spec/contract.ts';
import { ApiError } from '../../core/errors.ts';
import type { HandlerTable, OperationResult, RequestContext } from '../operation.ts';
import { nextId, type AccountState } from '../store.ts';
import { listPage, showDeleted } from '../shared.ts';
import type { Campaign } from './model.ts';
import { campaignStatus, canonicalCampaign, creativesOf } from './present.ts';
import {
  campaignNotFound,
  assertCampaignsInPlan,
  createCampaign,
  assertNoCascade,
  deleteCampaign,
  undeleteCampaign,
  updateCampaign,
  type CampaignCreateInput,
  type CampaignTransition,
  type CampaignUpdate,
} from './transitions.ts';

/** Seconds a client waits after losing the race of a create or restore. */
const LOST_RACE_RETRY_AFTER = 1;

function liveCampaignCount(account: AccountState): number {
  let n = 0;
  for (const c of account.campaigns.values()) if (c.deletedAt === null) n++;
  return n;
}

function findCampaign(ctx: RequestContext, id: string | undefined): Campaign {
  const campaign = id === undefined ? undefined : ctx.account.campaigns.get(id);
  if (!campaign) throw campaignNotFound(); // GEN-004
  return campaign;
}

/** The target of a write: live (ERR-020, D32: a write on a deleted campaign is a 404). */
function liveCampaign(ctx: RequestContext, id: string | undefined): Campaign {
  const campaign = findCampaign(ctx, id);
  if (campaign.deletedAt !== null) throw campaignNotFound();
  return campaign;
}

/** The target of a delete: a cascade still running answers 409 first (CAMP-017), then ERR-020's 404. */
function deletableCampaign(ctx: RequestContext, id: string | undefined): Campaign {
  const campaign = findCampaign(ctx, id);
  assertNoCascade(campaign, ctx.now);
  if (campaign.deletedAt !== null) throw campaignNotFound();
  return campaign;
}

/**
 * ERR-032: while `faults.lostRaces > 0`, a create or restore that would change something loses the
 * race when it commits: 503 SERVICE_UNAVAILABLE, nothing changed (the key stays free, D37).
 */
function loseRaceIfDue(account: AccountState): void {
  if (account.faults.lostRaces <= 0) return;
  account.faults.lostRaces--;
  throw new ApiError('SERVICE_UNAVAILABLE', 'Other changes on the account were in flight and this one lost the race; nothing changed. Retry with the same Idempotency-Key.', {
    retryAfter: LOST_RACE_RETRY_AFTER, // ERR-025
  });
}

/** Store the campaign and the creatives it changed, then record the events (creatives first). */
function commit(ctx: RequestContext, t: CampaignTransition): Campaign {
  if (!t.changed) return t.next.campaign;
  const { campaign, creatives } = t.next;
  ctx.account.campaigns.set(campaign.campaignId, campaign);
  for (const c of creatives) ctx.account.creatives.set(c.creativeId, c);
  for (const e of t.creativeEvents) ctx.emit({ kind: 'creative', id: e.creativeId }, e.drafts); // CAMP-006, CAMP-012
  if (t.events.length > 0) ctx.emit({ kind: 'campaign', id: campaign.campaignId }, t.events);
  return campaign;
}

function respond(ctx: RequestContext, campaign: Campaign, status = 200): OperationResult {
  const body = canonicalCampaign(ctx.account, campaign, ctx.now);
  return { status, body, etagOf: body, resource: { kind: 'campaign', id: campaign.campaignId } }; // GEN-008, ETAG-003
}

export const campaignHandlers: HandlerTable = {
  listCampaigns: {
    run(ctx) {
      const deleted = showDeleted(ctx.query);
      const status = ctx.query.status as string | undefined;
      const body = listPage(ctx.account, ctx.account.campaigns, ctx.query, {
        listKey: `campaigns:${deleted ? 'all' : 'live'}:${status ?? ''}`,
        direction: 'desc', // CAMP-020: newest first
        filter: (campaign) =>
          (deleted || campaign.deletedAt === null) && // CAMP-020, PAGE-009
          (status === undefined || campaignStatus(campaign, creativesOf(ctx.account, campaign), ctx.now) === status), // CAMP-021: exact match
        present: (campaign) => canonicalCampaign(ctx.account, campaign, ctx.now),
      });
      return { status: 200, body };
    },
  },

  getCampaign: {
    run(ctx) {
      const campaign = findCampaign(ctx, ctx.pathParams.campaignId);
      if (campaign.deletedAt !== null && !showDeleted(ctx.query)) throw campaignNotFound(); // PAGE-010
      const body = canonicalCampaign(ctx.account, campaign, ctx.now);
      return { status: 200, body, etagOf: body }; // ETAG-001, ETAG-002
    },
  },

  createCampaign: {
    entitle: (account) => assertCampaignsInPlan(account.plan), // IDEM-013, D72
    run(ctx) {
      const { account } = ctx;
      // CAMP-001, CAMP-019, CAMP-022, CAMP-024..026, CAMP-028, D16, D29
      const t = createCampaign(
        ctx.body as CampaignCreateInput,
        {
          plan: account.plan,
          liveCampaigns: liveCampaignCount(account),
          brands: account.brands,
          products: account.products,
          creationSeconds: account.faults.creationSeconds,
          newId: (prefix) => nextId(account, prefix),
        },
        ctx.now,
      );
      loseRaceIfDue(account); // ERR-032
      const campaign = commit(ctx, t);
      const result = respond(ctx, campaign, 201);
      return { ...result, headers: { location: `${basePath}/campaigns/${campaign.campaignId}` } }; // CAMP-022
    },
  },

  updateCampaign: {
    target: (ctx) => canonicalCampaign(ctx.account, liveCampaign(ctx, ctx.pathParams.campaignId), ctx.now), // ETAG-004
    run(ctx) {
      const campaign = liveCampaign(ctx, ctx.pathParams.campaignId);
      return respond(ctx, commit(ctx, updateCampaign(campaign, ctx.body as CampaignUpdate))); // CAMP-018, CAMP-023, CAMP-027
    },
  },

  deleteCampaign: {
    target: (ctx) => canonicalCampaign(ctx.account, deletableCampaign(ctx, ctx.pathParams.campaignId), ctx.now), // ETAG-004
    run(ctx) {
      const campaign = findCampaign(ctx, ctx.pathParams.campaignId); // deleteCampaign: 409 during a cascade, then 404 if deleted
      const t = deleteCampaign(campaign, creativesOf(ctx.account, campaign), { cascadeSeconds: ctx.account.faults.cascadeSeconds }, ctx.now); // CAMP-005..010, CAMP-017
      return respond(ctx, commit(ctx, t));
    },
  },

  undeleteCampaign: {
    run(ctx) {
      const { account } = ctx;
      const campaign = findCampaign(ctx, ctx.pathParams.campaignId);
      const t = undeleteCampaign(
        campaign,
        creativesOf(account, campaign),
        { plan: account.plan, liveCampaigns: liveCampaignCount(account), cascadeSeconds: account.faults.cascadeSeconds },
        ctx.now,
      ); // CAMP-011..017
      if (t.changed) loseRaceIfDue(account); // ERR-032
      return respond(ctx, commit(ctx, t));
    },
  },
};
