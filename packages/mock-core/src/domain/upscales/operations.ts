/**
 * Upscale operations: createUpscale, getUpscale. POST /upscales decides, in this order, before
 * anything is written or held:
 *
 *   400 VALIDATION_ERROR           `index` missing for a gallery image, or sent for the primary (UPSC-012)
 *   403 IMAGE_UPSCALE_NOT_ENTITLED the plan has no upscales (AUTH-026, ERR-017)
 *   404 ASSET_NOT_FOUND / PRODUCT_NOT_FOUND  unknown, deleted or another account's source
 *   422 IMAGE_UPSCALE_SOURCE_UNREADABLE  a video asset, or an index beyond the gallery (UPSC-013)
 *   422 IMAGE_UPSCALE_TARGET_NOT_LARGER  the source's long edge is already >= the target's (D34)
 *   409 IMAGE_UPSCALE_UNPRICED     the rate card has no price for the target (D34)
 *   409 IMAGE_UPSCALE_IN_PROGRESS  the same source to the same target is QUEUED or PROCESSING (D34)
 *   503 ACCOUNT_SPEND_UNAVAILABLE  the spend dependency cannot be reached
 *   402 INSUFFICIENT_CREDITS       the price exceeds the available balance (ERR-038)
 *   409 ACCOUNT_SPEND_CAP_EXCEEDED the price exceeds what remains of the daily budget (ERR-037)
 */
import { basePath } from '../../../../contract/spec/contract.ts';
import { ApiError } from '../../core/errors.ts';
import type { HandlerTable, RequestContext } from '../operation.ts';
import { nextId, type AccountState } from '../store.ts';
import { newAsset, type Asset } from '../assets/model.ts';
import type { Product } from '../catalog/model.ts';
import { available, budgetStatus, creditsOf, placeHold } from '../credits/ledger.ts';
import { LONG_EDGE_PX, upscalePrice, type UpscaleTarget } from '../credits/ratecard.ts';
import { assertSpendReachable } from '../credits/spend.ts';
import { isFinalUpscale, type Upscale, type UpscaleSourceRequest } from './model.ts';
import { presentUpscale } from './present.ts';
import { drawUpscale, launchUpscale } from './scheduler.ts';

/** D21: gallery images carry no size in the catalog; they are taken as 1024 px square (1K). */
export const GALLERY_IMAGE_PX = 1024;

interface UpscaleBody {
  source: UpscaleSourceRequest;
  target: UpscaleTarget;
}

/** Where the pixels come from: an existing asset, or a product image not yet held as an asset. */
type ResolvedSource =
  | { kind: 'asset'; asset: Asset }
  | { kind: 'product'; product: Product; image: 'primary' | 'gallery'; index: number; url: string; width: number; height: number; key: string };

function productImageKey(productId: string, image: 'primary' | 'gallery', index: number): string {
  return image === 'primary' ? `${productId}:primary` : `${productId}:gallery:${index}`;
}

function resolveSource(account: AccountState, source: UpscaleSourceRequest): ResolvedSource {
  if ('assetId' in source) {
    const asset = account.assets.get(source.assetId);
    // A deleted asset, or another account's, answers like one that never existed.
    if (!asset || asset.deletedAt !== null) {
      throw new ApiError('ASSET_NOT_FOUND', 'No such asset.', { extensions: { errors: [{ field: 'source.assetId', message: 'is not an asset of this account' }] } });
    }
    // UPSC-013: a video cannot be upscaled as an image.
    if (asset.type !== 'STATIC') {
      throw new ApiError('IMAGE_UPSCALE_SOURCE_UNREADABLE', 'The source asset is not a still image.', { extensions: { errors: [{ field: 'source.assetId', message: 'is a video asset; only images can be upscaled' }] } });
    }
    return { kind: 'asset', asset };
  }
  const product = account.products.get(source.productId);
  if (!product) {
    throw new ApiError('PRODUCT_NOT_FOUND', 'No such product.', { extensions: { errors: [{ field: 'source.productId', message: 'is not a product of this account' }] } });
  }
  if (source.image === 'primary') {
    return { kind: 'product', product, image: 'primary', index: 0, url: product.primaryImageUrl, width: product.primaryImageWidth, height: product.primaryImageHeight, key: productImageKey(product.productId, 'primary', 0) };
  }
  const index = source.index!;
  const url = product.galleryImageUrls[index];
  // UPSC-013: an index beyond the gallery.
  if (url === undefined) {
    throw new ApiError('IMAGE_UPSCALE_SOURCE_UNREADABLE', 'The product has no gallery image at that index.', {
      extensions: { errors: [{ field: 'source.index', message: `the product has ${product.galleryImageUrls.length} gallery images` }] },
    });
  }
  return { kind: 'product', product, image: 'gallery', index, url, width: GALLERY_IMAGE_PX, height: GALLERY_IMAGE_PX, key: productImageKey(product.productId, 'gallery', index) };
}

/** The live asset already holding a product image, if any. */
function productImageAsset(account: AccountState, key: string): Asset | undefined {
  const id = account.productImageAssets.get(key);
  const asset = id === undefined ? undefined : account.assets.get(id);
  return asset && asset.deletedAt === null ? asset : undefined;
}

/**
 * A product image becomes an asset the first time it is upscaled, so that the result's
 * `derivation.parentAssetId` / `rootAssetId` name a readable asset (ASST-005).
 */
function materialize(account: AccountState, source: Extract<ResolvedSource, { kind: 'product' }>, now: number): Asset {
  const existing = productImageAsset(account, source.key);
  if (existing) return existing;
  const assetId = nextId(account, 'ast');
  const asset = newAsset({
    assetId,
    productId: source.product.productId,
    type: 'STATIC',
    url: source.url,
    name: source.image === 'primary' ? `${source.product.title} · primary image` : `${source.product.title} · gallery image ${source.index + 1}`,
    width: source.width,
    height: source.height,
    createdAt: now,
  });
  account.assets.set(assetId, asset);
  account.productImageAssets.set(source.key, assetId);
  return asset;
}

/** AUTH-026, ERR-017: upscales from the growth tier (also before a replay, IDEM-013, D72). */
function assertUpscalesEntitled(account: AccountState): void {
  if (!account.plan.upscales) throw new ApiError('IMAGE_UPSCALE_NOT_ENTITLED', "The account's plan does not include upscales.");
}

function createUpscale(ctx: RequestContext) {
  const { account, now } = ctx;
  const body = ctx.body as UpscaleBody;
  const { source, target } = body;

  // UPSC-012: `index` is required for a gallery image and means nothing for the primary one.
  if ('image' in source) {
    if (source.image === 'gallery' && source.index === undefined) {
      throw new ApiError('VALIDATION_ERROR', 'A gallery image needs its index.', { extensions: { errors: [{ field: 'source.index', message: 'is required when image is gallery' }] } });
    }
    if (source.image === 'primary' && source.index !== undefined) {
      throw new ApiError('VALIDATION_ERROR', 'index applies to gallery images only.', { extensions: { errors: [{ field: 'source.index', message: 'applies only when image is gallery' }] } });
    }
  }
  assertUpscalesEntitled(account); // AUTH-026

  const resolved = resolveSource(account, source);
  const longEdge = resolved.kind === 'asset' ? Math.max(resolved.asset.width, resolved.asset.height) : Math.max(resolved.width, resolved.height);
  // D34, ERR-023: the target must be larger than the source.
  if (longEdge >= LONG_EDGE_PX[target]) {
    throw new ApiError('IMAGE_UPSCALE_TARGET_NOT_LARGER', `The source is already ${longEdge} px on its long edge; ${target} is ${LONG_EDGE_PX[target]} px.`, {
      extensions: { errors: [{ field: 'target', message: `must be larger than the source (${longEdge} px long edge)` }] },
    });
  }
  const card = creditsOf(account).rateCard;
  const price = upscalePrice(card, target);
  // D34, ERR-022.
  if (price === null) throw new ApiError('IMAGE_UPSCALE_UNPRICED', `The rate card ${card.version} has no price for an upscale to ${target}.`);

  // D34, ERR-022: the same source to the same target already QUEUED or PROCESSING.
  const parentId = resolved.kind === 'asset' ? resolved.asset.assetId : productImageAsset(account, resolved.key)?.assetId;
  if (parentId !== undefined) {
    for (const other of account.upscales.values()) {
      if (other.parentAssetId === parentId && other.target === target && !isFinalUpscale(other.status)) {
        throw new ApiError('IMAGE_UPSCALE_IN_PROGRESS', `Upscale ${other.upscaleId} of the same source to ${target} is still ${other.status}.`);
      }
    }
  }

  assertSpendReachable(account, ctx.headers.prefer);
  // ERR-038: the balance; ERR-037: the daily API budget.
  if (price > available(creditsOf(account))) throw new ApiError('INSUFFICIENT_CREDITS', `The upscale costs ${price} credits; the available balance is ${available(creditsOf(account))}.`);
  const budget = budgetStatus(creditsOf(account), now);
  if (budget && price > budget.remaining) throw new ApiError('ACCOUNT_SPEND_CAP_EXCEEDED', `The upscale's ${price} credits exceed what remains of the daily API credit budget.`);

  // Accepted: write, hold (UPSC-004: credits are held on accept), schedule.
  const upscaleId = nextId(account, 'ups');
  const parent = resolved.kind === 'asset' ? resolved.asset : materialize(account, resolved, now);
  const hold = placeHold(creditsOf(account), { kind: 'upscale', id: upscaleId }, price, now);
  if (!hold.ok) throw new Error(`hold refused after the spend checks passed: ${hold.reason}`);
  const ordinal = account.upscales.size;
  const upscale: Upscale = {
    upscaleId,
    ordinal,
    status: 'QUEUED',
    source: 'assetId' in source ? { assetId: source.assetId } : { productId: source.productId, image: source.image, ...(source.index !== undefined ? { index: source.index } : {}) },
    parentAssetId: parent.assetId,
    target,
    credits: { estimated: price, rateCardVersion: card.version },
    holdId: hold.hold.holdId,
    assetId: null,
    failureReason: null,
    createdAt: now,
    startedAt: null,
    finalizedAt: null,
    drawn: drawUpscale(account, ordinal),
    finishesAt: null,
  };
  account.upscales.set(upscaleId, upscale);
  launchUpscale({ account, store: ctx.store, clock: ctx.clock }, upscale);
  // UPSC-009: 202 with Location.
  return { status: 202, headers: { location: `${basePath}/upscales/${upscaleId}` }, body: presentUpscale(upscale), resource: { kind: 'upscale', id: upscaleId } };
}

export const upscaleHandlers: HandlerTable = {
  createUpscale: { entitle: assertUpscalesEntitled, run: createUpscale }, // IDEM-013, D72
  getUpscale: {
    run(ctx) {
      const upscale = ctx.account.upscales.get(ctx.pathParams.upscaleId!);
      if (!upscale) throw new ApiError('UPSCALE_NOT_FOUND', 'No such upscale.');
      // UPSC-010.
      return { status: 200, body: presentUpscale(upscale) };
    },
  },
};
