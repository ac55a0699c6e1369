/** `npm run check:generated`: fails (exit 1) when packages/contract/spec/generated/ differs from a fresh `npm run generate`. */
import { fileURLToPath } from 'node:url';
import { GENERATED_DIR, checkGenerated } from './lib/generated.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const differences = await checkGenerated(root);
if (differences.length > 0) {
  for (const { file, kind } of differences) console.error(`${GENERATED_DIR}/${file}: ${kind}`);
  console.error(`${GENERATED_DIR} is out of date (${differences.length} file(s)); run npm run generate.`);
  process.exit(1);
}
console.log(`${GENERATED_DIR} is up to date.`);
