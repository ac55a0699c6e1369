/**
 * `npm run release -- <version>`: freezes the working document and rule ledger as <version>
 * (packages/contract/spec/releases/<version>/, hashes in packages/contract/spec/releases/SHA256SUMS) after the versioning gate passes.
 * Refused (V10) with stale generated types, without a green `npm run conformance` on this document
 * and ledger, and for a version the pending version (packages/contract/spec/overlays/next.yaml) claims.
 * Commit the new files; from then on `npm run contract:diff` and the gate in npm test compare against it.
 */
import { ReleaseError, cutRelease } from './lib/release.ts';
import { ROOT } from '../packages/contract/spec/versions.ts';

const version = process.argv[2];
if (version === undefined || process.argv.length > 3) {
  console.error('usage: npm run release -- <version>   (the version info.version of packages/contract/spec/openapi.yaml carries)');
  process.exit(2);
}
try {
  const files = await cutRelease(ROOT, version);
  console.log(`released ${version}:\n${files.map((f) => `  ${f}`).join('\n')}\nCommit them: git add packages/contract/spec/releases && git commit -m "chore(releases): ${version}"`);
} catch (error) {
  if (!(error instanceof ReleaseError)) throw error;
  console.error(`release: ${error.message}`);
  process.exit(1);
}
