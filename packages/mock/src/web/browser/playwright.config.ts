/**
 * The browser project (`npm run test:browser`, part of `npm test`): the mock used by a page in a
 * real Chromium (scripts/lib/browser.ts), as a frontend app on another origin uses it. One mock, one
 * app server and one browser per worker; each spec file keeps its tests in order on one page.
 */
import { fileURLToPath } from 'node:url';
import { browserProject } from '../../../../../scripts/lib/browser.ts';

export default browserProject({
  testDir: fileURLToPath(new URL('.', import.meta.url)),
  outputDir: fileURLToPath(new URL('../../../../test-results/browser', import.meta.url)),
  workers: 2,
  // The in-process mock's browser example (msw's service worker) runs in the same Playwright run:
  // one start for both in `npm test` (alone: `npm run test:msw-browser`).
  alsoTestDirs: [fileURLToPath(new URL('../../../../../examples/msw/browser', import.meta.url))],
});
