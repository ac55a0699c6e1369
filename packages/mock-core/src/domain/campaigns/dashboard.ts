/**
 * Dashboard actions: what other actors (a dashboard user, a review link, staff, a partner
 * operator) do to campaigns and creatives outside the public API (CRTV-002: generation happens in
 * the dashboard). The control plane exposes them as `POST /__mock/accounts/{id}/actions`.
 * How it works and what it decides: docs/internals.md, "packages/mock-core/src/domain/campaigns/dashboard.ts".
 */
import { ApiError, type FieldError } from '../../core/errors.ts';
import type { EventDraft, ResourceKind } from '../../events/model.ts';
import { nextId, type AccountState } from '../store.ts';
import type { Creative } from '../creatives/model.ts';
import { shownAspectRatio } from '../creatives/present.ts';
import {
  creativeNotFound,
  deleteCreative,
  finishGeneration as finishCreativeGeneration,
  queueGeneration,
  regenerateCreative as regenerate,
  startGeneration as startCreativeGeneration,
  type Rendition,
} from '../creatives/transitions.ts';
import { mediaBase, productLabel } from '../../media/links.ts';
import { renderDelivery } from '../deliveries/transitions.ts';
import type { Transition } from '../shared.ts';
import type { Campaign } from './model.ts';
import { creativesOf } from './present.ts';
import { campaignNotFound, cascade } from './transitions.ts';

export interface ResourceEvents {
  resource: { kind: ResourceKind; id: string };
  drafts: EventDraft[];
}

export interface ActionResult {
  events: ResourceEvents[];
  /** The creatives the action acted on. */
  creativeIds: string[];
}

export type DashboardAction = (account: AccountState, input: Record<string, unknown>, now: number) => ActionResult;

type MediaType = Rendition['mediaType'];
type Stage = 'QUEUED' | 'GENERATING' | 'PENDING';

export interface GenerateOptions {
  mediaType?: MediaType;
  /** Only the creatives of these products (default: every product of the campaign). */
  productIds?: readonly string[];
  /** Where generation stops (default PENDING: readable, awaiting review). */
  until?: Stage;
}

function liveCampaign(account: AccountState, campaignId: string): Campaign {
  const campaign = account.campaigns.get(campaignId);
  if (!campaign || campaign.deletedAt !== null) throw campaignNotFound();
  return campaign;
}

function findCreative(account: AccountState, creativeId: string): Creative {
  const c = account.creatives.get(creativeId);
  if (!c) throw creativeNotFound();
  return c;
}

function store(account: AccountState, t: Transition<Creative>, events: ResourceEvents[]): Creative {
  if (t.changed) account.creatives.set(t.next.creativeId, t.next);
  if (t.events.length > 0) events.push({ resource: { kind: 'creative', id: t.next.creativeId }, drafts: t.events });
  return t.next;
}

/** A new rendition of the creative: its media location changes with every generation (D49). */
function rendition(c: Creative, mediaType: MediaType, now: number, label: string | null): Rendition {
  const base = mediaBase(`${c.creativeId}.${now.toString(36)}`, label);
  if (mediaType === 'image') return { mediaType, url: base, thumbnailUrl: null, playerUrl: null };
  // CRTV-006: all three set for a video (the presenter adds the embedCode of the player)
  return { mediaType, url: base, thumbnailUrl: base, playerUrl: base };
}

/** QUEUED or GENERATING → PENDING with a new rendition, plus its delivery (D15). */
function finish(account: AccountState, c: Creative, now: number, events: ResourceEvents[]): Creative {
  const mediaType: MediaType = c.mediaType === 'video' ? 'video' : 'image';
  const label = productLabel(account.products.get(c.productId));
  const t = finishCreativeGeneration(c, rendition(c, mediaType, now, label));
  const next = store(account, t, events);
  if (t.changed) {
    const ratio = shownAspectRatio(account, next) ?? '1:1';
    const delivery = renderDelivery(next, ratio, nextId(account, 'dlv'), now, label);
    account.deliveries.set(delivery.deliveryId, delivery);
  }
  return next;
}

// ---------------------------------------------------------------------------------------------

export function generateCreatives(account: AccountState, campaignId: string, now: number, options: GenerateOptions = {}): ActionResult {
  const campaign = liveCampaign(account, campaignId);
  const mediaType = options.mediaType ?? 'image';
  const until = options.until ?? 'PENDING';
  const products = options.productIds ? new Set(options.productIds) : undefined;
  const targets = creativesOf(account, campaign).filter((c) => c.deletedAt === null && c.status === 'NOT_GENERATED' && (!products || products.has(c.productId)));
  const events: ResourceEvents[] = [];
  for (const c of targets) {
    let next = store(account, queueGeneration(c, mediaType), events);
    if (until !== 'QUEUED') next = store(account, startCreativeGeneration(next), events);
    if (until === 'PENDING') finish(account, next, now, events);
  }
  return { events, creativeIds: targets.map((c) => c.creativeId) };
}

export function regenerateCreative(account: AccountState, creativeId: string, _now: number): ActionResult {
  const events: ResourceEvents[] = [];
  store(account, regenerate(findCreative(account, creativeId)), events);
  return { events, creativeIds: [creativeId] };
}

export function startGeneration(account: AccountState, creativeId: string, _now: number): ActionResult {
  const events: ResourceEvents[] = [];
  store(account, startCreativeGeneration(findCreative(account, creativeId)), events);
  return { events, creativeIds: [creativeId] };
}

export function finishGeneration(account: AccountState, creativeId: string, now: number): ActionResult {
  const events: ResourceEvents[] = [];
  finish(account, findCreative(account, creativeId), now, events);
  return { events, creativeIds: [creativeId] };
}

export function removeProductFromCampaign(account: AccountState, campaignId: string, productId: string, now: number): ActionResult {
  const campaign = liveCampaign(account, campaignId);
  const targets = creativesOf(account, campaign).filter((c) => c.productId === productId && c.deletedAt === null);
  // All or nothing: a QUEUED or GENERATING creative refuses (CRTV-020) before anything changes.
  const changed = cascade(targets, (c) => deleteCreative(c, now)); // EVT-011
  for (const c of changed.creatives) account.creatives.set(c.creativeId, c);
  return {
    events: changed.creativeEvents.map((e) => ({ resource: { kind: 'creative', id: e.creativeId }, drafts: e.drafts })),
    creativeIds: targets.map((c) => c.creativeId),
  };
}

// ---------------------------------------------------------------------------------------------
// The record the control plane dispatches on, with `input` checked.

function invalid(errors: FieldError[]): ApiError {
  return new ApiError('VALIDATION_ERROR', 'The action input is invalid.', { status: 422, extensions: { errors } });
}

function requiredString(input: Record<string, unknown>, field: string): string {
  const value = input[field];
  if (typeof value !== 'string' || value.length === 0) throw invalid([{ field, message: 'is required (a non-empty string)' }]);
  return value;
}

function generateOptions(input: Record<string, unknown>): GenerateOptions {
  const errors: FieldError[] = [];
  const options: GenerateOptions = {};
  if (input.mediaType !== undefined) {
    if (input.mediaType === 'image' || input.mediaType === 'video') options.mediaType = input.mediaType;
    else errors.push({ field: 'mediaType', message: 'must be image or video' });
  }
  if (input.until !== undefined) {
    if (input.until === 'QUEUED' || input.until === 'GENERATING' || input.until === 'PENDING') options.until = input.until;
    else errors.push({ field: 'until', message: 'must be QUEUED, GENERATING or PENDING' });
  }
  if (input.productIds !== undefined) {
    if (Array.isArray(input.productIds) && input.productIds.every((p): p is string => typeof p === 'string')) options.productIds = input.productIds;
    else errors.push({ field: 'productIds', message: 'must be an array of strings' });
  }
  if (errors.length > 0) throw invalid(errors);
  return options;
}

export const dashboardActions: Record<string, DashboardAction> = {
  generateCreatives: (account, input, now) => generateCreatives(account, requiredString(input, 'campaignId'), now, generateOptions(input)),
  regenerateCreative: (account, input, now) => regenerateCreative(account, requiredString(input, 'creativeId'), now),
  startGeneration: (account, input, now) => startGeneration(account, requiredString(input, 'creativeId'), now),
  finishGeneration: (account, input, now) => finishGeneration(account, requiredString(input, 'creativeId'), now),
  removeProductFromCampaign: (account, input, now) =>
    removeProductFromCampaign(account, requiredString(input, 'campaignId'), requiredString(input, 'productId'), now),
};
