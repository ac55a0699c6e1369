/**
 * `npm run spec:assumptions [-- --json]`: every `x-assumption` (a decided gap of the interface
 * specification, see docs/decisions.md) in packages/contract/spec/openapi.yaml and, when it exists,
 * packages/contract/spec/mock-control.yaml, as `<json pointer>: <text>`, with a count.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { document, toPointer } from '../packages/contract/spec/contract.ts';

interface Assumption {
  file: string;
  pointer: string;
  text: string;
}

function collect(file: string, node: unknown, path: (string | number)[] = [], found: Assumption[] = []): Assumption[] {
  if (Array.isArray(node)) node.forEach((child, index) => collect(file, child, [...path, index], found));
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'x-assumption') found.push({ file, pointer: toPointer([...path, key]), text: String(value) });
      else collect(file, value, [...path, key], found);
    }
  }
  return found;
}

const assumptions = collect('packages/contract/spec/openapi.yaml', document);
const mockControl = fileURLToPath(new URL('../packages/contract/spec/mock-control.yaml', import.meta.url));
if (existsSync(mockControl)) assumptions.push(...collect('packages/contract/spec/mock-control.yaml', parse(readFileSync(mockControl, 'utf8'))));

if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ count: assumptions.length, assumptions }, null, 2));
} else {
  for (const file of new Set(assumptions.map((a) => a.file))) {
    const mine = assumptions.filter((a) => a.file === file);
    console.log(`${file} (${mine.length})`);
    for (const { pointer, text } of mine) console.log(`  ${pointer}: ${text}`);
  }
  console.log(`${assumptions.length} assumptions`);
}
