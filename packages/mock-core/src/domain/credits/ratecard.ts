/**
 * The rate card: what one creative and one upscale cost, in credits. The interface shows no prices
 * ("the credit prices of runs and upscales: not shown"), so the numbers are the mock's own; what is
 * pinned is their order (RUN-042: a larger `imageSize` costs more) and that a run pins the card's
 * `version` at create time (RUN-043, D19 `PRICE_CHANGED`).
 *
 * Each account carries its own copy (CreditLedger.rateCard), so a test can unprice a size or a
 * target (IMAGE_SIZE_UNPRICED, IMAGE_UPSCALE_UNPRICED) or bump the version (PRICE_CHANGED) without
 * touching any other account. `null` means "no price": the request is refused before anything is
 * written or charged (ERR-021).
 */
import type { Schemas } from '../../../../contract/spec/types.ts';
import type { ImageSize } from '../accounts/model.ts';

export const IMAGE_SIZES: readonly ImageSize[] = ['1K', '2K', '4K'];
export type UpscaleTarget = Schemas['UpscaleTarget'];
export const UPSCALE_TARGETS: readonly UpscaleTarget[] = ['2K', '4K'];
export type Modality = NonNullable<Schemas['RunCreate']['modality']>;

/** Pixels on the long edge of each size (D21, D34): 1K/2K/4K = 1024/2048/4096. */
export const LONG_EDGE_PX: Readonly<Record<ImageSize, number>> = { '1K': 1024, '2K': 2048, '4K': 4096 };

export interface RateCard {
  /** Pinned on a run at create time; `expectedRateCardVersion` is compared with it. */
  version: string;
  /** Credits per produced image creative, by `imageSize`; null = unpriced. */
  image: Record<ImageSize, number | null>;
  /** Credits per produced video creative (imageSize does not apply to video; always priced). */
  video: number;
  /** Credits per delivered upscale, by target; null = unpriced. */
  upscale: Record<UpscaleTarget, number | null>;
}

export const DEFAULT_RATE_CARD_VERSION = '2026-01-01';

export function defaultRateCard(): RateCard {
  return {
    version: DEFAULT_RATE_CARD_VERSION,
    image: { '1K': 1, '2K': 2, '4K': 4 },
    video: 10,
    upscale: { '2K': 1, '4K': 2 },
  };
}

export function copyRateCard(card: RateCard): RateCard {
  return { version: card.version, image: { ...card.image }, video: card.video, upscale: { ...card.upscale } };
}

export type CreativePrice = { priced: true; perCreative: number } | { priced: false };

/** Price of one creative of the given modality and size (size ignored for video). */
export function creativePrice(card: RateCard, modality: Modality, imageSize: ImageSize): CreativePrice {
  const price = modality === 'video' ? card.video : card.image[imageSize];
  return price === null ? { priced: false } : { priced: true, perCreative: price };
}

/** Price of one delivered upscale to `target`, or null when the card has none. */
export function upscalePrice(card: RateCard, target: UpscaleTarget): number | null {
  return card.upscale[target];
}
