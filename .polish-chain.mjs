import { build } from 'esbuild';
const CUT = new Set((process.env.CUT ?? '').split(',').filter(Boolean));
const r = await build({ entryPoints: ['mock/adapters/msw/msw.ts'], bundle: true, format: 'esm', platform: 'browser', splitting: true, outdir: '/tmp/polish-esb2', metafile: true, write: false, external: ['msw', 'node:*'], logLevel: 'error' });
const inputs = r.metafile.inputs;
const targets = process.argv.slice(2);
const prev = new Map([['mock/adapters/msw/msw.ts', null]]);
const q = ['mock/adapters/msw/msw.ts'];
while (q.length) { const f = q.shift(); for (const i of inputs[f]?.imports ?? []) { if (i.kind !== 'import-statement' || i.external) continue; if (CUT.has(f + '>' + i.path)) continue; if (!prev.has(i.path)) { prev.set(i.path, f); q.push(i.path); } } }
for (const t of targets) { const hit = [...prev.keys()].find((k) => k.includes(t)); if (!hit) { console.log(t, ': not statically reachable'); continue; } const chain = []; for (let c = hit; c; c = prev.get(c)) chain.unshift(c); console.log(chain.join('\n  -> ')); console.log(); }
let total = 0; for (const k of prev.keys()) total += inputs[k]?.bytes ?? 0; console.log('static inputs', prev.size, 'bytes', total);
