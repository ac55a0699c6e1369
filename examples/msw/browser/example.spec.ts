/**
 * The in-process mock in a real Chromium: the example page (main.ts, bundled by build.ts with
 * esbuild) registers msw's service worker (the package's own mockServiceWorker.js, copied at
 * build time) and runs the Node example's flows (../flows.ts) through it: every API and control
 * request of the page is answered by the service worker, none reaches the static server. Any
 * console error, page error or failed load fails the test (packages/mock/src/web/browser/fixtures.ts `watch`).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { watch } from '../../../packages/mock/src/web/browser/fixtures.ts';
import type { AllOutcomes } from '../flows.ts';
import { buildExampleSite } from './build.ts';

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

interface Site {
  origin: string;
  /** Paths the static server was asked for (the API must never be among them). */
  served: string[];
}

const siteTest = test.extend<object, { site: Site }>({
  site: [
    async ({}, use) => {
      const dir = mkdtempSync(join(tmpdir(), 'cgs-msw-example-'));
      const { files } = await buildExampleSite(dir);
      const served: string[] = [];
      const server = http.createServer((req, res) => {
        const path = (req.url ?? '/').split('?')[0]!;
        served.push(path);
        const file = path === '/' ? 'index.html' : path.slice(1);
        if (!files.includes(file)) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
          return;
        }
        // The worker may control the whole origin from /.
        res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
        res.end(readFileSync(join(dir, file)));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      await use({ origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, served });
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
});

siteTest('the page registers the service worker and runs the review, run, 429 and 412 flows against the in-process mock', async ({ page, site }) => {
  const problems = watch(page);
  await page.goto(`${site.origin}/`);
  await page.waitForFunction(() => (globalThis as unknown as { cgsFlows?: { done: boolean } }).cgsFlows?.done === true, undefined, { timeout: 25_000 });
  const published = await page.evaluate(() => (globalThis as unknown as { cgsFlows: { outcomes?: AllOutcomes; error?: string } }).cgsFlows);
  expect(published.error, published.error).toBeUndefined();
  const outcomes = published.outcomes!;

  expect(await page.evaluate(() => (globalThis as unknown as { navigator: { serviceWorker: { controller: { scriptURL: string } | null } } }).navigator.serviceWorker.controller?.scriptURL)).toBe(`${site.origin}/mockServiceWorker.js`);
  // Nothing but the page, its script and the worker reached the static server.
  expect(site.served.filter((p) => p.startsWith('/api/') || p.startsWith('/__mock'))).toEqual([]);

  expect(outcomes.review).toMatchObject({ approveStatus: 200, receivedBeforeAdvance: 0 });
  expect(outcomes.review.delivered).toEqual([{ type: 'creative.approved', creativeId: outcomes.review.creativeId, verified: true }]);

  expect(outcomes.run.createStatus).toBe(202);
  expect(outcomes.run.statuses[0]).toBe('ACCEPTED');
  expect(outcomes.run.statuses.at(-1)).toBe('SUCCEEDED');
  expect(outcomes.run.finalizedAt).toEqual(expect.any(String));

  expect(outcomes.rateLimit.statuses).toEqual([200, 429]);
  expect(outcomes.rateLimit.retryAfter).toMatch(/^\d+$/);
  expect(outcomes.rateLimit.afterWaiting).toBe(200);

  expect(outcomes.precondition).toMatchObject({ updateStatus: 200, staleStatus: 412, staleCode: 'PRECONDITION_FAILED' });
  expect(outcomes.precondition.newEtag).not.toBe(outcomes.precondition.etag);

  expect(problems.list, 'console errors, page errors and failed loads').toEqual([]);
});
