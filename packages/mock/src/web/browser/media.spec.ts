/**
 * The media the mock hands out, shown by a page on another origin in a real Chromium: every kind of
 * image (creative, creative thumbnail, asset, delivery, product primary and gallery) renders in an
 * <img> with the size the resource states, and a video creative plays in a <video>.
 */
import type { Page } from '@playwright/test';
import { expect, pageFetch, test, type Site } from './fixtures.ts';

// The page's DOM, as far as these tests use it (the project's TypeScript has no DOM library).
interface PageImage {
  src: string;
  naturalWidth: number;
  naturalHeight: number;
  onload: (() => void) | null;
  onerror: (() => void) | null;
}
interface PageVideo {
  src: string;
  muted: boolean;
  videoWidth: number;
  videoHeight: number;
  currentTime: number;
  paused: boolean;
  error: { message: string } | null;
  onloadeddata: (() => void) | null;
  onerror: (() => void) | null;
  play(): Promise<void>;
}
interface PageDocument {
  createElement(tag: 'img'): PageImage;
  createElement(tag: 'video'): PageVideo;
  body: { append(node: PageImage | PageVideo): void };
}

interface Rendered {
  url: string;
  width: number;
  height: number;
  error?: string;
}

/** Loads every URL in an <img> of the page; the natural size of each, or why it failed. */
function renderImages(page: Page, urls: string[]): Promise<Rendered[]> {
  return page.evaluate(
    (urls) =>
      Promise.all(
        urls.map(
          (url) =>
            new Promise<Rendered>((resolve) => {
              // Runs in the page: `globalThis` is its window.
              const document = (globalThis as unknown as { document: PageDocument }).document;
              const img = document.createElement('img');
              img.onload = () => resolve({ url, width: img.naturalWidth, height: img.naturalHeight });
              img.onerror = () => resolve({ url, width: 0, height: 0, error: 'did not load' });
              img.src = url;
              document.body.append(img);
            }),
        ),
      ),
    urls,
  );
}

async function list<T>(page: Page, site: Site, path: string): Promise<T[]> {
  const response = await pageFetch(page, `${site.api}${path}`, { headers: { authorization: `Bearer ${site.key}` } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body as { data: T[] }).data;
}

/** `W:H` → W/H. */
function ratio(aspect: string): number {
  const [w, h] = aspect.split(':').map(Number);
  return w! / h!;
}

function expectRatio(rendered: Rendered, aspect: string): void {
  expect(rendered.error, rendered.url).toBeUndefined();
  expect(Math.abs(rendered.width / rendered.height - ratio(aspect)), `${rendered.url}: ${rendered.width}x${rendered.height} is not ${aspect}`).toBeLessThan(0.01);
}

interface Creative {
  creativeId: string;
  mediaType: 'image' | 'video';
  url: string;
  thumbnailUrl: string | null;
  aspectRatio: string | null;
}
interface Asset {
  assetId: string;
  type: string;
  url: string;
  thumbnailUrl: string | null;
  width: number;
  height: number;
}
interface Delivery {
  mediaType: 'image' | 'video';
  url: string;
  aspectRatio: string;
}
interface Product {
  primaryImageUrl?: string;
  galleryImageUrls?: string[];
}

test('every kind of image renders at the size its resource states', async ({ app, site }) => {
  // About twenty images drawn by the mock and decoded by the page: 10-21 s beside test:proofs' other
  // steps on 2 cores, too near the project's 30 s.
  test.setTimeout(120_000);
  const creatives = await list<Creative>(app, site, '/creatives?limit=100');
  const images = creatives.filter((c) => c.mediaType === 'image' && c.aspectRatio !== null);
  expect(images.length).toBeGreaterThan(0);
  // One creative per ratio, and every thumbnail of a video.
  const perRatio = [...new Map(images.map((c) => [c.aspectRatio, c])).values()];
  const rendered = await renderImages(app, perRatio.map((c) => c.url));
  perRatio.forEach((c, i) => expectRatio(rendered[i]!, c.aspectRatio!));

  const videos = creatives.filter((c) => c.mediaType === 'video');
  const stills = await renderImages(app, videos.slice(0, 3).map((c) => c.thumbnailUrl!));
  for (const still of stills) expect(still.error, still.url).toBeUndefined();

  const assets = (await list<Asset>(app, site, '/assets?limit=20')).filter((a) => a.type === 'STATIC');
  expect(assets.length).toBeGreaterThan(0);
  const assetImages = await renderImages(app, assets.slice(0, 5).map((a) => a.url));
  assets.slice(0, 5).forEach((a, i) => expect([assetImages[i]!.width, assetImages[i]!.height], a.url).toEqual([a.width, a.height]));

  const deliveries = (await list<Delivery>(app, site, '/deliveries?limit=20')).filter((d) => d.mediaType === 'image');
  expect(deliveries.length).toBeGreaterThan(0);
  const deliveryImages = await renderImages(app, deliveries.slice(0, 5).map((d) => d.url));
  deliveries.slice(0, 5).forEach((d, i) => expectRatio(deliveryImages[i]!, d.aspectRatio));

  const products = await list<Product>(app, site, '/products?limit=3');
  const productUrls = products.flatMap((p) => [p.primaryImageUrl, ...(p.galleryImageUrls ?? []).slice(0, 1)]).filter((u): u is string => typeof u === 'string');
  expect(productUrls.length).toBeGreaterThan(0);
  for (const image of await renderImages(app, productUrls)) expect(image.error, image.url).toBeUndefined();
});

test('a video creative plays in a <video>', async ({ app, site }) => {
  const video = (await list<Creative>(app, site, '/creatives?limit=100')).find((c) => c.mediaType === 'video');
  expect(video, 'the demo data has a video creative').toBeDefined();
  const played = await app.evaluate(async (url) => {
    const document = (globalThis as unknown as { document: PageDocument }).document;
    const element = document.createElement('video');
    element.muted = true;
    element.src = url;
    document.body.append(element);
    await new Promise<void>((resolve, reject) => {
      element.onloadeddata = () => resolve();
      element.onerror = () => reject(new Error(`the video did not load: ${element.error?.message}`));
    });
    await element.play();
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { width: element.videoWidth, height: element.videoHeight, time: element.currentTime, paused: element.paused };
  }, video!.url);
  expect(played.width).toBeGreaterThan(0);
  expect(played.paused).toBe(false);
  expect(played.time).toBeGreaterThan(0);
  if (video!.aspectRatio) expect(Math.abs(played.width / played.height - ratio(video!.aspectRatio))).toBeLessThan(0.02);
});
