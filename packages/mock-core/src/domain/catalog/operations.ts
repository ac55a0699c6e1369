/** Catalog operations: listProducts, getProduct. */
import { ApiError } from '../../core/errors.ts';
import type { HandlerTable } from '../operation.ts';
import { listPage } from '../shared.ts';
import { presentProduct } from './present.ts';

export const catalogHandlers: HandlerTable = {
  listProducts: {
    cacheable: true,
    run(ctx) {
      const brandId = ctx.query.brandId as string | undefined;
      const sku = ctx.query.sku as string | undefined;
      const body = listPage(ctx.account, ctx.account.products, ctx.query, {
        listKey: `products:${brandId ?? ''}:${sku ?? ''}`,
        direction: 'asc',
        // PROD: `sku` returns a LIST (a sku may be shared), `brandId` filters by brand.
        filter: (p) => (brandId === undefined || p.brandId === brandId) && (sku === undefined || p.sku === sku),
        present: (p) => presentProduct(p, ctx.store.publicOrigin),
      });
      return { status: 200, body };
    },
  },
  getProduct: {
    cacheable: true,
    run(ctx) {
      const product = ctx.account.products.get(ctx.pathParams.productId!);
      if (!product) throw new ApiError('PRODUCT_NOT_FOUND', 'No such product.');
      return { status: 200, body: presentProduct(product, ctx.store.publicOrigin) };
    },
  },
};
