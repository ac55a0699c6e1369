/**
 * The browser project (`npm run test:browser`, part of `npm test`): the mock used by a page in a
 * real Chromium (scripts/lib/browser.ts), as a frontend app on another origin uses it. One mock, one
 * app server and one browser per worker; each spec file keeps its tests in order on one page.
 */
import { fileURLToPath } from 'node:url';
import { browserProject } from '../../../scripts/lib/browser.ts';

export default browserProject({
  testDir: fileURLToPath(new URL('.', import.meta.url)),
  outputDir: fileURLToPath(new URL('../../../test-results/browser', import.meta.url)),
  workers: 2,
});
