/** `npm run generate`: writes packages/contract/spec/generated/ from packages/contract/spec/openapi.yaml and packages/contract/spec/schemas/*.schema.json. */
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_DIR, renderGenerated, writeGenerated } from './lib/generated.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = join(root, GENERATED_DIR);
const files = await renderGenerated(root);
await writeGenerated(dir, files);
for (const name of files.keys()) console.log(`wrote ${relative(root, join(dir, name))}`);
