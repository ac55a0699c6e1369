/**
 * Pagination (PAGE-*): `?limit=` and `?cursor=` walk a list to a null nextCursor, every row exactly
 * once; `hasMore` mirrors nextCursor; `pageSize` bounds `data`; read-plane envelopes carry no
 * `object`; sparse and empty pages before the end do not end the walk.
 */
import { expect, skipWhenAbsent, test, type ApiClient } from '../fixtures/index.ts';
import { idsOf, walk, whileUnchanged, type Walk } from '../fixtures/lists.ts';
import type { Schemas } from '../../../contract/spec/types.ts';

type Product = Schemas['Product'];

/** Largest catalog the exhaustive limit=7 walk is run over (60 pages). */
const MAX_WALKED_ROWS = 420;

/**
 * Walk /products with `limit`, and return the ids it gave with the ids of the catalog (walked 100 at
 * a time before and after, so that a catalog changing meanwhile is never judged).
 */
async function walkAgainstCatalog(api: ApiClient, limit: number): Promise<{ expected: string[]; walked: Walk<Product> }> {
  const stable = await whileUnchanged(
    () => walk<Product>(api, '/products', { limit: 100 }, 20),
    (w) => idsOf(w, (p) => p.productId),
    async (all) => (all.complete && all.rows.length <= MAX_WALKED_ROWS ? walk<Product>(api, '/products', { limit }) : undefined),
  );
  skipWhenAbsent(stable === undefined, 'the catalog changed during each attempt, so the walk cannot be judged against it');
  skipWhenAbsent(stable!.result === undefined, `the catalog holds more than ${MAX_WALKED_ROWS} products; use an account with a smaller one for the exhaustive walk`);
  return { expected: stable!.before.rows.map((p) => p.productId), walked: stable!.result! };
}

/** Each page's envelope; `limit`: the page size the walk asked for (a larger pageSize is not the size applied, D268). */
function expectWellFormedPages(w: Walk<Product>, limit: number): void {
  for (const [index, page] of w.pages.entries()) {
    const { data, pagination } = page.json;
    const where = `page ${index + 1} (${data.length} rows): ${JSON.stringify(pagination)}`;
    expect(pagination.hasMore, `PAGE-007 ${where}: hasMore mirrors nextCursor !== null`).toBe(pagination.nextCursor !== null);
    expect(data.length, `PAGE-008 ${where}: data never holds more rows than pageSize`).toBeLessThanOrEqual(pagination.pageSize);
    expect(pagination.pageSize, `PAGE-008 ${where}: pageSize is the size applied, never more than limit=${limit} asked`).toBeLessThanOrEqual(limit);
    expect(Object.hasOwn(page.json, 'object'), `GEN-006 ${where}: a read-plane envelope carries no object field`).toBe(false);
  }
}

/** Rows of `expected` the walk left out and rows it gave more than once (PAGE-005), for the message. */
function walkDifference(walked: readonly string[], expected: readonly string[]): string {
  const seen = new Map<string, number>();
  for (const id of walked) seen.set(id, (seen.get(id) ?? 0) + 1);
  const missing = expected.filter((id) => !seen.has(id));
  const repeated = [...seen].filter(([, n]) => n > 1).map(([id, n]) => `${id} ×${n}`);
  const foreign = [...seen.keys()].filter((id) => !expected.includes(id));
  return `the walk gave ${walked.length} rows of ${expected.length}; left out: ${missing.join(', ') || 'none'}; repeated: ${repeated.join(', ') || 'none'}; not in the catalog: ${foreign.join(', ') || 'none'}`;
}

test('PAGE-003 PAGE-005 PAGE-007 PAGE-008 GEN-006 walking /products with limit=7 returns every product exactly once', { tag: ['@area:products'] }, async ({ api }) => {
  const { expected, walked } = await walkAgainstCatalog(api, 7);
  expect(walked.complete, `PAGE-005 the walk reached a null nextCursor (${walked.pages.length} pages)`).toBe(true);
  expectWellFormedPages(walked, 7);
  const ids = walked.rows.map((p) => p.productId);
  expect(new Set(ids).size, `PAGE-005 no row is returned twice: ${walkDifference(ids, expected)}`).toBe(ids.length);
  expect([...ids].sort(), `PAGE-005 every product exactly once: ${walkDifference(ids, expected)}`).toEqual([...expected].sort());
  if (expected.length > 7) expect(walked.pages.length, `PAGE-005 ${expected.length} rows take several pages of 7`).toBeGreaterThan(1);
  expect(walked.pages.at(-1)!.json.pagination, 'PAGE-007 the last page').toMatchObject({ nextCursor: null, hasMore: false });
});

test('PAGE-012 the default page size is 25 and limit=100 is applied as asked', { tag: ['@assumed', '@area:products'] }, async ({ api }) => {
  const byDefault = await api.get('/products');
  expect(byDefault).toHaveStatus(200);
  expect((byDefault.json as { pagination: { pageSize: number } }).pagination.pageSize).toBe(25);
  const hundred = await api.get('/products', { query: { limit: 100 } });
  expect(hundred).toHaveStatus(200);
  expect((hundred.json as { pagination: { pageSize: number } }).pagination.pageSize).toBe(100);
});

test('PAGE-013 ERR-039 a limit outside 1–100 answers 400 VALIDATION_ERROR', { tag: ['@assumed', '@area:products'] }, async ({ api }) => {
  for (const limit of ['0', '101', '-1', 'seven']) {
    await expect(await api.get('/products', { query: { limit } }), `limit=${limit}`).toBeProblem(400, 'VALIDATION_ERROR');
  }
});

test('ERR-013 ERR-039 a cursor the API did not issue answers 400 VALIDATION_ERROR', { tag: ['@assumed', '@area:products'] }, async ({ api }) => {
  for (const cursor of ['not-a-cursor', '%%%', 'eyJ2Ijo5OX0']) {
    await expect(await api.get('/products', { query: { cursor } }), `cursor=${cursor}`).toBeProblem(400, 'VALIDATION_ERROR');
  }
});

test('PAGE-006 PAGE-005 PAGE-007 a walk through sparse and empty pages still returns every product once', { tag: ['@area:products'] }, async ({ api }) => {
  // Sparse and empty pages before the end are the target's choice: nothing in the public API or the
  // hooks contract makes a target serve them (the mock's /__mock settings did, and the suite no
  // longer reaches /__mock). The walk is judged where the target serves one on its own; otherwise
  // the test is skipped for want of that data (no hook names it: #32).
  const { expected, walked } = await walkAgainstCatalog(api, 7);
  const beforeEnd = walked.pages.slice(0, -1).map((p) => p.json.data.length);
  test.skip(!beforeEnd.some((n) => n < 7), `skipped because the target served no sparse or empty page before the last one (page sizes ${beforeEnd.join(', ')} of 7), and no hook of packages/contract/spec/conformance-hooks.yaml makes one`);
  expect(walked.complete).toBe(true);
  expectWellFormedPages(walked, 7);
  const ids = walked.rows.map((p) => p.productId);
  expect(new Set(ids).size, `PAGE-005 no row is returned twice: ${walkDifference(ids, expected)}`).toBe(ids.length);
  expect([...ids].sort(), `PAGE-005 every product exactly once: ${walkDifference(ids, expected)}`).toEqual([...expected].sort());
});
