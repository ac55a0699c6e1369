/**
 * `npm run docs:screenshots`: the README's pictures, taken with the project's browser
 * (scripts/lib/browser.ts) from a mock started in this process on a free loopback port.
 *
 *   docs/api-reference.png   /docs/: the definition selector, the mock as server, the operations
 */
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { buildMock } from '../mock/app.ts';
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
  if (failures.length > 0) throw new Error(`the page did not load cleanly:\n${failures.join('\n')}`);
  console.log(`wrote ${out('api-reference.png')}`);
} finally {
  await browser.close();
  await mock.app.close();
}
