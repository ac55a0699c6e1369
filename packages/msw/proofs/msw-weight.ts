/**
 * What the in-process mock weighs in a frontend app (issue #35): `npx tsx packages/msw/proofs/msw-weight.ts
 * [--top 15] [--json]`. Bundles `<package>/msw` (packages/msw/src/msw.ts) for the browser with
 * esbuild (pinned devDependency) as an app's bundler does: ESM, code splitting (every `import()` its
 * own chunk, loaded when reached), msw external (a peer dependency: the app's own copy), not minified
 * (what a dev server sends) and minified (a production build). Prints the bytes of the initial
 * chunk (the entry and every chunk it imports statically: what the page loads with the import), the
 * chunks loaded on demand and what triggers each (their largest input), and the largest inputs of the
 * initial chunk, packages summed (esbuild's metafile: bytes each input contributes to the output).
 * Sizes, not times: the figures are the same on every run of the same tree. D286, D287 in
 * docs/decisions.md; the figures in docs/benchmarks.md and docs/msw.md.
 */
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const MSW_ENTRY = 'packages/msw/src/msw.ts';

export interface ChunkWeight {
  file: string;
  bytes: number;
  gzipBytes: number;
  /** Inputs by bytes in this chunk, largest first (node_modules packages summed under their name). */
  inputs: [string, number][];
}

export interface MswWeight {
  minify: boolean;
  /** The entry's chunk and those it imports statically. */
  initial: ChunkWeight;
  /** Each chunk reached only through `import()`. */
  lazy: ChunkWeight[];
  /** Every input of the initial chunk, path as esbuild names it (for the size test). */
  initialInputs: string[];
}

/** `node_modules/@faker-js/faker/dist/x.js` → `@faker-js/faker`; our own files stay as they are. */
export function inputName(path: string): string {
  const at = path.lastIndexOf('node_modules/');
  if (at < 0) return path;
  const parts = path.slice(at + 'node_modules/'.length).split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

function summed(inputs: Iterable<[string, number]>): [string, number][] {
  const by = new Map<string, number>();
  for (const [path, bytes] of inputs) by.set(inputName(path), (by.get(inputName(path)) ?? 0) + bytes);
  return [...by].sort((a, b) => b[1] - a[1]);
}

/** The bundle of the MSW entry as an app's bundler makes it, split into the initial and the on-demand chunks. */
export async function measureMswWeight(options: { minify: boolean; entry?: string }): Promise<MswWeight> {
  const result = await build({
    entryPoints: [`${ROOT}/${options.entry ?? MSW_ENTRY}`],
    absWorkingDir: ROOT,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external: ['msw', 'msw/*'],
    minify: options.minify,
    outdir: '/msw-weight',
    write: false,
    metafile: true,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': options.minify ? '"production"' : '"development"' },
  });
  const outputs: Metafile['outputs'] = result.metafile.outputs;
  const text = new Map(result.outputFiles.filter((f) => f.path.endsWith('.js')).map((f) => [f.path.slice(f.path.indexOf('/msw-weight/') + 1), f.contents]));
  const js = Object.keys(outputs).filter((file) => file.endsWith('.js'));
  const entry = js.find((file) => outputs[file]!.entryPoint !== undefined);
  if (entry === undefined) throw new Error('esbuild gave no entry chunk');
  const initial = new Set<string>();
  const walk = (file: string): void => {
    if (initial.has(file)) return;
    initial.add(file);
    for (const i of outputs[file]!.imports) if (i.kind === 'import-statement' && !i.external) walk(i.path);
  };
  walk(entry);
  const gzip = (files: string[]) => files.reduce((sum, f) => sum + gzipSync(text.get(f.slice(f.indexOf('msw-weight/'))) ?? new Uint8Array()).length, 0);
  const weigh = (files: string[], name: string): ChunkWeight => ({
    file: name,
    bytes: files.reduce((sum, f) => sum + outputs[f]!.bytes, 0),
    gzipBytes: gzip(files),
    inputs: summed(files.flatMap((f) => Object.entries(outputs[f]!.inputs).map(([path, v]): [string, number] => [path, v.bytesInOutput]))),
  });
  return {
    minify: options.minify,
    initial: weigh([...initial], 'initial'),
    lazy: js.filter((f) => !initial.has(f)).map((f) => weigh([f], f.replace(/^.*msw-weight\//, ''))).sort((a, b) => b.bytes - a.bytes),
    initialInputs: [...initial].flatMap((f) => Object.keys(outputs[f]!.inputs)),
  };
}

const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 15;
  const weights = [await measureMswWeight({ minify: false }), await measureMswWeight({ minify: true })];
  if (args.includes('--json')) {
    console.log(JSON.stringify(weights.map(({ initialInputs: _, ...w }) => w), null, 2));
  } else {
    console.log(`# ${MSW_ENTRY} for the browser (esbuild, ESM, splitting, msw external)\n`);
    console.log('| | initial chunk | gzip | on demand (all chunks) | total |');
    console.log('| --- | ---: | ---: | ---: | ---: |');
    for (const w of weights) {
      const lazy = w.lazy.reduce((s, c) => s + c.bytes, 0);
      console.log(`| ${w.minify ? 'minified' : 'not minified'} | ${kB(w.initial.bytes)} | ${kB(w.initial.gzipBytes)} | ${kB(lazy)} | ${kB(w.initial.bytes + lazy)} |`);
    }
    for (const w of weights) {
      console.log(`\n## ${w.minify ? 'minified' : 'not minified'}: the initial chunk's largest inputs\n`);
      for (const [name, bytes] of w.initial.inputs.slice(0, top)) console.log(`  ${kB(bytes).padStart(9)}  ${name}`);
      console.log(`\n## ${w.minify ? 'minified' : 'not minified'}: chunks loaded on demand (largest input)\n`);
      for (const c of w.lazy) console.log(`  ${kB(c.bytes).padStart(9)}  ${c.file}  (${c.inputs[0]?.[0] ?? 'no input'})`);
    }
  }
}
