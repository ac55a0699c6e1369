/**
 * The in-process mock runs where msw/browser runs: packages/msw/src/msw.ts bundled by esbuild for the
 * browser (platform 'browser', which refuses every `node:*` import: "Could not resolve") and then
 * run in a bare V8 context that has the web platform's globals and none of Node's (no process, no
 * Buffer, no require): an account created through `control`, the API answering through the MSW
 * handler (msw's getResponse), a webhook signed and handed to the callback. Our own sources in the
 * bundle are also read for a Node global (D60).
 *
 * A PNG of the media is drawn there too (deflated by CompressionStream: no node:zlib).
 *
 * Broken on purpose: an `import { createHash } from 'node:crypto'` put back into
 * packages/mock-core/src/pipeline/authenticate.ts fails the build ("Could not resolve"); a `Buffer.from` in
 * packages/mock-core/src/domain/shared.ts fails the source scan and the run (ReferenceError: Buffer is not defined).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { build } from 'esbuild';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

const ENTRY = `
import { getResponse } from 'msw';
import { createMockHandlers } from './packages/msw/src/msw.ts';
export async function run() {
  const deliveries = [];
  const mock = createMockHandlers({ baseUrl: 'https://api.example.test', seed: false, webhooks: { deliver: async (d) => (deliveries.push(d), { status: 200 }) } });
  const account = await mock.control.createAccount({ name: 'In a browser' });
  await mock.control.createWebhookEndpoint(account.accountId, { url: 'http://localhost:9/hooks', eventTypes: ['campaign.created'] });
  const key = account.keys.all.key;
  const headers = { authorization: 'Bearer ' + key };
  const products = await getResponse(mock.handlers, new Request('https://api.example.test/api/public/v1/products?limit=1', { headers }));
  const product = (await products.clone().json()).data[0];
  const created = await getResponse(mock.handlers, new Request('https://api.example.test/api/public/v1/campaigns', {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': 'k1' },
    body: JSON.stringify({ name: 'Spring', brandId: product.brandId, productIds: [product.productId] }),
  }));
  await mock.control.advanceClock(120);
  const problem = await getResponse(mock.handlers, new Request('https://api.example.test/api/public/v1/campaigns/nope', { headers }));
  const clock = await getResponse(mock.handlers, new Request('https://api.example.test/__mock/clock'));
  const image = await getResponse(mock.handlers, new Request('https://api.example.test/media/prd_x/label/64x48.png'));
  const png = new Uint8Array(await image.arrayBuffer());
  mock.dispose();
  return { products: products.status, created: created.status, etag: created.headers.get('etag'), problem: problem.status, problemType: problem.headers.get('content-type'), clock: clock.status, deliveries: deliveries.map((d) => JSON.parse(d.body).type), signed: deliveries.every((d) => /^v1,/.test(d.headers['webhook-signature'])), image: image.status, imageType: image.headers.get('content-type'), png: Array.from(png) };
}
`;

/** The web platform's globals a browser page has (taken from Node's implementations of the same standards). */
function browserGlobals(): Record<string, unknown> {
  const names = ['URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'Request', 'Response', 'Headers', 'FormData', 'Blob', 'File', 'ReadableStream', 'WritableStream', 'TransformStream', 'CompressionStream', 'AbortController', 'AbortSignal', 'Event', 'EventTarget', 'MessageChannel', 'BroadcastChannel', 'DOMException', 'crypto', 'atob', 'btoa', 'structuredClone', 'queueMicrotask', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'console', 'fetch', 'WebAssembly'];
  const g: Record<string, unknown> = {};
  for (const name of names) g[name] = (globalThis as Record<string, unknown>)[name];
  // Web Storage (msw keeps its cookie store in it) and the page's location.
  const items = new Map<string, string>();
  g['localStorage'] = { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, String(v)), removeItem: (k: string) => void items.delete(k), clear: () => items.clear(), key: (i: number) => [...items.keys()][i] ?? null, get length() { return items.size; } };
  g['location'] = new URL('https://app.example.test/');
  return g;
}

describe('the in-process mock in a browser bundle', () => {
  it('bundles for the browser without a node: import, and runs with no Node global', async () => {
    const result = await build({
      stdin: { contents: ENTRY, resolveDir: ROOT, sourcefile: 'entry.ts', loader: 'ts' },
      bundle: true,
      platform: 'browser',
      format: 'iife',
      globalName: 'bundle',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const ours = Object.keys(result.metafile.inputs).filter((path) => /^packages\/(msw|mock-core|contract)\//.test(path));
    expect(ours).toContain('packages/msw/src/msw.ts');
    expect(ours).toContain('packages/mock-core/src/pipeline/index.ts');
    for (const path of ours.filter((p) => p.endsWith('.ts'))) {
      const code = readFileSync(new URL(path, `file://${ROOT}/`), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(code, path).not.toMatch(/(?<![.\w])(Buffer|__dirname|__filename|require)\b|(?<![.\w])process\./);
    }
    const context = vm.createContext(browserGlobals());
    vm.runInContext(result.outputFiles[0]!.text, context);
    expect(vm.runInContext('typeof process + typeof Buffer + typeof require', context)).toBe('undefinedundefinedundefined');
    const outcome = await (vm.runInContext('bundle.run()', context) as Promise<unknown>);
    expect(outcome).toEqual({ products: 200, created: 201, etag: expect.stringMatching(/^"/), problem: 404, problemType: 'application/problem+json; charset=utf-8', clock: 200, deliveries: ['campaign.created'], signed: true, image: 200, imageType: 'image/png', png: expect.anything() }); // (an array of another realm: not instanceof this one's Array)
    const decoded = PNG.sync.read(Buffer.from((outcome as { png: number[] }).png));
    expect([decoded.width, decoded.height]).toEqual([64, 48]);
  });

  it('keeps what only the control plane, a scenario, the hooks, the demo data, a YAML or `next` need out of the chunk that imports it (D198, D221, D286, D287)', async () => {
    const result = await build({ entryPoints: [`${ROOT}/packages/msw/src/msw.ts`], bundle: true, splitting: true, format: 'esm', platform: 'browser', outdir: '/nowhere', write: false, metafile: true, external: ['msw'], logLevel: 'silent' });
    const outputs = Object.values(result.metafile.outputs);
    const entry = outputs.find((o) => o.entryPoint === 'packages/msw/src/msw.ts')!;
    // The entry's chunk and every chunk it imports statically: what a page loads with `<package>/msw`.
    const loaded = new Set<string>();
    const walk = (output: (typeof outputs)[number]) => {
      for (const input of Object.keys(output.inputs)) loaded.add(input);
      for (const i of output.imports) if (i.kind === 'import-statement' && !i.external) walk(result.metafile.outputs[i.path]!);
    };
    walk(entry);
    expect([...loaded]).toContain('packages/mock-core/src/pipeline/index.ts');
    for (const deferred of ['packages/mock-core/src/control/routes.ts', 'packages/contract/spec/generated/mock-control.json', 'packages/mock-core/src/scenario/apply.ts', 'packages/mock-core/src/exam/judge.ts', 'packages/mock-core/src/hooks/routes.ts', 'packages/mock-core/src/seed/demo.ts']) expect([...loaded], deferred).not.toContain(deferred);
    // D286, D287 (issue #35): faker (the demo data's) and yaml in chunks loaded on demand, and the
    // `next` document only as its changes (openapi.next-patch.json), never a second copy.
    const everywhere = Object.values(result.metafile.outputs).flatMap((o) => Object.keys(o.inputs));
    for (const pkg of ['@faker-js/faker', 'yaml']) {
      const inside = new RegExp(`(^|/)node_modules/${pkg}/`);
      expect(everywhere.some((input) => inside.test(input)), `${pkg} is bundled somewhere (the check below is not vacuous)`).toBe(true);
      expect([...loaded].filter((input) => inside.test(input)), `${pkg} in the initial chunk`).toEqual([]);
    }
    expect([...loaded]).toContain('packages/contract/spec/generated/openapi.json');
    expect([...loaded]).toContain('packages/contract/spec/generated/openapi.next-patch.json');
    expect(everywhere).not.toContain('packages/contract/spec/generated/openapi.next.json');
  });
});
