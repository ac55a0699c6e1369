/**
 * Each package's dependencies and peers are exactly the packages its shipped JavaScript imports
 * (D280): none left for a command to ask for at run time, none that nothing imports. Run on the
 * dist/ of each package as the `package` project's global setup builds them (scripts/packaging/pack-once.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importedPackages, PACKAGES } from '../build.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

describe('every package of packages/', () => {
  it.each(PACKAGES.map((p) => p.dir))('%s: its dependencies and peers are exactly what its shipped modules import', (dir) => {
    const own = JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as Manifest;
    const declared = [...Object.keys(own.dependencies ?? {}), ...Object.keys(own.peerDependencies ?? {})].sort();
    const imported = [...importedPackages(join(ROOT, 'packages', dir, 'dist'))].filter((name) => name !== own.name).sort();
    expect(declared).toEqual(imported);
  });
});
