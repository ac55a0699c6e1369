/**
 * Deterministic demo data. Same `seed` → the same state; ids come from the account's sequence
 * (`nextId`), every time is relative to `options.now`, nothing reads the wall clock, and faker is
 * the only source of variety (seeded). The seed records no events: it stands for history made in
 * the dashboard before the API was used (EVT-007: earlier changes are never replayed).
 * How it works and what it decides: docs/internals.md, "packages/mock-core/src/seed/demo.ts".
 */
// Faker over the English definitions the demo reads (D287): loads in tens of milliseconds, and a
// browser's chunk of the demo data carries 94 kB of them instead of the whole English locale.
import type { Faker } from '@faker-js/faker';
import { demoFaker } from './faker.ts';
import { resolvePointer } from '../../../contract/spec/contract.ts';
import type { Asset } from '../domain/assets/model.ts';
import type { Campaign } from '../domain/campaigns/model.ts';
import type { Product } from '../domain/catalog/model.ts';
import { isReadable, type Creative, type CreativeMediaType, type CreativeStatus } from '../domain/creatives/model.ts';
import { mediaBase, productLabel } from '../media/links.ts';
import type { AccountState } from '../domain/store.ts';
import { nextId } from '../domain/store.ts';

export interface SeedOptions {
  now: number;
  seed: number;
}

export interface LargeSeedOptions extends SeedOptions {
  /** Number of readable creatives to add. */
  creatives: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** D4: the delivery ratios, read from the document (`DeliveryRatio`) so they never drift. */
export const DELIVERY_RATIOS: readonly string[] = (resolvePointer('#/components/schemas/DeliveryRatio') as { enum: string[] }).enum;

/** `faker`: the demo's own (packages/mock-core/src/seed/faker.ts); a test passes `@faker-js/faker/locale/en`'s to prove them the same. */
export function seedAccount(account: AccountState, options: SeedOptions, faker: Faker = demoFaker): void {
  faker.seed(options.seed); // synchronous from here on: the shared instance stays deterministic
  const { now } = options;

  // --- brands and products (PROD: sku null on some, shared by others; join on productId)
  const brandIds: string[] = [];
  for (let b = 0; b < 2; b++) {
    const brandId = nextId(account, 'brd');
    account.brands.set(brandId, { brandId, name: faker.company.name() });
    brandIds.push(brandId);
  }
  const productsByBrand: Product[][] = brandIds.map(() => []);
  for (let i = 0; i < 60; i++) {
    const productId = nextId(account, 'prd');
    const sku = i % 10 === 3 ? null : i % 10 === 7 ? 'MPN-SHARED-01' : `MPN-${faker.string.alphanumeric({ length: 6, casing: 'upper' })}`;
    const product: Product = {
      productId,
      brandId: brandIds[i % brandIds.length]!,
      sku,
      title: faker.commerce.productName(),
      primaryImageUrl: mediaBase(`${productId}.primary`, sku),
      primaryImageWidth: 1024,
      primaryImageHeight: 1024,
      galleryImageUrls: Array.from({ length: i % 5 }, (_, g) => mediaBase(`${productId}.gallery-${g + 1}`, sku)),
      createdAt: now - (60 - i) * HOUR,
    };
    account.products.set(productId, product);
    productsByBrand[i % brandIds.length]!.push(product);
  }
  const brandA = productsByBrand[0]!;
  const brandB = productsByBrand[1]!;

  // --- campaigns and their creatives
  // Inserted oldest first, as the API inserts them: lists read insertion order (CAMP-020 newest first).
  const plans = campaignPlans(brandA, brandB, now).sort((a, b) => a.createdAt - b.createdAt);
  for (const plan of plans) seedCampaign(account, faker, plan);

  // --- deliveries: one per readable creative per 1-3 delivery ratios (D15)
  let k = 0;
  for (const creative of [...account.creatives.values()]) {
    if (!isReadable(creative)) continue;
    const campaign = account.campaigns.get(creative.campaignId)!;
    const shown = creative.ownAspectRatio ?? campaign.aspectRatio;
    const others = faker.helpers.arrayElements(DELIVERY_RATIOS.filter((r) => r !== shown), k++ % 3);
    for (const ratio of [shown, ...others]) {
      const deliveryId = nextId(account, 'dlv');
      account.deliveries.set(deliveryId, {
        deliveryId,
        creativeId: creative.creativeId,
        campaignId: creative.campaignId,
        productId: creative.productId,
        aspectRatio: ratio,
        mediaType: creative.mediaType as 'image' | 'video', // readable ⇒ image or video
        url: mediaBase(deliveryId, productLabel(account.products.get(creative.productId))),
        createdAt: creative.createdAt + HOUR,
      });
    }
  }

  // --- assets
  seedAssets(account, faker, [...brandA, ...brandB], now);
}

// ---------------------------------------------------------------------------------------------
// Campaigns

interface CreativePlan {
  status: CreativeStatus;
  media?: CreativeMediaType;
  /** Has a ratio of its own (otherwise the campaign's shows). */
  own?: boolean;
  meta?: boolean;
  /** Deleted on its own (not with the campaign). */
  deletedOwn?: boolean;
}

interface CampaignPlan {
  name: string;
  products: Product[];
  aspectRatio: string;
  createdAt: number;
  deletedAt: number | null;
  meta: boolean;
  creatives: CreativePlan[];
}

function campaignPlans(brandA: Product[], brandB: Product[], now: number): CampaignPlan[] {
  return [
    {
      name: 'Spring launch',
      products: brandA.slice(0, 12),
      aspectRatio: '1:1',
      createdAt: now - 20 * DAY,
      deletedAt: null,
      meta: true,
      creatives: [
        { status: 'PENDING' },
        { status: 'APPROVED', own: true },
        { status: 'REJECTED' },
        { status: 'PENDING', meta: true },
        { status: 'QUEUED' }, // a readable re-generation: it keeps its url
        { status: 'GENERATING', own: true },
        { status: 'NOT_GENERATED' }, // no public representation yet
        { status: 'APPROVED', meta: true },
        { status: 'PENDING', media: '3d' }, // unreadable whatever its status
        { status: 'APPROVED', media: 'playable' },
        { status: 'PENDING', deletedOwn: true },
        { status: 'APPROVED', own: true, meta: true },
      ],
    },
    {
      name: 'Summer video push',
      products: brandB.slice(0, 10),
      aspectRatio: '9:16',
      createdAt: now - 14 * DAY,
      deletedAt: null,
      meta: false,
      creatives: [
        { status: 'PENDING', media: 'video' },
        { status: 'APPROVED', media: 'video', meta: true },
        { status: 'PENDING', own: true },
        { status: 'REJECTED', media: 'video' },
        { status: 'QUEUED', media: 'video', own: true },
        { status: 'APPROVED' },
        { status: 'NOT_GENERATED', media: 'video' },
        { status: 'PENDING', media: 'video', deletedOwn: true },
        { status: 'PENDING', meta: true },
        { status: 'GENERATING', media: 'video' },
      ],
    },
    {
      name: 'Evergreen catalogue',
      products: brandA.slice(12, 18),
      aspectRatio: '4:5',
      createdAt: now - 30 * DAY,
      deletedAt: null,
      meta: false,
      creatives: [
        { status: 'APPROVED' },
        { status: 'APPROVED', own: true },
        { status: 'REJECTED' },
        { status: 'APPROVED', meta: true },
        { status: 'REJECTED', own: true },
        { status: 'APPROVED', media: 'video' },
      ],
    },
    {
      name: 'Holiday teaser',
      products: brandB.slice(10, 15),
      aspectRatio: '16:9',
      createdAt: now - 40 * DAY,
      deletedAt: now - 10 * DAY,
      meta: true,
      creatives: [
        { status: 'APPROVED' },
        { status: 'PENDING', meta: true },
        { status: 'REJECTED', own: true },
        { status: 'APPROVED', media: 'video' },
        { status: 'PENDING', deletedOwn: true }, // stays deleted when the campaign is restored
      ],
    },
  ];
}

function seedCampaign(account: AccountState, faker: Faker, plan: CampaignPlan): void {
  const campaignId = nextId(account, 'cmp');
  const brandId = plan.products[0]!.brandId;
  const campaign: Campaign = {
    campaignId,
    name: plan.name,
    brandId,
    aspectRatio: plan.aspectRatio,
    createdAt: plan.createdAt,
    deletedAt: plan.deletedAt,
    metadata: plan.meta ? { quarter: faker.helpers.arrayElement(['Q1', 'Q2', 'Q3', 'Q4']), owner: faker.person.firstName().toLowerCase() } : {},
    creativeIds: [],
    creatingUntil: plan.createdAt, // creation finished long ago
    cascadeUntil: plan.deletedAt ?? plan.createdAt, // no cascade still finishing
  };
  account.campaigns.set(campaignId, campaign);

  plan.creatives.forEach((cp, i) => {
    const product = plan.products[i % plan.products.length]!;
    const creativeId = nextId(account, 'crv');
    const media = cp.media ?? 'image';
    const createdAt = plan.createdAt + i * 60_000;
    const generated = cp.status !== 'NOT_GENERATED';
    const base = mediaBase(creativeId, productLabel(product));
    const isVideo = media === 'video' && generated;
    // A creative deleted on its own goes first; the campaign's cascade deletes the rest later.
    const ownDeletedAt = cp.deletedOwn ? (plan.deletedAt !== null ? plan.deletedAt - DAY : plan.createdAt + 5 * DAY) : null;
    const deletedAt = ownDeletedAt ?? plan.deletedAt;
    const creative: Creative = {
      creativeId,
      productId: product.productId,
      campaignId,
      brandId,
      mediaType: media,
      status: cp.status,
      url: generated ? base : null, // a 3d or playable creative has a url too, but no public representation
      thumbnailUrl: isVideo ? base : null,
      playerUrl: isVideo ? base : null,
      ownAspectRatio: cp.own ? faker.helpers.arrayElement(DELIVERY_RATIOS.filter((r) => r !== plan.aspectRatio)) : null,
      approvedAt: cp.status === 'APPROVED' ? createdAt + faker.number.int({ min: 1, max: 4 }) * DAY : null,
      rejectionReason: cp.status === 'REJECTED' ? faker.lorem.sentence().slice(0, 500) : null,
      deletedAt,
      deletedWithCampaign: deletedAt !== null && ownDeletedAt === null,
      metadata: cp.meta ? { channel: faker.helpers.arrayElement(['meta', 'tiktok', 'google', 'pinterest']), variant: faker.word.adjective() } : {},
      createdAt,
      cropJobs: 0,
    };
    account.creatives.set(creativeId, creative);
    campaign.creativeIds.push(creativeId);
  });
}

// ---------------------------------------------------------------------------------------------
// Assets

interface AssetPlan {
  type: 'STATIC' | 'VIDEO';
  width: number;
  height: number;
  durationSec?: number;
  favorited?: boolean;
  archived?: boolean;
  deleted?: boolean;
  notes?: boolean;
  meta?: boolean;
  /** Index of the plan this one was upscaled from. */
  upscaledFrom?: number;
}

const ASSET_PLANS: AssetPlan[] = [
  { type: 'STATIC', width: 1024, height: 1024, favorited: true, notes: true },
  { type: 'STATIC', width: 2048, height: 2048 },
  { type: 'STATIC', width: 1536, height: 2048, meta: true },
  { type: 'VIDEO', width: 1080, height: 1920, durationSec: 15 },
  { type: 'STATIC', width: 2048, height: 1536, archived: true },
  { type: 'STATIC', width: 1024, height: 1280, deleted: true, notes: true },
  { type: 'STATIC', width: 1024, height: 1024, favorited: true, meta: true },
  { type: 'VIDEO', width: 1920, height: 1080, durationSec: 30.5, favorited: true, notes: true },
  { type: 'STATIC', width: 1280, height: 1024 },
  { type: 'STATIC', width: 1024, height: 1024, archived: true, favorited: true },
  { type: 'STATIC', width: 2048, height: 2048, upscaledFrom: 0 },
  { type: 'STATIC', width: 1024, height: 1536, notes: true, meta: true },
];

const VARIANTS = ['hero', 'lifestyle', 'detail', 'banner', 'flatlay', 'studio'];

function seedAssets(account: AccountState, faker: Faker, products: Product[], now: number): void {
  const made: Asset[] = [];
  ASSET_PLANS.forEach((plan, j) => {
    const parent = plan.upscaledFrom !== undefined ? made[plan.upscaledFrom]! : undefined;
    const product = parent ? account.products.get(parent.productId)! : products[(j * 7) % products.length]!;
    const assetId = nextId(account, 'ast');
    const video = plan.type === 'VIDEO';
    const createdAt = parent ? parent.createdAt + 2 * HOUR : now - (30 - j) * DAY;
    const asset: Asset = {
      assetId,
      productId: product.productId,
      type: plan.type,
      url: mediaBase(assetId, productLabel(product)),
      thumbnailUrl: video || j % 3 !== 2 ? mediaBase(assetId, productLabel(product)) : null,
      favorited: plan.favorited ?? false,
      archived: plan.archived ?? false,
      name: `${product.title} — ${parent ? `${parent.name.split(' — ')[1]} (upscaled)` : faker.helpers.arrayElement(VARIANTS)}`,
      width: plan.width,
      height: plan.height,
      durationSec: video ? plan.durationSec! : null,
      playerUrl: video ? mediaBase(assetId, productLabel(product)) : null,
      createdAt,
      deletedAt: plan.deleted ? now - 3 * DAY : null,
      notes: plan.notes ? faker.lorem.sentence() : null,
      metadata: plan.meta ? { shoot: faker.commerce.department().toLowerCase(), photographer: faker.person.lastName() } : {},
      derivation: parent
        ? { kind: 'ai_rerender', operation: 'image_upscale', parentAssetId: parent.assetId, rootAssetId: parent.derivation?.rootAssetId ?? parent.assetId }
        : null,
    };
    account.assets.set(assetId, asset);
    made.push(asset);
  });
}

// ---------------------------------------------------------------------------------------------
// Large seed (benchmarks)

/**
 * Add `options.creatives` readable creatives (image, every tenth a video; PENDING, APPROVED or
 * REJECTED) in campaigns of at most 1,000 creatives each, cheaply: no faker per row, strings built
 * by concatenation. Uses the account's first brand with products; creates a minimal catalog when
 * the account has none. Adds no deliveries or assets. 100,000 creatives take well under a second.
 */
export function seedLarge(account: AccountState, options: LargeSeedOptions): void {
  const { now, seed } = options;
  const salt = Math.abs(Math.trunc(seed)) || 0; // any number is a valid seed: indices stay non-negative integers
  let products = [...account.products.values()];
  if (products.length === 0) {
    const brandId = nextId(account, 'brd');
    account.brands.set(brandId, { brandId, name: `Benchmark brand ${seed}` });
    for (let i = 0; i < 100; i++) {
      const productId = nextId(account, 'prd');
      account.products.set(productId, {
        productId,
        brandId,
        sku: `MPN-B${seed}-${i}`,
        title: `Benchmark product ${i}`,
        primaryImageUrl: mediaBase(`${productId}.primary`, `MPN-B${seed}-${i}`),
        primaryImageWidth: 1024,
        primaryImageHeight: 1024,
        galleryImageUrls: [],
        createdAt: now - DAY,
      });
    }
    products = [...account.products.values()];
  }
  const brandId = products[0]!.brandId;
  const pool = products.filter((p) => p.brandId === brandId);
  const statuses: CreativeStatus[] = ['PENDING', 'APPROVED', 'REJECTED'];
  const ratios = DELIVERY_RATIOS;
  const start = now - 7 * DAY;
  let campaign: Campaign | undefined;
  for (let i = 0; i < options.creatives; i++) {
    if (i % 1000 === 0) {
      const campaignId = nextId(account, 'cmp');
      campaign = {
        campaignId,
        name: `Benchmark ${seed} #${i / 1000 + 1}`,
        brandId,
        aspectRatio: ratios[(salt + i / 1000) % ratios.length]!,
        createdAt: start,
        deletedAt: null,
        metadata: {},
        creativeIds: [],
        creatingUntil: start,
        cascadeUntil: start,
      };
      account.campaigns.set(campaignId, campaign);
    }
    const creativeId = nextId(account, 'crv');
    const status = statuses[(i + salt) % 3]!;
    const video = i % 10 === 9;
    const product = pool[i % pool.length]!;
    const base = mediaBase(creativeId, productLabel(product));
    account.creatives.set(creativeId, {
      creativeId,
      productId: product.productId,
      campaignId: campaign!.campaignId,
      brandId,
      mediaType: video ? 'video' : 'image',
      status,
      url: base,
      thumbnailUrl: video ? base : null,
      playerUrl: video ? base : null,
      ownAspectRatio: i % 4 === 0 ? ratios[i % ratios.length]! : null,
      approvedAt: status === 'APPROVED' ? start + HOUR : null,
      rejectionReason: null,
      deletedAt: null,
      deletedWithCampaign: false,
      metadata: {},
      createdAt: start + i,
      cropJobs: 0,
    });
    campaign!.creativeIds.push(creativeId);
  }
}
