/**
 * Helpers shared by the generation-plane tests (runs, upscales, credits): a harness with a fresh
 * account, direct state set-up for what no public endpoint creates (extra products, source assets),
 * and a guard that fails a test when a scheduled task threw (the clock reports those to
 * console.error, outside the harness's error check).
 */
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { mediaBase } from '../media/links.ts';
import type { PlanTier } from '../domain/accounts/model.ts';
import { newAsset, type Asset } from '../domain/assets/model.ts';
import { createHarness, type Harness, type TestAccount, type TestResponse } from './harness.ts';
import { nextId, type AccountState } from '../domain/store.ts';
import { creditsOf, type CreditLedger } from '../domain/credits/ledger.ts';

export interface World {
  h: Harness;
  acct: TestAccount;
  /** A key with runs:write (implies runs:read and read). */
  write: string;
  /** A key with runs:read (and read). */
  read: string;
  state: AccountState;
  ledger: CreditLedger;
}

export async function world(options: { plan?: PlanTier; seed?: number } = {}): Promise<World> {
  const h = await createHarness();
  const acct = await h.account({ plan: options.plan ?? 'enterprise', ...(options.seed !== undefined ? { seed: options.seed } : {}) });
  return { h, acct, write: acct.key('runs:write'), read: acct.key('runs:read'), state: acct.state, ledger: creditsOf(acct.state) };
}

/** Fail the test if a scheduled task threw (Clock's default onTaskError is console.error). */
export function guardTaskErrors(): void {
  let spy: ReturnType<typeof vi.spyOn> | undefined;
  beforeEach(() => {
    spy = vi.spyOn(console, 'error');
  });
  afterEach(() => {
    const calls = spy?.mock.calls ?? [];
    spy?.mockRestore();
    expect(calls, 'a scheduled task failed').toEqual([]);
  });
}

let keyCounter = 0;
export function idem(): string {
  return `test-key-${++keyCounter}`;
}

export function productIds(state: AccountState, n: number): string[] {
  const ids = [...state.products.ids()].slice(0, n);
  if (ids.length < n) throw new Error(`the account has only ${ids.length} products`);
  return ids;
}

/** Add `n` products directly (the seed has 60; a 1,000-item run needs 100 × 10). */
export function addProducts(state: AccountState, n: number, now: number): string[] {
  const brandId = state.brands.ids()[0] ?? 'brd_test';
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const productId = nextId(state, 'prd');
    state.products.set(productId, {
      productId,
      brandId,
      sku: null,
      title: `Extra product ${i}`,
      primaryImageUrl: mediaBase(`${productId}.primary`, productId),
      primaryImageWidth: 1024,
      primaryImageHeight: 1024,
      galleryImageUrls: [],
      createdAt: now,
    });
    out.push(productId);
  }
  return out;
}

/** Put an asset into the account directly (a source for upscales). */
export function addAsset(state: AccountState, overrides: Partial<Asset> = {}): Asset {
  const assetId = nextId(state, 'ast');
  const asset: Asset = {
    ...newAsset({
      assetId,
      productId: state.products.ids()[0] ?? 'prd_none',
      type: 'STATIC',
      url: mediaBase(assetId, 'Source image'),
      name: 'Source image',
      width: 1024,
      height: 768,
      createdAt: 0,
    }),
    ...overrides,
  };
  state.assets.set(assetId, asset);
  return asset;
}

export function postRun(w: World, body: unknown, options: { key?: string; idempotencyKey?: string; headers?: Record<string, string> } = {}): Promise<TestResponse> {
  return w.h.request('POST', '/runs', {
    key: options.key ?? w.write,
    body,
    headers: { 'idempotency-key': options.idempotencyKey ?? idem(), ...(options.headers ?? {}) },
  });
}

export function postUpscale(w: World, body: unknown, options: { key?: string; idempotencyKey?: string; headers?: Record<string, string> } = {}): Promise<TestResponse> {
  return w.h.request('POST', '/upscales', {
    key: options.key ?? w.write,
    body,
    headers: { 'idempotency-key': options.idempotencyKey ?? idem(), ...(options.headers ?? {}) },
  });
}

/** Every item of a run, walking the pages. */
export async function allItems(w: World, runId: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const res: TestResponse = await w.h.request('GET', `/runs/${runId}/items`, { key: w.read, query: { limit: 100, ...(cursor ? { cursor } : {}) } });
    if (res.status !== 200) throw new Error(`items: ${res.status} ${res.text}`);
    out.push(...res.body.data);
    cursor = res.body.pagination.nextCursor;
  } while (cursor !== null);
  return out;
}
