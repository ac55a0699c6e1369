/**
 * Upscales (UPSC-*, ASST-005/006 and the upscale refusals ERR-015, ERR-017, ERR-022, ERR-023,
 * ERR-038): POST /upscales answers 202 with Location; the upscale goes QUEUED → PROCESSING →
 * SUCCEEDED on the clock; its result is a NEW asset with `derivation` (parent and root through a
 * chain of upscales) and the original is never changed; credits are charged only for a delivered
 * image and nothing is refunded when the result is deleted; each refusal is decided before anything
 * is held or written.
 *
 * Sources are picked from the account's assets by what they are (a live, non-derived still image
 * below the target's size), never by id. Scenes are set through the conformance hooks
 * (@hook:<name>); credits are judged by the account's balance, held and charged credits before and
 * after (the accounts hook), never by a price assumed.
 */
import { isShared } from '../fixtures/shared-account.ts';
import { expect, skipWhenAbsent, skipWhenPlanLacks, needsOperations, test, type Account, type ApiClient, type ApiResponse, type ProblemBody } from '../fixtures/index.ts';
import {
  allAssets,
  createRun,
  credits,
  getUpscale,
  heldAndCharged,
  idempotencyKey,
  locationPath,
  pollUpscale,
  presetId,
  setCredits,
  setFaults,
  setOutcomes,
  setPlan,
  someProducts,
  someProductIds,
  stillImageAsset,
  type Asset,
  type Upscale,
  type UpscaleBody,
} from '../fixtures/generation.ts';
import { parseRateLimit, parseRateLimitPolicy } from '../checks/grammar.ts';

async function createUpscale(writer: ApiClient, body: UpscaleBody, key = idempotencyKey()): Promise<ApiResponse<Upscale>> {
  const response = (await writer.post('/upscales', { body, idempotencyKey: key })) as ApiResponse<Upscale>;
  skipWhenPlanLacks(writer, response, `upscales to ${body.target}`);
  return response;
}

async function readAsset(reader: ApiClient, assetId: string): Promise<ApiResponse<Asset>> {
  return (await reader.get(`/assets/${encodeURIComponent(assetId)}`)) as ApiResponse<Asset>;
}

/** The ids of the assets that appeared since `before`. */
async function newAssets(reader: ApiClient, before: readonly Asset[]): Promise<Asset[]> {
  const known = new Set(before.map((a) => a.assetId));
  return (await allAssets(reader)).filter((a) => !known.has(a.assetId));
}

function uniformPart(response: ApiResponse): Omit<ProblemBody, 'requestId' | 'instance'> {
  const { requestId: _requestId, instance: _instance, ...rest } = response.problem;
  return rest;
}

const STATUSES = ['QUEUED', 'PROCESSING', 'SUCCEEDED', 'FAILED'];

test.beforeEach(({ target }) => {
  needsOperations(target, 'createUpscale', 'getUpscale', 'listAssets', 'getAsset');
});

test('UPSC-009 UPSC-010 UPSC-005 UPSC-007 UPSC-008 UPSC-001 UPSC-002 ASST-005 IDEM-001 POST /upscales answers 202 with Location; the upscale ends SUCCEEDED with a NEW asset, and the original is unchanged', { tag: ['@spend', '@hook:clock', '@area:assets', '@area:upscales'] }, async ({ api, clock, target }) => {
  const writer = api.as('runs:write');
  const source = await stillImageAsset(writer, 2048);
  const original = await readAsset(writer, source.assetId);
  expect(original).toHaveStatus(200);
  const before = await allAssets(writer);

  const created = await createUpscale(writer, { source: { assetId: source.assetId }, target: '2K' });
  expect(created).toHaveStatus(202);
  const upscale = created.json;
  expect(typeof upscale.upscaleId).toBe('string');
  expect(STATUSES).toContain(upscale.status);
  const path = locationPath(created, target.basePath);
  expect(path).toBe(`/upscales/${upscale.upscaleId}`);
  const read = await writer.get(path);
  expect(read).toHaveStatus(200);
  expect((read.json as Upscale).upscaleId).toBe(upscale.upscaleId);

  const { final, readings } = await pollUpscale(writer, clock, upscale.upscaleId);
  for (const reading of readings) expect(STATUSES, JSON.stringify(reading)).toContain(reading.status);
  expect(final.status).toBe('SUCCEEDED');

  const added = await newAssets(writer, before);
  expect(added.length, `exactly one new asset: ${JSON.stringify(added.map((a) => a.assetId))}`).toBe(1);
  const result = await readAsset(writer, added[0]!.assetId);
  expect(result, 'the result asset is readable').toHaveStatus(200);
  expect(result.json.assetId).not.toBe(source.assetId);
  expect(result.json.derivation).toEqual({ kind: 'ai_rerender', operation: 'image_upscale', parentAssetId: source.assetId, rootAssetId: source.assetId });

  const after = await readAsset(writer, source.assetId);
  expect(after.json, 'the original asset is unchanged').toEqual(original.json);
  expect(after.header('etag'), 'its ETag too').toBe(original.header('etag'));
});

test('UPSC-007 UPSC-006 UPSC-008 the upscale moves QUEUED → PROCESSING → SUCCEEDED on the clock and names its result in assetId', { tag: ['@assumed', '@spend', '@hook:clock', '@area:assets', '@area:upscales'] }, async ({ api, clock }) => {
  const writer = api.as('runs:write');
  const source = await stillImageAsset(writer, 2048);
  const created = await createUpscale(writer, { source: { assetId: source.assetId }, target: '2K' });
  expect(created).toHaveStatus(202);
  expect(created.json.status).toBe('QUEUED');
  expect(created.json.assetId ?? null).toBeNull();
  expect(created.json.target).toBe('2K');
  expect(created.json.source).toEqual({ assetId: source.assetId });
  const { final, readings } = await pollUpscale(writer, clock, created.json.upscaleId, { stepSeconds: 1 });
  const order = ['QUEUED', 'PROCESSING', 'SUCCEEDED'];
  const seen = [created.json, ...readings].map((u) => order.indexOf(u.status));
  expect(seen.every((i) => i >= 0), `statuses ${JSON.stringify(readings.map((r) => r.status))}`).toBe(true);
  expect(seen, 'the status never goes back').toEqual([...seen].sort((a, b) => a - b));
  for (const reading of readings) if (reading.status !== 'SUCCEEDED') expect(reading.assetId ?? null).toBeNull();
  expect(final.assetId, 'assetId names the result once SUCCEEDED').toBeTruthy();
  expect(final.finalizedAt).toBeTruthy();
  const asset = await readAsset(writer, final.assetId!);
  expect(asset).toHaveStatus(200);
  expect(Math.max(asset.json.width, asset.json.height), '2K is 2048 px on the long edge').toBe(2048);
  expect(asset.json.derivation?.parentAssetId).toBe(source.assetId);
});

test('ASST-005 ASST-006 UPSC-001 an upscale of an upscale keeps the chain: parentAssetId is the direct source, rootAssetId the first asset', { tag: ['@spend', '@hook:clock', '@area:assets', '@area:upscales'] }, async ({ api, clock }) => {
  const writer = api.as('runs:write');
  const root = await stillImageAsset(writer, 2048);
  expect(Object.hasOwn(root, 'derivation'), 'an asset not made by an upscale has no derivation').toBe(false);

  const before = await allAssets(writer);
  const first = await createUpscale(writer, { source: { assetId: root.assetId }, target: '2K' });
  expect(first).toHaveStatus(202);
  expect((await pollUpscale(writer, clock, first.json.upscaleId)).final.status).toBe('SUCCEEDED');
  const [middle] = await newAssets(writer, before);
  expect(middle?.derivation).toEqual({ kind: 'ai_rerender', operation: 'image_upscale', parentAssetId: root.assetId, rootAssetId: root.assetId });

  const beforeSecond = await allAssets(writer);
  const second = await createUpscale(writer, { source: { assetId: middle!.assetId }, target: '4K' });
  expect(second).toHaveStatus(202);
  expect((await pollUpscale(writer, clock, second.json.upscaleId)).final.status).toBe('SUCCEEDED');
  const [last] = await newAssets(writer, beforeSecond);
  expect(last?.derivation).toEqual({ kind: 'ai_rerender', operation: 'image_upscale', parentAssetId: middle!.assetId, rootAssetId: root.assetId });
  for (const asset of [middle!, last!]) expect((await readAsset(writer, asset.assetId)).json.derivation, 'GET /assets/{id} shows the same derivation').toEqual(asset.derivation);
  expect(Object.hasOwn((await readAsset(writer, root.assetId)).json, 'derivation'), 'the root still has none').toBe(false);
});

test('UPSC-004 credits are held on accept and charged only for the delivered image; nothing is refunded when the result is deleted', { tag: ['@hook:accounts', '@hook:clock', '@spend', '@area:assets', '@area:upscales'] }, async ({ api, account, hooks, clock }) => {
  const writer = api.as('runs:write');
  const source = await stillImageAsset(writer, 2048);
  const before = await allAssets(writer);
  const start = heldAndCharged(await credits(hooks, account));
  const created = await createUpscale(writer, { source: { assetId: source.assetId }, target: '2K' });
  expect(created).toHaveStatus(202);
  const accepted = heldAndCharged(await credits(hooks, account));
  // The price is what the accept held (no price is assumed); it is charged once the image is delivered.
  const price = accepted.held - start.held;
  if (created.json.status === 'QUEUED' || created.json.status === 'PROCESSING') {
    expect(price, 'credits are held when the request is accepted').toBeGreaterThan(0);
    expect(accepted.charged, 'nothing charged before delivery').toBe(start.charged);
  }
  expect((await pollUpscale(writer, clock, created.json.upscaleId)).final.status).toBe('SUCCEEDED');
  const deliveredRead = await credits(hooks, account);
  const delivered = heldAndCharged(deliveredRead);
  expect(delivered.charged - start.charged, 'charged for the delivered image').toBeGreaterThan(0);
  if (price > 0) expect(delivered.charged - start.charged, 'charged what was held').toBe(price);
  expect(delivered.held, 'the hold is released').toBe(start.held);

  const [result] = await newAssets(writer, before);
  const deleted = await api.as('assets:write').delete(`/assets/${encodeURIComponent(result!.assetId)}`);
  expect(deleted).toHaveStatus(200);
  await clock.advance(60);
  expect(await credits(hooks, account), 'nothing refunded for a delivered render').toEqual(deliveredRead);
});

test('UPSC-004 UPSC-007 a FAILED upscale charges nothing and adds no asset', { tag: ['@hook:accounts', '@hook:clock', '@hook:outcomes', '@spend', '@area:assets', '@area:upscales'] }, async ({ api, account, hooks, clock }) => {
  const writer = api.as('runs:write');
  await setOutcomes(hooks, account, { upscales: ['failed'] });
  const source = await stillImageAsset(writer, 2048);
  const before = await allAssets(writer);
  const start = await credits(hooks, account);
  const created = await createUpscale(writer, { source: { assetId: source.assetId }, target: '2K' });
  expect(created).toHaveStatus(202);
  const { final } = await pollUpscale(writer, clock, created.json.upscaleId);
  expect(final.status).toBe('FAILED');
  const end = await credits(hooks, account);
  expect(heldAndCharged(end).charged, 'nothing charged').toBe(heldAndCharged(start).charged);
  expect(end.balance).toBe(start.balance);
  expect(end.held, 'the hold is released').toBe(start.held);
  expect(await newAssets(writer, before), 'no asset was delivered').toEqual([]);
});

test('IDEM-001 IDEM-005 IDEM-006 IDEM-007 a POST /upscales replayed under its key returns the same upscale and holds once; without a key it is refused', { tag: ['@hook:accounts', '@spend', '@area:assets', '@area:upscales'] }, async ({ api, account, hooks }) => {
  const writer = api.as('runs:write');
  const source = await stillImageAsset(writer, 2048);
  const body: UpscaleBody = { source: { assetId: source.assetId }, target: '2K' };
  await expect(await writer.post('/upscales', { body }), 'no Idempotency-Key').toBeProblem(400, 'IDEMPOTENCY_KEY_REQUIRED');
  const key = idempotencyKey();
  const start = heldAndCharged(await credits(hooks, account));
  const first = await createUpscale(writer, body, key);
  expect(first).toHaveStatus(202);
  const once = heldAndCharged(await credits(hooks, account));
  const replay = await createUpscale(writer, body, key);
  expect(replay).toHaveStatus(202);
  expect(replay.json).toEqual(first.json);
  expect(replay.header('location')).toBe(first.header('location'));
  // Held and charged together: the upscale may settle meanwhile on a real clock, moving its hold into a charge.
  const committed = (c: { held: number; charged: number }): number => c.held + c.charged;
  expect(committed(once) - committed(start), 'the first request held credits').toBeGreaterThan(0);
  expect(committed(heldAndCharged(await credits(hooks, account))), 'one hold: the replay executed nothing').toBe(committed(once));
});

// ---------------------------------------------------------------------------------------------
// Pinned parts (run under --grep-invert @assumed; the decided parts are in the @assumed tests)

test('UPSC-011 POST /upscales takes source { assetId } and target 2K or 4K; another target is refused', { tag: ['@spend', '@area:assets', '@area:upscales'] }, async ({ api, account }) => {
  // The values of source.image (the product-image form) are a gap (UPSC-012, @assumed below).
  const writer = api.as('runs:write');
  const source = await stillImageAsset(writer, 2048);
  // The refusals first: once an upscale of this source is under way, another would be refused anyway.
  for (const [what, body] of [
    ['target 8K', { source: { assetId: source.assetId }, target: '8K' }],
    ['no target', { source: { assetId: source.assetId } }],
    ['no source', { target: '4K' }],
  ] as const) {
    const refused = await writer.post('/upscales', { body, idempotencyKey: idempotencyKey() });
    expect([400, 422], `${what} is refused as a malformed body: ${refused.describe()}`).toContain(refused.status);
  }
  await expect(await upscaleOfLiveSource(writer, account, source, '4K'), 'target 4K').toHaveStatus(202);
  await expect(await upscaleOfLiveSource(writer, account, await stillImageAsset(writer, 2048, [source.assetId]), '2K', [source.assetId]), 'target 2K').toHaveStatus(202);
});

/**
 * POST /upscales of `source`; on an account shared with others (keys given), a source another
 * client deleted meanwhile (404 ASSET_NOT_FOUND, and it now reads deleted or gone) or is upscaling
 * itself (409 IMAGE_UPSCALE_IN_PROGRESS) says nothing of the target: another live source is taken
 * (up to 3). On an account made for the test the first answer is judged as is.
 */
async function upscaleOfLiveSource(writer: ApiClient, account: Account, source: Asset, target: '2K' | '4K', except: readonly string[] = []): Promise<ApiResponse<Upscale>> {
  let current = source;
  const tried = [...except];
  for (let attempt = 1; ; attempt += 1) {
    const response = await createUpscale(writer, { source: { assetId: current.assetId }, target });
    if (!isShared(account) || attempt >= 3) return response;
    const code = (response.body as { code?: unknown } | undefined)?.code;
    const gone = response.status === 404 && code === 'ASSET_NOT_FOUND' && (await writer.get(`/assets/${encodeURIComponent(current.assetId)}`, { query: { showDeleted: true } })).status !== 200;
    const deleted = response.status === 404 && code === 'ASSET_NOT_FOUND' && !gone && ((await writer.get(`/assets/${encodeURIComponent(current.assetId)}`, { query: { showDeleted: true } })).json as Asset).deletedAt !== null;
    const busy = response.status === 409 && code === 'IMAGE_UPSCALE_IN_PROGRESS';
    if (!gone && !deleted && !busy) return response;
    test.info().annotations.push({ type: 'shared-account', description: `asset ${current.assetId}: ${busy ? 'another client is upscaling it' : 'another client deleted it'} meanwhile; another source taken` });
    tried.push(current.assetId);
    current = await stillImageAsset(writer, 2048, tried);
  }
}

test('ERR-015 402 INSUFFICIENT_CREDITS refuses POST /upscales when the balance cannot pay it', { tag: ['@hook:accounts', '@area:assets', '@area:upscales'] }, async ({ api, account, hooks }) => {
  const writer = api.as('runs:write');
  const source = await stillImageAsset(writer, 2048);
  await setCredits(hooks, account, { balance: 0 });
  await expect(await createUpscale(writer, { source: { assetId: source.assetId }, target: '4K' })).toBeProblem(402, 'INSUFFICIENT_CREDITS');
});

test('ERR-017 403 IMAGE_UPSCALE_NOT_ENTITLED refuses POST /upscales when the plan lacks upscales', { tag: ['@hook:accounts', '@area:assets', '@area:upscales'] }, async ({ api, account, hooks }) => {
  // Which tiers grant upscales is a gap (AUTH-026, @assumed below): the plan loses the feature.
  const writer = api.as('runs:write');
  const source = await stillImageAsset(writer, 2048);
  await setPlan(hooks, account, { features: { upscales: false } });
  await expect(await createUpscale(writer, { source: { assetId: source.assetId }, target: '4K' })).toBeProblem(403, 'IMAGE_UPSCALE_NOT_ENTITLED');
});

test('ERR-023 422 IMAGE_UPSCALE_TARGET_NOT_LARGER refuses an upscale of a result to the target it already has', { tag: ['@spend', '@hook:clock', '@area:assets', '@area:upscales'] }, async ({ api, clock }) => {
  // What 2K and 4K measure in pixels is a gap: the source is an upscale's own 4K result.
  const writer = api.as('runs:write');
  const source = await stillImageAsset(writer, 2048);
  const first = await createUpscale(writer, { source: { assetId: source.assetId }, target: '4K' });
  expect(first).toHaveStatus(202);
  const { final } = await pollUpscale(writer, clock, first.json.upscaleId);
  expect(final.status).toBe('SUCCEEDED');
  await expect(await createUpscale(writer, { source: { assetId: final.assetId! }, target: '4K' }), 'the 4K result to 4K').toBeProblem(422, 'IMAGE_UPSCALE_TARGET_NOT_LARGER');
});

test('RATE-014 POST /upscales counts on the generation write counter of runs, GET /upscales/{id} on the generation read counter', { tag: ['@spend', '@hook:clock', '@area:products', '@area:assets', '@area:presets', '@area:runs', '@area:upscales'] }, async ({ api, clock }) => {
  // Fresh keys: each group counter starts at the group quota, far below the caps, so RateLimit
  // reports the group's counter; one shared counter shows as the next request's remaining dropping.
  const writer = api.as('runs:write');
  // A repeated attempt (the shared clock moved) takes another source or target: the first attempt's
  // upscale may still be under way, and the same source to the same target would be a 409.
  const sources = (await allAssets(writer)).filter((a) => a.type === 'STATIC' && a.deletedAt === null && a.derivation === undefined && Math.max(a.width, a.height) < 2048).slice(0, 2);
  skipWhenAbsent(sources.length === 0, 'needs a live still-image asset under 2048 px on its long edge');
  const attempts = sources.flatMap((source) => (['4K', '2K'] as const).map((target) => ({ source, target })));
  let attempt = 0;
  const body = { productIds: await someProductIds(writer, 1), creativesPerProduct: 1, presetId: await presetId(writer) };
  const reading = (response: ApiResponse) => {
    const parsed = parseRateLimit(response.header('ratelimit') ?? '');
    if (!parsed.ok) throw new Error(`RateLimit does not parse: ${response.describe()}`);
    return parsed.value;
  };
  // Runs first: an upscale counted on a counter of its own, or not counted, then shows as much
  // remaining as the run before it.
  const seen = await clock.still(async () => {
    const { source, target } = attempts[Math.min(attempt++, attempts.length - 1)]!;
    const run = await createRun(writer, body);
    const upscale = await createUpscale(writer, { source: { assetId: source.assetId }, target });
    const readRun = await writer.get(`/runs/${encodeURIComponent(run.json.runId)}`);
    const readUpscale = await writer.get(`/upscales/${encodeURIComponent(upscale.json.upscaleId)}`);
    return { upscale, run, readUpscale, readRun };
  });
  expect(seen.upscale).toHaveStatus(202);
  expect(seen.run).toHaveStatus(202);
  expect(seen.readUpscale).toHaveStatus(200);
  expect(seen.readRun).toHaveStatus(200);
  const [w1, w2, r1, r2] = [reading(seen.run), reading(seen.upscale), reading(seen.readRun), reading(seen.readUpscale)];
  expect(w2.limit, 'POST /upscales reports the write limit POST /runs does').toBe(w1.limit);
  expect(w2.remaining, `POST /upscales spends the write counter POST /runs spent: ${seen.run.header('ratelimit')} then ${seen.upscale.header('ratelimit')}`).toBeLessThan(w1.remaining);
  expect(r2.limit, 'GET /upscales/{id} reports the read limit GET /runs/{id} does').toBe(r1.limit);
  expect(r2.remaining, `GET /upscales/{id} spends the read counter GET /runs/{id} spent: ${seen.readRun.header('ratelimit')} then ${seen.readUpscale.header('ratelimit')}`).toBeLessThan(r1.remaining);
  expect(r1.limit, 'reads and writes are different limits').not.toBe(w1.limit);
});

// ---------------------------------------------------------------------------------------------
// Refusals

test('ERR-015 ERR-038 402 INSUFFICIENT_CREDITS when the balance cannot cover the upscale; nothing is held or created', { tag: ['@assumed', '@hook:accounts', '@area:assets', '@area:upscales'] }, async ({ api, account, hooks }) => {
  const writer = api.as('runs:write');
  const source = await stillImageAsset(writer, 2048);
  const before = await allAssets(writer);
  await setCredits(hooks, account, { balance: 0 });
  const start = await credits(hooks, account);
  await expect(await createUpscale(writer, { source: { assetId: source.assetId }, target: '2K' })).toBeProblem(402, 'INSUFFICIENT_CREDITS');
  expect(await credits(hooks, account), 'nothing held or charged').toEqual(start);
  expect(await newAssets(writer, before), 'nothing created').toEqual([]);
});

test('ERR-037 409 ACCOUNT_SPEND_CAP_EXCEEDED when the upscale would pass the daily API credit budget', { tag: ['@assumed', '@hook:accounts', '@area:assets', '@area:upscales'] }, async ({ api, account, hooks }) => {
  const writer = api.as('runs:write');
  const source = await stillImageAsset(writer, 2048);
  await setCredits(hooks, account, { dailyBudget: 0 });
  const start = await credits(hooks, account);
  await expect(await createUpscale(writer, { source: { assetId: source.assetId }, target: '2K' })).toBeProblem(409, 'ACCOUNT_SPEND_CAP_EXCEEDED');
  expect(await credits(hooks, account), 'nothing held or charged').toEqual(start);
});

test('ERR-017 AUTH-026 403 IMAGE_UPSCALE_NOT_ENTITLED on a plan without upscales', { tag: ['@assumed', '@hook:accounts', '@area:assets', '@area:upscales'] }, async ({ accounts, apiFor, api, account, hooks }) => {
  const core = await accounts.create({ plan: 'core' });
  const coreWriter = apiFor(core, 'runs:write');
  const coreSource = await stillImageAsset(coreWriter, 2048);
  await expect(await createUpscale(coreWriter, { source: { assetId: coreSource.assetId }, target: '2K' }), 'core tier').toBeProblem(403, 'IMAGE_UPSCALE_NOT_ENTITLED');

  const writer = api.as('runs:write');
  const source = await stillImageAsset(writer, 2048);
  await setPlan(hooks, account, { features: { upscales: false } });
  const start = await credits(hooks, account);
  await expect(await createUpscale(writer, { source: { assetId: source.assetId }, target: '2K' }), 'a plan that lost upscales').toBeProblem(403, 'IMAGE_UPSCALE_NOT_ENTITLED');
  expect(await credits(hooks, account), 'nothing held or charged').toEqual(start);
});

test('ERR-022 409 IMAGE_UPSCALE_IN_PROGRESS while the same source to the same target is not finished; accepted again once it is', { tag: ['@assumed', '@spend', '@hook:clock', '@area:assets', '@area:upscales'] }, async ({ api, clock }) => {
  const writer = api.as('runs:write');
  const candidates = (await allAssets(writer)).filter((a) => a.type === 'STATIC' && a.deletedAt === null && a.derivation === undefined && a.status !== 'archived' && Math.max(a.width, a.height) < 4096);
  skipWhenAbsent(candidates.length === 0, 'needs a live still-image asset under 4096 px');
  // The second request must find the first still running: judged only while the account's clock
  // stood still between the two (another source for each attempt).
  const sources = candidates.slice(0, 5);
  const judged = await clock.still(async (attempt) => {
    const source = sources[(attempt - 1) % sources.length]!;
    const body: UpscaleBody = { source: { assetId: source.assetId }, target: '4K' };
    const first = await createUpscale(writer, body);
    const second = await createUpscale(writer, body);
    return { first, second, source };
  }, Math.max(1, sources.length - 1));
  expect(judged.first).toHaveStatus(202);
  await expect(judged.second, 'the same source to the same target, still queued').toBeProblem(409, 'IMAGE_UPSCALE_IN_PROGRESS');
  expect((await pollUpscale(writer, clock, judged.first.json.upscaleId)).final.status).toBe('SUCCEEDED');
  await expect(await createUpscale(writer, { source: { assetId: judged.source.assetId }, target: '4K' }), 'once the first finished').toHaveStatus(202);
});

test('ERR-022 409 IMAGE_UPSCALE_UNPRICED when the rate card has no price for the target; nothing is held', { tag: ['@hook:accounts', '@spend', '@area:assets', '@area:upscales'] }, async ({ api, account, hooks }) => {
  const writer = api.as('runs:write');
  const source = await stillImageAsset(writer, 2048);
  await setCredits(hooks, account, { rateCard: { upscale: { '4K': null } } });
  const start = await credits(hooks, account);
  await expect(await createUpscale(writer, { source: { assetId: source.assetId }, target: '4K' })).toBeProblem(409, 'IMAGE_UPSCALE_UNPRICED');
  expect(await credits(hooks, account), 'nothing held or charged').toEqual(start);
  await expect(await createUpscale(writer, { source: { assetId: source.assetId }, target: '2K' }), 'the priced target is accepted').toHaveStatus(202);
});

test('ERR-023 422 IMAGE_UPSCALE_TARGET_NOT_LARGER when the source is already at least the target, with errors[]', { tag: ['@assumed', '@hook:accounts', '@area:assets', '@area:upscales'] }, async ({ api, account, hooks }) => {
  const writer = api.as('runs:write');
  const large = (await allAssets(writer)).find((a) => a.type === 'STATIC' && a.deletedAt === null && Math.max(a.width, a.height) >= 2048);
  skipWhenAbsent(large === undefined, 'needs a still image of at least 2048 px on its long edge');
  const start = await credits(hooks, account);
  const response = await createUpscale(writer, { source: { assetId: large!.assetId }, target: '2K' });
  await expect(response).toBeProblem(422, 'IMAGE_UPSCALE_TARGET_NOT_LARGER');
  expect((response.problem.errors ?? []).length).toBeGreaterThan(0);
  expect(await credits(hooks, account), 'nothing held or charged').toEqual(start);
});

test('ERR-023 UPSC-013 UPSC-012 422 IMAGE_UPSCALE_SOURCE_UNREADABLE for a video asset or a gallery index beyond the gallery', { tag: ['@assumed', '@area:products', '@area:assets', '@area:upscales'] }, async ({ api }) => {
  const writer = api.as('runs:write');
  const video = (await allAssets(writer)).find((a) => a.type === 'VIDEO' && a.deletedAt === null);
  skipWhenAbsent(video === undefined, 'needs a video asset');
  const fromVideo = await createUpscale(writer, { source: { assetId: video!.assetId }, target: '4K' });
  await expect(fromVideo, 'a video asset').toBeProblem(422, 'IMAGE_UPSCALE_SOURCE_UNREADABLE');
  expect((fromVideo.problem.errors ?? []).length).toBeGreaterThan(0);

  const [product] = await someProducts(writer, 1);
  const beyond = await createUpscale(writer, { source: { productId: product!.productId, image: 'gallery', index: (product!.galleryImageUrls ?? []).length }, target: '2K' });
  await expect(beyond, 'an index beyond the gallery').toBeProblem(422, 'IMAGE_UPSCALE_SOURCE_UNREADABLE');
  await expect(await createUpscale(writer, { source: { productId: product!.productId, image: 'gallery' }, target: '2K' }), 'gallery without index').toBeProblem(400, 'VALIDATION_ERROR');
});

test('ERR-020 GEN-004 ERR-019 another account\'s asset, a deleted asset and an unknown one answer the same 404 ASSET_NOT_FOUND', { tag: ['@area:assets', '@area:upscales'] }, async ({ api, apiFor, accountB }) => {
  const writer = api.as('runs:write');
  const foreign = await stillImageAsset(apiFor(accountB), 2048);
  const mine = await stillImageAsset(writer, 2048);
  await expect(await api.as('assets:write').delete(`/assets/${encodeURIComponent(mine.assetId)}`)).toHaveStatus(200);
  const answers: [string, ApiResponse][] = [
    ["another account's asset", await createUpscale(writer, { source: { assetId: foreign.assetId }, target: '2K' })],
    ['a deleted asset', await createUpscale(writer, { source: { assetId: mine.assetId }, target: '2K' })],
    ['an unknown asset', await createUpscale(writer, { source: { assetId: 'ast_conformance_unknown_0000' }, target: '2K' })],
  ];
  for (const [what, response] of answers) await expect(response, what).toBeProblem(404, 'ASSET_NOT_FOUND');
  for (const [what, response] of answers.slice(1)) expect(uniformPart(response), `${what} answers like another account's`).toEqual(uniformPart(answers[0]![1]));
  await expect(await createUpscale(writer, { source: { productId: 'prd_conformance_unknown_0000', image: 'primary' }, target: '2K' }), 'an unknown product').toBeProblem(404, 'PRODUCT_NOT_FOUND');
});

test('UPSC-011 UPSC-012 ASST-005 a product image is a source too: the result derives from a readable asset holding that image', { tag: ['@assumed', '@spend', '@hook:clock', '@area:products', '@area:assets', '@area:upscales'] }, async ({ api, clock }) => {
  const writer = api.as('runs:write');
  const products = await someProducts(writer, 10);
  const withGallery = products.find((p) => (p.galleryImageUrls ?? []).length > 0);
  skipWhenAbsent(withGallery === undefined, 'needs a product with a gallery image');
  for (const source of [
    { productId: products[0]!.productId, image: 'primary' as const },
    { productId: withGallery!.productId, image: 'gallery' as const, index: 0 },
  ]) {
    const created = await createUpscale(writer, { source, target: '2K' });
    expect(created, JSON.stringify(source)).toHaveStatus(202);
    const { final } = await pollUpscale(writer, clock, created.json.upscaleId);
    expect(final.status).toBe('SUCCEEDED');
    const result = await readAsset(writer, final.assetId!);
    const derivation = result.json.derivation!;
    expect(derivation).toMatchObject({ kind: 'ai_rerender', operation: 'image_upscale' });
    expect(derivation.rootAssetId).toBe(derivation.parentAssetId);
    const parent = await readAsset(writer, derivation.parentAssetId);
    expect(parent, 'the parent names a readable asset').toHaveStatus(200);
    expect(parent.json.productId).toBe(source.productId);
    expect(result.json.productId).toBe(source.productId);
  }
});

// ---------------------------------------------------------------------------------------------
// Limits and faults

test('RATE-014 RATE-002 RATE-023 RATE-026 POST /upscales counts against the generation write limit of runs, and its 429 is problem+json RATE_LIMITED', { tag: ['@assumed', '@hook:accounts', '@hook:rate-limits', '@spend', '@area:products', '@area:assets', '@area:presets', '@area:runs', '@area:upscales'] }, async ({ accounts, apiFor, hooks }) => {
  // A write quota of 0 refuses everything that counts against it, whatever the window: no clock
  // sensitivity. Reads of the generation plane stay free.
  const account = await accounts.create({ rateLimits: { 'group:generation_write': 0 } });
  const writer = apiFor(account, 'runs:write').unpaced();
  const source = await stillImageAsset(writer, 2048);
  const before = await allAssets(writer);
  const start = await credits(hooks, account);
  const body = { productIds: await someProductIds(writer, 1), creativesPerProduct: 1, presetId: await presetId(writer) };
  const quotas = (response: ApiResponse) => {
    const parsed = parseRateLimitPolicy(response.header('ratelimit-policy') ?? '');
    return parsed.ok ? parsed.value.map((p) => p.quota) : [];
  };
  await expect(await createRun(writer, body), 'POST /runs under a write quota of 0').toBeProblem(429, 'RATE_LIMITED');
  const limited = await createUpscale(writer, { source: { assetId: source.assetId }, target: '2K' });
  await expect(limited, 'POST /upscales is refused by the same write limit').toBeProblem(429, 'RATE_LIMITED');
  expect(limited.header('retry-after'), limited.describe()).toMatch(/^\d+$/);
  expect(limited.header('ratelimit'), 'the limit that rejected, with remaining=0').toMatch(/^limit=0, remaining=0, reset=\d+$/);
  expect(await credits(hooks, account), 'the 429 held nothing').toEqual(start);
  expect(await newAssets(writer, before), 'the 429 created nothing').toEqual([]);

  await hooks.setRateLimits(account.accountId!, { 'group:generation_write': null });
  const accepted = await createUpscale(writer, { source: { assetId: source.assetId }, target: '2K' });
  expect(accepted).toHaveStatus(202);
  expect(quotas(accepted), `POST /upscales: ${accepted.header('ratelimit-policy')}`).toEqual(expect.arrayContaining([20, 360, 600]));
  expect(quotas(accepted)).not.toContain(120);
  const read = await writer.get(`/upscales/${accepted.json.upscaleId}`);
  expect(read).toHaveStatus(200);
  expect(quotas(read), `GET /upscales/{id} counts against the generation read limit: ${read.header('ratelimit-policy')}`).toEqual(expect.arrayContaining([120, 360, 600]));
  expect(quotas(read)).not.toContain(20);
});

test('ERR-031 IDEM-010 while writes are paused POST /upscales answers 503 WRITES_PAUSED, and the key is not consumed', { tag: ['@assumed', '@hook:faults', '@spend', '@area:assets', '@area:upscales'] }, async ({ api, account, hooks }) => {
  const writer = api.as('runs:write');
  const source = await stillImageAsset(writer, 2048);
  const body: UpscaleBody = { source: { assetId: source.assetId }, target: '2K' };
  const key = idempotencyKey();
  await setFaults(hooks, account, { writesPaused: true });
  try {
    const paused = await createUpscale(writer, body, key);
    await expect(paused).toBeProblem(503, 'WRITES_PAUSED');
    expect(paused.header('retry-after')).toMatch(/^\d+$/);
  } finally {
    await setFaults(hooks, account, { writesPaused: false });
  }
  const resumed = await createUpscale(writer, body, key);
  expect(resumed).toHaveStatus(202);
  expect((await getUpscale(writer, resumed.json.upscaleId)).upscaleId).toBe(resumed.json.upscaleId);
});
