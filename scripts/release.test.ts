/** `npm run release`: on a copy of the documents, a release is cut only when the gate passes. */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ReleaseError, SUITE_REPORT_FILE, cutRelease } from './lib/release.ts';
import { DOCUMENT_FILE, OVERLAY_FILE, RELEASES_DIR, ROOT, RULES_FILE, latestRelease, loadSource, verifyReleases, workingDigest } from '../packages/contract/spec/versions.ts';

const scratch = mkdtempSync(join(tmpdir(), 'cgs-release-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A root holding the released 1.9.0 and, as the working document, 1.9.0 edited by `edit`. */
function rootWith(edit: (yaml: string) => string, rulesVersion = '1.9.1'): string {
  const root = mkdtempSync(join(scratch, 'r-'));
  mkdirSync(join(root, 'packages/contract/spec'), { recursive: true });
  cpSync(join(ROOT, RELEASES_DIR), join(root, RELEASES_DIR), { recursive: true });
  const yaml = readFileSync(join(ROOT, RELEASES_DIR, '1.9.0/openapi.yaml'), 'utf8');
  writeFileSync(join(root, DOCUMENT_FILE), edit(yaml));
  writeFileSync(join(root, RULES_FILE), readFileSync(join(ROOT, RELEASES_DIR, '1.9.0/rules.yaml'), 'utf8').replace(/^version: .*$/m, `version: ${rulesVersion}`));
  return root;
}

/** A conformance run's rules.json on the root's current document and ledger (V10). */
function suiteRun(root: string, summary = { tests: { total: 10, passed: 10, failed: 0, skipped: 0 }, pinnedObservable: { total: 5, passed: 5, failed: 0, notRun: 0 } }, digest = workingDigest(root)): void {
  mkdirSync(join(root, 'conformance-report'), { recursive: true });
  writeFileSync(join(root, SUITE_REPORT_FILE), JSON.stringify({ documentDigest: digest, summary }));
}

/** The generated types, up to date (a root without packages/contract/spec/generated: the real check is tested below). */
const fresh = { generated: async () => [] };

const bumped = (yaml: string): string =>
  yaml
    .replace('  version: 1.9.0\n', "  version: 1.9.1\n  x-version-history:\n    - { version: 1.9.1, summary: 'Clearer words for GET /products.' }\n")
    .replace('summary: List products of the catalog', 'summary: List the products of the catalog');

describe('npm run release', () => {
  it('freezes the working documents under the new version, hashes recorded, after the gate passes', async () => {
    const root = rootWith(bumped);
    suiteRun(root);
    expect(await cutRelease(root, '1.9.1', fresh)).toEqual(['packages/contract/spec/releases/1.9.1/openapi.yaml', 'packages/contract/spec/releases/1.9.1/rules.yaml']);
    expect(latestRelease(root)).toBe('1.9.1');
    expect(verifyReleases(root)).toEqual([]);
    expect(loadSource('release', root).document).toEqual(loadSource('working', root).document);
    await expect(cutRelease(root, '1.9.1', fresh)).rejects.toThrow('is not after the latest release 1.9.1');
  });

  it('refuses what the gate refuses, saying why', async () => {
    const unbumped = rootWith((yaml) => yaml.replace('summary: List products of the catalog', 'summary: List the products'), '1.9.0');
    await expect(cutRelease(unbumped, '1.9.1', fresh)).rejects.toThrow('packages/contract/spec/openapi.yaml is at 1.9.0, not 1.9.1');
    await expect(cutRelease(unbumped, '1.9.0', fresh)).rejects.toThrow('is not after the latest release 1.9.0');
    const noEntry = rootWith((yaml) => bumped(yaml).replace(/  x-version-history:\n.*\n/, ''));
    await expect(cutRelease(noEntry, '1.9.1', fresh)).rejects.toThrow(ReleaseError);
    await expect(cutRelease(noEntry, '1.9.1', fresh)).rejects.toThrow('info.x-version-history has no entry for 1.9.1');
  });

  // V10: what npm run release let through before issue #25.
  it('refuses a version the pending version already claims (or one after it)', async () => {
    const root = rootWith(bumped);
    suiteRun(root);
    mkdirSync(join(root, 'packages/contract/spec/overlays'));
    writeFileSync(join(root, OVERLAY_FILE), "overlay: 1.0.0\ninfo: { title: next, version: 1.0.0 }\nactions:\n  - target: $.info\n    update: { version: 1.9.1 }\n");
    await expect(cutRelease(root, '1.9.1', fresh)).rejects.toThrow('packages/contract/spec/overlays/next.yaml already claims 1.9.1 for the pending version');
    writeFileSync(join(root, OVERLAY_FILE), "overlay: 1.0.0\ninfo: { title: next, version: 1.0.0 }\nactions:\n  - target: $.info\n    update: { version: 1.10.0 }\n");
    expect(await cutRelease(root, '1.9.1', fresh)).toHaveLength(2);
  });

  it('refuses without a green conformance run on exactly this document and ledger', async () => {
    const root = rootWith(bumped);
    await expect(cutRelease(root, '1.9.1', fresh)).rejects.toThrow(`no conformance run: ${SUITE_REPORT_FILE} is missing`);
    suiteRun(root, { tests: { total: 10, passed: 9, failed: 1, skipped: 0 }, pinnedObservable: { total: 5, passed: 4, failed: 1, notRun: 0 } });
    await expect(cutRelease(root, '1.9.1', fresh)).rejects.toThrow('the conformance run failed 1 of 10 tests');
    suiteRun(root, { tests: { total: 3, passed: 3, failed: 0, skipped: 0 }, pinnedObservable: { total: 5, passed: 1, failed: 0, notRun: 4 } });
    await expect(cutRelease(root, '1.9.1', fresh)).rejects.toThrow('not run (4)');
    suiteRun(root, undefined, 'a'.repeat(64));
    await expect(cutRelease(root, '1.9.1', fresh)).rejects.toThrow('is from a run on another packages/contract/spec/openapi.yaml or packages/contract/spec/rules.yaml');
    expect(existsSync(join(root, RELEASES_DIR, '1.9.1'))).toBe(false);
  });

  it('refuses stale generated types (the real check, on a copy of this checkout\'s packages/contract/spec/)', async () => {
    const root = mkdtempSync(join(scratch, 'g-'));
    cpSync(join(ROOT, 'packages/contract/spec'), join(root, 'packages/contract/spec'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(root, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
    suiteRun(root);
    const version = String((loadSource('working', root).document['info'] as { version: string }).version);
    const generated = join(root, 'packages/contract/spec/generated/openapi.ts');
    writeFileSync(generated, `${readFileSync(generated, 'utf8')}// edited by hand\n`);
    await expect(cutRelease(root, version)).rejects.toThrow('packages/contract/spec/generated is stale (openapi.ts: stale)');
    expect(existsSync(join(root, RELEASES_DIR, version))).toBe(false);
  }, 120_000);
});
