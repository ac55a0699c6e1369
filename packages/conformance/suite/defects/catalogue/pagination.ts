/** The defect catalogue, pagination (kind `pagination`). */
import { isEnvelope, query, withBody, bodyOf } from '../exchange.ts';
import { ok } from './helpers.ts';
import { byRules, type DefectEntry } from './model.ts';

export const paginationDefects: readonly DefectEntry[] = [
  {
    name: 'has-more-inverted',
    kind: 'pagination',
    description: '`pagination.hasMore` says the opposite of `nextCursor !== null`',
    rules: ['PAGE-007'],
    via: 'proxy',
    response: (r) => {
      const body = ok(r) ? bodyOf(r) : undefined;
      if (!isEnvelope(body)) return r;
      body.pagination.hasMore = !body.pagination.hasMore;
      return withBody(r, body);
    },
  },
  {
    name: 'page-size-understated',
    kind: 'pagination',
    description: '`pagination.pageSize` is one less than the rows of a full page',
    rules: ['PAGE-008'],
    grep: byRules('PAGE-008', 'PAGE-012'),
    via: 'proxy',
    response: (r) => {
      const body = ok(r) ? bodyOf(r) : undefined;
      if (!isEnvelope(body) || body.data.length < 2) return r;
      body.pagination.pageSize = body.data.length - 1;
      return withBody(r, body);
    },
  },
  {
    name: 'pagesize-off-by-one',
    kind: 'pagination',
    description: '`pagination.pageSize` is one more than the size applied (limit=7 answers pageSize 8 with at most 7 rows)',
    rules: ['PAGE-008'],
    via: 'proxy',
    response: (r) => {
      const body = ok(r) ? bodyOf(r) : undefined;
      if (!isEnvelope(body)) return r;
      body.pagination.pageSize += 1;
      return withBody(r, body);
    },
  },
  {
    name: 'walk-truncated',
    kind: 'pagination',
    description: 'the first page says it is the last (nextCursor null, hasMore false) while more rows remain',
    rules: ['PAGE-005', 'PAGE-003'],
    via: 'proxy',
    response: (r, { request }) => {
      const body = ok(r) ? bodyOf(r) : undefined;
      if (!isEnvelope(body) || body.pagination.nextCursor === null || query(request).has('cursor')) return r;
      body.pagination.nextCursor = null;
      body.pagination.hasMore = false;
      return withBody(r, body);
    },
  },
  {
    name: 'row-dropped',
    kind: 'pagination',
    description: 'the last row of every page with two or more rows is left out',
    rules: ['PAGE-005'],
    via: 'proxy',
    response: (r) => {
      const body = ok(r) ? bodyOf(r) : undefined;
      if (!isEnvelope(body) || body.data.length < 2) return r;
      body.data.pop();
      return withBody(r, body);
    },
  },
  {
    name: 'row-repeated',
    kind: 'pagination',
    description: "each next page starts with the previous page's last row (and drops its own last)",
    rules: ['PAGE-005'],
    via: 'proxy',
    response: (r, { request, memory }) => {
      const body = ok(r) ? bodyOf(r) : undefined;
      if (!isEnvelope(body)) return r;
      const cursor = query(request).get('cursor');
      const carried = cursor === null ? undefined : memory.lastRowBehind.get(cursor);
      const last = body.data.at(-1);
      if (body.pagination.nextCursor !== null && last !== undefined) memory.lastRowBehind.set(body.pagination.nextCursor, last);
      if (carried === undefined || body.data.length === 0) return r;
      body.data = [carried, ...body.data.slice(0, -1)];
      return withBody(r, body);
    },
  },
  {
    name: 'has-more-inverted-off-products',
    kind: 'pagination',
    description: '`pagination.hasMore` says the opposite of `nextCursor !== null` on every list but /products',
    rules: ['PAGE-007'],
    via: 'proxy',
    response: (r, { path }) => {
      const body = ok(r) && !path.startsWith('/products') ? bodyOf(r) : undefined;
      if (!isEnvelope(body)) return r;
      body.pagination.hasMore = !body.pagination.hasMore;
      return withBody(r, body);
    },
  },
  {
    name: 'sku-lists-one-product',
    kind: 'pagination',
    description: 'GET /products?sku= answers only the first product of a shared sku',
    rules: ['PROD-003'],
    via: 'proxy',
    response: (r, { request, path }) => {
      const body = ok(r) && path === '/products' && query(request).has('sku') ? bodyOf(r) : undefined;
      if (!isEnvelope(body) || body.data.length < 2) return r;
      body.data = body.data.slice(0, 1);
      return withBody(r, body);
    },
  },
];
