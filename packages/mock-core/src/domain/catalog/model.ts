/** The merchant catalog: brands and products. Read-only through the API. */

export interface Brand {
  brandId: string;
  name: string;
}

export interface Product {
  productId: string;
  brandId: string;
  /** Manufacturer part number; null or shared between products is normal. */
  sku: string | null;
  title: string;
  primaryImageUrl: string;
  /** Pixel size of the primary image (long edge), for upscale checks. */
  primaryImageWidth: number;
  primaryImageHeight: number;
  galleryImageUrls: string[];
  createdAt: number;
}
