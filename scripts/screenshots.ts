/**
 * `npm run docs:screenshots`: the README's pictures, taken with the project's browser
 * (scripts/lib/browser.ts) from a mock started in this process on a free loopback port.
 *
 *   docs/api-reference.png   /docs/: the definition selector, the mock as server, the operations
 *   docs/media.png           a page showing a seeded account's creatives, one per ratio, and a
 *                            video creative, as the mock serves them (packages/mock-core/src/media/)
 */
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { buildMock } from '../packages/mock/src/node/app.ts';
import { launchChromium } from './lib/browser.ts';

const out = (name: string): string => fileURLToPath(new URL(`../docs/${name}`, import.meta.url));

const mock = buildMock();
await mock.app.listen({ port: 0, host: '127.0.0.1' });
const origin = `http://127.0.0.1:${(mock.app.server.address() as AddressInfo).port}`;
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const failures: string[] = [];
  page.on('requestfailed', (request) => failures.push(`${request.url()}: ${request.failure()?.errorText}`));
  page.on('console', (message) => {
    if (message.type() === 'error') failures.push(message.text());
  });
  await page.goto(`${origin}/docs/`);
  await page.locator('.opblock').first().waitFor();
  // The top bar (definition selector), then from the servers down: the long description is skipped.
  const top = await page.locator('.topbar').boundingBox();
  const servers = await page.locator('.scheme-container').boundingBox();
  if (!top || !servers) throw new Error('the page has no top bar or servers block');
  await page.evaluate((y) => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, y), servers.y - top.height - 40);
  await page.addStyleTag({ content: '.swagger-ui .topbar { position: fixed; top: 0; left: 0; right: 0; z-index: 10 }' });
  await page.screenshot({ path: out('api-reference.png') });
  console.log(`wrote ${out('api-reference.png')}`);

  // A seeded account (the control plane's), and a page of its creatives from the API.
  const created = await fetch(`${origin}/__mock/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"seed":42}' });
  const key = ((await created.json()) as { keys: Record<string, { key: string }> }).keys['read']?.key;
  if (!key) throw new Error(`no read key: ${created.status}`);
  const list = (await (await fetch(`${origin}/api/public/v1/creatives?limit=100`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
    data: Array<{ mediaType: string; url: string; aspectRatio: string | null; sku: string }>;
  };
  const images = [...new Map(list.data.filter((c) => c.mediaType === 'image' && c.aspectRatio).map((c) => [c.aspectRatio, c])).values()];
  const video = list.data.find((c) => c.mediaType === 'video');
  const tiles = [...images.map((c) => `<figure><img src="${c.url}"><figcaption>${c.aspectRatio} · ${c.sku}</figcaption></figure>`), ...(video ? [`<figure><video src="${video.url}" muted autoplay loop></video><figcaption>video · ${video.aspectRatio}</figcaption></figure>`] : [])];
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`${origin}/docs/`); // any page of the mock's origin; its body is replaced
  await page.setContent(`<!doctype html><html><head><style>
    body { font: 14px system-ui, sans-serif; margin: 16px; background: #f4f5f7 }
    main { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-end }
    figure { margin: 0; background: white; padding: 8px; border-radius: 6px; box-shadow: 0 1px 3px #0002 }
    img, video { display: block; height: 260px; width: auto }
    figcaption { margin-top: 6px; color: #333 }
  </style></head><body><h2>Creatives of a seeded account, as the mock serves them</h2><main>${tiles.join('')}</main></body></html>`);
  await page.waitForFunction(() => {
    const doc = (globalThis as unknown as { document: { images: ArrayLike<{ complete: boolean; naturalWidth: number }> } }).document;
    return Array.from(doc.images).every((img) => img.complete && img.naturalWidth > 0);
  });
  await page.waitForTimeout(500); // a frame of the video
  await page.screenshot({ path: out('media.png'), fullPage: true });
  console.log(`wrote ${out('media.png')}`);
  if (failures.length > 0) throw new Error(`the pages did not load cleanly:\n${failures.join('\n')}`);
} finally {
  await browser.close();
  await mock.app.close();
}
