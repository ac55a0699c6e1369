/**
 * Cutting a release (`npm run release -- <version>`): the working document and rule ledger are
 * copied to spec/releases/<version>/ and their hashes appended to spec/releases/SHA256SUMS, once
 * the versioning gate passes against the latest release. The version is the one the document
 * already carries (bumped, with its history entry, by the change that made it).
 */
import { appendFileSync, copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { diffDocuments } from '../../spec/diff/classify.ts';
import { evaluate } from '../../spec/diff/policy.ts';
import { DOCUMENT_FILE, RELEASES_DIR, RULES_FILE, SUMS_FILE, compareSemver, latestRelease, loadSource, parseSemver, releaseSums, verifyReleases, versionOf } from '../../spec/versions.ts';

export class ReleaseError extends Error {}

/** Cuts `version` under `root`; returns the files written. Throws a ReleaseError saying what to do. */
export function cutRelease(root: string, version: string): string[] {
  if (parseSemver(version) === undefined) throw new ReleaseError(`${JSON.stringify(version)} is not MAJOR.MINOR.PATCH`);
  const tampered = verifyReleases(root);
  if (tampered.length > 0) throw new ReleaseError(`the frozen releases are not intact:\n${tampered.join('\n')}`);
  const working = loadSource('working', root);
  if (versionOf(working) !== version) throw new ReleaseError(`${DOCUMENT_FILE} is at ${versionOf(working)}, not ${version}: bump info.version (and its x-version-history entry) first`);
  const latest = latestRelease(root);
  if (latest !== undefined) {
    if (compareSemver(version, latest)! <= 0) throw new ReleaseError(`${version} is not after the latest release ${latest}`);
    const base = loadSource(join(root, RELEASES_DIR, latest), root);
    const changes = diffDocuments(base.document, working.document, { ...(base.rules ? { base: base.rules } : {}), ...(working.rules ? { head: working.rules } : {}) });
    const verdict = evaluate(base.document, working.document, changes, working.rules);
    if (!verdict.allowed) throw new ReleaseError(`the versioning gate refuses ${latest} → ${version}:\n${verdict.problems.map((p) => `- ${p}`).join('\n')}`);
  }
  const dir = join(root, RELEASES_DIR, version);
  if (existsSync(dir)) throw new ReleaseError(`${RELEASES_DIR}/${version} exists already`);
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(root, DOCUMENT_FILE), join(dir, 'openapi.yaml'));
  copyFileSync(join(root, RULES_FILE), join(dir, 'rules.yaml'));
  const lines = releaseSums(root).filter((line) => line.slice(66).startsWith(`${version}/`));
  appendFileSync(join(root, RELEASES_DIR, SUMS_FILE), `${lines.join('\n')}\n`);
  return lines.map((line) => `${RELEASES_DIR}/${line.slice(66)}`);
}
