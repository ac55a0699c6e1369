/**
 * Benchmark: the wall time of a 1,000-item run in manual time — POST /runs, one clock advance that
 * settles every item, and the final GET /runs/{runId} — in process (mock.inject, no socket).
 * Not a timed test: it prints the figures. Usage: `npx tsx packages/mock/proofs/bench/runs.ts [repeats]`.
 */
import { performance } from 'node:perf_hooks';
import { mediaBase } from '../../../mock-core/src/media/links.ts';
import { nextId } from '../../../mock-core/src/domain/store.ts';
import { createHarness } from '../../../mock-core/src/testkit/harness.ts';

const repeats = Math.max(1, Number(process.argv[2] ?? 5));
const ITEMS = 1000;
const PER_PRODUCT = 10;

interface Sample {
  create: number;
  advance: number;
  get: number;
  total: number;
}

async function once(): Promise<Sample> {
  const h = await createHarness();
  try {
    const acct = await h.account({ plan: 'enterprise' });
    const state = acct.state;
    // The demo seed has 60 products; a 1,000-item run needs 100 at 10 creatives each.
    const ids = [...state.products.ids()];
    while (ids.length < ITEMS / PER_PRODUCT) {
      const productId = nextId(state, 'prd');
      state.products.set(productId, {
        productId,
        brandId: state.brands.ids()[0] ?? 'brd_bench',
        sku: null,
        title: `Bench product ${ids.length}`,
        primaryImageUrl: mediaBase(`${productId}.primary`, `Bench product ${ids.length}`),
        primaryImageWidth: 1024,
        primaryImageHeight: 1024,
        galleryImageUrls: [],
        createdAt: h.clock.now(),
      });
      ids.push(productId);
    }
    const key = acct.key('runs:write');

    const t0 = performance.now();
    const created = await h.request('POST', '/runs', {
      key,
      body: { productIds: ids.slice(0, ITEMS / PER_PRODUCT), creativesPerProduct: PER_PRODUCT, presetId: 'pst_studio_white' },
      headers: { 'idempotency-key': 'bench-1' },
    });
    if (created.status !== 202) throw new Error(`create: ${created.status} ${created.text}`);
    const t1 = performance.now();
    h.advance(created.body.estimatedCompletion.durationSeconds as number);
    const t2 = performance.now();
    const run = await h.request('GET', `/runs/${created.body.runId as string}`, { key });
    const t3 = performance.now();
    if (run.body.finalizedAt === null || run.body.counts.succeeded !== ITEMS) throw new Error(`run not final after one advance: ${run.text}`);
    return { create: t1 - t0, advance: t2 - t1, get: t3 - t2, total: t3 - t0 };
  } finally {
    await h.close();
  }
}

const samples: Sample[] = [];
for (let i = 0; i < repeats; i++) samples.push(await once());
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`1,000-item run, manual clock, ${repeats} repeat(s) (the first includes warm-up):`);
samples.forEach((s, i) => console.log(`  #${i + 1}: create ${fmt(s.create)}, one advance ${fmt(s.advance)}, final GET ${fmt(s.get)}, total ${fmt(s.total)}`));
console.log(`median total: ${fmt(median(samples.map((s) => s.total)))}; max total: ${fmt(Math.max(...samples.map((s) => s.total)))}`);
