/**
 * Bundles for the browser with esbuild (pinned in package.json): the example page's script
 * (main.ts: the in-process mock, msw/browser and the flows) and, for `npm run bench`, the
 * in-process mock alone (what an app adds to its bundle). The service worker script is msw's own
 * `mockServiceWorker.js`, copied from the installed package at every build (what `npx msw init`
 * does), never kept or edited in this repository: the worker and the `msw` module always come from
 * the same version.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Message } from 'esbuild';

const HERE = dirname(fileURLToPath(import.meta.url));

/** msw's service worker script, as the installed package ships it. */
export function mswWorkerPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('msw/package.json')), 'lib', 'mockServiceWorker.js');
}

export interface BundleSize {
  bytes: number;
  gzipBytes: number;
}

export class BundleError extends Error {
  constructor(readonly errors: Message[]) {
    super(`esbuild: ${errors.length} error(s):\n${errors.map((e) => `${e.location ? `${e.location.file}:${e.location.line}: ` : ''}${e.text}`).join('\n')}`);
  }
}

/** One ESM bundle of `entry` for the browser; `minify` for the size an app would ship. */
export async function bundle(entry: string, options: { minify: boolean }): Promise<{ code: string; size: BundleSize }> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: options.minify,
    sourcemap: false,
    write: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  }).catch((error: { errors?: Message[] }) => {
    throw error.errors ? new BundleError(error.errors) : error;
  });
  const code = result.outputFiles[0]!.text;
  const bytes = Buffer.byteLength(code);
  return { code, size: { bytes, gzipBytes: gzipSync(code).length } };
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>In-process mock (MSW) example</title><link rel="icon" href="data:,"></head>
<body><main><h1>In-process mock (MSW)</h1><pre id="out">running…</pre></main><script type="module" src="/main.js"></script></body></html>
`;

/** The example site in `outdir`: index.html, main.js (the bundle) and mockServiceWorker.js (msw's). */
export async function buildExampleSite(outdir: string): Promise<{ files: string[]; size: BundleSize }> {
  mkdirSync(outdir, { recursive: true });
  const { code, size } = await bundle(join(HERE, 'main.ts'), { minify: false });
  writeFileSync(join(outdir, 'main.js'), code);
  writeFileSync(join(outdir, 'index.html'), PAGE);
  copyFileSync(mswWorkerPath(), join(outdir, 'mockServiceWorker.js'));
  return { files: ['index.html', 'main.js', 'mockServiceWorker.js'], size };
}

/** The bundle of the in-process mock alone (createMockHandlers and what it imports), minified. */
export async function inProcessMockSize(): Promise<BundleSize> {
  return (await bundle(join(HERE, 'mock-only.ts'), { minify: true })).size;
}

/** The version of msw whose worker a build copies (the page checks the worker it registered against it). */
export function mswVersion(): string {
  return (JSON.parse(readFileSync(join(dirname(mswWorkerPath()), '..', 'package.json'), 'utf8')) as { version: string }).version;
}
