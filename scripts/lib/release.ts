/**
 * Cutting a release (`npm run release -- <version>`): the working document and rule ledger are
 * copied to packages/contract/spec/releases/<version>/ and their hashes appended to packages/contract/spec/releases/SHA256SUMS, once
 * the versioning gate passes against the latest release. The version is the one the document
 * already carries (bumped, with its history entry, by the change that made it).
 *
 * Refused as well (V10): a version the pending version (packages/contract/spec/overlays/next.yaml) already claims
 * (or one after it: the pending version would then sort before a release); generated types that
 * differ from a fresh `npm run generate`; and no green conformance run on exactly this document and
 * ledger (conformance-report/rules.json: written by `npm run conformance` with the digest of the
 * document and ledger it checked; no failed test, no pinned observable rule failed or not run).
 */
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { diffDocuments } from '../../packages/contract/spec/diff/classify.ts';
import { evaluate } from '../../packages/contract/spec/diff/policy.ts';
import { DOCUMENT_FILE, OVERLAY_FILE, RELEASES_DIR, RULES_FILE, SUMS_FILE, compareSemver, latestRelease, loadSource, nextClaimedVersion, parseSemver, releaseSums, verifyReleases, versionOf, workingDigest } from '../../packages/contract/spec/versions.ts';
import { GENERATED_DIR, checkGenerated, type Difference } from './generated.ts';

export class ReleaseError extends Error {}

export const SUITE_REPORT_FILE = 'conformance-report/rules.json';

export interface ReleaseChecks {
  /** The generated files that differ from a fresh generate (default: scripts/lib/generated.ts). */
  generated?: (root: string) => Promise<Difference[]>;
}

/** What a rules.json must say for a release (V10); [] when it does. */
export function suiteReportProblems(root: string): string[] {
  const path = join(root, SUITE_REPORT_FILE);
  const run = 'run `npm run conformance` (the whole suite, against a fresh mock) and release again';
  if (!existsSync(path)) return [`no conformance run: ${SUITE_REPORT_FILE} is missing; ${run}`];
  let report: { documentDigest?: unknown; summary?: { tests?: { failed?: number; total?: number }; pinnedObservable?: { failed?: number; notRun?: number } } };
  try {
    report = JSON.parse(readFileSync(path, 'utf8')) as typeof report;
  } catch (error) {
    return [`${SUITE_REPORT_FILE} is not JSON (${(error as Error).message}); ${run}`];
  }
  if (report.documentDigest !== workingDigest(root)) return [`${SUITE_REPORT_FILE} is from a run on another ${DOCUMENT_FILE} or ${RULES_FILE} than the working ones; ${run}`];
  const problems: string[] = [];
  const tests = report.summary?.tests;
  const pinned = report.summary?.pinnedObservable;
  if (tests === undefined || pinned === undefined) return [`${SUITE_REPORT_FILE} has no summary; ${run}`];
  if ((tests.failed ?? 1) > 0) problems.push(`the conformance run failed ${tests.failed ?? '?'} of ${tests.total ?? '?'} tests: fix them, then ${run}`);
  if ((pinned.failed ?? 1) > 0 || (pinned.notRun ?? 1) > 0) problems.push(`the conformance run left pinned observable rules failed (${pinned.failed ?? '?'}) or not run (${pinned.notRun ?? '?'}): a part of the suite (--grep) is not a release check; ${run}`);
  return problems;
}

/** Cuts `version` under `root`; returns the files written. Rejects with a ReleaseError saying what to do. */
export async function cutRelease(root: string, version: string, checks: ReleaseChecks = {}): Promise<string[]> {
  if (parseSemver(version) === undefined) throw new ReleaseError(`${JSON.stringify(version)} is not MAJOR.MINOR.PATCH`);
  const tampered = verifyReleases(root);
  if (tampered.length > 0) throw new ReleaseError(`the frozen releases are not intact:\n${tampered.join('\n')}`);
  const working = loadSource('working', root);
  if (versionOf(working) !== version) throw new ReleaseError(`${DOCUMENT_FILE} is at ${versionOf(working)}, not ${version}: bump info.version (and its x-version-history entry) first`);
  const claimed = nextClaimedVersion(root);
  if (claimed !== undefined && compareSemver(version, claimed) !== undefined && compareSemver(version, claimed)! >= 0) {
    throw new ReleaseError(`${OVERLAY_FILE} already claims ${claimed} for the pending version: releasing ${version} would ${version === claimed ? 'give two documents one number' : 'put the pending version before a release'}; renumber the pending version (its \`$.info\` action) after ${version} first`);
  }
  const latest = latestRelease(root);
  if (latest !== undefined) {
    if (compareSemver(version, latest)! <= 0) throw new ReleaseError(`${version} is not after the latest release ${latest}`);
    const base = loadSource(join(root, RELEASES_DIR, latest), root);
    const changes = diffDocuments(base.document, working.document, { ...(base.rules ? { base: base.rules } : {}), ...(working.rules ? { head: working.rules } : {}) });
    const verdict = evaluate(base.document, working.document, changes, working.rules);
    if (!verdict.allowed) throw new ReleaseError(`the versioning gate refuses ${latest} → ${version}:\n${verdict.problems.map((p) => `- ${p}`).join('\n')}`);
  }
  const stale = await (checks.generated ?? checkGenerated)(root);
  if (stale.length > 0) throw new ReleaseError(`${GENERATED_DIR} is stale (${stale.map((d) => `${d.file}: ${d.kind}`).join(', ')}): run npm run generate, commit, and release again`);
  const suite = suiteReportProblems(root);
  if (suite.length > 0) throw new ReleaseError(`no green conformance run on this document:\n${suite.map((p) => `- ${p}`).join('\n')}`);
  const dir = join(root, RELEASES_DIR, version);
  if (existsSync(dir)) throw new ReleaseError(`${RELEASES_DIR}/${version} exists already`);
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(root, DOCUMENT_FILE), join(dir, 'openapi.yaml'));
  copyFileSync(join(root, RULES_FILE), join(dir, 'rules.yaml'));
  const lines = releaseSums(root).filter((line) => line.slice(66).startsWith(`${version}/`));
  appendFileSync(join(root, RELEASES_DIR, SUMS_FILE), `${lines.join('\n')}\n`);
  return lines.map((line) => `${RELEASES_DIR}/${line.slice(66)}`);
}
