/** The frozen releases never change: packages/contract/spec/releases/SHA256SUMS holds the hash of every released file. */
import { cpSync, mkdtempSync, appendFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RELEASES_DIR, ROOT, SourceError, latestRelease, loadSource, releases, verifyReleases, versionOf } from './versions.ts';

describe('the frozen releases', () => {
  const copy = mkdtempSync(join(tmpdir(), 'cgs-releases-'));
  afterAll(() => rmSync(copy, { recursive: true, force: true }));
  const fresh = (): string => {
    const root = mkdtempSync(join(copy, 'r-'));
    cpSync(join(ROOT, RELEASES_DIR), join(root, RELEASES_DIR), { recursive: true });
    return root;
  };

  it('hold 1.9.0 (document and rule ledger), unedited since their release', () => {
    expect(releases()).toContain('1.9.0');
    expect(latestRelease()).toBeDefined();
    expect(verifyReleases()).toEqual([]);
  });

  it('notice a frozen file edited after its release', () => {
    const root = fresh();
    appendFileSync(join(root, RELEASES_DIR, '1.9.0/openapi.yaml'), '# one more line\n');
    expect(verifyReleases(root)).toEqual([expect.stringContaining('1.9.0/openapi.yaml was edited after its release')]);
  });

  it('notice a file added to a release by hand, and a released file removed', () => {
    const root = fresh();
    writeFileSync(join(root, RELEASES_DIR, '1.9.0/notes.md'), 'x');
    rmSync(join(root, RELEASES_DIR, '1.9.0/rules.yaml'));
    mkdirSync(join(root, RELEASES_DIR, '9.9.9'));
    writeFileSync(join(root, RELEASES_DIR, '9.9.9/openapi.yaml'), 'openapi: 3.1.0');
    const problems = verifyReleases(root);
    expect(problems).toEqual(
      expect.arrayContaining([expect.stringContaining('1.9.0/notes.md is not in'), expect.stringContaining('9.9.9/openapi.yaml is not in'), expect.stringContaining('1.9.0/rules.yaml is listed in SHA256SUMS but missing')]),
    );
    expect(problems).toHaveLength(3);
  });
});

describe('the sources contract:diff reads', () => {
  it('reads a release by number, the latest release, a directory, a git ref and the pending version', () => {
    expect(versionOf(loadSource('1.9.0'))).toBe('1.9.0');
    expect(loadSource('release').rules?.rules.length).toBeGreaterThan(0);
    expect(loadSource(join(ROOT, RELEASES_DIR, '1.9.0')).document).toEqual(loadSource('1.9.0').document);
    const atHead = loadSource('HEAD');
    expect(atHead.label).toBe('HEAD (git)');
    expect(atHead.rules?.rules.length).toBeGreaterThan(0);
    expect(versionOf(loadSource('next'))).not.toBe(versionOf(loadSource('working')));
    expect(() => loadSource('no-such-thing')).toThrow(SourceError);
  });
});
