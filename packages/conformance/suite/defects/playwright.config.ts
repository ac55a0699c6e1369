/**
 * The conformance suite's configuration as packages/conformance/proofs/prove-defects.ts runs it: the same tests,
 * fixtures and timeouts, against the local mock behind the fault-injecting proxy
 * (CONFORMANCE_BASE_URL, with CONFORMANCE_LOCAL_MOCK=1 so that the tests' allowances for the local
 * mock apply exactly as in `npm run conformance`). The runner starts the mock itself, so there is
 * no globalSetup/globalTeardown; reporters are quiet (JSON to PLAYWRIGHT_JSON_OUTPUT_FILE), no
 * traces, no retries.
 *
 * With DEFECT_PLAN (a JSON file of batch.ts's DefectPlan): a batch of defects, one project that
 * repeats each planned test once per defect it runs for, in one worker (batch.ts says why).
 */
import { readFileSync } from 'node:fs';
import { defineConfig } from '@playwright/test';
import suite from '../playwright.config.ts';
import { BATCH_PROJECT, DEFECT_PLAN_ENV, grepOfPlan, repeatsOf, type DefectPlan } from './batch.ts';

const planFile = process.env[DEFECT_PLAN_ENV];
const plan = planFile ? (JSON.parse(readFileSync(planFile, 'utf8')) as DefectPlan) : undefined;
const use = { ...suite.use, trace: 'off' as const };

export default defineConfig({
  ...suite,
  testDir: '../tests',
  globalSetup: undefined,
  globalTeardown: undefined,
  retries: 0,
  workers: 1,
  timeout: 30_000,
  reporter: [['json']],
  use,
  ...(plan
    ? {
        projects: [
          {
            name: BATCH_PROJECT,
            // Flags as Playwright gives a --grep source (gi).
            grep: new RegExp(grepOfPlan(plan), 'gi'),
            repeatEach: repeatsOf(plan),
            use,
          },
        ],
      }
    : {}),
});
