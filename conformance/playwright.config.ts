/**
 * The conformance suite: `npx playwright test -c conformance/playwright.config.ts` (npm run conformance).
 * Against CONFORMANCE_BASE_URL when set, else against the mock that globalSetup starts.
 * Environment: conformance/fixtures/env.ts. Reports: playwright-report/ (HTML),
 * conformance-report/junit.xml, conformance-report/rules.json and rules.md.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { isExternalTarget } from './fixtures/env.ts';

const root = (path: string): string => fileURLToPath(new URL(`../${path}`, import.meta.url));

export default defineConfig({
  testDir: './tests',
  fullyParallel: true,
  forbidOnly: Boolean(process.env['CI']),
  retries: 0,
  workers: 2,
  // Against a real target the pacer may sleep up to a rate-limit window (60 s) inside a test.
  timeout: isExternalTarget() ? 180_000 : 30_000,
  expect: { timeout: 5_000 },
  reporter: [
    ['list'],
    ['html', { outputFolder: root('playwright-report'), open: 'never' }],
    ['junit', { outputFile: root('conformance-report/junit.xml') }],
    ['./reporters/rules-reporter.ts', { outputDir: root('conformance-report') }],
  ],
  outputDir: root('test-results/conformance'),
  globalSetup: './global-setup.ts',
  globalTeardown: './global-teardown.ts',
  use: {
    trace: 'retain-on-failure',
  },
});
