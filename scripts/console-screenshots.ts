/**
 * `npm run console:screenshots`: the README's pictures of the console (/console/), taken with the
 * project's browser (scripts/lib/browser.ts) from a mock started in this process on a free loopback
 * port, with a little activity to show (a webhook endpoint and its deliveries, a run, requests).
 * How it works and what it decides: docs/internals.md, "scripts/console-screenshots.ts".
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { buildMock } from '../packages/mock/src/node/app.ts';
import { Clock } from '../packages/mock-core/src/core/clock.ts';
import { seedLarge } from '../packages/mock-core/src/seed/demo.ts';
import { launchChromium } from './lib/browser.ts';

const out = (name: string): string => fileURLToPath(new URL(`../docs/${name}`, import.meta.url));

const mock = buildMock({ clock: new Clock({ mode: 'manual' }) });
await mock.app.listen({ port: 0, host: '127.0.0.1' });
const origin = `http://127.0.0.1:${(mock.app.server.address() as AddressInfo).port}`;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));

async function call(method: string, path: string, body?: unknown, key?: string, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 500) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

// The scene: an account with a webhook endpoint, a review-link approval delivered, a run, requests.
const { accountId, keys } = await call('POST', '/__mock/accounts', { name: 'Storefront team' });
const all = keys.all.key as string;
await call('POST', `/__mock/accounts/${accountId}/webhook-endpoints`, { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`, eventTypes: ['creative.approved', 'run.completed', 'asset.archived'] });
const products = await call('GET', '/api/public/v1/products?limit=3', undefined, all);
const preset = (await call('GET', '/api/public/v1/presets?limit=1', undefined, all)).data[0];
const run = await call('POST', '/api/public/v1/runs', { productIds: products.data.map((p: { productId: string }) => p.productId), creativesPerProduct: 2, presetId: preset.presetId }, all, { 'idempotency-key': 'screens-run' });
let pending: string | undefined;
for (let cursor: string | null = null; !pending; ) {
  const page: any = await call('GET', `/api/public/v1/creatives?limit=100${cursor ? `&cursor=${cursor}` : ''}`, undefined, all);
  pending = page.data.find((c: { status: string }) => c.status === 'PENDING')?.creativeId;
  if (!page.pagination.hasMore) break;
  cursor = page.pagination.nextCursor;
}
if (pending) await call('POST', `/__mock/accounts/${accountId}/actions`, { actor: { kind: 'share_link' }, operationId: 'approveCreative', pathParams: { creativeId: pending } });
const asset = (await call('GET', '/api/public/v1/assets?limit=1', undefined, all)).data[0];
await call('POST', `/api/public/v1/assets/${asset.assetId}/archive`, undefined, all, { 'idempotency-key': 'screens-archive' });
await call('PATCH', '/api/public/v1/campaigns/cmp_missing', { name: 'x' }, all, { 'if-match': '"nope"' });
const still = (await call('GET', '/api/public/v1/assets?limit=25', undefined, all)).data.find((a: { type: string; width: number; height: number }) => a.type === 'STATIC' && Math.max(a.width, a.height) < 4096);
const upscale = await call('POST', '/api/public/v1/upscales', { source: { assetId: still.assetId }, target: '4K' }, all, { 'idempotency-key': 'screens-upscale-1' });
await call('POST', '/__mock/clock', { advanceSeconds: 120 });
// Two more, made after the clock moved: one processing, one queued, when the picture is taken.
await call('POST', '/api/public/v1/upscales', { source: { productId: products.data[0].productId, image: 'primary' }, target: '2K' }, all, { 'idempotency-key': 'screens-upscale-2' });
await call('POST', '/__mock/clock', { advanceSeconds: 2 });
await call('POST', '/api/public/v1/upscales', { source: { productId: products.data[1].productId, image: 'primary' }, target: '4K' }, all, { 'idempotency-key': 'screens-upscale-3' });
await mock.services.webhooks.idle();

const browser = await launchChromium();
const failures: string[] = [];
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('requestfailed', (request) => {
    const error = request.failure()?.errorText ?? '';
    // Leaving a view aborts the console's own live stream: that is not a failure.
    if (!(request.url().includes('/__mock/stream') && error === 'net::ERR_ABORTED')) failures.push(`${request.url()}: ${error}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') failures.push(message.text());
  });
  page.on('pageerror', (error) => failures.push(error.message));

  const shoot = async (name: string) => {
    await page.screenshot({ path: out(`console-${name}.png`) });
    console.log(`wrote ${out(`console-${name}.png`)}`);
  };
  const view = async (name: string, ready: (p: Page) => Promise<unknown>) => {
    await page.goto(`${origin}/console/#/${name}/${accountId}`);
    await page.getByRole('status', { name: 'Live updates' }).filter({ hasText: 'live' }).waitFor();
    await ready(page);
  };

  await view('accounts', (p) => p.getByRole('heading', { name: 'Keys' }).waitFor());
  await shoot('accounts');

  await view('data', async (p) => {
    await p.locator('tbody tr.selectable').first().waitFor();
    await p.locator('tbody tr.selectable').first().click();
    await p.getByTestId('etag').waitFor();
  });
  await shoot('data');

  await view('runs', async (p) => {
    await p.locator(`tr[data-run-id="${run.runId}"]`).click();
    await p.getByTestId('items-by-status').waitFor();
  });
  await shoot('runs');

  await view('upscales', async (p) => {
    await p.locator(`tr[data-upscale-id="${upscale.upscaleId}"]`).click();
    await p.getByRole('list', { name: 'Derivation chain' }).waitFor();
  });
  await shoot('upscales');

  await view('webhooks', (p) => p.locator('tr[data-delivery-id]').first().waitFor());
  await shoot('webhooks');

  await view('requests', async (p) => {
    await p.getByLabel("Hide the console's own reads").check();
    await p.locator('tbody tr.selectable').first().click();
    await p.getByLabel('Response body').waitFor();
  });
  await shoot('requests');

  // The first view against 100,000 creatives: from navigation until the first page of rows shows.
  const big = await call('POST', '/__mock/accounts', { name: 'Large account', empty: true });
  seedLarge(mock.services.store.accounts.get(big.accountId)!, { now: mock.services.clock.now(), seed: 7, creatives: 100_000 });
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const fresh = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const started = Date.now();
    await fresh.goto(`${origin}/console/#/data/${big.accountId}`);
    await fresh.locator('tbody tr.selectable').first().waitFor();
    times.push(Date.now() - started);
    await fresh.close();
  }
  console.log(`first view (data, 100,000 creatives), navigation to first rows: ${times.map((t) => `${t} ms`).join(', ')} (median ${[...times].sort((a, b) => a - b)[1]} ms)`);
  if (failures.length > 0) throw new Error(`the console did not load cleanly:\n${failures.join('\n')}`);
} finally {
  await browser.close();
  receiver.close();
  await mock.app.close();
}
