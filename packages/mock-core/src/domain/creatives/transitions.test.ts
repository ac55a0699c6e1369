/**
 * The creative state table, one row per table row and decided edge (interface "States and
 * transitions / Creative", D6, D32, D33). Inputs are deep-frozen: a transition that mutated its
 * input would throw.
 */
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../testkit/harness.ts';
import { ApiError, type ProblemExtensions } from '../../core/errors.ts';
import type { EventDraft } from '../../events/model.ts';
import type { Transition } from '../shared.ts';
import type { Creative } from './model.ts';
import {
  approveCreative,
  deleteCreative,
  deleteWithCampaign,
  finishGeneration,
  queueGeneration,
  regenerateCreative,
  rejectCreative,
  restoreWithCampaign,
  startGeneration,
  undeleteCreative,
  updateCreative,
  type CreativeUpdate,
  type Rendition,
} from './transitions.ts';

const NOW = Date.UTC(2026, 0, 2, 12, 0, 0);
const EARLIER = NOW - 3600_000;
const CAMPAIGN_RATIO = '4:5';

function creative(overrides: Partial<Creative> = {}): Creative {
  return deepFreeze({
    creativeId: 'crv_test',
    productId: 'prd_test',
    campaignId: 'cmp_test',
    brandId: 'brd_test',
    mediaType: 'image',
    status: 'PENDING',
    url: 'https://media.example.invalid/crv_test.png',
    thumbnailUrl: null,
    playerUrl: null,
    ownAspectRatio: null,
    approvedAt: null,
    rejectionReason: null,
    deletedAt: null,
    deletedWithCampaign: false,
    metadata: {},
    createdAt: EARLIER - 86_400_000,
    cropJobs: 0,
    ...overrides,
  });
}

/** A creative without a public representation (EVT-017). */
const notGenerated = (o: Partial<Creative> = {}) => creative({ status: 'NOT_GENERATED', url: null, ...o });
const threeD = (o: Partial<Creative> = {}) => creative({ mediaType: '3d', ...o });
const playable = (o: Partial<Creative> = {}) => creative({ mediaType: 'playable', ...o });

function fiftyKeys(): Record<string, string> {
  return Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, `v${i}`]));
}

type Want =
  | { changed: true; next: Partial<Creative>; events: EventDraft[] }
  | { changed: false }
  | { error: string; status: number; extensions?: ProblemExtensions; field?: string };

type Row = [name: string, { given: Creative; input: (c: Creative) => Transition<Creative>; want: Want }];

const approve = (c: Creative) => approveCreative(c, NOW);
const reject = (rejectionReason?: string) => (c: Creative) => rejectCreative(c, { rejectionReason });
const update = (patch: CreativeUpdate, campaignAspectRatio: string | null = CAMPAIGN_RATIO) => (c: Creative) => updateCreative(c, patch, { campaignAspectRatio });
const remove = (c: Creative) => deleteCreative(c, NOW);
const undelete = (campaignDeleted: boolean) => (c: Creative) => undeleteCreative(c, { campaignDeleted });
const image: Rendition = { mediaType: 'image', url: 'https://media.example.invalid/new.png', thumbnailUrl: null, playerUrl: null };

const rows: Row[] = [
  // --- approve
  ['CRTV-014 EVT-009 PENDING: approve → APPROVED, approvedAt set, creative.approved', { given: creative(), input: approve, want: { changed: true, next: { status: 'APPROVED', approvedAt: NOW }, events: [{ type: 'creative.approved' }] } }],
  ['CRTV-016 APPROVED: approve again → no-op, records nothing, no event', { given: creative({ status: 'APPROVED', approvedAt: EARLIER }), input: approve, want: { changed: false } }],
  ['CRTV-017 ERR-009 REJECTED: approve → 409 CREATIVE_NOT_PENDING, currentStatus REJECTED', { given: creative({ status: 'REJECTED' }), input: approve, want: { error: 'CREATIVE_NOT_PENDING', status: 409, extensions: { currentStatus: 'REJECTED' } } }],
  ['D32 CRTV-017 QUEUED: approve → 409 CREATIVE_NOT_PENDING, currentStatus QUEUED', { given: creative({ status: 'QUEUED' }), input: approve, want: { error: 'CREATIVE_NOT_PENDING', status: 409, extensions: { currentStatus: 'QUEUED' } } }],
  ['D32 CRTV-017 GENERATING: approve → 409 CREATIVE_NOT_PENDING, currentStatus GENERATING', { given: creative({ status: 'GENERATING' }), input: approve, want: { error: 'CREATIVE_NOT_PENDING', status: 409, extensions: { currentStatus: 'GENERATING' } } }],
  ['D32 ERR-020 deleted: approve → 404 CREATIVE_NOT_FOUND', { given: creative({ deletedAt: EARLIER }), input: approve, want: { error: 'CREATIVE_NOT_FOUND', status: 404 } }],
  ['EVT-017 3D creative PENDING: approve changes it, sends nothing', { given: threeD(), input: approve, want: { changed: true, next: { status: 'APPROVED', approvedAt: NOW }, events: [] } }],
  ['EVT-017 playable creative PENDING: approve changes it, sends nothing', { given: playable(), input: approve, want: { changed: true, next: { status: 'APPROVED', approvedAt: NOW }, events: [] } }],
  // --- reject
  ['CRTV-015 EVT-009 PENDING: reject with a reason → REJECTED, creative.rejected', { given: creative(), input: reject('off-brand colours'), want: { changed: true, next: { status: 'REJECTED', rejectionReason: 'off-brand colours', approvedAt: null }, events: [{ type: 'creative.rejected' }] } }],
  ['CRTV-015 PENDING: reject without a reason → REJECTED, reason null', { given: creative(), input: reject(), want: { changed: true, next: { status: 'REJECTED', rejectionReason: null }, events: [{ type: 'creative.rejected' }] } }],
  ['CRTV-016 REJECTED: reject again (another reason) → no-op, records nothing', { given: creative({ status: 'REJECTED', rejectionReason: 'first' }), input: reject('second'), want: { changed: false } }],
  ['CRTV-017 ERR-009 APPROVED: reject → 409 CREATIVE_NOT_PENDING, currentStatus APPROVED', { given: creative({ status: 'APPROVED', approvedAt: EARLIER }), input: reject('late'), want: { error: 'CREATIVE_NOT_PENDING', status: 409, extensions: { currentStatus: 'APPROVED' } } }],
  ['D32 CRTV-017 QUEUED: reject → 409 CREATIVE_NOT_PENDING, currentStatus QUEUED', { given: creative({ status: 'QUEUED' }), input: reject(), want: { error: 'CREATIVE_NOT_PENDING', status: 409, extensions: { currentStatus: 'QUEUED' } } }],
  ['D32 ERR-020 deleted: reject → 404 CREATIVE_NOT_FOUND', { given: creative({ deletedAt: EARLIER }), input: reject(), want: { error: 'CREATIVE_NOT_FOUND', status: 404 } }],
  // --- delete
  ['CRTV-018 EVT-011 live PENDING: delete → deletedAt set, creative.deleted', { given: creative(), input: remove, want: { changed: true, next: { deletedAt: NOW, deletedWithCampaign: false, status: 'PENDING' }, events: [{ type: 'creative.deleted' }] } }],
  ['CRTV-018 live APPROVED: delete → deleted, stays APPROVED', { given: creative({ status: 'APPROVED', approvedAt: EARLIER }), input: remove, want: { changed: true, next: { deletedAt: NOW, status: 'APPROVED' }, events: [{ type: 'creative.deleted' }] } }],
  ['CRTV-018 live REJECTED: delete → deleted', { given: creative({ status: 'REJECTED' }), input: remove, want: { changed: true, next: { deletedAt: NOW }, events: [{ type: 'creative.deleted' }] } }],
  ['CRTV-020 ERR-009 QUEUED: delete → 409 CREATIVE_NOT_DELETABLE, currentStatus QUEUED', { given: creative({ status: 'QUEUED' }), input: remove, want: { error: 'CREATIVE_NOT_DELETABLE', status: 409, extensions: { currentStatus: 'QUEUED' } } }],
  ['CRTV-020 ERR-009 GENERATING: delete → 409 CREATIVE_NOT_DELETABLE, currentStatus GENERATING', { given: creative({ status: 'GENERATING' }), input: remove, want: { error: 'CREATIVE_NOT_DELETABLE', status: 409, extensions: { currentStatus: 'GENERATING' } } }],
  ['D32 ERR-020 deleted: delete again → 404 CREATIVE_NOT_FOUND', { given: creative({ deletedAt: EARLIER }), input: remove, want: { error: 'CREATIVE_NOT_FOUND', status: 404 } }],
  ['EVT-017 NOT_GENERATED: delete changes it, sends nothing', { given: notGenerated(), input: remove, want: { changed: true, next: { deletedAt: NOW }, events: [] } }],
  // --- undelete
  ['CRTV-021 EVT-012 deleted on its own, campaign live: undelete → live, creative.restored', { given: creative({ deletedAt: EARLIER }), input: undelete(false), want: { changed: true, next: { deletedAt: null, deletedWithCampaign: false }, events: [{ type: 'creative.restored' }] } }],
  ['CRTV-021 deleted with its campaign, campaign since restored: undelete → live', { given: creative({ deletedAt: EARLIER, deletedWithCampaign: true }), input: undelete(false), want: { changed: true, next: { deletedAt: null, deletedWithCampaign: false }, events: [{ type: 'creative.restored' }] } }],
  ['CRTV-022 deleted with its campaign, campaign still deleted: undelete → 409 CREATIVE_CAMPAIGN_DELETED', { given: creative({ deletedAt: EARLIER, deletedWithCampaign: true }), input: undelete(true), want: { error: 'CREATIVE_CAMPAIGN_DELETED', status: 409 } }],
  ['CRTV-022 (decided) deleted on its own, campaign deleted since: undelete → 409 CREATIVE_CAMPAIGN_DELETED', { given: creative({ deletedAt: EARLIER }), input: undelete(true), want: { error: 'CREATIVE_CAMPAIGN_DELETED', status: 409 } }],
  ['CRTV-023 live: undelete → no-op 200, records nothing', { given: creative(), input: undelete(false), want: { changed: false } }],
  ['GEN-003 deleted long ago: undelete still restores', { given: creative({ deletedAt: EARLIER - 5 * 365 * 86_400_000 }), input: undelete(false), want: { changed: true, next: { deletedAt: null }, events: [{ type: 'creative.restored' }] } }],
  ['EVT-017 3D creative deleted: undelete restores it, sends nothing', { given: threeD({ deletedAt: EARLIER }), input: undelete(false), want: { changed: true, next: { deletedAt: null }, events: [] } }],
  // --- update: aspectRatio
  ['CRTV-024 EVT-033 CRTV-025 own ratio none → 9:16: creative.updated, previous own ratio null, crop job', { given: creative(), input: update({ aspectRatio: '9:16' }), want: { changed: true, next: { ownAspectRatio: '9:16', cropJobs: 1 }, events: [{ type: 'creative.updated', previousAttributes: { aspectRatio: null } }] } }],
  ['CRTV-024 EVT-033 own ratio 1:1 → 16:9: previous own ratio 1:1, crop job', { given: creative({ ownAspectRatio: '1:1', cropJobs: 2 }), input: update({ aspectRatio: '16:9' }), want: { changed: true, next: { ownAspectRatio: '16:9', cropJobs: 3 }, events: [{ type: 'creative.updated', previousAttributes: { aspectRatio: '1:1' } }] } }],
  ['CRTV-024 EVT-033 own ratio 1:1 → null clears it (campaign ratio shows): previous 1:1, crop job', { given: creative({ ownAspectRatio: '1:1' }), input: update({ aspectRatio: null }), want: { changed: true, next: { ownAspectRatio: null, cropJobs: 1 }, events: [{ type: 'creative.updated', previousAttributes: { aspectRatio: '1:1' } }] } }],
  ['CRTV-025 (decided) own ratio set to the campaign ratio it already shows: updated, no crop job', { given: creative(), input: update({ aspectRatio: CAMPAIGN_RATIO }), want: { changed: true, next: { ownAspectRatio: CAMPAIGN_RATIO, cropJobs: 0 }, events: [{ type: 'creative.updated', previousAttributes: { aspectRatio: null } }] } }],
  ['CRTV-025 ratio change on a creative without an asset: no crop job', { given: notGenerated(), input: update({ aspectRatio: '3:2' }), want: { changed: true, next: { ownAspectRatio: '3:2', cropJobs: 0 }, events: [] } }],
  ['CRTV-026 EVT-020 same own ratio again: no-op, records nothing', { given: creative({ ownAspectRatio: '1:1' }), input: update({ aspectRatio: '1:1' }), want: { changed: false } }],
  ['CRTV-026 null on a creative without its own ratio: no-op', { given: creative(), input: update({ aspectRatio: null }), want: { changed: false } }],
  ['ERR-024 CRTV-012 a ratio outside the delivery ratios: 422 VALIDATION_ERROR on aspectRatio', { given: creative(), input: update({ aspectRatio: '5:7' }), want: { error: 'VALIDATION_ERROR', status: 422, field: 'aspectRatio' } }],
  ['CRTV-024 any state: QUEUED (re-generating) creative can be updated', { given: creative({ status: 'QUEUED' }), input: update({ aspectRatio: '1:1' }), want: { changed: true, next: { status: 'QUEUED', ownAspectRatio: '1:1', cropJobs: 1 }, events: [{ type: 'creative.updated', previousAttributes: { aspectRatio: null } }] } }],
  // --- update: metadata
  ['META-001 EVT-031 first key on an empty map: previous map listed whole ({})', { given: creative(), input: update({ metadata: { a: '1' } }), want: { changed: true, next: { metadata: { a: '1' } }, events: [{ type: 'creative.updated', previousAttributes: { metadata: {} } }] } }],
  ['META-001 META-003 EVT-031 set one key: merged, previousAttributes.metadata is the whole previous map', { given: creative({ metadata: { a: '1', b: '2' } }), input: update({ metadata: { b: '3' } }), want: { changed: true, next: { metadata: { a: '1', b: '3' } }, events: [{ type: 'creative.updated', previousAttributes: { metadata: { a: '1', b: '2' } } }] } }],
  ['META-002 remove one of two keys: previous map listed', { given: creative({ metadata: { a: '1', b: '2' } }), input: update({ metadata: { a: null } }), want: { changed: true, next: { metadata: { b: '2' } }, events: [{ type: 'creative.updated', previousAttributes: { metadata: { a: '1', b: '2' } } }] } }],
  ['D33 EVT-032 META-008 remove the last key: event still sent, previousAttributes {}', { given: creative({ metadata: { a: '1' } }), input: update({ metadata: { a: null } }), want: { changed: true, next: { metadata: {} }, events: [{ type: 'creative.updated', previousAttributes: {} }] } }],
  ['CRTV-026 EVT-020 metadata equal to the present values: no-op', { given: creative({ metadata: { a: '1' } }), input: update({ metadata: { a: '1', gone: null } }), want: { changed: false } }],
  ['META-004 META-007 merge leaving 51 keys: 422 VALIDATION_ERROR on metadata', { given: creative({ metadata: fiftyKeys() }), input: update({ metadata: { extra: 'x' } }), want: { error: 'VALIDATION_ERROR', status: 422, field: 'metadata' } }],
  ['META-004 replacing one of 50 keys while adding one: 50 after the merge, accepted', { given: creative({ metadata: fiftyKeys() }), input: update({ metadata: { k0: null, extra: 'x' } }), want: { changed: true, next: { metadata: { ...Object.fromEntries(Object.entries(fiftyKeys()).filter(([k]) => k !== 'k0')), extra: 'x' } }, events: [{ type: 'creative.updated', previousAttributes: { metadata: fiftyKeys() } }] } }],
  ['EVT-030 ratio and metadata together: both listed', { given: creative({ ownAspectRatio: '1:1', metadata: { a: '1' } }), input: update({ aspectRatio: '4:3', metadata: { b: '2' } }), want: { changed: true, next: { ownAspectRatio: '4:3', metadata: { a: '1', b: '2' }, cropJobs: 1 }, events: [{ type: 'creative.updated', previousAttributes: { aspectRatio: '1:1', metadata: { a: '1' } } }] } }],
  ['EVT-030 ratio changes, metadata patch alters nothing: only aspectRatio listed', { given: creative({ metadata: { a: '1' } }), input: update({ aspectRatio: '2:3', metadata: { a: '1' } }), want: { changed: true, next: { ownAspectRatio: '2:3', cropJobs: 1 }, events: [{ type: 'creative.updated', previousAttributes: { aspectRatio: null } }] } }],
  ['EVT-017 playable creative: metadata change recorded, sends nothing', { given: playable(), input: update({ metadata: { a: '1' } }), want: { changed: true, next: { metadata: { a: '1' } }, events: [] } }],
  ['D32 ERR-020 deleted: update → 404 CREATIVE_NOT_FOUND', { given: creative({ deletedAt: EARLIER }), input: update({ metadata: { a: '1' } }), want: { error: 'CREATIVE_NOT_FOUND', status: 404 } }],
  // --- the campaign's cascades
  ['CAMP-006 EVT-011 campaign delete on a live creative: deleted with it, creative.deleted', { given: creative(), input: (c) => deleteWithCampaign(c, NOW), want: { changed: true, next: { deletedAt: NOW, deletedWithCampaign: true }, events: [{ type: 'creative.deleted' }] } }],
  ['CAMP-013 campaign delete on a creative deleted on its own: unchanged', { given: creative({ deletedAt: EARLIER }), input: (c) => deleteWithCampaign(c, NOW), want: { changed: false } }],
  ['EVT-017 campaign delete on a NOT_GENERATED creative: deleted, sends nothing', { given: notGenerated(), input: (c) => deleteWithCampaign(c, NOW), want: { changed: true, next: { deletedAt: NOW, deletedWithCampaign: true }, events: [] } }],
  ['CAMP-012 EVT-012 campaign restore on a creative deleted with it: restored, creative.restored', { given: creative({ deletedAt: EARLIER, deletedWithCampaign: true }), input: restoreWithCampaign, want: { changed: true, next: { deletedAt: null, deletedWithCampaign: false }, events: [{ type: 'creative.restored' }] } }],
  ['CAMP-013 campaign restore on a creative deleted on its own: stays deleted', { given: creative({ deletedAt: EARLIER }), input: restoreWithCampaign, want: { changed: false } }],
  // --- generation (dashboard; not shown by the interface, no event type covers it)
  ['CRTV-002 NOT_GENERATED → QUEUED (video): not yet readable, no event', { given: notGenerated(), input: (c) => queueGeneration(c, 'video'), want: { changed: true, next: { status: 'QUEUED', mediaType: 'video', url: null }, events: [] } }],
  ['CRTV-002 QUEUED → GENERATING: no event', { given: notGenerated({ status: 'QUEUED' }), input: startGeneration, want: { changed: true, next: { status: 'GENERATING' }, events: [] } }],
  ['CRTV-001 GENERATING → PENDING with a url: readable now, no event (EVT-018)', { given: notGenerated({ status: 'GENERATING' }), input: (c) => finishGeneration(c, image), want: { changed: true, next: { status: 'PENDING', url: image.url }, events: [] } }],
  ['D6 APPROVED: regenerate → QUEUED keeping its url, review starts over, no event', { given: creative({ status: 'APPROVED', approvedAt: EARLIER }), input: regenerateCreative, want: { changed: true, next: { status: 'QUEUED', approvedAt: null, url: 'https://media.example.invalid/crv_test.png' }, events: [] } }],
  ['D6 regenerate of a GENERATING creative: unchanged', { given: creative({ status: 'GENERATING' }), input: regenerateCreative, want: { changed: false } }],
  ['CRTV-001 regenerate of a NOT_GENERATED creative: 404 CREATIVE_NOT_FOUND', { given: notGenerated(), input: regenerateCreative, want: { error: 'CREATIVE_NOT_FOUND', status: 404 } }],
  ['finish of a PENDING creative: unchanged', { given: creative(), input: (c) => finishGeneration(c, image), want: { changed: false } }],
];

describe('creative transitions', () => {
  it.each(rows)('%s', (_name, { given, input, want }) => {
    if ('error' in want) {
      let thrown: unknown;
      try {
        input(given);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      const error = thrown as ApiError;
      expect({ code: error.code, status: error.status }).toEqual({ code: want.error, status: want.status });
      if (want.extensions) expect(error.extensions).toEqual(want.extensions);
      if (want.field) expect(error.extensions.errors?.map((e) => e.field)).toEqual([want.field]);
      return;
    }
    const t = input(given);
    expect(t.changed).toBe(want.changed);
    if (!want.changed) {
      expect(t.events).toEqual([]);
      expect(t.next).toBe(given); // records nothing: the very same state
      return;
    }
    expect(t.next).toEqual({ ...given, ...want.next });
    expect(t.events).toEqual(want.events);
  });

  it('CRTV-024 an update keeps the state: an APPROVED creative stays approved', () => {
    const t = updateCreative(creative({ status: 'APPROVED', approvedAt: EARLIER }), { metadata: { a: '1' } }, { campaignAspectRatio: CAMPAIGN_RATIO });
    expect(t.next.status).toBe('APPROVED');
    expect(t.next.approvedAt).toBe(EARLIER);
  });
});
