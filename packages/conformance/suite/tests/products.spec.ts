/**
 * The catalog (PROD-*): products carry productId, sku and title; `sku=` returns a LIST; `brandId`
 * filters; GET /products/{id} is the unambiguous lookup; an unknown id, or another account's, answers
 * the same 404 PRODUCT_NOT_FOUND.
 */
import { caseWhenPresent, expect, skipWhenAbsent, test, type ApiClient } from '../fixtures/index.ts';
import { idsOf, walk, whileUnchanged } from '../fixtures/lists.ts';
import type { Schemas } from '../../../contract/spec/types.ts';

type Product = Schemas['Product'];

/** The catalog, walked 100 at a time (at most 20 pages, so a huge catalog stays affordable). */
async function catalog(api: ApiClient) {
  return walk<Product>(api, '/products', { limit: 100 }, 20);
}

/** `observe` judged against the catalog, which must not change meanwhile (see whileUnchanged). */
async function againstCatalog<T>(api: ApiClient, observe: (rows: Product[], complete: boolean) => Promise<T>): Promise<{ rows: Product[]; complete: boolean; result: T }> {
  const stable = await whileUnchanged(
    () => catalog(api),
    (w) => idsOf(w, (p) => `${p.productId}:${p.sku}:${p.brandId}`),
    (w) => observe(w.rows, w.complete),
  );
  if (!stable) {
    skipWhenAbsent(true, 'the catalog changed during each attempt, so a filtered list cannot be judged against it');
    throw new Error('unreachable');
  }
  return { rows: stable.before.rows, complete: stable.before.complete, result: stable.result };
}

const UNKNOWN_PRODUCT = 'prd_conformance_unknown_0000';

test('PROD-008 PROD-001 PROD-006 GET /products lists products with a unique productId, a sku (string or null) and a title', { tag: ['@area:products'] }, async ({ api }) => {
  const { rows } = await catalog(api);
  expect(rows.length, 'the account needs at least one product for the catalog checks').toBeGreaterThan(0);
  const ids = rows.map((p) => p.productId);
  expect(new Set(ids).size, 'productIds are unique across products').toBe(ids.length);
  for (const product of rows) {
    expect(typeof product.productId === 'string' && product.productId.length > 0, JSON.stringify(product)).toBe(true);
    expect(Object.hasOwn(product, 'sku') && (product.sku === null || typeof product.sku === 'string'), JSON.stringify(product)).toBe(true);
    expect(typeof product.title, JSON.stringify(product)).toBe('string');
  }
});

test('PROD-004 PROD-003 PROD-009 GET /products?sku= returns a list of every product with that sku', { tag: ['@area:products'] }, async ({ api }) => {
  const bySku = new Map<string, string[]>();
  const { complete, result: filtered } = await againstCatalog(api, async (rows) => {
    bySku.clear();
    for (const p of rows) if (p.sku !== null) bySku.set(p.sku, [...(bySku.get(p.sku) ?? []), p.productId]);
    if (bySku.size === 0) return undefined;
    // The sku most products share: a shared one when the catalog has one (PROD-003).
    const sku = [...bySku.entries()].sort((a, b) => b[1].length - a[1].length)[0]![0];
    return { sku, walk: await walk<Product>(api, '/products', { sku, limit: 100 }) };
  });
  skipWhenAbsent(filtered === undefined, 'no product of the account has a sku');
  const { sku, walk: filteredWalk } = filtered!;
  const expected = bySku.get(sku)!;
  expect(filteredWalk.rows.every((p) => p.sku === sku), `every row of ?sku=${sku} has that sku`).toBe(true);
  const got = filteredWalk.rows.map((p) => p.productId).sort();
  if (complete) expect(got).toEqual([...expected].sort());
  else expect(got).toEqual(expect.arrayContaining(expected));
  if (caseWhenPresent(expected.length > 1, 'no sku of the catalog is shared by several products (PROD-003)')) {
    expect(got.length, `sku ${sku} is shared, so the list holds several products`).toBeGreaterThan(1);
  }
});

test('PROD-009 GET /products?brandId= lists exactly the products of that brand', { tag: ['@area:products'] }, async ({ api }) => {
  const byBrand = new Map<string, string[]>();
  const { complete, result: filteredByBrand } = await againstCatalog(api, async (rows) => {
    byBrand.clear();
    for (const p of rows) if (typeof p.brandId === 'string') byBrand.set(p.brandId, [...(byBrand.get(p.brandId) ?? []), p.productId]);
    const out = new Map<string, Product[]>();
    for (const brandId of [...byBrand.keys()].slice(0, 2)) out.set(brandId, (await walk<Product>(api, '/products', { brandId, limit: 100 })).rows);
    return out;
  });
  skipWhenAbsent(byBrand.size === 0, 'the products carry no brandId, so the filter cannot be checked from outside');
  for (const [brandId, rows] of filteredByBrand) {
    const expected = byBrand.get(brandId)!;
    expect(rows.every((p) => p.brandId === brandId), `every row of ?brandId=${brandId} has that brand`).toBe(true);
    const got = rows.map((p) => p.productId).sort();
    if (complete) expect(got).toEqual([...expected].sort());
    else expect(got).toEqual(expect.arrayContaining(expected));
  }
});

test('PROD-005 GET /products/{id} returns exactly the product with that productId', { tag: ['@area:products'] }, async ({ api }) => {
  const { rows } = await walk<Product>(api, '/products', { limit: 5 }, 1);
  expect(rows.length).toBeGreaterThan(0);
  for (const listed of rows) {
    const response = await api.op('getProduct', { path: { productId: listed.productId } });
    expect(response).toHaveStatus(200);
    const { productId, sku, title } = response.json;
    expect({ productId, sku, title }).toEqual({ productId: listed.productId, sku: listed.sku, title: listed.title });
  }
});

test('PROD-002 a product whose sku is null carries "sku": null, in the list and on its own', { tag: ['@area:products'] }, async ({ api }) => {
  const { rows } = await catalog(api);
  const withoutSku = rows.find((p) => p.sku === null);
  skipWhenAbsent(withoutSku === undefined, 'no product of the account has a null sku');
  const response = await api.op('getProduct', { path: { productId: withoutSku!.productId } });
  expect(response).toHaveStatus(200);
  expect(Object.hasOwn(response.json, 'sku') && response.json.sku === null, response.describe()).toBe(true);
});

test('PROD-010 ERR-019 ERR-001 ERR-002 ERR-003 ERR-004 ERR-006 ERR-007 GET /products/{id} with an unknown productId answers the problem 404 PRODUCT_NOT_FOUND', { tag: ['@area:products'] }, async ({ api }) => {
  const response = await api.op('getProduct', { path: { productId: UNKNOWN_PRODUCT } });
  await expect(response).toBeProblem(404, 'PRODUCT_NOT_FOUND');
  const problem = response.problem;
  expect(problem.type).toBe('/errors/PRODUCT_NOT_FOUND');
  expect(problem.status).toBe(404);
  expect(problem.title).toBe('Not Found');
  expect(typeof problem.requestId === 'string' && problem.requestId.length > 0, response.describe()).toBe(true);
  if (problem.instance !== undefined) expect(problem.instance).toBe(new URL(response.exchange.request.url).pathname);
});

test('GEN-004 ERR-020 another account\'s product answers the same 404 as an unknown productId', { tag: ['@area:products'] }, async ({ api, apiFor, accountB }) => {
  const { rows } = await walk<Product>(api, '/products', { limit: 1 }, 1);
  const mine = rows[0];
  expect(mine, 'account A needs a product').toBeDefined();
  await expect(await api.op('getProduct', { path: { productId: mine!.productId } })).toHaveStatus(200);

  const other = apiFor(accountB);
  const foreign = await other.op('getProduct', { path: { productId: mine!.productId } });
  const unknown = await other.op('getProduct', { path: { productId: UNKNOWN_PRODUCT } });
  await expect(foreign).toBeProblem(404, 'PRODUCT_NOT_FOUND');
  await expect(unknown).toBeProblem(404, 'PRODUCT_NOT_FOUND');
  const { requestId: _a, instance: _i, ...foreignRest } = foreign.problem;
  const { requestId: _b, instance: _j, ...unknownRest } = unknown.problem;
  expect(foreignRest, 'apart from requestId and instance, the two 404s are identical').toEqual(unknownRest);
  expect(foreign.contentType).toBe(unknown.contentType);
});
