/** Assets: media files of the account, including those produced by runs and upscales. */

export interface Derivation {
  kind: 'ai_rerender';
  operation: 'image_upscale';
  parentAssetId: string;
  rootAssetId: string;
}

export interface Asset {
  assetId: string;
  productId: string;
  type: 'STATIC' | 'VIDEO';
  url: string;
  thumbnailUrl: string | null;
  favorited: boolean;
  archived: boolean;
  name: string;
  width: number;
  height: number;
  durationSec: number | null;
  playerUrl: string | null;
  createdAt: number;
  deletedAt: number | null;
  notes: string | null;
  metadata: Record<string, string>;
  derivation: Derivation | null;
}

/** What a run, an upscale or a product image decides of a new asset; the rest starts the same for all. */
export type NewAsset = Pick<Asset, 'assetId' | 'productId' | 'type' | 'url' | 'name' | 'width' | 'height' | 'createdAt'> &
  Partial<Pick<Asset, 'thumbnailUrl' | 'durationSec' | 'playerUrl' | 'derivation'>>;

/** A new asset: not favorited, archived or deleted, no notes or metadata; no thumbnail, video fields or derivation unless given. */
export function newAsset(fields: NewAsset): Asset {
  return {
    assetId: fields.assetId,
    productId: fields.productId,
    type: fields.type,
    url: fields.url,
    thumbnailUrl: fields.thumbnailUrl ?? null,
    favorited: false,
    archived: false,
    name: fields.name,
    width: fields.width,
    height: fields.height,
    durationSec: fields.durationSec ?? null,
    playerUrl: fields.playerUrl ?? null,
    createdAt: fields.createdAt,
    deletedAt: null,
    notes: null,
    metadata: {},
    derivation: fields.derivation ?? null,
  };
}
