/**
 * Plans and scopes: the review and write scopes kept apart (AUTH-015); what the lowest plan allows
 * and refuses (AUTH-020..022).
 *
 * Scenes, through the hooks only: fresh accounts on a plan or with a feature off, a plan changed on
 * an account (the accounts hook), a campaign whose creatives the dashboard generates (the actors
 * hook, `readyCampaign`).
 */
import { expect, skipWhenAbsent, test, type ApiClient } from '../fixtures/index.ts';
import { allAssets, newKey, pick, readyCampaign, uniqueName, type Asset, type Product } from '../fixtures/resources.ts';

async function someAsset(api: ApiClient): Promise<Asset> {
  return pick(await allAssets(api), () => true, 'the account has no live asset');
}

// ---------------------------------------------------------------------------------------------
// Scopes and plans

test('AUTH-015 creatives:review and creatives:write are separate: each alone answers 403 API_TOKEN_SCOPE_DENIED on the other\'s operations', { tag: ['@hook:accounts', '@hook:actors', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1);
  const id = encodeURIComponent(creatives[0]!.creativeId);
  await expect(await api.as('creatives:review').patch(`/creatives/${id}`, { body: { metadata: { channel: 'conformance' } } }), 'PATCH with a creatives:review key').toBeProblem(403, 'API_TOKEN_SCOPE_DENIED');
  await expect(await api.as('creatives:write').post(`/creatives/${id}/approve`, { idempotencyKey: newKey('approve') }), 'approve with a creatives:write key').toBeProblem(403, 'API_TOKEN_SCOPE_DENIED');
  // The right scope is accepted: the 403s above are about the scope.
  await expect(await api.as('creatives:review').post(`/creatives/${id}/approve`, { idempotencyKey: newKey('approve') })).toHaveStatus(200);
});

test('AUTH-020 a read-only key works on the lowest plan', { tag: ['@hook:accounts', '@area:products'] }, async ({ accounts, apiFor }) => {
  const account = await accounts.create({ plan: 'starter' });
  await expect(await apiFor(account, 'read').get('/products', { query: { limit: 1 } })).toHaveStatus(200);
});

test('AUTH-021 on the lowest plan, creatives:write, creatives:review and assets:write operations are not refused for the plan', { tag: ['@hook:accounts', '@hook:actors', '@area:products', '@area:creatives', '@area:campaigns', '@area:assets'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 2);
  const asset = await someAsset(api);
  const changed = await hooks.updateAccount(account.accountId!, { plan: 'starter' });
  expect(changed.plan.name, 'the accounts hook put the account on the starter plan').toBe('starter');

  await expect(await api.get('/products', { query: { limit: 1 } }), 'a read on the starter plan').toHaveStatus(200);
  const [one, two] = creatives.map((c) => encodeURIComponent(c.creativeId));
  await expect(await api.as('creatives:write').patch(`/creatives/${one}`, { body: { metadata: { channel: 'conformance' } } }), 'creatives:write PATCH on starter').toHaveStatus(200);
  await expect(await api.as('creatives:review').post(`/creatives/${two}/approve`, { idempotencyKey: newKey('approve') }), 'creatives:review approve on starter').toHaveStatus(200);
  const patched = await api.as('assets:write').patch(`/assets/${encodeURIComponent(asset.assetId)}`, { body: { favorited: !asset.favorited } });
  await expect(patched, 'assets:write PATCH on starter').toHaveStatus(200);
  expect((patched.json as Asset).favorited).toBe(!asset.favorited);
});

test('AUTH-022 campaigns:write needs a plan with campaigns: POST /campaigns on starter, or with campaigns=false, answers 403 TIER_REQUIRED', { tag: ['@hook:accounts', '@area:products', '@area:campaigns'] }, async ({ accounts, apiFor }) => {
  const starter = await accounts.create({ plan: 'starter' });
  const noCampaigns = await accounts.create({ features: { campaigns: false } });
  for (const [what, account] of [['starter', starter], ['campaigns=false', noCampaigns]] as const) {
    const api = apiFor(account);
    const products = await api.get('/products', { query: { limit: 1 } });
    expect(products).toHaveStatus(200);
    const product = (products.json as { data: Product[] }).data[0];
    skipWhenAbsent(product === undefined, 'the account has no product');
    const body = { name: uniqueName('campaign'), brandId: product!.brandId, productIds: [product!.productId] };
    await expect(await api.as('campaigns:write').post('/campaigns', { body, idempotencyKey: newKey('campaign') }), `POST /campaigns on ${what}`).toBeProblem(403, 'TIER_REQUIRED');
  }
});
