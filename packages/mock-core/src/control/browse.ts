/**
 * Control plane, browse: lists the public API does not offer, filtered by the server and a page at
 * a time (the console's Data and Upscales views; scripts can read them too).
 *
 *   listAccountCreatives  the account's creatives as GET /creatives shows them, by `status`
 *   listAccountAssets     the account's assets as GET /assets shows them, by `status`
 *   listUpscales          the account's upscales, newest first, by `status`, with their times on the clock
 *
 * Each page walks the collection from `from` (the absolute position `next` of the previous page
 * gave) and stops after `limit` matches or BROWSE_SCAN_BUDGET rows (packages/mock-core/src/core/collection.ts), so a page
 * costs the same with 100 rows as with 100,000, and a selective filter may give a short or empty
 * page before the end: `next: null` is the only end.
 */
import { isReadable, type Creative } from '../domain/creatives/model.ts';
import { presentCreative } from '../domain/creatives/present.ts';
import { presentAsset } from '../domain/assets/present.ts';
import type { Asset } from '../domain/assets/model.ts';
import { presentUpscale } from '../domain/upscales/present.ts';
import type { Upscale } from '../domain/upscales/model.ts';
import { isoOrNull } from '../domain/shared.ts';
import type { Collection } from '../core/collection.ts';
import type { ControlHandlers, ControlRequest } from './types.ts';

/** Rows one page scans at most (documented in packages/contract/spec/mock-control.yaml). */
export const BROWSE_SCAN_BUDGET = 20_000;
const DEFAULT_LIMIT = 25;

function walk<T, R>(collection: Collection<T>, request: ControlRequest, direction: 'asc' | 'desc', filter: (item: T) => boolean, present: (item: T) => R) {
  const limit = (request.query.limit as number | undefined) ?? DEFAULT_LIMIT;
  const from = request.query.from as number | undefined;
  const page = collection.page({ from, limit, direction, filter, scanBudget: BROWSE_SCAN_BUDGET });
  return { status: 200, body: { data: page.items.map(present), next: page.next } };
}

export const browseHandlers: ControlHandlers = {
  listAccountCreatives(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const status = request.query.status as string | undefined;
    const showDeleted = request.query.showDeleted === true;
    const view = { showDeleted, expandProduct: false, origin: ctx.services.store.publicOrigin };
    const filter = (c: Creative) => isReadable(c) && (showDeleted || c.deletedAt === null) && (status === undefined || c.status === status);
    return walk(account.creatives, request, 'asc', filter, (c) => presentCreative(account, c, view));
  },

  listAccountAssets(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const status = request.query.status as string | undefined;
    const showDeleted = request.query.showDeleted === true;
    const origin = ctx.services.store.publicOrigin;
    const filter = (a: Asset) => (showDeleted || a.deletedAt === null) && (status === undefined || (a.archived ? 'archived' : 'active') === status);
    return walk(account.assets, request, 'asc', filter, (a) => presentAsset(a, origin));
  },

  listUpscales(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const status = request.query.status as string | undefined;
    const filter = (u: Upscale) => status === undefined || u.status === status;
    return walk(account.upscales, request, 'desc', filter, (u) => ({
      ...presentUpscale(u),
      parentAssetId: u.parentAssetId,
      startedAt: isoOrNull(u.startedAt),
      finishesAt: isoOrNull(u.finishesAt),
    }));
  },
};
