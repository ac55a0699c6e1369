/**
 * The estimate (RUN-004, RUN-005, RUN-034, RUN-042, RUN-043, RUN-048): POST /runs/estimate takes
 * the body of POST /runs, writes and charges nothing, and reports the daily API credit budget when
 * the account has one, even one already too small for the run; the quote's price is the one pinned
 * on the run; the image-size refusals apply to it too (D34); it counts against the generation read
 * limit. Scenes are set through the conformance hooks (@hook:<name>): plans, credits, the rate card.
 */
import { expectCreatedNothing } from '../fixtures/shared-account.ts';
import { expect, needsOperations, skipWhenPlanLacks, test, type ApiClient } from '../fixtures/index.ts';
import { acceptedRun, createRun, credits, getRun, listRuns, presetId, runFeature, runItems, setCredits, setPlan, someProductIds, type RunBody } from '../fixtures/generation.ts';
import { allAssets } from '../fixtures/resources.ts';
import type { Schemas } from '../../../contract/spec/types.ts';

type Estimate = Schemas['RunEstimate'];
type Run = Schemas['Run'];

async function estimate(reader: ApiClient, body: RunBody): Promise<Estimate> {
  const response = await reader.post('/runs/estimate', { body });
  const feature = runFeature(body);
  if (feature !== undefined) skipWhenPlanLacks(reader, response, feature);
  expect(response).toHaveStatus(200);
  return response.json as Estimate;
}

async function runBody(api: ApiClient, products = 3, creativesPerProduct = 2): Promise<RunBody> {
  return { productIds: await someProductIds(api, products), creativesPerProduct, presetId: await presetId(api.as('runs:read')) };
}

test.beforeEach(({ target }) => {
  needsOperations(target, 'estimateRun', 'listRuns', 'createRun', 'listPresets');
});

/**
 * The runs of `after` not in `before` that are what these estimates priced: the same total and
 * estimated credits as one of the quotes and, where the items carry a productId, the products of its
 * body in order. On a shared account another client's run is none of these unless it made the very
 * same run meanwhile (RUN-004 on any target: a red is a run priced as the estimate was, D269).
 */
async function runsPricedAs(reader: ApiClient, before: readonly Run[], after: readonly Run[], quotes: readonly { body: RunBody; quote: Estimate }[]): Promise<Set<string>> {
  const known = new Set(before.map((r) => r.runId));
  const priced = new Set<string>();
  for (const run of after.filter((r) => !known.has(r.runId))) {
    for (const { body, quote } of quotes) {
      if (run.total !== quote.total || run.credits.estimated !== quote.credits?.estimated) continue;
      const products = (await runItems(reader, run.runId)).map((item) => (item as { productId?: string }).productId);
      const planned = body.productIds.flatMap((id) => Array<string>(body.creativesPerProduct).fill(id));
      if (products.some((id) => id === undefined) || JSON.stringify(products) === JSON.stringify(planned)) priced.add(run.runId);
    }
  }
  return priced;
}

test('RUN-004 RUN-034 AUTH-009 an estimate with the full body of POST /runs creates no run, with a runs:read key', { tag: ['@area:products', '@area:presets', '@area:runs', '@area:estimate'] }, async ({ api, account }) => {
  const reader = api.as('runs:read');
  // 3 products × 7: a total no other test asks for, so a run it prices stands out on a shared account too.
  const body: RunBody = { ...(await runBody(api, 3, 7)), modality: 'image', imageSize: '2K', referenceSource: 'ALL' };
  const small: RunBody = { productIds: body.productIds, creativesPerProduct: 1, presetId: body.presetId };
  const before = await listRuns(reader);
  const quotes: { body: RunBody; quote: Estimate }[] = [];
  for (let i = 0; i < 3; i += 1) quotes.push({ body, quote: await estimate(reader, body) });
  quotes.push({ body: small, quote: await estimate(reader, small) });
  const after = await listRuns(reader);
  // By id: runs of the account (history, other workers) move on meanwhile; none priced as an estimate may be added.
  const priced = await runsPricedAs(reader, before, after, quotes);
  const created = after.filter((r) => priced.has(r.runId)).map((r) => `${r.runId} (total ${r.total}, ${r.credits.estimated} credits, ${r.status})`);
  expect(created, `the estimates created no run: runs priced as the estimates appeared between the two lists of runs: ${created.join(', ') || 'none'}`).toEqual([]);
  expectCreatedNothing(account, 'the estimates', before, after, (run) => run.runId, (run) => priced.has(run.runId));
});

test('RUN-004 an estimate holds and charges nothing and writes nothing to the account', { tag: ['@hook:accounts', '@area:products', '@area:assets', '@area:presets', '@area:runs', '@area:estimate'] }, async ({ api, account, hooks }) => {
  const reader = api.as('runs:read');
  const body = await runBody(api);
  // The account is this test's alone (the accounts hook): what it holds after the estimates is what it held before.
  const before = { credits: await credits(hooks, account), runs: await listRuns(reader), assets: await allAssets(reader, true) };
  await estimate(reader, body);
  await estimate(reader, { ...body, imageSize: '4K' });
  expect(await credits(hooks, account), 'nothing held or charged').toEqual(before.credits);
  expect(await listRuns(reader), 'no run written').toEqual(before.runs);
  expect(await allAssets(reader, true), 'no asset written').toEqual(before.assets);
});

test('RUN-005 with a daily API credit budget the estimate reports budget, even when it is too small for the run', { tag: ['@hook:accounts', '@area:products', '@area:presets', '@area:estimate'] }, async ({ api, account, hooks }) => {
  const reader = api.as('runs:read');
  const body = await runBody(api);
  await setCredits(hooks, account, { dailyBudget: 1 });
  const small = await estimate(reader, body);
  expect(small.budget, `budget is reported although 1 credit cannot cover ${JSON.stringify(small.credits)}`).toBeDefined();
  await setCredits(hooks, account, { dailyBudget: 1_000 });
  expect((await estimate(reader, body)).budget).toBeDefined();
});

test('RUN-005 without a daily API credit budget the estimate omits budget', { tag: ['@hook:accounts', '@area:products', '@area:presets', '@area:estimate'] }, async ({ api, account, hooks }) => {
  const reader = api.as('runs:read');
  await setCredits(hooks, account, { dailyBudget: null });
  const quote = await estimate(reader, await runBody(api));
  expect(Object.hasOwn(quote, 'budget'), JSON.stringify(quote)).toBe(false);
});

test('RUN-048 RUN-005 the quote: object run_estimate, total, imageSize, credits and budget with dailyLimit, usedToday, remaining, resetsAt and sufficient', { tag: ['@assumed', '@hook:accounts', '@hook:clock', '@spend', '@area:products', '@area:presets', '@area:runs', '@area:estimate'] }, async ({ api, account, hooks, clock }) => {
  const reader = api.as('runs:read');
  const body = await runBody(api);
  await setCredits(hooks, account, { dailyBudget: 5 });
  const tooSmall = await estimate(reader, body);
  expect(tooSmall.object).toBe('run_estimate');
  expect(tooSmall.total).toBe(6);
  expect(tooSmall.imageSize, 'the default size').toBe('1K');
  expect(tooSmall.credits!.estimated).toBe(tooSmall.credits!.perCreative * 6);
  expect(tooSmall.budget).toMatchObject({ dailyLimit: 5, usedToday: 0, remaining: 5, sufficient: false });
  const resetsAt = Date.parse(tooSmall.budget!.resetsAt);
  const now = Date.parse((await clock.now()).now);
  expect(resetsAt, 'the budget day ends within a day').toBeGreaterThan(now);
  expect(resetsAt - now).toBeLessThanOrEqual(24 * 3600 * 1000);

  // What a run uses today counts: a 1-credit run leaves 4 of 5.
  const single = { ...body, productIds: body.productIds.slice(0, 1), creativesPerProduct: 1 };
  const run = await acceptedRun(api.as('runs:write'), single);
  for (let i = 0; i < 10 && (await getRun(reader, run.runId)).finalizedAt === null; i += 1) await clock.advance(5);
  const after = await estimate(reader, single);
  expect(after.budget).toMatchObject({ dailyLimit: 5, usedToday: 1, remaining: 4, sufficient: true });
});

test('RUN-041 RUN-042 the estimate of the same run is higher at 2K than at 1K and at 4K than at 2K; without imageSize it is the 1K price', { tag: ['@assumed', '@area:products', '@area:presets', '@area:estimate'] }, async ({ api }) => {
  const reader = api.as('runs:read');
  const body = await runBody(api, 2, 1);
  const price = async (imageSize?: '1K' | '2K' | '4K') => (await estimate(reader, { ...body, ...(imageSize ? { imageSize } : {}) })).credits!.estimated;
  const [byDefault, k1, k2, k4] = [await price(), await price('1K'), await price('2K'), await price('4K')];
  expect(byDefault).toBe(k1);
  expect(k2).toBeGreaterThan(k1);
  expect(k4).toBeGreaterThan(k2);
});

test('RUN-043 the price quoted by the estimate is pinned on the run at create time, whatever the rate card does afterwards', { tag: ['@assumed', '@hook:accounts', '@spend', '@area:products', '@area:presets', '@area:runs', '@area:estimate'] }, async ({ api, account, hooks }) => {
  const writer = api.as('runs:write');
  const body: RunBody = { ...(await runBody(api, 2, 1)), imageSize: '2K' };
  const quote = await estimate(writer, body);
  const created = await createRun(writer, body);
  expect(created).toHaveStatus(202);
  expect(created.json.credits).toEqual({ estimated: quote.credits!.estimated, rateCardVersion: quote.credits!.rateCardVersion });
  await setCredits(hooks, account, { rateCard: { version: 'conformance-2', image: { '2K': 50 } } });
  const requote = await estimate(writer, body);
  expect(requote.credits!.rateCardVersion).toBe('conformance-2');
  expect(requote.credits!.estimated).toBeGreaterThan(quote.credits!.estimated);
  expect((await getRun(writer, created.json.runId)).credits, 'the run keeps the price of its create').toEqual(created.json.credits);
});

test('ERR-016 ERR-021 AUTH-025 IMAGE_SIZE_NOT_ENTITLED and IMAGE_SIZE_UNPRICED refuse the estimate too, and nothing is written', { tag: ['@assumed', '@hook:accounts', '@area:products', '@area:presets', '@area:runs', '@area:estimate'] }, async ({ api, account, hooks }) => {
  const reader = api.as('runs:read');
  const body = await runBody(api);
  const before = await credits(hooks, account);
  await setPlan(hooks, account, { plan: 'growth' });
  await expect(await reader.post('/runs/estimate', { body: { ...body, imageSize: '4K' } })).toBeProblem(403, 'IMAGE_SIZE_NOT_ENTITLED');
  await setCredits(hooks, account, { rateCard: { image: { '2K': null } } });
  await expect(await reader.post('/runs/estimate', { body: { ...body, imageSize: '2K' } })).toBeProblem(409, 'IMAGE_SIZE_UNPRICED');
  await estimate(reader, { ...body, imageSize: '1K' });
  expect(await listRuns(reader)).toEqual([]);
  expect(await credits(hooks, account), 'nothing held or charged').toEqual(before);
});

test('RUN-039 an estimate naming an unknown product answers 404 PRODUCT_NOT_FOUND with the field in errors', { tag: ['@area:products', '@area:presets', '@area:estimate'] }, async ({ api }) => {
  const reader = api.as('runs:read');
  const body = await runBody(api, 1, 1);
  const response = await reader.post('/runs/estimate', { body: { ...body, productIds: [...body.productIds, 'prd_conformance_unknown_0000'] } });
  await expect(response).toBeProblem(404, 'PRODUCT_NOT_FOUND');
  expect((response.problem.errors ?? []).some((e) => e.field.startsWith('productIds')), JSON.stringify(response.problem.errors)).toBe(true);
});

test('RATE-008 the estimate counts against the generation read limit, not the write limit', { tag: ['@hook:accounts', '@area:products', '@area:presets', '@area:runs', '@area:estimate'] }, async ({ accounts, apiFor }) => {
  // A write quota of 0 refuses everything that counts against it, whatever the window.
  const account = await accounts.create({ rateLimits: { 'group:generation_write': 0 } });
  const reader = apiFor(account, 'runs:write').unpaced();
  const body = { productIds: await someProductIds(reader, 1), creativesPerProduct: 1, presetId: await presetId(reader) };
  for (let i = 0; i < 3; i += 1) {
    const response = await reader.post('/runs/estimate', { body });
    expect(response, `estimate ${i + 1} under a write quota of 0`).toHaveStatus(200);
    expect(response.header('ratelimit-policy'), 'the estimate is checked against the read limit').toMatch(/(^|, )120;w=60/);
  }
  await expect(await createRun(reader, body), 'the write quota of 0 is in force').toBeProblem(429, 'RATE_LIMITED');
});
