/**
 * The console's browser tests (`npm run test:console`, part of `npm test`): the console page in a
 * real Chromium, launched through the project's one browser module (scripts/lib/browser.ts). One
 * mock and one browser for the file; its tests run in order, each on a fresh page.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { launchOptions } from '../../scripts/lib/browser.ts';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  forbidOnly: Boolean(process.env['CI']),
  retries: 0,
  workers: 1,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  outputDir: fileURLToPath(new URL('../../test-results/console', import.meta.url)),
  use: {
    browserName: 'chromium',
    launchOptions: launchOptions(),
    viewport: { width: 1400, height: 1000 },
    trace: 'retain-on-failure',
  },
});
