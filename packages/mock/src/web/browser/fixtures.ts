/**
 * Fixtures of the browser project: per worker, one mock on 127.0.0.1 (port 0) with a fresh
 * enterprise account, and a second origin, a tiny static server on another port of 127.0.0.1 that
 * serves the "frontend app" page; per test, a page on that app origin whose console errors, page
 * errors and failed loads are collected (`problems`) and fail the test unless it expects them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test as base, expect, type Page } from '@playwright/test';
import { buildMock, type Mock } from '../../node/app.ts';
import type { CorsOptions } from '../cors.ts';

export interface Site {
  mock: Mock;
  /** `http://127.0.0.1:<port>` of the mock. */
  mockOrigin: string;
  /** `http://127.0.0.1:<port>/api/public/v1`. */
  api: string;
  /** `http://127.0.0.1:<port>` of the frontend app (another origin). */
  appOrigin: string;
  /** The `all` key of a fresh enterprise account. */
  key: string;
}

/** An answer as the page's own `fetch` saw it: only the headers CORS lets a script read. */
export interface PageResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const APP_PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>frontend app</title><link rel="icon" href="data:,"></head><body><main id="app"></main></body></html>';

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

export interface Problems {
  /** What went wrong so far. */
  readonly list: string[];
  /** Forget what was collected so far (what a test caused on purpose and checked itself). */
  clear(): void;
}

const ANSWERED_STATUS = /^Failed to load resource: the server responded with a status of (\d+)/;

/**
 * Collects every console error, uncaught page error and failed load of a page. Chromium also
 * logs "Failed to load resource: ... status of 412" for a `fetch` answered 4xx: such an answer is
 * the app's to read (the tests read those), so that line is not counted when the page's fetch got
 * exactly that status from that URL; every other load must succeed.
 */
export function watch(page: Page): Problems {
  let found: string[] = [];
  let consoleErrors: Array<{ text: string; url: string }> = [];
  const fetched = new Set<string>();
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push({ text: message.text(), url: message.location().url });
  });
  page.on('pageerror', (error) => found.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => found.push(`failed load: ${request.method()} ${request.url()}: ${request.failure()?.errorText}`));
  page.on('response', (response) => {
    const type = response.request().resourceType();
    if (response.status() < 400) return;
    if (type === 'fetch' || type === 'xhr') fetched.add(`${response.status()} ${response.url()}`);
    else found.push(`failed load: ${response.status()} ${response.url()}`);
  });
  return {
    get list() {
      const errors = consoleErrors.filter(({ text, url }) => {
        const status = ANSWERED_STATUS.exec(text)?.[1];
        return status === undefined || !fetched.has(`${status} ${url}`);
      });
      return [...found, ...errors.map(({ text, url }) => `console error: ${text} (${url})`)];
    },
    clear: () => {
      found = [];
      consoleErrors = [];
    },
  };
}

export const test = base.extend<{ app: Page; problems: Problems }, { cors: CorsOptions; listApp: boolean; site: Site }>({
  cors: [{}, { option: true, scope: 'worker' }],
  /** Start the mock with `--cors-origin <the app's origin>`: the app's page may use /__mock too (D246). */
  listApp: [false, { option: true, scope: 'worker' }],
  site: [
    async ({ cors, listApp }, use) => {
      const appServer = http.createServer((req, res) => {
        if (req.url === '/' || req.url === '/index.html') {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(APP_PAGE);
        } else {
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('not found');
        }
      });
      const appOrigin = await listen(appServer);
      const mock = buildMock({ web: { cors: listApp ? { ...cors, origins: [...(cors.origins ?? []), appOrigin] } : cors } });
      await mock.app.listen({ port: 0, host: '127.0.0.1' });
      const address = mock.app.server.address() as AddressInfo;
      const mockOrigin = `http://127.0.0.1:${address.port}`;
      const created = await mock.inject({ method: 'POST', url: '/__mock/accounts', headers: { 'content-type': 'application/json' }, payload: '{"plan":"enterprise"}' });
      expect(created.statusCode, created.body).toBe(201);
      const key = (created.json() as { keys: Record<string, { key: string }> }).keys['all']?.key;
      if (!key) throw new Error(`no "all" key in ${created.body}`);
      await use({ mock, mockOrigin, api: `${mockOrigin}/api/public/v1`, appOrigin, key });
      appServer.closeAllConnections();
      await new Promise((resolve) => appServer.close(resolve));
      await mock.app.close();
    },
    { scope: 'worker' },
  ],
  problems: async ({ page }, use) => {
    const problems = watch(page);
    await use(problems);
    expect(problems.list, 'console errors, page errors and failed loads').toEqual([]);
  },
  app: async ({ page, site, problems }, use) => {
    void problems; // watching from the first load on
    await page.goto(`${site.appOrigin}/`);
    await use(page);
  },
});

export { expect };

/** `fetch` from the page (its origin, its CORS rules); the body parsed when it is JSON. */
export function pageFetch(page: Page, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<PageResponse> {
  return page.evaluate(
    async ({ url, init }) => {
      const response = await fetch(url, init);
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // plain text (a 429 on the read plane)
      }
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => (headers[name] = value));
      return { status: response.status, headers, body };
    },
    { url, init },
  );
}
