/**
 * The project's one way to launch a browser (tests, screenshots, later browser work): Chromium,
 * headless, from the `@sparticuz/chromium` package that `npm ci` installs (its binary ships inside
 * the registry package: no browser download, which these machines and many CI networks cannot do).
 * How it works and what it decides: docs/internals.md, "scripts/lib/browser.ts".
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, defineConfig, type Browser, type LaunchOptions, type PlaywrightTestConfig } from '@playwright/test';

export const CHROMIUM_ENV = 'CGS_CHROMIUM';

/**
 * Flags for a closed network and a container: no sandbox (root, no user namespaces), and none of
 * Chromium's own traffic (component updates, sync, field trials, safe browsing lists), whose
 * refused connections would otherwise show up as noise and slow the start.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-domain-reliability',
  '--no-first-run',
  '--no-pings',
];

/** The package's version (its `exports` hide package.json: read it beside the entry, build/index.js). */
function packageVersion(require: NodeJS.Require): string {
  const manifest = JSON.parse(readFileSync(join(dirname(require.resolve('@sparticuz/chromium')), '..', 'package.json'), 'utf8')) as { name: string; version: string };
  if (manifest.name !== '@sparticuz/chromium') throw new Error(`@sparticuz/chromium: unexpected layout (found ${manifest.name})`);
  return manifest.version;
}

/** The unpacked binary of @sparticuz/chromium, unpacking it first when this machine has not yet. */
function packagedChromium(): string {
  const require = createRequire(import.meta.url);
  const home = join(tmpdir(), `cgs-chromium-${packageVersion(require)}`);
  const binary = join(home, 'chromium');
  if (existsSync(binary)) return binary;
  // The package unpacks into os.tmpdir(); a child process with TMPDIR pointing at a fresh
  // directory unpacks it there, then the directory takes its final name in one rename.
  const staging = mkdtempSync(join(tmpdir(), 'cgs-chromium-unpack-'));
  try {
    const script = `const { default: c } = await import(${JSON.stringify(pathToFileURL(require.resolve('@sparticuz/chromium')).href)}); process.stdout.write(await c.executablePath());`;
    const unpacked = execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, TMPDIR: staging }, encoding: 'utf8' });
    if (dirname(unpacked) !== staging) throw new Error(`@sparticuz/chromium unpacked to ${unpacked}, not under ${staging}`);
    try {
      renameSync(staging, home);
    } catch (error) {
      // Another process finished first: use its copy.
      if (!existsSync(binary)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return binary;
}

let executable: string | undefined;

/** The Chromium to launch: `$CGS_CHROMIUM` when set, else the one `npm ci` installed. */
export function chromiumExecutable(): string {
  const override = process.env[CHROMIUM_ENV];
  if (override) {
    if (!existsSync(override)) throw new Error(`${CHROMIUM_ENV}=${override}: no such file`);
    return override;
  }
  executable ??= packagedChromium();
  return executable;
}

/** Playwright launch options for the project's Chromium. */
export function launchOptions(): LaunchOptions {
  return { executablePath: chromiumExecutable(), headless: true, args: [...CHROMIUM_ARGS] };
}

/** A headless Chromium, launched with the project's options (close it when done). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch(launchOptions());
}

/**
 * The Playwright configuration of a browser project of this repository (test:browser, test:console):
 * its spec files in `testDir` (and `alsoTestDirs`), Chromium through launchOptions(), no retries,
 * traces on failure.
 */
export function browserProject(options: { testDir: string; outputDir: string; workers: number; viewport?: { width: number; height: number }; alsoTestDirs?: readonly string[] }): PlaywrightTestConfig {
  // `alsoTestDirs`: spec folders run in the same Playwright run (one start, the same workers), each
  // as a project of its own.
  const also = options.alsoTestDirs ?? [];
  return defineConfig({
    testDir: options.testDir,
    ...(also.length > 0 ? { projects: [{ name: 'main', testDir: options.testDir }, ...also.map((testDir) => ({ name: testDir.split(/[\\/]/).filter(Boolean).slice(-2).join('/'), testDir }))] } : {}),
    testMatch: '*.spec.ts',
    forbidOnly: Boolean(process.env['CI']),
    retries: 0,
    workers: options.workers,
    timeout: 30_000,
    expect: { timeout: 10_000 },
    reporter: [['list']],
    outputDir: options.outputDir,
    use: {
      browserName: 'chromium',
      launchOptions: launchOptions(),
      ...(options.viewport ? { viewport: options.viewport } : {}),
      trace: 'retain-on-failure',
    },
  });
}
