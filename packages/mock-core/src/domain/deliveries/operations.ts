/**
 * Delivery operations (CRTV-013, D15): listDeliveries (filters `campaignId`, `creativeId`, in
 * creation order) and getDelivery.
 *
 * Decided: a delivery is visible only while its creative is readable and live. Deletion hides
 * (GEN-002), so the renditions of a deleted creative (or of every creative of a deleted campaign)
 * are hidden with it and come back when it is restored; a delivery has no `showDeleted` view.
 */
import { sha256Base64url } from '../../../../contract/platform/crypto.ts';
import { ApiError } from '../../core/errors.ts';
import type { HandlerTable } from '../operation.ts';
import type { AccountState } from '../store.ts';
import { isReadable } from '../creatives/model.ts';
import { listPage } from '../shared.ts';
import type { Delivery } from './model.ts';
import { presentDelivery } from './present.ts';

function visible(account: AccountState, d: Delivery): boolean {
  const c = account.creatives.get(d.creativeId);
  return c !== undefined && isReadable(c) && c.deletedAt === null;
}

export const deliveryHandlers: HandlerTable = {
  listDeliveries: {
    cacheable: true,
    run(ctx) {
      const campaignId = ctx.query.campaignId as string | undefined;
      const creativeId = ctx.query.creativeId as string | undefined;
      const body = listPage(ctx.account, ctx.account.deliveries, ctx.query, {
        // the filters, hashed: a cursor stays short (and within the document's 512) whatever the ids
        listKey: `deliveries:${sha256Base64url(JSON.stringify([campaignId ?? null, creativeId ?? null])).slice(0, 16)}`,
        direction: 'asc',
        filter: (d) =>
          (campaignId === undefined || d.campaignId === campaignId) && (creativeId === undefined || d.creativeId === creativeId) && visible(ctx.account, d),
        present: (d) => presentDelivery(d, ctx.store.publicOrigin),
      });
      return { status: 200, body };
    },
  },

  getDelivery: {
    cacheable: true,
    run(ctx) {
      const d = ctx.account.deliveries.get(ctx.pathParams.deliveryId!);
      if (!d || !visible(ctx.account, d)) throw new ApiError('DELIVERY_NOT_FOUND', 'No such delivery.'); // GEN-004 (D15)
      return { status: 200, body: presentDelivery(d, ctx.store.publicOrigin) };
    },
  },
};
