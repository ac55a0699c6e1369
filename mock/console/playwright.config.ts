/**
 * The console's browser tests (`npm run test:console`, part of `npm test`): the console page in a
 * real Chromium, launched through the project's one browser module (scripts/lib/browser.ts). One
 * mock and one browser for each file; its tests run in order, each on a fresh page. The two files
 * run side by side (a worker each: they mostly wait on the page, D235).
 */
import { fileURLToPath } from 'node:url';
import { browserProject } from '../../scripts/lib/browser.ts';

export default browserProject({
  testDir: fileURLToPath(new URL('.', import.meta.url)),
  outputDir: fileURLToPath(new URL('../../test-results/console', import.meta.url)),
  workers: 2,
  viewport: { width: 1400, height: 1000 },
});
