/**
 * Asset operations: listAssets, getAsset, updateAsset, archiveAsset, unarchiveAsset, deleteAsset,
 * undeleteAsset. The pipeline has already authenticated, rate-limited, validated, applied faults
 * and idempotency; `target` gives the If-Match stage the canonical representation (or the 404)
 * and `run` applies a pure transition, stores the result and records its events.
 *
 * Every write answers the asset as GET returns it, with the strong ETag of its canonical form
 * (ETAG-003; archive and unarchive too, ETagAssumed). A no-op write answers the same 200 with the
 * unchanged asset and records nothing (EVT-020).
 */
import type { HandlerTable, OperationHandler, OperationResult, RequestContext } from '../operation.ts';
import { listPage, showDeleted, type Transition } from '../shared.ts';
import type { Asset } from './model.ts';
import { canonicalAsset, presentAsset } from './present.ts';
import { archive, assetNotFound, remove, undelete, unarchive, update, type AssetPatch } from './transitions.ts';

/** Every asset operation names its path parameter `assetId` (V12). */
function assetIdOf(ctx: RequestContext): string {
  return ctx.pathParams.assetId ?? '';
}

/**
 * The asset a request names. Another account's asset is simply absent from this account's
 * collection, so it answers exactly like an unknown id (GEN-004, ERR-020). A deleted asset is
 * found only when `includeDeleted` (GET with showDeleted, PAGE-010; undelete).
 */
function findAsset(ctx: RequestContext, includeDeleted: boolean): Asset {
  const asset = ctx.account.assets.get(assetIdOf(ctx));
  if (!asset) throw assetNotFound();
  if (asset.deletedAt !== null && !includeDeleted) throw assetNotFound(); // D32, ERR-020
  return asset;
}

function respond(asset: Asset, origin: string): OperationResult {
  return {
    status: 200,
    body: presentAsset(asset, origin),
    etagOf: canonicalAsset(asset, origin), // ETAG-002, ETAG-003: strong ETag of the canonical form
    resource: { kind: 'asset', id: asset.assetId },
  };
}

/** Store the next state and record its events, only when something changed (EVT-020). */
function commit(ctx: RequestContext, transition: Transition<Asset>): OperationResult {
  if (transition.changed) {
    ctx.account.assets.set(transition.next.assetId, transition.next);
    ctx.emit({ kind: 'asset', id: transition.next.assetId }, transition.events);
  }
  return respond(transition.next, ctx.store.publicOrigin);
}

/**
 * A write handler: `target` is the asset's canonical form for If-Match (ETAG-004, ETAG-005: a
 * stale tag answers 412 before anything changes; a missing asset answers 404 first).
 */
function write(includeDeleted: boolean, apply: (asset: Asset, ctx: RequestContext) => Transition<Asset>): OperationHandler {
  return {
    target: (ctx) => canonicalAsset(findAsset(ctx, includeDeleted), ctx.store.publicOrigin),
    run: (ctx) => commit(ctx, apply(findAsset(ctx, includeDeleted), ctx)),
  };
}

export const assetHandlers: HandlerTable = {
  listAssets: {
    cacheable: true,
    run(ctx) {
      const withDeleted = showDeleted(ctx.query);
      // ASST-015, PAGE-009: deleted assets only with showDeleted; insertion order.
      const body = listPage(ctx.account, ctx.account.assets, ctx.query, {
        listKey: `assets:${withDeleted ? 'all' : 'live'}`,
        direction: 'asc',
        filter: (a) => withDeleted || a.deletedAt === null,
        present: (a) => presentAsset(a, ctx.store.publicOrigin),
      });
      return { status: 200, body };
    },
  },
  getAsset: {
    cacheable: true,
    // ASST-015, ETAG-002, PAGE-010: a deleted asset is read with showDeleted only.
    run: (ctx) => respond(findAsset(ctx, showDeleted(ctx.query)), ctx.store.publicOrigin),
  },
  // ASST-013, ASST-016, META-001..007
  updateAsset: write(false, (asset, ctx) => update(asset, ctx.body as AssetPatch)),
  // ASST-008, D32
  archiveAsset: write(false, (asset) => archive(asset)),
  // ASST-009, D32
  unarchiveAsset: write(false, (asset) => unarchive(asset)),
  // ASST-010, ASST-017, D32
  deleteAsset: write(false, (asset, ctx) => remove(asset, ctx.now)),
  // ASST-011, ASST-012: undelete is the one write that reaches a deleted asset
  undeleteAsset: write(true, (asset) => undelete(asset)),
};
