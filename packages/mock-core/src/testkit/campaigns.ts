/**
 * Test fixtures for the creative, campaign and delivery HTTP tests: a fresh harness and account per
 * test (so rate limits and per-IP caps never leak between tests), campaigns made through
 * POST /campaigns, and creatives generated through the dashboard actions.
 *
 * The account is empty apart from a catalog made here (2 brands, 40 products each), so the tests
 * do not depend on the demo seed; `scene({ seeded: true })` takes the demo account instead.
 */
import { expect } from 'vitest';
import { createHarness, violations, type Harness, type RequestOptions, type TestAccount, type TestResponse } from './harness.ts';
import type { DomainEvent } from '../events/model.ts';
import { nextId, type AccountState } from '../domain/store.ts';
import type { Product } from '../domain/catalog/model.ts';
import { dashboardActions, generateCreatives, type GenerateOptions } from '../domain/campaigns/dashboard.ts';

export interface Scene {
  h: Harness;
  a: TestAccount;
  /** Send a request and check the response against the document (every response). */
  call(operationId: string, method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  /** A fresh Idempotency-Key. */
  idem(): string;
  /** Events recorded since the last `mark()` (setup done through the API records some). */
  events(): DomainEvent[];
  mark(): void;
  /** The account's products of its first brand (the seed alternates two brands). */
  products(n: number, brandIndex?: number): Product[];
  /** POST /campaigns with the `campaigns:write` key; asserts 201. */
  createCampaign(body?: Record<string, unknown>): Promise<{ campaignId: string; creativeIds: string[]; body: any; res: TestResponse }>;
  /** A campaign whose creatives were generated in the dashboard (readable, PENDING by default). */
  readyCampaign(options?: { products?: number; body?: Record<string, unknown> } & GenerateOptions): Promise<{ campaignId: string; creativeIds: string[]; body: any }>;
  /** Run a dashboard action now and record its events as a dashboard user would. */
  dashboard(action: string, input: Record<string, unknown>): void;
}

let keyCounter = 0;

function catalog(state: AccountState, now: number): void {
  const brandIds = [nextId(state, 'brd'), nextId(state, 'brd')];
  brandIds.forEach((brandId, i) => state.brands.set(brandId, { brandId, name: `Brand ${i}` }));
  for (let i = 0; i < 80; i++) {
    const productId = nextId(state, 'prd');
    state.products.set(productId, {
      productId,
      brandId: brandIds[i % 2]!,
      sku: i % 10 === 3 ? null : `MPN-${i}`,
      title: `Product ${i}`,
      primaryImageUrl: `https://media.example.invalid/${productId}/primary.jpg`,
      primaryImageWidth: 1024,
      primaryImageHeight: 1024,
      galleryImageUrls: [],
      createdAt: now - 86_400_000,
    });
  }
}

export async function scene(options: { seeded?: boolean } = {}): Promise<Scene> {
  const h = await createHarness();
  const a = await h.account(options.seeded ? {} : { empty: true });
  if (!options.seeded) catalog(a.state, h.clock.now());
  let from = 0;
  const events = () => a.state.events.slice(from);
  const mark = () => {
    from = a.state.events.length;
  };
  const call: Scene['call'] = async (operationId, method, path, opts = {}) => {
    const res = await h.request(method, path, opts);
    expect(violations(operationId, res), `${method} ${path} → ${res.status} ${res.text}`).toEqual([]);
    return res;
  };
  const idem = () => `test-key-${++keyCounter}`;
  const products: Scene['products'] = (n, brandIndex = 0) => {
    const brandId = [...a.state.brands.values()][brandIndex]!.brandId;
    return [...a.state.products.values()].filter((p) => p.brandId === brandId).slice(0, n);
  };
  const createCampaign: Scene['createCampaign'] = async (body = {}) => {
    const ps = products(2);
    const res = await call('createCampaign', 'POST', '/campaigns', {
      key: a.key('campaigns:write'),
      headers: { 'idempotency-key': idem() },
      body: { name: 'Spring launch', brandId: ps[0]!.brandId, productIds: ps.map((p) => p.productId), ...body },
    });
    expect(res.status, res.text).toBe(201);
    const campaignId = res.body.campaignId as string;
    return { campaignId, creativeIds: [...a.state.campaigns.get(campaignId)!.creativeIds], body: res.body, res };
  };
  const readyCampaign: Scene['readyCampaign'] = async (opts = {}) => {
    const { products: n = 3, body = {}, ...generate } = opts;
    const created = await createCampaign({ productIds: products(n).map((p) => p.productId), ...body });
    generateCreatives(a.state, created.campaignId, h.clock.now(), generate);
    return { campaignId: created.campaignId, creativeIds: created.creativeIds, body: created.body };
  };
  const dashboard: Scene['dashboard'] = (action, input) => {
    const run = dashboardActions[action];
    if (!run) throw new Error(`no dashboard action ${action}`);
    const result = run(a.state, input, h.clock.now());
    for (const e of result.events) h.mock.services.events.record(a.state, e.resource, e.drafts, { kind: 'user' }, h.clock.now());
  };
  return { h, a, call, idem, events, mark, products, createCampaign, readyCampaign, dashboard };
}

/** The strong ETag of a response (ETAG-002, ETAG-003): quoted, no W/ prefix. */
export function strongETag(res: TestResponse): string {
  const tag = res.headers.etag;
  expect(tag, `ETag of ${res.status} ${res.text}`).toMatch(/^"[\x21\x23-\x7E]+"$/);
  return tag!;
}

/** A problem body without what differs per request (GEN-004: "identical apart from requestId and instance"). */
export function uniform(res: TestResponse): Record<string, unknown> {
  const { requestId: _r, instance: _i, ...rest } = res.body as Record<string, unknown>;
  return { status: res.status, ...rest };
}

/** Follow nextCursor to null (PAGE-005..008); returns every row and the pages. */
export async function walk(s: Scene, operationId: string, path: string, key: string, query: Record<string, string | number | boolean> = {}): Promise<{ rows: any[]; pages: any[][] }> {
  const rows: any[] = [];
  const pages: any[][] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 200; guard++) {
    const res = await s.call(operationId, 'GET', path, { key, query: { ...query, ...(cursor ? { cursor } : {}) } });
    expect(res.status, res.text).toBe(200);
    const { data, pagination } = res.body as { data: any[]; pagination: { nextCursor: string | null; hasMore: boolean; pageSize: number } };
    expect(pagination.hasMore).toBe(pagination.nextCursor !== null); // PAGE-007
    expect(data.length).toBeLessThanOrEqual(pagination.pageSize); // PAGE-008
    pages.push(data);
    rows.push(...data);
    cursor = pagination.nextCursor;
    if (cursor === null) return { rows, pages }; // PAGE-006: null is the only end signal
  }
  throw new Error('the walk did not end');
}
