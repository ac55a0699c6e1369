/**
 * The exam's task list (docs/client-check.md, "The task list") done with the generated client's
 * SDK (sdk.ts): what an SDK team's example program looks like when its client is generated.
 * Reads CGS_BASE_URL, CGS_API_KEY and CGS_KEYS (cgs-client-check sets them).
 *
 *   npx cgs-client-check -- node --import tsx examples/generated-client/tasks.ts
 *
 * Reads that do not depend on each other are sent side by side (the products of several
 * creatives); everything else waits for what it needs. Exit 0 when every task is done, 1 with
 * the error otherwise.
 */
import { ApiError, collect, createSdk, type Creative, type Product, type Sdk } from './sdk.ts';

const log = (line: string) => console.log(`[generated-client] ${line}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function performTasks(sdk: Sdk, keys: Record<string, string>, baseUrl: string): Promise<void> {
  // 1. Every creative, in pages of 5, to the end.
  const creatives: Creative[] = await collect(sdk.creatives({ limit: 5 }));
  log(`1. ${creatives.length} creatives`);

  // 2. Every campaign, to the end; a status this SDK does not know is kept as it is.
  const campaigns = await collect(sdk.campaigns({ limit: 5 }));
  log(`2. ${campaigns.length} campaigns (statuses: ${[...new Set(campaigns.map((c) => c.status))].join(', ')})`);

  // 3. Products by sku (a list: a sku names any number) and by productId, side by side; the join is on productId.
  const products: Product[] = await collect(sdk.products({ limit: 50 }));
  const withSku = products.find((p) => p.sku !== null);
  if (withSku) log(`3. sku ${withSku.sku} names ${(await collect(sdk.products({ sku: withSku.sku!, limit: 50 }))).length} product(s)`);
  const productIds = [...new Set(creatives.slice(0, 3).map((c) => c.productId))];
  const joined = await Promise.all(productIds.map((id) => sdk.product(id)));
  log(`3. ${joined.length} products read by id: ${joined.map((p) => p.productId).join(', ')}`);

  // 4. A conditional edit: If-Match from the ETag cache; a 412 re-reads and retries (inside update).
  const first = creatives[0];
  if (first) {
    await sdk.creative(first.creativeId);
    const edited = await sdk.update(first.creativeId, { metadata: { exam: 'generated-client' } });
    log(`4. patched ${edited.creativeId}`);

    // 5. A patch the document allows that the service refuses: 51 new metadata keys (a merge may
    //    leave at most 50): 422, reported, not sent again. (A ratio outside the delivery ratios is a
    //    request the document does not allow: that fails CLIENT-024, docs/client-check.md.)
    try {
      await sdk.patchUnconditionally(first.creativeId, { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`generated${i}`, 'x'])) });
      throw new Error('the patch of 51 new metadata keys was accepted');
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'VALIDATION_ERROR') throw error;
      log(`5. invalid patch refused: ${error.status} ${error.code}`);
    }
  }

  // 6. Approve a pending creative (an Idempotency-Key per logical request).
  const pending = creatives.find((c) => c.status === 'PENDING');
  if (pending) log(`6. approved ${(await sdk.approve(pending.creativeId)).creativeId}`);

  // 7. Create a campaign with products of one brand.
  const brandId = campaigns[0]?.brandId;
  const ofBrand = brandId ? await collect(sdk.products({ brandId, limit: 50 })) : [];
  if (brandId && ofBrand.length) {
    const campaign = await sdk.createCampaign({ name: 'Generated client campaign', brandId, productIds: ofBrand.slice(0, 2).map((p) => p.productId) });
    log(`7. created campaign ${campaign.campaignId}`);
  }

  // 8. A run: create it, poll until finalizedAt is set, then read its items to the end.
  const [preset] = await collect(sdk.presets());
  if (preset && products[0]) {
    let run = await sdk.createRun({ productIds: [products[0].productId], creativesPerProduct: 2, presetId: preset.presetId, modality: 'image' });
    while (run.finalizedAt === null) {
      await sleep(250);
      run = await sdk.run(run.runId);
    }
    const items = await collect(sdk.runItems(run.runId, { limit: 1 }));
    log(`8. run ${run.runId} ${run.status}: ${items.length} items`);
  }

  // 9. The expired key: its 401 is the caller's to see (a new key is needed), never sent again.
  if (keys.expired) {
    try {
      await collect(createSdk({ baseUrl, key: keys.expired }).presets());
      throw new Error('the expired key was accepted');
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      log(`9. the expired key answers 401 ${error.code}: a new key is needed`);
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const baseUrl = process.env.CGS_BASE_URL;
  const key = process.env.CGS_API_KEY;
  if (!baseUrl || !key) {
    console.error('CGS_BASE_URL and CGS_API_KEY must be set (cgs-client-check sets them)');
    process.exit(2);
  }
  const keys = JSON.parse(process.env.CGS_KEYS ?? '{}') as Record<string, string>;
  performTasks(createSdk({ baseUrl, key }), keys, baseUrl).then(
    () => log('done'),
    (error: unknown) => {
      console.error(`[generated-client] failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
