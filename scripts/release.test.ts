/** `npm run release`: on a copy of the documents, a release is cut only when the gate passes. */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ReleaseError, cutRelease } from './lib/release.ts';
import { DOCUMENT_FILE, RELEASES_DIR, ROOT, RULES_FILE, latestRelease, loadSource, verifyReleases } from '../spec/versions.ts';

const scratch = mkdtempSync(join(tmpdir(), 'cgs-release-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A root holding the released 1.9.0 and, as the working document, 1.9.0 edited by `edit`. */
function rootWith(edit: (yaml: string) => string, rulesVersion = '1.9.1'): string {
  const root = mkdtempSync(join(scratch, 'r-'));
  mkdirSync(join(root, 'spec'));
  cpSync(join(ROOT, RELEASES_DIR), join(root, RELEASES_DIR), { recursive: true });
  const yaml = readFileSync(join(ROOT, RELEASES_DIR, '1.9.0/openapi.yaml'), 'utf8');
  writeFileSync(join(root, DOCUMENT_FILE), edit(yaml));
  writeFileSync(join(root, RULES_FILE), readFileSync(join(ROOT, RELEASES_DIR, '1.9.0/rules.yaml'), 'utf8').replace(/^version: .*$/m, `version: ${rulesVersion}`));
  return root;
}

const bumped = (yaml: string): string =>
  yaml
    .replace('  version: 1.9.0\n', "  version: 1.9.1\n  x-version-history:\n    - { version: 1.9.1, summary: 'Clearer words for GET /products.' }\n")
    .replace('summary: List products of the catalog', 'summary: List the products of the catalog');

describe('npm run release', () => {
  it('freezes the working documents under the new version, hashes recorded, after the gate passes', () => {
    const root = rootWith(bumped);
    expect(cutRelease(root, '1.9.1')).toEqual(['spec/releases/1.9.1/openapi.yaml', 'spec/releases/1.9.1/rules.yaml']);
    expect(latestRelease(root)).toBe('1.9.1');
    expect(verifyReleases(root)).toEqual([]);
    expect(loadSource('release', root).document).toEqual(loadSource('working', root).document);
    expect(() => cutRelease(root, '1.9.1')).toThrow('is not after the latest release 1.9.1');
  });

  it('refuses what the gate refuses, saying why', () => {
    const unbumped = rootWith((yaml) => yaml.replace('summary: List products of the catalog', 'summary: List the products'), '1.9.0');
    expect(() => cutRelease(unbumped, '1.9.1')).toThrow('spec/openapi.yaml is at 1.9.0, not 1.9.1');
    expect(() => cutRelease(unbumped, '1.9.0')).toThrow('is not after the latest release 1.9.0');
    const noEntry = rootWith((yaml) => bumped(yaml).replace(/  x-version-history:\n.*\n/, ''));
    expect(() => cutRelease(noEntry, '1.9.1')).toThrow(ReleaseError);
    expect(() => cutRelease(noEntry, '1.9.1')).toThrow('info.x-version-history has no entry for 1.9.1');
  });
});
