/**
 * The global setup of vitest's `package` project (vitest.config.ts): one build of every package
 * (npm run build) and `npm pack` of each workspace (D279), once for the package tests
 * (scripts/packaging/packages.test.ts, scripts/packaging/package.test.ts, scripts/packaging/exam-package.test.ts), which each install the
 * tarballs into empty projects of their own. Each used to pack for itself: the same tarball built
 * twice (about 20 s of CPU each, D233).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The absolute path of each package's tarball by its folder under packages/ (contract, mock, msw, ...). */
    packedTarballs: Record<string, string>;
  }
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function npm(args: string[]): string {
  const result = spawnSync('npm', args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (result.status !== 0) throw new Error(`npm ${args.join(' ')} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

export default function setup(project: TestProject): () => void {
  const work = mkdtempSync(join(tmpdir(), 'cgs-pack-'));
  npm(['run', '--silent', 'build']);
  // --ignore-scripts: each package's prepack would build all of them again.
  npm(['pack', '--silent', '--workspaces', '--ignore-scripts', '--pack-destination', work]);
  const tarballs: Record<string, string> = {};
  for (const file of readdirSync(work)) {
    const dir = /^creative-generation-(.+)-\d+\.\d+\.\d+\.tgz$/.exec(file)?.[1];
    if (dir !== undefined) tarballs[dir] = join(work, file);
  }
  project.provide('packedTarballs', tarballs);
  return () => rmSync(work, { recursive: true, force: true });
}
