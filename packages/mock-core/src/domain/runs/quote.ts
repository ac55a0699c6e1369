/**
 * Pricing a run: the checks POST /runs/estimate and POST /runs share, all decided before anything
 * is written or charged (ERR-021), in this order:
 *
 *   400 VALIDATION_ERROR   total over 1,000 (RUN-047); unknown preset or one of the other modality
 *                          (RUN-040); imageSize/referenceSource on a video run (RUN-045)
 *   403 IMAGE_SIZE_NOT_ENTITLED  the plan lacks the requested size (AUTH-025, ERR-016)
 *   404 PRODUCT_NOT_FOUND  every unknown product listed in errors[] as `productIds[i]` (RUN-039)
 *   409 IMAGE_SIZE_UNPRICED  the rate card has no price for the size (ERR-021)
 *
 * then, for create only (spend.ts: `checkRunSpend`): PRICE_CHANGED, PRICE_EXCEEDS_MAX,
 * ACCOUNT_SPEND_UNAVAILABLE, ACCOUNT_SPEND_CAP_EXCEEDED.
 */
import { ApiError, type FieldError } from '../../core/errors.ts';
import type { AccountState } from '../store.ts';
import type { ImageSize } from '../accounts/model.ts';
import { creditsOf } from '../credits/ledger.ts';
import { creativePrice, type Modality } from '../credits/ratecard.ts';
import { findPreset, type Preset } from '../presets/catalog.ts';

export const MAX_RUN_TOTAL = 1000;

/** The validated POST /runs (and estimate) body. */
export interface RunRequest {
  productIds: string[];
  creativesPerProduct: number;
  presetId: string;
  modality?: Modality;
  imageSize?: ImageSize;
  referenceSource?: 'PRIMARY' | 'ALL';
  maxCredits?: number;
  expectedRateCardVersion?: string;
}

export interface RunQuote {
  total: number;
  modality: Modality;
  /** null for video. */
  imageSize: ImageSize | null;
  referenceSource: 'PRIMARY' | 'ALL' | null;
  preset: Preset;
  perCreative: number;
  estimated: number;
  rateCardVersion: string;
}

/**
 * AUTH-025, ERR-016: 2K from growth, 4K on enterprise. The default 1K is never refused: a request
 * with only defaults behaves as before 1.8.0 (RUN-046), when this refusal did not exist.
 */
function assertImageSizeEntitled(account: AccountState, imageSize: ImageSize | null): void {
  if (imageSize !== null && imageSize !== '1K' && !account.plan.imageSizes.includes(imageSize)) {
    throw new ApiError('IMAGE_SIZE_NOT_ENTITLED', `The account's plan does not include imageSize ${imageSize}.`);
  }
}

/** The plan entitlement of a run request, checked again before a stored create is replayed (IDEM-013, D72). */
export function assertRunEntitled(account: AccountState, body: RunRequest): void {
  assertImageSizeEntitled(account, (body.modality ?? 'image') === 'image' ? (body.imageSize ?? '1K') : null);
}

export function quoteRun(account: AccountState, body: RunRequest): RunQuote {
  const modality: Modality = body.modality ?? 'image';
  const total = body.productIds.length * body.creativesPerProduct;

  const invalid: FieldError[] = [];
  if (total > MAX_RUN_TOTAL) {
    // RUN-047: total = products × creativesPerProduct ≤ 1000.
    const message = `${body.productIds.length} products × ${body.creativesPerProduct} creatives = ${total}; a run plans at most ${MAX_RUN_TOTAL}`;
    invalid.push({ field: 'productIds', message }, { field: 'creativesPerProduct', message });
  }
  const preset = findPreset(body.presetId);
  // RUN-040: presetId is one GET /presets lists; a preset serves one modality (D13).
  if (!preset) invalid.push({ field: 'presetId', message: 'is not a preset listed by GET /presets' });
  else if (preset.modality !== modality) invalid.push({ field: 'presetId', message: `is a ${preset.modality} preset; the run's modality is ${modality}` });
  if (modality === 'video') {
    // RUN-045 (the schema refuses it first; kept so the rule has one place in the domain too).
    if (body.imageSize !== undefined) invalid.push({ field: 'imageSize', message: 'applies to image runs only' });
    if (body.referenceSource !== undefined) invalid.push({ field: 'referenceSource', message: 'applies to image runs only' });
  }
  if (invalid.length) throw new ApiError('VALIDATION_ERROR', 'The run request is invalid.', { extensions: { errors: invalid } });

  // RUN-041: imageSize defaults to 1K (image runs only).
  const imageSize: ImageSize | null = modality === 'image' ? (body.imageSize ?? '1K') : null;
  assertImageSizeEntitled(account, imageSize); // AUTH-025

  // RUN-039: every unknown (or other account's) product, each named in errors[].
  const missing: FieldError[] = [];
  body.productIds.forEach((productId, i) => {
    if (!account.products.has(productId)) missing.push({ field: `productIds[${i}]`, message: 'is not a product of this account' });
  });
  if (missing.length) throw new ApiError('PRODUCT_NOT_FOUND', 'A listed product does not exist.', { extensions: { errors: missing } });

  const card = creditsOf(account).rateCard;
  const price = creativePrice(card, modality, imageSize ?? '1K');
  // ERR-021: decided before anything is written or charged.
  if (!price.priced) throw new ApiError('IMAGE_SIZE_UNPRICED', `The rate card ${card.version} has no price for imageSize ${imageSize}.`);

  return {
    total,
    modality,
    imageSize,
    referenceSource: modality === 'image' ? (body.referenceSource ?? 'PRIMARY') : null,
    preset: preset!,
    perCreative: price.perCreative,
    estimated: price.perCreative * total,
    rateCardVersion: card.version,
  };
}
