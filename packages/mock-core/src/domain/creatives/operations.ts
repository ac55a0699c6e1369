/**
 * Creative operations: getCreative, listCreatives, updateCreative, deleteCreative,
 * undeleteCreative, approveCreative, rejectCreative.
 *
 * Only readable creatives exist for the API (CRTV-001, CRTV-005): anything else, another account's
 * creative, and (on a write) a deleted one answer the same 404 (GEN-004, ERR-020). Undelete acts on
 * deleted ones. Writes answer the creative as GET returns it (GEN-008) with the strong ETag of the
 * canonical form (ETAG-003); DELETE and undelete answer the showDeleted form, so `deletedAt` shows
 * (CRTV-029).
 */
import type { HandlerTable, OperationResult, RequestContext } from '../operation.ts';
import { listPage, showDeleted, type Transition } from '../shared.ts';
import { isReadable, type Creative } from './model.ts';
import { canonicalCreative, presentCreative, type CreativeView } from './present.ts';
import {
  approveCreative,
  creativeNotFound,
  deleteCreative,
  rejectCreative,
  undeleteCreative,
  updateCreative,
  type CreativeUpdate,
} from './transitions.ts';

/** A creative readable through the API, live or deleted; else the uniform 404. */
function readableCreative(ctx: RequestContext, id: string | undefined): Creative {
  const c = id === undefined ? undefined : ctx.account.creatives.get(id);
  if (!c || !isReadable(c)) throw creativeNotFound(); // CRTV-001, CRTV-005, GEN-004
  return c;
}

/** The target of a write: readable and live (ERR-020: a write on a deleted creative is a 404). */
function liveCreative(ctx: RequestContext, id: string | undefined): Creative {
  const c = readableCreative(ctx, id);
  if (c.deletedAt !== null) throw creativeNotFound();
  return c;
}

function view(ctx: RequestContext): CreativeView {
  return { showDeleted: showDeleted(ctx.query), expandProduct: ctx.query.expand === 'product', origin: ctx.store.publicOrigin };
}

/** Store the next state and record its events (nothing for a change that alters nothing). */
function commit(ctx: RequestContext, t: Transition<Creative>): Creative {
  if (t.changed) ctx.account.creatives.set(t.next.creativeId, t.next);
  if (t.events.length > 0) ctx.emit({ kind: 'creative', id: t.next.creativeId }, t.events);
  return t.next;
}

function respond(ctx: RequestContext, c: Creative, options: { showDeleted: boolean }): OperationResult {
  return {
    status: 200,
    body: presentCreative(ctx.account, c, { showDeleted: options.showDeleted, expandProduct: false, origin: ctx.store.publicOrigin }), // GEN-008
    etagOf: canonicalCreative(ctx.account, c, ctx.store.publicOrigin), // ETAG-003
    resource: { kind: 'creative', id: c.creativeId },
  };
}

export const creativeHandlers: HandlerTable = {
  listCreatives: {
    cacheable: true,
    run(ctx) {
      const v = view(ctx);
      const body = listPage(ctx.account, ctx.account.creatives, ctx.query, {
        listKey: `creatives:${v.showDeleted ? 'all' : 'live'}`,
        direction: 'asc', // insertion order
        // CRTV-001, CRTV-005: only usable creatives; PAGE-009: deleted ones only with showDeleted
        filter: (c) => isReadable(c) && (v.showDeleted || c.deletedAt === null),
        present: (c) => presentCreative(ctx.account, c, v), // PAGE-011, PAGE-001
      });
      return { status: 200, body };
    },
  },

  getCreative: {
    cacheable: true,
    run(ctx) {
      const v = view(ctx);
      const c = readableCreative(ctx, ctx.pathParams.creativeId);
      if (c.deletedAt !== null && !v.showDeleted) throw creativeNotFound(); // PAGE-010: deleted ones only with showDeleted
      return { status: 200, body: presentCreative(ctx.account, c, v), etagOf: canonicalCreative(ctx.account, c, ctx.store.publicOrigin) }; // ETAG-002
    },
  },

  updateCreative: {
    target: (ctx) => canonicalCreative(ctx.account, liveCreative(ctx, ctx.pathParams.creativeId), ctx.store.publicOrigin), // ETAG-004
    run(ctx) {
      const c = liveCreative(ctx, ctx.pathParams.creativeId);
      const campaignAspectRatio = ctx.account.campaigns.get(c.campaignId)?.aspectRatio ?? null;
      // CRTV-024..028, META-*, EVT-010, EVT-029..033
      const next = commit(ctx, updateCreative(c, ctx.body as CreativeUpdate, { campaignAspectRatio }));
      return respond(ctx, next, { showDeleted: false });
    },
  },

  deleteCreative: {
    target: (ctx) => canonicalCreative(ctx.account, liveCreative(ctx, ctx.pathParams.creativeId), ctx.store.publicOrigin), // ETAG-004
    run(ctx) {
      const c = liveCreative(ctx, ctx.pathParams.creativeId); // D32: deleting a deleted creative is a 404
      const next = commit(ctx, deleteCreative(c, ctx.now)); // CRTV-018..020, EVT-011
      return respond(ctx, next, { showDeleted: true }); // CRTV-029: deletedAt set
    },
  },

  undeleteCreative: {
    target: (ctx) => canonicalCreative(ctx.account, readableCreative(ctx, ctx.pathParams.creativeId), ctx.store.publicOrigin), // ETAG-004
    run(ctx) {
      const c = readableCreative(ctx, ctx.pathParams.creativeId);
      const campaign = ctx.account.campaigns.get(c.campaignId);
      const campaignDeleted = campaign !== undefined && campaign.deletedAt !== null;
      const next = commit(ctx, undeleteCreative(c, { campaignDeleted })); // CRTV-021..023, EVT-012
      return respond(ctx, next, { showDeleted: true });
    },
  },

  approveCreative: {
    run(ctx) {
      const c = liveCreative(ctx, ctx.pathParams.creativeId);
      const next = commit(ctx, approveCreative(c, ctx.now)); // CRTV-014, CRTV-016, CRTV-017, EVT-009
      return respond(ctx, next, { showDeleted: false });
    },
  },

  rejectCreative: {
    run(ctx) {
      const c = liveCreative(ctx, ctx.pathParams.creativeId);
      const body = (ctx.body ?? {}) as { rejectionReason?: string };
      const next = commit(ctx, rejectCreative(c, { rejectionReason: body.rejectionReason })); // CRTV-015..017, CRTV-030, EVT-009
      return respond(ctx, next, { showDeleted: false });
    },
  },
};
