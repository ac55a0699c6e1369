/**
 * The global setup of vitest's `package` project (vitest.config.ts): `npm pack` once (its prepack
 * builds dist/) for both package tests, bin/package.test.ts and bin/exam-package.test.ts, which
 * each install the tarball into an empty project of their own. Each used to pack for itself: the
 * same tarball built twice (about 20 s of CPU each, D233).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The absolute path of the package's tarball, packed once for the `package` project. */
    packedTarball: string;
  }
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export default function setup(project: TestProject): () => void {
  const work = mkdtempSync(join(tmpdir(), 'cgs-pack-'));
  const packed = spawnSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (packed.status !== 0) throw new Error(`npm pack exited ${packed.status}:\n${packed.stdout}\n${packed.stderr}`);
  project.provide('packedTarball', join(work, packed.stdout.trim().split('\n').at(-1)!));
  return () => rmSync(work, { recursive: true, force: true });
}
