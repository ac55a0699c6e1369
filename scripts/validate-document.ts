/**
 * `npm run validate`: the public document, the control plane's document and every frozen release
 * under @apidevtools/swagger-parser and Redocly's recommended rules (scripts/lib/validate-document.ts,
 * D80). Exit 1 on any problem, listing each.
 */
import { validateDocuments, type Target } from './lib/validate-document.ts';
import { DOCUMENT_FILE, RELEASES_DIR, ROOT, releases } from '../packages/contract/spec/versions.ts';

const targets: Target[] = [
  { file: DOCUMENT_FILE, frozen: false, redocly: true },
  // The control plane is a document of the mock's own (no 4xx on its reads): swagger-parser only.
  { file: 'packages/contract/spec/mock-control.yaml', frozen: false, redocly: false },
  ...releases(ROOT).map((version) => ({ file: `${RELEASES_DIR}/${version}/openapi.yaml`, frozen: true, redocly: true })),
];
const problems = await validateDocuments(ROOT, targets);
if (problems.length > 0) {
  console.error(`validate: ${problems.length} problem(s):\n${problems.map((p) => `- ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`validate: ${targets.map((t) => t.file).join(', ')}: swagger-parser and Redocly (recommended) pass`);
