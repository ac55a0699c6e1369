/**
 * The exam's task list (docs/client-check.md, "The task list"), performed by the example client:
 * what an SDK's example program does so that every client rule gets exercised under
 * `cgs-client-check`. Reads CGS_BASE_URL and CGS_API_KEY from the environment.
 *
 *   npx cgs-client-check -- node node_modules/@creative-generation/exams/examples/client/tasks.js   (installed)
 *   npx tsx packages/exams/bin/cgs-client-check.ts -- node --import tsx examples/client/tasks.ts   (the repository)
 *
 * 1. List every creative to the end (small pages: sparse and empty pages come before the last).
 * 2. List every campaign to the end (some carry a `status` no client knows: keep them).
 * 3. Read products by sku (a list) and by productId; join creatives to products on productId.
 * 4. Patch a creative's metadata with If-Match; after a 412, read it again and retry with the new ETag.
 * 5. Send one patch the document allows that the service refuses (51 new metadata keys: a merge
 *    may leave at most 50): a 422, not sent again.
 * 6. Approve a pending creative (Idempotency-Key).
 * 7. Create a campaign (Idempotency-Key).
 * 8. Create a run, poll it until finalizedAt is set, then read its items to the end (if the
 *    connection drops after the run was created, the client sends it again with the same key and
 *    gets the same run back: CLIENT-023).
 * 9. Read with the expired key of CGS_KEYS (`expired`): the 401 is surfaced, never sent again
 *    unchanged (CLIENT-019).
 *
 * With EXAMPLE_CLIENT_PARALLEL=1 the independent steps go at once: the three lists, six reads of
 * products by sku, and the approve, three campaign creates, the run and the expired key's read (the
 * exam judges each request's retry under any interleaving, D259).
 */
import { ApiProblem, Client, type Fault } from './client.ts';

interface Creative { creativeId: string; productId: string; status?: string; metadata?: Record<string, string> }
interface Campaign { campaignId: string; brandId: string; status: string }
interface Product { productId: string; sku: string | null; title: string }
interface Run { runId: string; finalizedAt: string | null; status: string }

const KNOWN_CAMPAIGN_STATUSES = new Set(['IN_PROGRESS', 'CREATING', 'COMPLETED', 'ARCHIVED']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => console.log(`[tasks] ${line}`);

/** Options of the task list: `parallel` sends the independent reads and writes at once (EXAMPLE_CLIENT_PARALLEL=1). */
export interface TaskOptions {
  parallel?: boolean;
}

export async function performTasks(client: Client, keys: Record<string, string> = {}, options: TaskOptions = {}): Promise<void> {
  const parallel = options.parallel === true;
  /** Independent steps: at once when parallel, else one after another in order. */
  const each = async <T>(steps: (() => Promise<T>)[]): Promise<T[]> => {
    if (parallel) return Promise.all(steps.map((step) => step()));
    const out: T[] = [];
    for (const step of steps) out.push(await step());
    return out;
  };

  // 1. Every creative, to the end. 2. Every campaign, to the end, whatever its status. 3. Products.
  const [creatives, campaigns, products] = await each<unknown[]>([
    () => client.all<Creative>('/creatives', { limit: 5 }),
    async () => {
      const out: Campaign[] = [];
      for await (const campaign of client.list<Campaign>('/campaigns', { limit: 5 })) {
        if (client.fault === 'break-on-unknown-status' && !KNOWN_CAMPAIGN_STATUSES.has(campaign.status)) throw new Error(`unknown campaign status ${campaign.status}`);
        out.push(campaign);
      }
      return out;
    },
    () => client.all<Product>('/products', { limit: 50 }),
  ]) as [Creative[], Campaign[], Product[]];
  log(`1. ${creatives.length} creatives`);
  log(`2. ${campaigns.length} campaigns`);

  // 3. Products by sku (a list) and by productId; the join is on productId. Parallel: six skus at once.
  const skus = [...new Set(products.map((p) => p.sku).filter((sku): sku is string => sku !== null))].slice(0, parallel ? 6 : 1);
  await each(skus.map((sku) => async () => log(`3. sku ${sku} names ${(await client.all<Product>('/products', { sku, limit: 50 })).length} product(s)`)));
  const one = creatives[0];
  if (one) {
    const product = await client.request<Product>('GET', `/products/${one.productId}`);
    log(`3. creative ${one.creativeId} joins product ${product.body.productId}`);
  }

  // 4. Patch with If-Match; a 412 means read again, then retry with the new ETag.
  if (one) {
    let read = await client.request<Creative>('GET', `/creatives/${one.creativeId}`);
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await client.request('PATCH', `/creatives/${one.creativeId}`, { body: { metadata: { exam: 'checked' } }, ifMatch: read.etag!, idempotencyKey: false });
        log(`4. patched ${one.creativeId}`);
        break;
      } catch (error) {
        // The fault `unquoted-if-match` logs the 400 and carries on, as a careless integration does.
        if (client.fault === 'unquoted-if-match' && error instanceof ApiProblem && error.status === 400) {
          log(`4. patch refused: ${error.status} ${error.code ?? ''}; carrying on`);
          break;
        }
        if (!(error instanceof ApiProblem) || error.code !== 'PRECONDITION_FAILED') throw error;
        if (client.fault !== 'no-reread-after-412') read = await client.request<Creative>('GET', `/creatives/${one.creativeId}`);
      }
    }

    // 5. A patch the document allows that the service refuses: 51 new metadata keys (a merge may
    //    leave at most 50): 422, handled, not sent again unchanged.
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`exam${i}`, 'x']));
    const invalid = () => client.request('PATCH', `/creatives/${one.creativeId}`, { body: { metadata: tooMany }, idempotencyKey: false });
    try {
      await invalid();
    } catch (error) {
      if (!(error instanceof ApiProblem) || error.code !== 'VALIDATION_ERROR') throw error;
      log(`5. patch refused: ${error.status} ${error.code}`);
      if (client.fault === 'retry-422') await invalid().catch(() => undefined);
    }
  }

  // 6. Approve a pending creative. 7. Create a campaign (parallel: three at once). 8. A run:
  //    create, poll until finalizedAt, then read its items. 9. The expired key.
  const pending = creatives.find((c) => c.status === 'PENDING');
  const brandId = campaigns[0]?.brandId;
  const brandProducts = brandId ? await client.all<Product>('/products', { brandId, limit: 50 }) : [];
  const presets = await client.all<{ presetId: string }>('/presets');
  const approve = async () => {
    if (!pending) return;
    await client.request('POST', `/creatives/${pending.creativeId}/approve`, { idempotencyKey: client.fault === 'no-key-on-approve' ? false : client.newKey() }).then(
      () => log(`6. approved ${pending.creativeId}`),
      (error: unknown) => log(`6. approve refused: ${String(error)}`),
    );
  };
  const createCampaign = (n: number) => async () => {
    if (!brandId || !brandProducts.length) return;
    const created = await client.request<Campaign>('POST', '/campaigns', { body: { name: `Exam campaign ${n}`, brandId, productIds: brandProducts.slice(0, 2).map((p) => p.productId) }, idempotencyKey: client.newKey() });
    log(`7. created campaign ${created.body.campaignId}`);
  };
  const run = async () => {
    if (!presets[0] || !products[0]) return;
    const created = await client.request<Run>('POST', '/runs', { body: { productIds: [products[0].productId], creativesPerProduct: 2, presetId: presets[0].presetId }, idempotencyKey: client.newKey() });
    let current = created.body;
    if (client.fault !== 'items-before-final') {
      while (current.finalizedAt === null) {
        await sleep(250);
        current = (await client.request<Run>('GET', `/runs/${current.runId}`)).body;
      }
    }
    const items = await client.all<{ jobId: string }>(`/runs/${current.runId}/items`, { limit: 1 });
    log(`8. run ${current.runId} ${current.status}: ${items.length} items`);
  };
  const expired = async () => {
    // 9. An expired key: its 401 is surfaced to the caller, never sent again unchanged.
    if (!keys.expired) return;
    const other = new Client(client.baseUrl, keys.expired, client.fault);
    const read = () => other.request('GET', '/presets');
    try {
      await read();
      throw new Error('the expired key was accepted');
    } catch (error) {
      if (!(error instanceof ApiProblem) || error.status !== 401) throw error;
      log('9. the expired key answers 401: a new key is needed');
      if (client.fault === 'retry-401') await read().catch(() => undefined);
    }
  };
  await each([approve, ...(parallel ? [1, 2, 3] : [1]).map(createCampaign), run, expired]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const base = process.env.CGS_BASE_URL;
  const key = process.env.CGS_API_KEY;
  if (!base || !key) {
    console.error('CGS_BASE_URL and CGS_API_KEY must be set (cgs-client-check sets them)');
    process.exit(2);
  }
  const fault = (process.env.EXAMPLE_CLIENT_FAULT || undefined) as Fault | undefined;
  const keys = JSON.parse(process.env.CGS_KEYS ?? '{}') as Record<string, string>;
  performTasks(new Client(base, key, fault), keys, { parallel: process.env.EXAMPLE_CLIENT_PARALLEL === '1' }).then(
    () => log('done'),
    (error: unknown) => {
      console.error(`[tasks] failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
