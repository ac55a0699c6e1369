/**
 * The browser project (`npm run test:browser`, part of `npm test`): the mock used by a page in a
 * real Chromium (scripts/lib/browser.ts), as a frontend app on another origin uses it. One mock, one
 * app server and one browser per worker; each spec file keeps its tests in order on one page.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { launchOptions } from '../../../scripts/lib/browser.ts';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  forbidOnly: Boolean(process.env['CI']),
  retries: 0,
  workers: 2,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  outputDir: fileURLToPath(new URL('../../../test-results/browser', import.meta.url)),
  use: {
    browserName: 'chromium',
    launchOptions: launchOptions(),
    trace: 'retain-on-failure',
  },
});
