/**
 * The conformance suite's configuration as scripts/prove-defects.ts runs it: the same tests,
 * fixtures and timeouts, against the local mock behind the fault-injecting proxy
 * (CONFORMANCE_BASE_URL, with CONFORMANCE_LOCAL_MOCK=1 so that the tests' allowances for the local
 * mock apply exactly as in `npm run conformance`). The runner starts the mock itself, so there is
 * no globalSetup/globalTeardown; reporters are quiet (JSON to PLAYWRIGHT_JSON_OUTPUT_FILE), no
 * traces, no retries.
 */
import { defineConfig } from '@playwright/test';
import suite from '../playwright.config.ts';

export default defineConfig({
  ...suite,
  testDir: '../tests',
  globalSetup: undefined,
  globalTeardown: undefined,
  retries: 0,
  workers: 1,
  timeout: 30_000,
  reporter: [['json']],
  use: { ...suite.use, trace: 'off' },
});
