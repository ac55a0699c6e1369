/**
 * The conformance suite's configuration as scripts/prove-defects.ts runs it: the same tests,
 * fixtures and timeouts, against the local mock behind the fault-injecting proxy
 * (CONFORMANCE_BASE_URL, with CONFORMANCE_LOCAL_MOCK=1 so that the tests' allowances for the local
 * mock apply exactly as in `npm run conformance`). The runner starts the mock itself, so there is
 * no globalSetup/globalTeardown; reporters are quiet (JSON to PLAYWRIGHT_JSON_OUTPUT_FILE), no
 * traces, no retries.
 *
 * With DEFECT_BATCH (a JSON file of batch.ts's BatchProject): a batch of defects, one project per
 * selected test, chained per defect by `dependencies` (batch.ts says why).
 */
import { readFileSync } from 'node:fs';
import { defineConfig } from '@playwright/test';
import suite from '../playwright.config.ts';
import { DEFECT_HEADER, grepOfBatchProject, type BatchProject } from './batch.ts';

const batchFile = process.env['DEFECT_BATCH'];
const batch = batchFile ? (JSON.parse(readFileSync(batchFile, 'utf8')) as BatchProject[]) : undefined;
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
  ...(batch
    ? {
        projects: batch.map((p) => ({
          name: p.name,
          testMatch: p.file,
          // Flags as Playwright gives a --grep source (gi).
          grep: new RegExp(grepOfBatchProject(p), 'gi'),
          ...(p.grepInvert !== undefined ? { grepInvert: new RegExp(p.grepInvert, 'gi') } : {}),
          ...(p.after !== undefined ? { dependencies: [p.after] } : {}),
          use: { ...use, extraHTTPHeaders: { [DEFECT_HEADER]: p.defect } },
        })),
      }
    : {}),
});
