/** `npm run bench`, phase 2: O(page) and memory with 100,000 creatives. */
import { performance } from 'node:perf_hooks';
import { freePort } from '../../../src/node/launch.ts';
import { BASE, CONNECTIONS, DURATION_MS, fmtInt, fmtMs, keepAlive, liftReadLimits, LIST, load, LOAD_HEADER, loadRow, type Measured, median, memory, request, start, stop, summary, table, verdict, verdicts, waitFor, WARMUP_MS } from '../common.ts';

async function walk(origin: string, key: string, maxPages: number): Promise<{ cursors: (string | null)[]; latencies: number[]; items: number }> {
  const cursors: (string | null)[] = [null];
  const latencies: number[] = [];
  let items = 0;
  let cursor: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const t0 = performance.now();
    const res = await request(origin, 'GET', `${BASE}${LIST}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { authorization: `Bearer ${key}` }, undefined, keepAlive);
    latencies.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`walk: ${res.status} ${res.body.toString()}`);
    const body = JSON.parse(res.body.toString()) as { data: unknown[]; pagination: { nextCursor: string | null } };
    items += body.data.length;
    cursor = body.pagination.nextCursor;
    if (cursor === null) break;
    cursors.push(cursor);
  }
  return { cursors, latencies, items };
}

export async function phasePage(): Promise<void> {
  console.log(`\n## 2. O(page): 100 vs 100,000 creatives, resident memory\n`);
  const port = await freePort();
  const large = start('large mock', ['--import', 'tsx', 'packages/mock/proofs/lib/large-mock.ts', '--port', String(port)]);
  const info = await waitFor('large mock', large, async () => {
    const line = large.output().split('\n').find((l) => l.startsWith('{'));
    return line ? (JSON.parse(line) as { port: number; pid: number; seedMs: number; accounts: Record<'small' | 'large', { accountId: string; readKey: string; creatives: number }> }) : undefined;
  });
  const afterSeed = memory(large.pid!);
  console.log(`seeded 100 + 100,000 creatives in ${info.seedMs} ms; RSS ${afterSeed.rssMb} MB (peak ${afterSeed.peakMb} MB)`);
  const origin = `http://127.0.0.1:${port}`;
  await liftReadLimits(origin);

  // Walk both accounts to the end, one page at a time (one connection, sequential).
  const small = await walk(origin, info.accounts.small.readKey, 10);
  const t0 = performance.now();
  const big = await walk(origin, info.accounts.large.readKey, 5000);
  const walkMs = performance.now() - t0;
  const pages = big.latencies.length;
  console.log(`walked the 100,000-creative account to its end: ${pages} pages, ${fmtInt(big.items)} creatives in ${(walkMs / 1000).toFixed(2)} s (sequential, one keep-alive connection, cold)`);
  if (big.items !== info.accounts.large.creatives || small.items !== info.accounts.small.creatives) throw new Error(`walk counted ${small.items} and ${big.items} creatives`);

  // Load: the small account's 2 pages vs 7 pages of the large one (first 5, the middle, the last).
  const q = (c: string | null) => `${BASE}${LIST}${c ? `&cursor=${encodeURIComponent(c)}` : ''}`;
  const smallPaths = small.cursors.map(q);
  const mid = Math.floor(big.cursors.length / 2);
  const largePaths = [...big.cursors.slice(0, 5), big.cursors[mid]!, big.cursors[big.cursors.length - 1]!].map(q);
  const run = (paths: string[], key: string) => load(large.pid!, { origin, paths, headers: { authorization: `Bearer ${key}` }, connections: CONNECTIONS, warmupMs: WARMUP_MS, durationMs: DURATION_MS });
  const smallR: Measured[] = [];
  const largeR: Measured[] = [];
  const rows: (string | number)[][] = [];
  for (const which of ['small', 'large', 'large', 'small'] as const) {
    const r = which === 'small' ? await run(smallPaths, info.accounts.small.readKey) : await run(largePaths, info.accounts.large.readKey);
    (which === 'small' ? smallR : largeR).push(r);
    const label = which === 'small' ? '100 creatives (pages 1-2)' : '100,000 creatives (pages 1-5, middle, last)';
    rows.push(loadRow(label, r));
    console.log(`  ${label.padEnd(44)} ${fmtInt(r.rps).padStart(7)} req/s  p50 ${fmtMs(r.latencyMs.p50)} ms  p99 ${fmtMs(r.latencyMs.p99)} ms  errors ${r.errors + r.non2xx}`);
  }
  const afterLoad = memory(large.pid!);
  console.log(`\n${table(LOAD_HEADER, rows)}\n`);

  // Warm now: one page at a time (no queueing), the first page of each account and deep pages.
  const SEQ = 400;
  const positions: [string, string, string][] = [
    ['100 creatives, page 1', smallPaths[0]!, info.accounts.small.readKey],
    ['100 creatives, page 2 (last)', smallPaths[1]!, info.accounts.small.readKey],
    ['100,000 creatives, page 1', largePaths[0]!, info.accounts.large.readKey],
    [`100,000 creatives, page ${mid + 1} (middle)`, largePaths[5]!, info.accounts.large.readKey],
    [`100,000 creatives, page ${big.cursors.length} (last)`, largePaths[6]!, info.accounts.large.readKey],
  ];
  // Interleaved, so that a burst of other load on the machine hits every position alike.
  const lat: number[][] = positions.map(() => []);
  for (let i = 0; i < SEQ; i++) {
    for (let k = 0; k < positions.length; k++) {
      const j = (i + k) % positions.length; // each cycle starts one position later
      const [label, p, key] = positions[j]!;
      const t = performance.now();
      const res = await request(origin, 'GET', p, { authorization: `Bearer ${key}` }, undefined, keepAlive);
      lat[j]!.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`${label}: ${res.status}`);
    }
  }
  const seqRows = positions.map(([label], j) => {
    const sorted = lat[j]!.sort((a, b) => a - b);
    return [label, fmtMs(median(sorted)), fmtMs(sorted[Math.ceil(sorted.length * 0.99) - 1]!)];
  });
  const p50s = lat.map((l) => median(l));
  const pageCostRatio = Math.max(...p50s.slice(2)) / Math.max(...p50s.slice(0, 2));
  const seqTable = table([`one request at a time, interleaved (${SEQ} each)`, 'p50 ms', 'p99 ms'], seqRows);
  console.log(`${seqTable}\n`);
  const ratio = median(largeR.map((r) => r.rps)) / median(smallR.map((r) => r.rps));
  const p50Ratio = median(largeR.map((r) => r.latencyMs.p50)) / median(smallR.map((r) => r.latencyMs.p50));
  const errors = [...smallR, ...largeR].reduce((n, r) => n + r.errors + r.non2xx, 0);
  const lines = [
    `- cost of a page, 100,000 creatives / 100 creatives (one request at a time, interleaved; the slowest page position of each, p50): **${pageCostRatio.toFixed(2)}** (target: the same cost, ≤ 1.5; a scan of the 100,000 rows would cost tens of times more): ${verdict(pageCostRatio <= 1.5)}`,
    `- throughput under load, 100,000 creatives / 100 creatives: ${ratio.toFixed(2)} (p50 latency ratio ${p50Ratio.toFixed(2)}; for information: it moves with the machine's other load, see the rounds above)`,
    `- a full walk of the 100,000 creatives: ${pages} pages in ${(walkMs / 1000).toFixed(2)} s, one page at a time, cold`,
    `- resident memory of the mock with 100,100 creatives: ${afterSeed.rssMb} MB after seeding (${info.seedMs} ms), ${afterLoad.rssMb} MB after the load, peak **${afterLoad.peakMb} MB** (target < 300 MB): ${verdict(afterLoad.peakMb < 300)}`,
    `- errors or non-2xx answers under load: ${errors}: ${verdict(errors === 0)}`,
  ];
  console.log(lines.join('\n'));
  verdicts.push(...lines);
  summary.push(
    `### 100 vs 100,000 creatives in one account (GET /creatives?limit=50, ${CONNECTIONS} connections, cursors walked)`,
    '',
    table(['account', 'req/s (median)', 'p50 ms', 'p99 ms'], [
      ['100 creatives', fmtInt(median(smallR.map((r) => r.rps))), fmtMs(median(smallR.map((r) => r.latencyMs.p50))), fmtMs(median(smallR.map((r) => r.latencyMs.p99)))],
      ['100,000 creatives', fmtInt(median(largeR.map((r) => r.rps))), fmtMs(median(largeR.map((r) => r.latencyMs.p50))), fmtMs(median(largeR.map((r) => r.latencyMs.p99)))],
    ]),
    '',
    seqTable,
    '',
    ...lines,
    '',
  );
  keepAlive.destroy();
  await stop(large);
}
