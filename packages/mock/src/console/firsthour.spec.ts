/**
 * The console's first hour (issue 27), in a real Chromium with axe: a scenario loaded from a file
 * and an account exported; one console key per account and its reads hidden; minted keys copyable;
 * only the API's collections counted; a run and an upscale started from the page; generating a
 * campaign's creatives says what it did; event types as checkboxes with none chosen, chaos as a
 * form, pending deliveries with their due time on the clock; no Approve on an approved creative;
 * at 1280 px the header keeps one line with tasks scheduled and the journal fits its card.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import type { Mock } from '../node/app.ts';
import type { Problems } from '../web/browser/fixtures.ts';
import { accessible, controlAt, expectClean, openView, startConsoleSite } from './harness.ts';

let mock: Mock;
let origin: string;
let accountId: string;
let keys: Record<string, { keyId: string; key: string }>;
const scenarioFile = new URL('../../../../examples/scenarios/campaign-review.yaml', import.meta.url);

const control = (method: string, path: string, body?: unknown): Promise<any> => controlAt(origin, method, path, body);

const api = (path: string, key: string): Promise<any> => fetch(`${origin}/api/public/v1${path}`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json() as Promise<any>);

// Loading a scenario (a seeded account, steps, the clock) takes a while on a shared machine.
test.describe.configure({ mode: 'serial', timeout: 120_000 });

test.beforeAll(async () => {
  ({ mock, origin, accountId, keys } = await startConsoleSite('First hour'));
});

test.afterAll(async () => {
  await mock?.app.close();
});

let problems: Problems;

async function open(page: Page, view: string, account = accountId): Promise<void> {
  problems = await openView(page, origin, view, account);
}

function clean(): void {
  // Aborted on purpose: the stream when the page switches account, thumbnails when the test reloads the page.
  expectClean(problems, /(__mock\/stream|\/media\/).*ERR_ABORTED/);
}

const consoleKeys = async (id = accountId) => (await control('GET', `/accounts/${id}`)).keys.filter((k: { name: string }) => k.name === 'console' || k.name === 'console (read)');

test('scenarios: a file loaded from the page makes its account; a bad file shows its line and field; the account exports as a scenario', async ({ page }) => {
  await open(page, 'accounts');
  await page.getByLabel('Scenario file').setInputFiles({ name: 'bad.yaml', mimeType: 'application/yaml', buffer: Buffer.from('scenario: 1\naccounts:\n  - account: { plan: pro }\n') });
  await page.getByRole('button', { name: 'Load scenario' }).click();
  await expect(page.getByTestId('scenario-errors')).toContainText('line 3: accounts[0].account.plan');
  await page.getByLabel('Scenario file').setInputFiles(scenarioFile.pathname);
  await page.getByRole('button', { name: 'Load scenario' }).click();
  await expect(page.getByTestId('scenario-loaded')).toContainText('Review story');
  const made = (await control('GET', '/accounts')).data.find((a: { name: string }) => a.name === 'Review story');
  expect(made).toBeDefined();
  await expect(page.getByRole('heading', { name: new RegExp(`Account ${made.accountId}`) })).toBeVisible();
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export as a scenario' }).click();
  const text = readFileSync(await (await download).path(), 'utf8');
  expect(text).toContain('name: Review story');
  expect(text).toContain('state: expired');
  expect(text).toContain('failFirst: 2');
  await accessible(page);
  clean();
});

test('keys: one console key per account however often the page loads, its reads (and an older console key\'s) hidden in the journal; the minted keys copyable in full; only the API\'s collections counted', async ({ page }) => {
  await open(page, 'data');
  // Each reload waits for the view's reads: the test's own reload would abort a read in flight.
  await expect(page.locator('tbody tr.selectable').first()).toBeVisible();
  await page.reload();
  await expect(page.getByRole('status', { name: 'Live updates' })).toHaveText('live');
  await open(page, 'runs');
  await expect.poll(async () => (await consoleKeys()).length).toBe(1);
  // A key from an older console (one per page load), still polling.
  const old = await control('POST', `/accounts/${accountId}/keys`, { name: 'console (read)', scopes: ['read'], expiresInDays: null });
  await api('/products?limit=1', old.key);
  await api('/products?limit=2', keys.read!.key);
  const rows = page.locator('section.requests tbody tr');
  await open(page, 'requests');
  await expect(rows.first()).toBeVisible();
  await page.reload(); // a fresh page (open() after another view only changes the hash)
  await expect(rows.first()).toContainText('/products?limit=2');
  const journal = (await control('GET', `/accounts/${accountId}/requests?limit=100`)).data;
  const own = new Set((await consoleKeys()).map((k: { keyId: string }) => k.keyId));
  const visible = journal.filter((e: { keyId: string }) => !own.has(e.keyId));
  await expect(rows).toHaveCount(visible.length);
  await page.getByLabel("Hide the console's own reads").uncheck();
  await expect(rows).toHaveCount(journal.length);
  expect(journal.length).toBeGreaterThan(visible.length);

  await page.getByRole('link', { name: 'Accounts & keys' }).click();
  await expect(page.getByTestId('key-value-all')).toHaveText(keys.all!.key);
  const counted = page.getByLabel('What the account holds');
  await expect(counted).toContainText('products');
  await expect(counted).toContainText('runs');
  await expect(counted).not.toContainText('idempotency');
  await expect(counted).not.toContainText('productImageAssets');
  await expect(counted).not.toContainText('runItems');
  await accessible(page);
  clean();
});

test('runs and upscales start from the page with defaults; generating a campaign\'s creatives says what it did; no Approve on an approved creative', async ({ page }) => {
  await open(page, 'runs');
  await page.getByRole('button', { name: 'Start run' }).click();
  await expect(page.getByTestId('message')).toHaveText('Start run: done');
  const [newest] = (await api('/runs?limit=1', keys.all!.key)).data;
  // The defaults: the first two products, one creative each.
  expect((await api(`/runs/${newest.runId}/items?limit=10`, keys.all!.key)).data).toHaveLength(2);
  await expect(page.locator(`tr[data-run-id="${newest.runId}"]`)).toBeVisible();
  await accessible(page);

  await page.getByRole('link', { name: 'Upscales' }).click();
  await page.getByLabel('Upscale target').selectOption('4K');
  await page.getByRole('button', { name: 'Start upscale' }).click();
  await expect(page.getByTestId('message')).toHaveText('Start upscale: done');
  const [upscale] = (await control('GET', `/accounts/${accountId}/upscales?limit=1`)).data;
  expect(upscale.target).toBe('4K');
  await expect(page.locator(`tr[data-upscale-id="${upscale.upscaleId}"]`)).toBeVisible();

  // A campaign with creatives waiting for generation, made outside the page.
  const product = (await api('/products?limit=1', keys.all!.key)).data[0];
  const created = await fetch(`${origin}/api/public/v1/campaigns`, { method: 'POST', headers: { authorization: `Bearer ${keys.all!.key}`, 'content-type': 'application/json', 'idempotency-key': 'firsthour-campaign' }, body: JSON.stringify({ name: 'To generate', brandId: product.brandId, productIds: [product.productId] }) }).then((r) => r.json() as Promise<any>);
  const waiting = (await control('GET', `/accounts/${accountId}/campaigns/${created.campaignId}/creatives?limit=50`)).data.filter((c: { status: string }) => c.status === 'NOT_GENERATED').length;
  expect(waiting).toBeGreaterThan(0);
  await page.getByRole('link', { name: 'Data' }).click();
  await page.getByRole('button', { name: 'campaigns', exact: true }).click();
  await page.locator(`tr[data-row-id="${created.campaignId}"]`).click();
  await page.getByRole('button', { name: 'Generate its creatives (dashboard)' }).click();
  await expect(page.getByTestId('generated')).toHaveText(`${waiting} creative${waiting === 1 ? '' : 's'} generated: now PENDING (readable in the API, waiting for review).`);
  await page.getByRole('button', { name: 'Generate its creatives (dashboard)' }).click();
  await expect(page.getByTestId('generated')).toHaveText(/^Nothing to generate/);

  const approved = (await control('GET', `/accounts/${accountId}/creatives?status=APPROVED&limit=1`)).data[0];
  await page.getByRole('button', { name: 'creatives', exact: true }).click();
  await page.getByLabel(/^Status/).selectOption('APPROVED');
  await page.locator(`tr[data-row-id="${approved.creativeId}"]`).click();
  await expect(page.getByRole('button', { name: 'Reject as review link' })).toBeVisible();
  await expect(page.getByRole('button', { name: /^Approve/ })).toHaveCount(0);
  await accessible(page);
  clean();
});

test('webhooks: no event type chosen for a new endpoint (checkboxes), chaos set in a form, a pending delivery with its due time on the clock', async ({ page }) => {
  await open(page, 'webhooks');
  await expect(page.getByRole('button', { name: 'Add endpoint' })).toBeDisabled();
  await page.getByLabel('URL (loopback)').fill('http://127.0.0.1:9/hook');
  await page.getByRole('checkbox', { name: 'campaign.created' }).check();
  await page.getByLabel('New endpoint fail first attempts').fill('2');
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await expect(page.getByTestId('endpoint-secret')).toHaveText(/^whsec_/);
  const [endpoint] = (await control('GET', `/accounts/${accountId}/webhook-endpoints`)).data;
  expect(endpoint).toMatchObject({ eventTypes: ['campaign.created'], chaos: { failFirst: 2 } });
  await page.getByRole('button', { name: `Edit chaos of ${endpoint.endpointId}` }).click();
  await page.getByLabel(`${endpoint.endpointId} out of order`).check();
  await page.getByRole('button', { name: 'Save chaos' }).click();
  await expect(page.getByTestId('message')).toHaveText('Chaos: done');
  expect((await control('GET', `/accounts/${accountId}/webhook-endpoints/${endpoint.endpointId}`)).chaos).toMatchObject({ failFirst: 2, outOfOrder: true });

  await expect(page.getByTestId('no-pending')).toBeVisible();
  const product = (await api('/products?limit=1', keys.all!.key)).data[0];
  await fetch(`${origin}/api/public/v1/campaigns`, { method: 'POST', headers: { authorization: `Bearer ${keys.all!.key}`, 'content-type': 'application/json', 'idempotency-key': 'firsthour-pending' }, body: JSON.stringify({ name: 'Pending', brandId: product.brandId, productIds: [product.productId] }) });
  const [pending] = (await control('GET', `/accounts/${accountId}/webhook-deliveries/pending`)).data;
  expect(pending.dueAt).not.toBeNull();
  // The row of this delivery (its event id): the account may have other deliveries pending.
  const row = page.getByRole('row').filter({ hasText: pending.eventId });
  await expect(row.getByTestId('pending-due')).toHaveText(pending.dueAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'));
  await accessible(page);
  clean();
});

test('at 1280 px: the header keeps one line with tasks scheduled, and the journal fits its card (RateLimit visible)', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  for (let i = 0; i < 30; i++) await api(`/creatives?limit=1&cursor=${'x'.repeat(40 + i)}`, keys.read!.key);
  await open(page, 'requests');
  const header = page.locator('header.top');
  const clock = await control('GET', '/clock');
  expect(clock.pendingTasks).toBeGreaterThan(0);
  await expect(page.getByTestId('clock-tasks')).toHaveText(`${clock.pendingTasks} scheduled`);
  const title = await page.locator('header.top h1').boundingBox();
  const box = await header.boundingBox();
  // One line: the header is no taller than its tallest child plus its padding.
  expect(box!.height).toBeLessThan(title!.height * 2 + 20);
  const card = await page.locator('section.requests').boundingBox();
  const rateLimit = await page.getByRole('columnheader', { name: 'RateLimit' }).boundingBox();
  expect(rateLimit!.x + rateLimit!.width).toBeLessThanOrEqual(card!.x + card!.width);
  await accessible(page);
  clean();
});
