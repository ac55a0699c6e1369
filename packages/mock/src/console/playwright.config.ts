/**
 * The console's browser tests (`npm run test:console`, a step of `npm run test:proofs`, D237): the console page in a
 * real Chromium, launched through the project's one browser module (scripts/lib/browser.ts). One
 * mock and one browser for each file; its tests run in order, each on a fresh page. One worker: two
 * side by side beside the conformance run slowed both (measured, D237).
 */
import { fileURLToPath } from 'node:url';
import { browserProject } from '../../../../scripts/lib/browser.ts';

export default browserProject({
  testDir: fileURLToPath(new URL('.', import.meta.url)),
  outputDir: fileURLToPath(new URL('../../../test-results/console', import.meta.url)),
  workers: 1,
  viewport: { width: 1400, height: 1000 },
});
