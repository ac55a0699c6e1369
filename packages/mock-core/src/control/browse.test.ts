/** Control plane, browse: creatives and assets by status, upscales with their times on the clock, filtered by the server and paged. */
import { describe, expect, it } from 'vitest';
import { controlSuite } from '../testkit/control.ts';

const t = controlSuite({ account: {} });
const { control } = t;

/** Every row of a browse list, walked page by page with `from`/`next`. */
async function walk(operationId: string, path: string, query: string): Promise<{ rows: any[]; pages: number }> {
  const rows: any[] = [];
  let pages = 0;
  for (let from: number | null | undefined; from !== null; ) {
    const res = await control(operationId, 'GET', `${path}?${query}${from === undefined ? '' : `&from=${from}`}`);
    rows.push(...res.body.data);
    pages++;
    from = res.body.next;
  }
  return { rows, pages };
}

/** Every row of a public list, walked with its cursors. */
async function apiAll(path: string, key: string, query = ''): Promise<any[]> {
  const rows: any[] = [];
  for (let cursor: string | null = null; ; ) {
    const res = await t.h.request('GET', path, { key, query: { limit: 100, ...(cursor ? { cursor } : {}), ...Object.fromEntries(new URLSearchParams(query)) } });
    rows.push(...res.body.data);
    if (!res.body.pagination.hasMore) return rows;
    cursor = res.body.pagination.nextCursor;
  }
}

describe('GET /__mock/accounts/{accountId}/creatives and /assets', () => {
  it('filters by status on the server, a page at a time, in the public order and representation', async () => {
    const read = t.acc.key('read');
    const base = `/__mock/accounts/${t.acc.accountId}/creatives`;
    const every = await apiAll('/creatives', read);
    const statuses = [...new Set(every.map((c) => c.status))];
    expect(statuses.length).toBeGreaterThan(1);
    for (const status of statuses) {
      const { rows, pages } = await walk('listAccountCreatives', base, `status=${status}&limit=5`);
      expect(rows).toEqual(every.filter((c) => c.status === status)); // same rows, order and representation as the API's
      expect(pages).toBeGreaterThanOrEqual(Math.ceil(rows.length / 5)); // five a page
    }
    const first = await control('listAccountCreatives', 'GET', `${base}?status=${statuses[0]}&limit=2`);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.next).toEqual(expect.any(Number));

    // showDeleted: a deleted creative only with it, with deletedAt.
    const victim = every.find((c) => c.status === 'PENDING')!;
    expect((await t.h.request('DELETE', `/creatives/${victim.creativeId}`, { key: t.acc.key('all') })).status).toBeLessThan(300);
    const live = await walk('listAccountCreatives', base, 'status=PENDING&limit=100');
    expect(live.rows.map((c) => c.creativeId)).not.toContain(victim.creativeId);
    const all = await walk('listAccountCreatives', base, 'status=PENDING&limit=100&showDeleted=true');
    expect(all.rows.find((c) => c.creativeId === victim.creativeId)).toMatchObject({ deletedAt: expect.any(String) });

    const assets = `/__mock/accounts/${t.acc.accountId}/assets`;
    const asset = (await apiAll('/assets', read))[0];
    expect((await t.h.request('POST', `/assets/${asset.assetId}/archive`, { key: t.acc.key('all'), headers: { 'idempotency-key': 'browse-archive' } })).status).toBe(200);
    const archived = await walk('listAccountAssets', assets, 'status=archived');
    expect(archived.rows.map((a) => a.assetId)).toContain(asset.assetId);
    expect(archived.rows.every((a) => a.status === 'archived')).toBe(true);
    const active = await walk('listAccountAssets', assets, 'status=active&limit=100');
    expect(active.rows.map((a) => a.assetId)).not.toContain(asset.assetId);
    expect(active.rows.length + archived.rows.length).toBe((await apiAll('/assets', read)).length);

    // A status the list does not have is a 400, not an empty page.
    expect((await control('listAccountCreatives', 'GET', `${base}?status=NOT_GENERATED`)).status).toBe(400);
    expect((await control('listAccountAssets', 'GET', `${assets}?from=-1`)).status).toBe(400);
  });
});

describe('GET /__mock/accounts/{accountId}/upscales', () => {
  it('lists upscales newest first with status, outcome and their times on the clock, filtered by status on the server', async () => {
    const all = t.acc.key('all');
    const base = `/__mock/accounts/${t.acc.accountId}/upscales`;
    expect((await control('listUpscales', 'GET', base)).body).toEqual({ data: [], next: null });
    const products = (await t.h.request('GET', '/products', { key: all, query: { limit: 2 } })).body.data;
    const made: string[] = [];
    for (const [i, p] of products.entries()) {
      const res = await t.h.request('POST', '/upscales', { key: all, body: { source: { productId: p.productId, image: 'primary' }, target: '4K' }, headers: { 'idempotency-key': `browse-up-${i}` } });
      expect(res.status).toBe(202);
      made.push(res.body.upscaleId);
    }
    const queued = await control('listUpscales', 'GET', base);
    expect(queued.body.data.map((u: { upscaleId: string }) => u.upscaleId)).toEqual([...made].reverse());
    expect(queued.body.data[0]).toMatchObject({ status: 'QUEUED', startedAt: null, finishesAt: null, assetId: null, parentAssetId: expect.any(String) });

    t.h.advance(2);
    const processing = (await control('listUpscales', 'GET', `${base}?status=PROCESSING`)).body.data;
    expect(processing).toHaveLength(2);
    expect(processing[0]).toMatchObject({ startedAt: expect.any(String), finishesAt: expect.any(String) });
    expect((await control('listUpscales', 'GET', `${base}?status=SUCCEEDED`)).body.data).toEqual([]);

    t.h.advance(3600);
    const settled = (await control('listUpscales', 'GET', `${base}?limit=1`)).body;
    expect(settled.data).toHaveLength(1);
    expect(settled.next).toEqual(expect.any(Number));
    const [one] = settled.data;
    const api = (await t.h.request('GET', `/upscales/${one.upscaleId}`, { key: all })).body;
    expect(one).toMatchObject({ ...api, finishesAt: null });
    expect(['SUCCEEDED', 'FAILED']).toContain(one.status);
    const second = (await control('listUpscales', 'GET', `${base}?limit=1&from=${settled.next}`)).body;
    expect(second.data.map((u: { upscaleId: string }) => u.upscaleId)).toEqual([made[0]]);
    expect(second.next).toBeNull();
  });
});
