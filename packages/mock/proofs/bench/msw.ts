/**
 * Benchmark (`npm run bench -- --only msw`, or alone: `npx tsx packages/mock/proofs/bench/msw.ts [requests]`):
 * what one request costs the in-process mock (packages/msw/src/msw.ts) in Node, one request at a
 * time, GET /creatives?limit=50 with the demo account's read key (as the server's phase 1), five
 * ways side by side, interleaved request by request so the machine's load hits each alike:
 * How it works and what it decides: docs/internals.md, "packages/mock/proofs/bench/msw.ts".
 */
import { performance } from 'node:perf_hooks';
import { getResponse, http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { basePath } from '../../../contract/spec/contract.ts';
import { createMockHandlers } from '../../../msw/src/msw.ts';
import { runPipeline } from '../../../mock-core/src/pipeline/index.ts';
import type { RawRequest } from '../../../mock-core/src/pipeline/types.ts';
import { inProcessMockSize } from '../../../../examples/msw/browser/build.ts';

const REQUESTS = Math.max(100, Number(process.argv[2] ?? 5000));
const WARMUP = 500;
const BASE_URL = 'http://bench.msw.test';
const PATH = '/creatives';
const QUERY = { limit: '50' };

const mock = createMockHandlers({ baseUrl: BASE_URL });
await mock.ready;
const high = 1_000_000_000;
await mock.control.updateLimits({ 'group:read': high, 'account:read': high, 'ip:read': high });
const key = mock.demo!.keys['read']!.key;
if (!key) throw new Error('no demo read key');
const url = `${BASE_URL}${basePath}${PATH}?${new URLSearchParams(QUERY).toString()}`;

const raw = (): RawRequest => ({
  method: 'GET',
  path: PATH,
  fullPath: `${basePath}${PATH}`,
  query: { ...QUERY },
  headers: { authorization: `Bearer ${key}`, host: new URL(BASE_URL).host },
  body: undefined,
  ip: '127.0.0.1',
});

const server = setupServer(...mock.handlers);
server.listen({ onUnhandledRequest: 'error' });

const apiHandler = mock.handlers[0] as unknown as { resolver: (info: { request: Request }) => Promise<Response> };
const bytes = new TextEncoder().encode((await (await getResponse(mock.handlers, new Request(url, { headers: { authorization: `Bearer ${key}` } })))!.text()));
const baseline = [http.all(`${BASE_URL}${basePath}/*`, () => new HttpResponse(bytes.slice(), { headers: { 'content-type': 'application/json; charset=utf-8' } }))];

const ways = {
  pipeline: async () => {
    const response = await runPipeline(mock.services, raw());
    if (response.status !== 200) throw new Error(`pipeline: ${response.status}`);
  },
  mock: async () => {
    const response = await apiHandler.resolver({ request: new Request(url, { headers: { authorization: `Bearer ${key}` } }) });
    if (response.status !== 200) throw new Error(`mock: ${response.status}`);
    await response.arrayBuffer();
  },
  msw: async () => {
    const response = await getResponse(baseline, new Request(url, { headers: { authorization: `Bearer ${key}` } }));
    if (response?.status !== 200) throw new Error(`msw: ${response?.status}`);
    await response.arrayBuffer();
  },
  handler: async () => {
    const response = await getResponse(mock.handlers, new Request(url, { headers: { authorization: `Bearer ${key}` } }));
    if (response?.status !== 200) throw new Error(`handler: ${response?.status}`);
    await response.arrayBuffer();
  },
  fetch: async () => {
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    if (response.status !== 200) throw new Error(`fetch: ${response.status}`);
    await response.arrayBuffer();
  },
};
type Way = keyof typeof ways;
const names = Object.keys(ways) as Way[];
const samples = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Way, number[]>;

for (let i = 0; i < WARMUP + REQUESTS; i++) {
  // A rotating order, so no way always runs right after another.
  for (let k = 0; k < names.length; k++) {
    const name = names[(i + k) % names.length]!;
    const t = performance.now();
    await ways[name]();
    if (i >= WARMUP) samples[name].push(performance.now() - t);
  }
}
server.close();
mock.dispose();

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
for (const name of names) {
  console.log(`msw: ${name} median ${quantile(samples[name], 0.5).toFixed(4)} ms p99 ${quantile(samples[name], 0.99).toFixed(4)} ms (${samples[name].length} requests)`);
}
try {
  const size = await inProcessMockSize();
  console.log(`msw: bundle ${size.bytes} bytes gzip ${size.gzipBytes} bytes`);
} catch (error) {
  console.log(`msw: bundle failed: ${(error as Error).message.split('\n').slice(0, 6).join(' | ')}`);
}
