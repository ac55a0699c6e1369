/**
 * Pure asset transitions (interface "States and transitions / Asset", D32, D33). Each takes the
 * current asset (and, where a time is recorded, `now`) and returns the next asset, the event
 * drafts and whether anything changed. Nothing is mutated and no clock is read.
 * How it works and what it decides: docs/internals.md, "packages/mock-core/src/domain/assets/transitions.ts".
 */
import { ApiError } from '../../core/errors.ts';
import { mergeMetadata, unchanged, type Transition } from '../shared.ts';
import type { Asset } from './model.ts';

/** The body of PATCH /assets/{id} after validation (schema `AssetPatch`, closed). */
export interface AssetPatch {
  favorited?: boolean;
  /** An empty string clears the notes (the field is then absent from the representation). */
  notes?: string;
  metadata?: Record<string, string | null>;
}

/** ERR-019, ERR-020, GEN-004: one uniform 404 for unknown, foreign and (on a write) deleted. */
export function assetNotFound(): ApiError {
  return new ApiError('ASSET_NOT_FOUND', 'No such asset.');
}

/** D32: a write on a deleted asset (other than undelete) answers the uniform 404. */
function requireLive(asset: Asset): void {
  if (asset.deletedAt !== null) throw assetNotFound();
}

export function archive(asset: Asset): Transition<Asset> {
  requireLive(asset); // D32
  if (asset.archived) return unchanged(asset); // D32: archive of an archived asset records nothing
  // ASST-008, ASST-004: live → archived, event asset.archived (EVT-013)
  return { next: { ...asset, archived: true }, events: [{ type: 'asset.archived' }], changed: true };
}

export function unarchive(asset: Asset): Transition<Asset> {
  requireLive(asset); // D32
  if (!asset.archived) return unchanged(asset); // D32: unarchive of an active asset records nothing
  // ASST-009: archived → live, event asset.unarchived (EVT-013)
  return { next: { ...asset, archived: false }, events: [{ type: 'asset.unarchived' }], changed: true };
}

export function remove(asset: Asset, now: number): Transition<Asset> {
  requireLive(asset); // D32: DELETE of a deleted asset is a write on a deleted item → 404
  // ASST-010, GEN-002: deletion hides (deletedAt set) and destroys nothing; event asset.deleted (EVT-014)
  return { next: { ...asset, deletedAt: now }, events: [{ type: 'asset.deleted' }], changed: true };
}

export function undelete(asset: Asset): Transition<Asset> {
  if (asset.deletedAt === null) return unchanged(asset); // ASST-012: a repeat on a live asset is a no-op 200
  // ASST-011, GEN-003: deleted → live with no time limit, event asset.restored (EVT-014)
  return { next: { ...asset, deletedAt: null }, events: [{ type: 'asset.restored' }], changed: true };
}

/**
 * ASST-013, ASST-016: update of `favorited`, `notes` and `metadata` (merged, META-001..004); the
 * state is kept. `asset.updated` carries `previousAttributes` (EVT-026, EVT-029..032):
 * - only fields whose value changed (EVT-030);
 * - `metadata` is the whole previous map (EVT-031);
 * - a field the new representation does not carry is not listed (EVT-032: metadata after its
 *   last key was removed, notes after they were cleared); if that leaves nothing, the event is
 *   still sent with `previousAttributes: {}` (D33);
 * - a field the previous representation did not carry (no notes, no metadata) is listed with its
 *   empty value (`""`, `{}`), so a receiver can tell "added" from "unchanged".
 * A change that alters nothing records nothing (EVT-020).
 */
export function update(asset: Asset, patch: AssetPatch): Transition<Asset> {
  requireLive(asset); // D32: PATCH of a deleted asset → 404
  const previousAttributes: Record<string, unknown> = {};
  let next: Asset = asset;
  let changed = false;

  if (patch.metadata !== undefined) {
    // META-004, META-007: a merge leaving more than 50 keys throws 422 (errors[] names `metadata`)
    // before anything changes. The key and value bounds (META-005, META-006) are enforced by the
    // request schema in the validate stage.
    const merged = mergeMetadata(asset.metadata, patch.metadata);
    if (!sameMap(asset.metadata, merged.next)) {
      changed = true;
      next = { ...next, metadata: merged.next };
      if (Object.keys(merged.next).length > 0) previousAttributes.metadata = { ...asset.metadata };
    }
  }

  if (patch.favorited !== undefined && patch.favorited !== asset.favorited) {
    changed = true;
    next = { ...next, favorited: patch.favorited };
    previousAttributes.favorited = asset.favorited;
  }

  if (patch.notes !== undefined) {
    const notes = patch.notes === '' ? null : patch.notes;
    if (notes !== asset.notes) {
      changed = true;
      next = { ...next, notes };
      if (notes !== null) previousAttributes.notes = asset.notes ?? '';
    }
  }

  if (!changed) return unchanged(asset); // EVT-020: a change that alters nothing records nothing
  return { next, events: [{ type: 'asset.updated', previousAttributes }], changed: true };
}

/** Own-key equality of two string maps (immune to keys named like Object.prototype members). */
function sameMap(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}
