/**
 * Pure transitions of a creative: the interface's state table "States and transitions / Creative"
 * plus D6 and D32. No mutation, no clock: `now` comes in as an argument, and the actor never does
 * (the same transition serves the API, the dashboard and review links, EVT-019).
 *
 * Each returns `Transition<Creative>` (next state, event drafts, changed) or throws the ApiError
 * of the table. Events are drafted only for a creative readable through the API (EVT-017).
 * Whether the creative is readable at all (the 404 of a write on an unreadable creative) is the
 * operation's concern; a write on a deleted creative is refused here too (D32, ERR-020).
 */
import { resolvePointer } from '../../../../contract/spec/contract.ts';
import { ApiError } from '../../core/errors.ts';
import type { EventDraft } from '../../events/model.ts';
import { mergeMetadata, unchanged, type Transition } from '../shared.ts';
import { isReadable, type Creative, type CreativeMediaType, type CreativeStatus } from './model.ts';

/** The delivery ratios (D4, CRTV-012), read from the document so there is one list. */
const DELIVERY_RATIOS: readonly string[] = (resolvePointer('#/components/schemas/DeliveryRatio') as { enum: string[] }).enum;

/** The uniform 404 of every creative operation (GEN-004, ERR-019, ERR-020): one detail text. */
export function creativeNotFound(): ApiError {
  return new ApiError('CREATIVE_NOT_FOUND', 'No such creative.');
}

/** EVT-017: changes to a NOT_GENERATED, 3D or playable creative send nothing. */
function readableOnly(c: Creative, drafts: EventDraft[]): EventDraft[] {
  return isReadable(c) ? drafts : [];
}

function changedTo(next: Creative, drafts: EventDraft[] = []): Transition<Creative> {
  return { next, events: readableOnly(next, drafts), changed: true };
}

function assertLive(c: Creative): void {
  if (c.deletedAt !== null) throw creativeNotFound(); // D32, ERR-020: a write on a deleted creative is a 404
}

const IN_GENERATION: readonly CreativeStatus[] = ['QUEUED', 'GENERATING'];

export function isGenerating(c: Creative): boolean {
  return IN_GENERATION.includes(c.status);
}

function notPending(c: Creative): ApiError {
  // CRTV-017, ERR-009, D32 (QUEUED or GENERATING answers the same code)
  return new ApiError('CREATIVE_NOT_PENDING', `The creative is ${c.status}, not PENDING; it cannot be reviewed this way.`, {
    extensions: { currentStatus: c.status },
  });
}

// ---------------------------------------------------------------------------------------------
// Review

export function approveCreative(c: Creative, now: number): Transition<Creative> {
  assertLive(c);
  if (c.status === 'APPROVED') return unchanged(c); // CRTV-016: repeat is a no-op that records nothing
  if (c.status !== 'PENDING') throw notPending(c); // CRTV-017
  // CRTV-014, CRTV-009, EVT-009
  return changedTo({ ...c, status: 'APPROVED', approvedAt: now, rejectionReason: null }, [{ type: 'creative.approved' }]);
}

export function rejectCreative(c: Creative, input: { rejectionReason?: string | undefined }): Transition<Creative> {
  assertLive(c);
  if (c.status === 'REJECTED') return unchanged(c); // CRTV-016 (a repeat with another reason records nothing either)
  if (c.status !== 'PENDING') throw notPending(c); // CRTV-017
  // CRTV-015, CRTV-030 (bounds checked by the document), EVT-009
  return changedTo({ ...c, status: 'REJECTED', approvedAt: null, rejectionReason: input.rejectionReason ?? null }, [{ type: 'creative.rejected' }]);
}

// ---------------------------------------------------------------------------------------------
// Update (aspectRatio, metadata)

export interface CreativeUpdate {
  /** A delivery ratio, or null to clear the creative's own ratio (the campaign's then shows). */
  aspectRatio?: string | null;
  metadata?: Record<string, string | null>;
}

export function updateCreative(c: Creative, patch: CreativeUpdate, context: { campaignAspectRatio: string | null }): Transition<Creative> {
  assertLive(c);
  if (patch.aspectRatio !== undefined && patch.aspectRatio !== null && !DELIVERY_RATIOS.includes(patch.aspectRatio)) {
    // ERR-024, CRTV-012 (the document refuses it first; this keeps the transition honest on its own)
    throw new ApiError('VALIDATION_ERROR', 'aspectRatio must be one of the delivery ratios.', {
      status: 422,
      extensions: { errors: [{ field: 'aspectRatio', message: `must be one of ${DELIVERY_RATIOS.join(', ')}` }] },
    });
  }
  const ownAspectRatio = patch.aspectRatio === undefined ? c.ownAspectRatio : patch.aspectRatio;
  const ratioChanged = ownAspectRatio !== c.ownAspectRatio;
  // META-001..004: a string sets, null removes, merge into the existing map, at most 50 keys (422)
  const merge = patch.metadata ? mergeMetadata(c.metadata, patch.metadata) : { next: c.metadata, changed: false };
  if (!ratioChanged && !merge.changed) return unchanged(c); // CRTV-026, EVT-020

  const previousAttributes: Record<string, unknown> = {};
  if (ratioChanged) previousAttributes.aspectRatio = c.ownAspectRatio; // EVT-033: the creative's OWN previous ratio
  // EVT-031: the whole previous map; EVT-032/D33: not listed when `data` no longer carries metadata
  if (merge.changed && Object.keys(merge.next).length > 0) previousAttributes.metadata = { ...c.metadata };

  // CRTV-025: a changed ratio on a creative that has an asset queues a free crop job (when the
  // ratio it is shown in changes: a crop to the ratio it already has would produce nothing new).
  const shownBefore = c.ownAspectRatio ?? context.campaignAspectRatio;
  const shownAfter = ownAspectRatio ?? context.campaignAspectRatio;
  const cropJobs = c.url !== null && shownAfter !== shownBefore ? c.cropJobs + 1 : c.cropJobs;

  const next: Creative = { ...c, ownAspectRatio, metadata: merge.next, cropJobs };
  return changedTo(next, [{ type: 'creative.updated', previousAttributes }]); // CRTV-024, EVT-010
}

// ---------------------------------------------------------------------------------------------
// Delete and undelete

export function deleteCreative(c: Creative, now: number): Transition<Creative> {
  assertLive(c); // D32: deleting a deleted creative is a 404
  if (isGenerating(c)) {
    // CRTV-020, ERR-009
    throw new ApiError('CREATIVE_NOT_DELETABLE', `The creative is ${c.status}; retry after generation finishes.`, {
      extensions: { currentStatus: c.status },
    });
  }
  // CRTV-018, CRTV-019 (no credits move), EVT-011
  return changedTo({ ...c, deletedAt: now, deletedWithCampaign: false }, [{ type: 'creative.deleted' }]);
}

/**
 * Undelete. A creative whose campaign is deleted is not restored (CRTV-022), whether it went with
 * the campaign or on its own before (decided: restoring it into a deleted campaign would leave a
 * live creative in a hidden campaign; "restore the campaign first" holds for both).
 */
export function undeleteCreative(c: Creative, context: { campaignDeleted: boolean }): Transition<Creative> {
  if (c.deletedAt === null) return unchanged(c); // CRTV-023: live → no-op 200
  if (context.campaignDeleted) {
    throw new ApiError('CREATIVE_CAMPAIGN_DELETED', 'The creative\'s campaign is deleted; restore the campaign first.'); // CRTV-022
  }
  return changedTo({ ...c, deletedAt: null, deletedWithCampaign: false }, [{ type: 'creative.restored' }]); // CRTV-021, EVT-012
}

/** The campaign delete's cascade on one live creative (CAMP-006, EVT-011). */
export function deleteWithCampaign(c: Creative, now: number): Transition<Creative> {
  if (c.deletedAt !== null) return unchanged(c); // deleted on its own before: stays so (CAMP-013)
  return changedTo({ ...c, deletedAt: now, deletedWithCampaign: true }, [{ type: 'creative.deleted' }]);
}

/** The campaign restore's cascade on one creative: only those deleted with it (CAMP-012, CAMP-013). */
export function restoreWithCampaign(c: Creative): Transition<Creative> {
  if (c.deletedAt === null || !c.deletedWithCampaign) return unchanged(c);
  return changedTo({ ...c, deletedAt: null, deletedWithCampaign: false }, [{ type: 'creative.restored' }]); // EVT-012
}

// ---------------------------------------------------------------------------------------------
// Generation (dashboard only, CRTV-002; the interface does not show these transitions). No event
// type covers generation, so none is drafted: a creative appearing is not a "creation" event
// (EVT-018), and a status change is not `creative.updated` (EVT-010 names ratio and metadata).

export interface Rendition {
  mediaType: Extract<CreativeMediaType, 'image' | 'video'>;
  url: string;
  thumbnailUrl: string | null;
  playerUrl: string | null;
}

/** NOT_GENERATED → QUEUED, choosing the media type. Other states: unchanged. */
export function queueGeneration(c: Creative, mediaType: Rendition['mediaType']): Transition<Creative> {
  assertLive(c);
  if (c.status !== 'NOT_GENERATED') return unchanged(c);
  return changedTo({ ...c, status: 'QUEUED', mediaType });
}

/** QUEUED → GENERATING. Other states: unchanged. */
export function startGeneration(c: Creative): Transition<Creative> {
  assertLive(c);
  if (c.status !== 'QUEUED') return unchanged(c);
  return changedTo({ ...c, status: 'GENERATING' });
}

/** QUEUED or GENERATING → PENDING with the new rendition, awaiting review again. Other states: unchanged. */
export function finishGeneration(c: Creative, rendition: Rendition): Transition<Creative> {
  assertLive(c);
  if (!isGenerating(c)) return unchanged(c);
  return changedTo({ ...c, ...rendition, status: 'PENDING', approvedAt: null, rejectionReason: null });
}

/**
 * A readable creative is generated again: it goes QUEUED and keeps its representation (url and
 * the rest) until the new rendition is ready (D6); its review starts over. Already QUEUED or
 * GENERATING: unchanged. A creative never generated is generated with `queueGeneration`.
 */
export function regenerateCreative(c: Creative): Transition<Creative> {
  assertLive(c);
  if (!isReadable(c)) throw creativeNotFound();
  if (isGenerating(c)) return unchanged(c);
  return changedTo({ ...c, status: 'QUEUED', approvedAt: null, rejectionReason: null });
}
