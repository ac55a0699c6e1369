/**
 * Pure transitions of a campaign: the interface's state table "States and transitions / Campaign"
 * plus D8, D16, D29, D31 and D32. No mutation, no clock: `now` comes in as an argument, the actor
 * never does. A transition returns the next campaign and the creatives it changed, the campaign's
 * event drafts (`events`) and each changed creative's drafts (`creativeEvents`), or throws.
 *
 * Left to the operation (it mutates the account): the lost-race fault (503 SERVICE_UNAVAILABLE while
 * `faults.lostRaces > 0`, ERR-032), which is decided when the change is committed.
 */
import { ApiError, type FieldError } from '../../core/errors.ts';
import type { EventDraft } from '../../events/model.ts';
import type { Plan } from '../accounts/model.ts';
import type { Product } from '../catalog/model.ts';
import type { Creative } from '../creatives/model.ts';
import { deleteWithCampaign, isGenerating, restoreWithCampaign } from '../creatives/transitions.ts';
import { mergeMetadata, type Transition } from '../shared.ts';
import type { Campaign } from './model.ts';

/** The ratio of a campaign created without one (decided; the campaign model always has one). */
const DEFAULT_CAMPAIGN_ASPECT_RATIO = '1:1';

export interface CampaignChange {
  campaign: Campaign;
  /** The creatives the transition created or changed (none otherwise). */
  creatives: Creative[];
}

export interface CreativeEvents {
  creativeId: string;
  drafts: EventDraft[];
}

export interface CampaignTransition extends Transition<CampaignChange> {
  /** Drafts of the changed creatives, in the campaign's creative order (CAMP-006, CAMP-012). */
  creativeEvents: CreativeEvents[];
}

/** The uniform 404 of every campaign operation (GEN-004, ERR-019, ERR-020): one detail text. */
export function campaignNotFound(): ApiError {
  return new ApiError('CAMPAIGN_NOT_FOUND', 'No such campaign.');
}

function unchangedCampaign(campaign: Campaign): CampaignTransition {
  return { next: { campaign, creatives: [] }, events: [], changed: false, creativeEvents: [] };
}

function assertLive(campaign: Campaign): void {
  if (campaign.deletedAt !== null) throw campaignNotFound(); // D32, ERR-020: a write on a deleted campaign is a 404
}

/**
 * CAMP-017, ERR-028: a delete or restore still finishing its creatives. The state table's "any" row:
 * it wins over every other outcome of a delete or restore (a repeated delete is a 409 here, not a 404).
 */
export function assertNoCascade(campaign: Campaign, now: number): void {
  if (campaign.cascadeUntil > now) {
    throw new ApiError('CAMPAIGN_CASCADE_PENDING', 'A previous delete or restore of this campaign is still finishing its creatives; retry the same request after Retry-After.', {
      retryAfter: Math.max(1, Math.ceil((campaign.cascadeUntil - now) / 1000)),
    });
  }
}

/** CAMP-015, CAMP-024, ERR-011, D29: the plan's campaign limit counts live campaigns. */
function assertUnderCampaignLimit(plan: Pick<Plan, 'campaignLimit'>, liveCampaigns: number): void {
  if (liveCampaigns >= plan.campaignLimit) {
    throw new ApiError('LIMIT_EXCEEDED', `The plan allows ${plan.campaignLimit} live campaigns.`, {
      extensions: { limitKey: 'campaigns', limit: plan.campaignLimit, current: liveCampaigns },
    });
  }
}

/** CAMP-025, ERR-011, D29, D70: a campaign may not cover more products than the plan allows (create and restore). */
function assertProductsWithinPlan(plan: Pick<Plan, 'productsPerCampaign'>, products: number): void {
  if (products > plan.productsPerCampaign) {
    throw new ApiError('LIMIT_EXCEEDED', `The plan allows ${plan.productsPerCampaign} products per campaign.`, {
      extensions: { limitKey: 'productsPerCampaign', limit: plan.productsPerCampaign, current: products },
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Create

export interface CampaignCreateInput {
  name: string;
  brandId: string;
  productIds: string[];
  aspectRatio?: string;
  metadata?: Record<string, string>;
}

export interface CreateContext {
  plan: Pick<Plan, 'campaigns' | 'campaignLimit' | 'productsPerCampaign'>;
  /** Live (not deleted) campaigns of the account. */
  liveCampaigns: number;
  brands: { has(brandId: string): boolean };
  products: { get(productId: string): Product | undefined };
  /** Seconds the new campaign stays CREATING (`faults.creationSeconds`). */
  creationSeconds: number;
  /** Allocates an id; called only once every check has passed. */
  newId(prefix: 'cmp' | 'crv'): string;
}

/** CAMP-026, AUTH-022, D31: creating a campaign needs a plan that includes campaigns (also before a replay, D72). */
export function assertCampaignsInPlan(plan: Pick<Plan, 'campaigns'>): void {
  if (!plan.campaigns) throw new ApiError('TIER_REQUIRED', 'The plan does not include campaigns.');
}

export function createCampaign(input: CampaignCreateInput, context: CreateContext, now: number): CampaignTransition {
  const { plan } = context;
  assertCampaignsInPlan(plan); // CAMP-026

  if (!context.brands.has(input.brandId)) {
    // D16: a brand the account does not have is a field failure of the body
    throw new ApiError('VALIDATION_ERROR', 'brandId does not name a brand of this account.', {
      status: 422,
      extensions: { errors: [{ field: 'brandId', message: 'is not a brand of this account' }] },
    });
  }
  const products = input.productIds.map((id) => context.products.get(id));
  const unknown: FieldError[] = [];
  const otherBrand: FieldError[] = [];
  products.forEach((p, i) => {
    if (!p) unknown.push({ field: `productIds[${i}]`, message: 'is not a product of this account' });
    else if (p.brandId !== input.brandId) otherBrand.push({ field: `productIds[${i}]`, message: `belongs to another brand than ${input.brandId}` });
  });
  if (unknown.length > 0) throw new ApiError('PRODUCT_NOT_FOUND', 'A listed product does not exist.', { extensions: { errors: unknown } }); // D16
  if (otherBrand.length > 0) {
    throw new ApiError('VALIDATION_ERROR', 'Every product must belong to the campaign\'s brand.', { status: 422, extensions: { errors: otherBrand } }); // CAMP-001, D16
  }
  assertProductsWithinPlan(plan, input.productIds.length); // CAMP-025
  assertUnderCampaignLimit(plan, context.liveCampaigns); // CAMP-024

  const campaignId = context.newId('cmp');
  // CAMP-001: one empty NOT_GENERATED creative per product, for the campaign's brand; CAMP-002: no credits
  const creatives: Creative[] = input.productIds.map((productId) => ({
    creativeId: context.newId('crv'),
    productId,
    campaignId,
    brandId: input.brandId,
    mediaType: 'image',
    status: 'NOT_GENERATED',
    url: null,
    thumbnailUrl: null,
    playerUrl: null,
    ownAspectRatio: null,
    approvedAt: null,
    rejectionReason: null,
    deletedAt: null,
    deletedWithCampaign: false,
    metadata: {},
    createdAt: now,
    cropJobs: 0,
  }));
  const campaign: Campaign = {
    campaignId,
    name: input.name,
    brandId: input.brandId,
    aspectRatio: input.aspectRatio ?? DEFAULT_CAMPAIGN_ASPECT_RATIO,
    createdAt: now,
    deletedAt: null,
    metadata: { ...(input.metadata ?? {}) },
    creativeIds: creatives.map((c) => c.creativeId),
    creatingUntil: now + context.creationSeconds * 1000, // CAMP-010: "still being created" until then
    cascadeUntil: now,
  };
  // CAMP-019, EVT-015; EVT-018: creating its creatives sends nothing
  return { next: { campaign, creatives }, events: [{ type: 'campaign.created' }], changed: true, creativeEvents: [] };
}

// ---------------------------------------------------------------------------------------------
// Update (name, metadata)

export interface CampaignUpdate {
  name?: string;
  metadata?: Record<string, string | null>;
}

export function updateCampaign(campaign: Campaign, patch: CampaignUpdate): CampaignTransition {
  assertLive(campaign); // D32
  const name = patch.name ?? campaign.name;
  const merge = patch.metadata ? mergeMetadata(campaign.metadata, patch.metadata) : { next: campaign.metadata, changed: false }; // META-001..004
  const nameChanged = name !== campaign.name;
  if (!nameChanged && !merge.changed) return unchangedCampaign(campaign); // CAMP-027, EVT-020

  const previousAttributes: Record<string, unknown> = {};
  if (nameChanged) previousAttributes.name = campaign.name; // EVT-030
  if (merge.changed && Object.keys(merge.next).length > 0) previousAttributes.metadata = { ...campaign.metadata }; // EVT-031, EVT-032, D33
  return {
    next: { campaign: { ...campaign, name, metadata: merge.next }, creatives: [] },
    events: [{ type: 'campaign.updated', previousAttributes }], // CAMP-018, EVT-015
    changed: true,
    creativeEvents: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Delete and undelete (cascades)

/** Apply a creative transition to each creative: the changed ones and their drafts, in order. */
export function cascade(creatives: readonly Creative[], step: (c: Creative) => Transition<Creative>): { creatives: Creative[]; creativeEvents: CreativeEvents[] } {
  const changed: Creative[] = [];
  const creativeEvents: CreativeEvents[] = [];
  for (const c of creatives) {
    const t = step(c);
    if (!t.changed) continue;
    changed.push(t.next);
    if (t.events.length > 0) creativeEvents.push({ creativeId: c.creativeId, drafts: t.events });
  }
  return { creatives: changed, creativeEvents };
}

export function deleteCampaign(campaign: Campaign, creatives: readonly Creative[], context: { cascadeSeconds: number }, now: number): CampaignTransition {
  assertNoCascade(campaign, now); // CAMP-017 ("any" state: before the 404 of a deleted campaign)
  assertLive(campaign); // D32: deleting a deleted campaign is a 404
  if (campaign.creatingUntil > now) {
    // CAMP-010, ERR-010
    throw new ApiError('CAMPAIGN_NOT_DELETABLE', 'The campaign is still being created.', { extensions: { reason: 'still_being_created' } });
  }
  const generatingCount = creatives.filter((c) => c.deletedAt === null && isGenerating(c)).length;
  if (generatingCount > 0) {
    // CAMP-009, ERR-010
    throw new ApiError('CAMPAIGN_NOT_DELETABLE', `${generatingCount} creatives of the campaign are QUEUED or GENERATING.`, { extensions: { generatingCount } });
  }
  // CAMP-006, EVT-011: every live creative goes with it (readable ones send creative.deleted)
  const changed = cascade(creatives, (c) => deleteWithCampaign(c, now));
  return {
    // CAMP-005, CAMP-007, CAMP-008: deletedAt set, no credits, runs untouched
    next: { campaign: { ...campaign, deletedAt: now, cascadeUntil: now + context.cascadeSeconds * 1000 }, creatives: changed.creatives },
    events: [{ type: 'campaign.deleted' }], // EVT-016
    changed: true,
    creativeEvents: changed.creativeEvents,
  };
}

export interface UndeleteContext {
  plan: Pick<Plan, 'campaignLimit' | 'productsPerCampaign'>;
  /** Live (not deleted) campaigns of the account. */
  liveCampaigns: number;
  cascadeSeconds: number;
}

export function undeleteCampaign(campaign: Campaign, creatives: readonly Creative[], context: UndeleteContext, now: number): CampaignTransition {
  assertNoCascade(campaign, now); // CAMP-017 ("any" state: checked before the no-op)
  if (campaign.deletedAt === null) return unchangedCampaign(campaign); // CAMP-016
  assertUnderCampaignLimit(context.plan, context.liveCampaigns); // CAMP-015
  // CAMP-012, CAMP-013, EVT-012: exactly the creatives deleted with it come back
  const changed = cascade(creatives, restoreWithCampaign);
  // CAMP-025, D70: the restored campaign covers the products of the creatives coming back (a product
  // taken out of the campaign, D47, does not come back and does not count)
  assertProductsWithinPlan(context.plan, new Set(changed.creatives.map((c) => c.productId)).size);
  return {
    next: { campaign: { ...campaign, deletedAt: null, cascadeUntil: now + context.cascadeSeconds * 1000 }, creatives: changed.creatives },
    events: [{ type: 'campaign.restored' }], // CAMP-011, EVT-016
    changed: true,
    creativeEvents: changed.creativeEvents,
  };
}
