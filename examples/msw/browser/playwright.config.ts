/**
 * The browser example (`npm run test:msw-browser`, part of `npm test`): the example page, bundled
 * with esbuild (build.ts), served from 127.0.0.1 (a secure context, as a service worker needs),
 * registers msw's service worker and runs the flows in a real Chromium (scripts/lib/browser.ts).
 */
import { fileURLToPath } from 'node:url';
import { browserProject } from '../../../scripts/lib/browser.ts';

export default browserProject({
  testDir: fileURLToPath(new URL('.', import.meta.url)),
  outputDir: fileURLToPath(new URL('../../../test-results/msw-browser', import.meta.url)),
  workers: 1,
});
