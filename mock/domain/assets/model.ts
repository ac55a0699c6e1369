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
