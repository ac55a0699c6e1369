/**
 * The demo seed: deterministic, covers what the demo promises, and everything it makes presents
 * through the public API exactly as the document says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planFor } from '../domain/accounts/service.ts';
import { isReadable, type Creative } from '../domain/creatives/model.ts';
import { handlers } from '../services/handlers.ts';
import { newAccountState, type AccountState } from '../domain/store.ts';
import { createHarness, violations, type Harness } from '../testkit/harness.ts';
import { faker as englishFaker } from '@faker-js/faker/locale/en';
import { DELIVERY_RATIOS, seedAccount, seedLarge } from './demo.ts';

const NOW = Date.UTC(2026, 0, 1, 0, 0, 0);

function blank(): AccountState {
  return newAccountState({ accountId: 'acc_seedtest', name: 'Seed test', tag: 'abc123', plan: planFor('enterprise'), createdAt: NOW, seed: 1 });
}

function seeded(seed: number): AccountState {
  const account = blank();
  seedAccount(account, { now: NOW, seed });
  return account;
}

/** Everything the seed writes, in insertion order. */
function dump(account: AccountState): string {
  return JSON.stringify({
    sequence: account.sequence,
    brands: [...account.brands.values()],
    products: [...account.products.values()],
    campaigns: [...account.campaigns.values()],
    creatives: [...account.creatives.values()],
    assets: [...account.assets.values()],
    deliveries: [...account.deliveries.values()],
    events: account.events,
  });
}

describe('seedAccount: determinism', () => {
  it('the same seed gives an identical state', () => {
    expect(dump(seeded(42))).toBe(dump(seeded(42)));
  });

  it.each([42, 1, 7, 2026])("seed %i: the demo's Faker (94 kB of English, D287) gives the state faker's whole English locale gives", (seed) => {
    const whole = blank();
    seedAccount(whole, { now: NOW, seed }, englishFaker);
    expect(dump(seeded(seed))).toBe(dump(whole));
  });

  it('a different seed gives a different state', () => {
    expect(dump(seeded(42))).not.toBe(dump(seeded(43)));
  });

  it('times are relative to options.now: a later now shifts every time, nothing else', () => {
    const a = seeded(7);
    const b = blank();
    seedAccount(b, { now: NOW + 1000, seed: 7 });
    const shift = (c: Creative) => ({ ...c, createdAt: c.createdAt + 1000, approvedAt: c.approvedAt === null ? null : c.approvedAt + 1000, deletedAt: c.deletedAt === null ? null : c.deletedAt + 1000 });
    expect([...b.creatives.values()]).toEqual([...a.creatives.values()].map(shift));
  });
});

describe('seedAccount: coverage', () => {
  const account = seeded(42);
  const products = [...account.products.values()];
  const campaigns = [...account.campaigns.values()];
  const creatives = [...account.creatives.values()];
  const readable = creatives.filter(isReadable);
  const assets = [...account.assets.values()];
  const deliveries = [...account.deliveries.values()];
  const campaignOf = (c: Creative) => account.campaigns.get(c.campaignId)!;

  it('PROD: at least 2 brands and 50 products, some with a null sku, some sharing one', () => {
    expect(account.brands.size).toBeGreaterThanOrEqual(2);
    expect(products.length).toBeGreaterThanOrEqual(50);
    expect(products.some((p) => p.sku === null)).toBe(true);
    const counts = new Map<string, number>();
    for (const p of products) if (p.sku !== null) counts.set(p.sku, (counts.get(p.sku) ?? 0) + 1);
    expect([...counts.values()].some((n) => n > 1)).toBe(true);
  });

  it('campaigns: a live one per brand and a deleted one', () => {
    for (const brandId of account.brands.ids()) {
      expect(campaigns.some((c) => c.brandId === brandId && c.deletedAt === null)).toBe(true);
    }
    expect(campaigns.some((c) => c.deletedAt !== null)).toBe(true);
    // D8: one live campaign whose live creatives are all reviewed (COMPLETED), one still in progress
    const live = (id: string) => campaigns.find((c) => c.campaignId === id)!.creativeIds.map((cid) => account.creatives.get(cid)!).filter((c) => c.deletedAt === null);
    const reviewed = (id: string) => live(id).every((c) => c.status === 'APPROVED' || c.status === 'REJECTED');
    expect(campaigns.some((c) => c.deletedAt === null && reviewed(c.campaignId))).toBe(true);
    expect(campaigns.some((c) => c.deletedAt === null && !reviewed(c.campaignId))).toBe(true);
    // creation and cascades finished long ago: nothing is CREATING or CAMPAIGN_CASCADE_PENDING
    expect(campaigns.every((c) => c.creatingUntil <= NOW && c.cascadeUntil <= NOW)).toBe(true);
  });

  it('creatives: every status, readable re-generations, NOT_GENERATED without url, 3D and playable', () => {
    for (const status of ['PENDING', 'APPROVED', 'REJECTED', 'QUEUED', 'GENERATING'] as const) {
      expect(readable.some((c) => c.status === status), status).toBe(true);
    }
    expect(readable.filter((c) => c.status === 'QUEUED' || c.status === 'GENERATING').every((c) => c.url !== null)).toBe(true);
    const notGenerated = creatives.filter((c) => c.status === 'NOT_GENERATED');
    expect(notGenerated.length).toBeGreaterThan(0);
    expect(notGenerated.every((c) => c.url === null && !isReadable(c))).toBe(true);
    for (const media of ['3d', 'playable'] as const) {
      const found = creatives.filter((c) => c.mediaType === media);
      expect(found.length, media).toBeGreaterThan(0);
      expect(found.every((c) => !isReadable(c))).toBe(true);
    }
  });

  it('creatives: deleted on its own in a live campaign, and deleted with the deleted campaign', () => {
    const own = creatives.filter((c) => c.deletedAt !== null && !c.deletedWithCampaign);
    expect(own.some((c) => campaignOf(c).deletedAt === null && isReadable(c))).toBe(true);
    const withCampaign = creatives.filter((c) => c.deletedWithCampaign);
    expect(withCampaign.length).toBeGreaterThan(0);
    for (const c of withCampaign) expect(c.deletedAt).toBe(campaignOf(c).deletedAt);
    // every creative of a deleted campaign is deleted; in a live one, none is deleted with it
    for (const c of creatives) {
      if (campaignOf(c).deletedAt !== null) expect(c.deletedAt).not.toBeNull();
      else expect(c.deletedWithCampaign).toBe(false);
    }
    // a deleted campaign holds no QUEUED or GENERATING creative (it could not have been deleted)
    expect(creatives.some((c) => campaignOf(c).deletedAt !== null && (c.status === 'QUEUED' || c.status === 'GENERATING'))).toBe(false);
  });

  it('creatives: image and video (video with thumbnailUrl and playerUrl; the presenter adds embedCode), own ratio or none, metadata', () => {
    expect(readable.some((c) => c.mediaType === 'image')).toBe(true);
    const videos = readable.filter((c) => c.mediaType === 'video');
    expect(videos.length).toBeGreaterThan(0);
    for (const v of videos) {
      expect(v.thumbnailUrl).not.toBeNull();
      expect(v.playerUrl).not.toBeNull();
    }
    expect(readable.some((c) => c.ownAspectRatio !== null)).toBe(true);
    expect(readable.some((c) => c.ownAspectRatio === null)).toBe(true);
    expect(readable.filter((c) => c.ownAspectRatio !== null).every((c) => DELIVERY_RATIOS.includes(c.ownAspectRatio!))).toBe(true);
    expect(readable.some((c) => Object.keys(c.metadata).length > 0)).toBe(true);
    expect(readable.filter((c) => c.status === 'APPROVED').every((c) => c.approvedAt !== null)).toBe(true);
    expect(readable.filter((c) => c.status !== 'APPROVED').every((c) => c.approvedAt === null)).toBe(true);
  });

  it('creatives and campaigns agree: brand, product, membership', () => {
    for (const c of creatives) {
      const campaign = campaignOf(c);
      expect(campaign.creativeIds).toContain(c.creativeId);
      expect(campaign.brandId).toBe(c.brandId);
      expect(account.products.get(c.productId)!.brandId).toBe(c.brandId);
    }
    expect(campaigns.reduce((n, c) => n + c.creativeIds.length, 0)).toBe(creatives.length);
  });

  it('assets: STATIC images of 1024-2048 px, a VIDEO with durationSec, archived, deleted, favorited, notes, metadata, an upscale', () => {
    const stills = assets.filter((a) => a.type === 'STATIC');
    expect(stills.length).toBeGreaterThan(0);
    for (const a of stills) {
      expect(a.width).toBeGreaterThanOrEqual(1024);
      expect(a.width).toBeLessThanOrEqual(2048);
      expect(a.height).toBeGreaterThanOrEqual(1024);
      expect(a.height).toBeLessThanOrEqual(2048);
      expect(a.durationSec).toBeNull();
    }
    const videos = assets.filter((a) => a.type === 'VIDEO');
    expect(videos.length).toBeGreaterThan(0);
    expect(videos.every((a) => typeof a.durationSec === 'number' && a.playerUrl !== null)).toBe(true);
    expect(assets.some((a) => a.archived && a.deletedAt === null)).toBe(true);
    expect(assets.some((a) => a.deletedAt !== null)).toBe(true);
    expect(assets.some((a) => a.favorited)).toBe(true);
    expect(assets.some((a) => a.notes !== null)).toBe(true);
    expect(assets.some((a) => Object.keys(a.metadata).length > 0)).toBe(true);
    const derived = assets.filter((a) => a.derivation !== null);
    expect(derived.length).toBeGreaterThan(0);
    for (const d of derived) expect(account.assets.has(d.derivation!.parentAssetId)).toBe(true);
    for (const a of assets) expect(account.products.has(a.productId)).toBe(true);
  });

  it('D15 deliveries: one per readable creative per 1-3 distinct delivery ratios, the first the shown ratio', () => {
    const byCreative = new Map<string, typeof deliveries>();
    for (const d of deliveries) byCreative.set(d.creativeId, [...(byCreative.get(d.creativeId) ?? []), d]);
    expect([...byCreative.keys()].sort()).toEqual(readable.map((c) => c.creativeId).sort());
    const sizes = new Set<number>();
    for (const c of readable) {
      const rows = byCreative.get(c.creativeId)!;
      sizes.add(rows.length);
      expect(rows.length).toBeGreaterThanOrEqual(1);
      expect(rows.length).toBeLessThanOrEqual(3);
      expect(new Set(rows.map((d) => d.aspectRatio)).size).toBe(rows.length);
      expect(rows[0]!.aspectRatio).toBe(c.ownAspectRatio ?? campaignOf(c).aspectRatio);
      for (const d of rows) {
        expect(DELIVERY_RATIOS).toContain(d.aspectRatio);
        expect(d).toMatchObject({ campaignId: c.campaignId, productId: c.productId, mediaType: c.mediaType });
      }
    }
    expect([...sizes].sort()).toEqual([1, 2, 3]);
  });

  it('no time lies after now, and the seed records no events', () => {
    const times = [
      ...products.map((p) => p.createdAt),
      ...campaigns.flatMap((c) => [c.createdAt, c.deletedAt ?? 0]),
      ...creatives.flatMap((c) => [c.createdAt, c.approvedAt ?? 0, c.deletedAt ?? 0]),
      ...assets.flatMap((a) => [a.createdAt, a.deletedAt ?? 0]),
      ...deliveries.map((d) => d.createdAt),
    ];
    expect(Math.max(...times)).toBeLessThanOrEqual(NOW);
    expect(account.events).toEqual([]);
  });
});

describe('seedAccount: everything presents through the public API', () => {
  let h: Harness;
  let key: string;
  let state: AccountState;
  beforeAll(async () => {
    h = await createHarness();
    const acct = await h.account({ seed: 42 });
    key = acct.key('read');
    state = acct.state;
  });
  afterAll(async () => {
    await h.close();
  });

  /** Walk a list with showDeleted to its end, checking every page against the document. */
  async function listAll(operationId: string, path: string): Promise<Record<string, unknown>[]> {
    const rows: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    for (let guard = 0; guard < 100; guard++) {
      const res = await h.request('GET', path, { key, query: { showDeleted: true, limit: 100, ...(cursor ? { cursor } : {}) } });
      expect(res.status, res.text).toBe(200);
      expect(violations(operationId, res)).toEqual([]);
      rows.push(...(res.body.data as Record<string, unknown>[]));
      cursor = res.body.pagination.nextCursor as string | null;
      if (cursor === null) return rows;
    }
    throw new Error('the list did not end');
  }

  it('assets: every seeded asset is listed with showDeleted and reads alone', async () => {
    const rows = await listAll('listAssets', '/assets');
    expect(rows.map((r) => r.assetId)).toEqual([...state.assets.ids()]);
    for (const a of state.assets.values()) {
      const res = await h.request('GET', `/assets/${a.assetId}`, { key, query: { showDeleted: true } });
      expect(res.status).toBe(200);
      expect(violations('getAsset', res)).toEqual([]);
    }
  });

  it.skipIf(!handlers.listCreatives)('creatives: every readable creative is listed with showDeleted, and no other', async () => {
    const rows = await listAll('listCreatives', '/creatives');
    const expected = [...state.creatives.values()].filter(isReadable).map((c) => c.creativeId);
    expect(rows.map((r) => r.creativeId)).toEqual(expected);
  });

  it.skipIf(!handlers.listCampaigns)('campaigns: every campaign is listed with showDeleted', async () => {
    const rows = await listAll('listCampaigns', '/campaigns');
    expect(rows.map((r) => r.campaignId).sort()).toEqual([...state.campaigns.ids()].sort());
  });

  it.skipIf(!handlers.listDeliveries)('deliveries: every listed row is seeded; every delivery of a live creative is listed', async () => {
    const rows = await listAll('listDeliveries', '/deliveries');
    const listed = new Set(rows.map((r) => r.deliveryId as string));
    for (const id of listed) expect(state.deliveries.has(id)).toBe(true);
    for (const d of state.deliveries.values()) {
      if (state.creatives.get(d.creativeId)!.deletedAt === null) expect(listed.has(d.deliveryId), d.deliveryId).toBe(true);
    }
  });
});

describe('seedLarge', () => {
  it('adds N readable creatives to an empty account (making a minimal catalog), deterministically', { timeout: 10_000 }, () => {
    const a = blank();
    seedLarge(a, { now: NOW, seed: 3, creatives: 100_000 });
    expect(a.creatives.size).toBe(100_000);
    let readableCount = 0;
    for (const c of a.creatives.values()) if (isReadable(c) && c.deletedAt === null) readableCount++;
    expect(readableCount).toBe(100_000);
    for (const c of a.campaigns.values()) expect(c.creativeIds.length).toBeLessThanOrEqual(1000);
    expect(a.campaigns.size).toBe(100);
    const b = blank();
    seedLarge(b, { now: NOW, seed: 3, creatives: 100_000 });
    expect(JSON.stringify([...b.creatives.values()].slice(-50))).toBe(JSON.stringify([...a.creatives.values()].slice(-50)));
  });

  it('adds to a seeded account, using one brand\'s products', () => {
    const a = seeded(42);
    const before = a.creatives.size;
    seedLarge(a, { now: NOW, seed: 42, creatives: 2_500 });
    expect(a.creatives.size).toBe(before + 2_500);
    const added = [...a.creatives.values()].slice(before);
    for (const c of added) {
      expect(a.products.get(c.productId)!.brandId).toBe(c.brandId);
      expect(a.campaigns.get(c.campaignId)!.brandId).toBe(c.brandId);
    }
  });

  it.skipIf(!handlers.listCreatives)('the added creatives present through the public API', async () => {
    const h = await createHarness();
    try {
      const acct = await h.account({ empty: true });
      seedLarge(acct.state, { now: h.clock.now(), seed: 1, creatives: 250 });
      let cursor: string | null = null;
      let count = 0;
      do {
        const res = await h.request('GET', '/creatives', { key: acct.key('read'), query: { limit: 100, ...(cursor ? { cursor } : {}) } });
        expect(violations('listCreatives', res)).toEqual([]);
        count += res.body.data.length;
        cursor = res.body.pagination.nextCursor;
      } while (cursor !== null);
      expect(count).toBe(250);
    } finally {
      await h.close();
    }
  });
});
