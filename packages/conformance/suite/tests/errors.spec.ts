/**
 * Errors of the resource writes (ERR-*): the problem members on a 404 and a 422 (errors[], one
 * entry per offending field); 401 ENTITLEMENT_LOST on creative, asset and campaign writes with a
 * uniform body; 503 WRITES_PAUSED with Retry-After on every write while writes are paused for the
 * account (the faults hook; a pause for everyone is what a client of one account sees the same way,
 * and no hook is global: D150), nothing changed and reads unaffected; 503 SERVICE_UNAVAILABLE on a lost
 * race of a campaign create or restore, safe to retry with the same key; malformed, non-JSON and
 * oversized bodies. The per-code members (currentStatus, generatingCount, reason, limitKey, limit,
 * current) are checked where their conflicts arise (creatives.spec.ts, campaigns.spec.ts).
 */
import { expectCreatedNothing, expectUnchanged } from '../fixtures/shared-account.ts';
import { expect, test, type ApiClient, type ApiResponse } from '../fixtures/index.ts';
import { listRuns, presetId, someProductIds } from '../fixtures/generation.ts';
import {
  allAssets,
  allCampaigns,
  allCreatives,
  brandWithProducts,
  getCampaign,
  getCreative,
  markEvents,
  newKey,
  ok,
  pick,
  postCampaign,
  readyCampaign,
  setFaults,
  setPlan,
  uniqueName,
  first,
} from '../fixtures/resources.ts';

const UNKNOWN = [
  ['/creatives/crv_conformance_unknown_0000', 'CREATIVE_NOT_FOUND'],
  ['/assets/ast_conformance_unknown_0000', 'ASSET_NOT_FOUND'],
  ['/campaigns/cmp_conformance_unknown_0000', 'CAMPAIGN_NOT_FOUND'],
] as const;

test('ERR-001 ERR-002 ERR-003 ERR-004 ERR-006 ERR-007 ERR-019 an unknown creative, asset or campaign answers a problem+json 404 with type, title, status, code, instance and requestId', { tag: ['@area:creatives', '@area:campaigns', '@area:assets'] }, async ({ api, target }) => {
  for (const [path, code] of UNKNOWN) {
    const response = await api.get(path);
    await expect(response, path).toBeProblem(404, code);
    const p = response.problem;
    expect({ type: p.type, title: p.title, status: p.status, code: p.code }).toEqual({ type: `/errors/${code}`, title: 'Not Found', status: 404, code });
    expect(typeof p.requestId === 'string' && p.requestId.length > 0, response.describe()).toBe(true);
    if (p.instance !== undefined) expect(p.instance).toBe(`${target.basePath}${path}`);
  }
  const ids = new Set<string>();
  for (let i = 0; i < 3; i += 1) ids.add((await api.get(UNKNOWN[0][0])).problem.requestId);
  expect(ids.size, 'each request has its own requestId').toBe(3);
});

test('ERR-008 ERR-001 ERR-003 CRTV-028 a 422 carries errors[], entries { field, message }, one per offending field', { tag: ['@area:creatives'] }, async ({ api }) => {
  const c = pick(await allCreatives(api), () => true, 'the account has no live creative');
  const refused = await api.as('creatives:write').patch(`/creatives/${encodeURIComponent(c.creativeId)}`, { body: { colour: 'red', metadata: { cf_number: 5 } } });
  await expect(refused).toBeProblem(422, 'VALIDATION_ERROR');
  expect(['Unprocessable Content', 'Unprocessable Entity']).toContain(refused.problem.title);
  const errors = refused.problem.errors ?? [];
  for (const e of errors) expect(typeof e.field === 'string' && e.field.length > 0 && typeof e.message === 'string' && e.message.length > 0, JSON.stringify(e)).toBe(true);
  expect(errors.length, `two offending fields, two entries: ${refused.describe()}`).toBe(2);
  expect(errors.some((e) => e.field.includes('colour')), refused.describe()).toBe(true);
  expect(errors.some((e) => e.field.includes('metadata')), refused.describe()).toBe(true);
});

/** One write of each kind, on an id that may or may not exist (401 comes first either way). */
function sampleWrites(ids: { creative: string; asset: string; campaign: string }): [string, string, 'PATCH' | 'DELETE' | 'POST', string, unknown][] {
  return [
    ['PATCH /creatives/{id}', 'creatives:write', 'PATCH', `/creatives/${ids.creative}`, { metadata: { cf: 'x' } }],
    ['DELETE /creatives/{id}', 'creatives:write', 'DELETE', `/creatives/${ids.creative}`, undefined],
    ['POST /creatives/{id}/approve', 'creatives:review', 'POST', `/creatives/${ids.creative}/approve`, undefined],
    ['PATCH /assets/{id}', 'assets:write', 'PATCH', `/assets/${ids.asset}`, { favorited: true }],
    ['POST /assets/{id}/archive', 'assets:write', 'POST', `/assets/${ids.asset}/archive`, undefined],
    ['PATCH /campaigns/{id}', 'campaigns:write', 'PATCH', `/campaigns/${ids.campaign}`, { name: 'x' }],
    ['POST /campaigns/{id}/undelete', 'campaigns:write', 'POST', `/campaigns/${ids.campaign}/undelete`, undefined],
  ];
}

async function sendWrite(client: ApiClient, method: 'PATCH' | 'DELETE' | 'POST', path: string, body: unknown, extra: { authorization?: string | null; idempotencyKey?: string } = {}): Promise<ApiResponse> {
  const options = { ...(body !== undefined ? { body } : {}), idempotencyKey: extra.idempotencyKey ?? newKey('err'), ...(extra.authorization !== undefined ? { authorization: extra.authorization } : {}) };
  return method === 'PATCH' ? client.patch(path, options) : method === 'DELETE' ? client.delete(path, options) : client.post(path, options);
}

test('ERR-014 a 401 on a creative, asset or campaign write carries ENTITLEMENT_LOST with one uniform body that names no owner or condition', { tag: ['@area:creatives', '@area:campaigns', '@area:assets'] }, async ({ api, account }) => {
  const ids = {
    creative: (await allCreatives(api))[0]?.creativeId ?? 'crv_conformance_unknown_0000',
    asset: (await allAssets(api))[0]?.assetId ?? 'ast_conformance_unknown_0000',
    campaign: (await allCampaigns(api))[0]?.campaignId ?? 'cmp_conformance_unknown_0000',
  };
  const key = account.key('read');
  const unknownKey = `${key.slice(0, -1)}${key.at(-1) === '0' ? '1' : '0'}`;
  const details = new Set<string | undefined>();
  for (const [what, profile, method, path, body] of sampleWrites(ids)) {
    for (const authorization of [null, 'Bearer not-a-key', `Bearer ${unknownKey}`]) {
      const response = await sendWrite(api.as(profile), method, path, body, { authorization });
      await expect(response, `${what} with ${authorization ?? 'no Authorization'}`).toBeProblem(401, 'ENTITLEMENT_LOST');
      const { requestId: _r, instance: _i, ...rest } = response.problem;
      details.add(JSON.stringify(rest));
      for (const id of [...Object.values(ids), account.accountId].filter((x): x is string => x !== undefined)) {
        expect(JSON.stringify(rest).includes(id), `the 401 body names no owner or resource (${id}): ${response.describe()}`).toBe(false);
      }
    }
  }
  expect(details.size, `one uniform body for every cause and write: ${[...details].join('\n')}`).toBe(1);
});

test('ERR-014 a campaign write on a plan that lost campaigns answers 401 ENTITLEMENT_LOST with the body of a bad key', { tag: ['@hook:accounts', '@assumed', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const campaign = pick(await allCampaigns(api), () => true, 'the account has no live campaign');
  const writer = api.as('campaigns:write');
  const path = `/campaigns/${campaign.campaignId}`;
  await setPlan(hooks, account, { campaigns: false });
  const lapsed = await writer.patch(path, { body: { name: 'lapsed' } });
  await expect(lapsed).toBeProblem(401, 'ENTITLEMENT_LOST');
  const badKey = await writer.patch(path, { body: { name: 'lapsed' }, authorization: null });
  const { requestId: _a, ...lapsedRest } = lapsed.problem;
  const { requestId: _b, ...badRest } = badKey.problem;
  expect(lapsedRest, 'a lapsed plan cannot be told from a bad key').toEqual(badRest);
  await setPlan(hooks, account, { campaigns: true });
  expect(ok(await getCampaign(api, campaign.campaignId)).name, 'nothing changed').toBe(campaign.name);
});

type WriteCall = [string, ApiClient, 'PATCH' | 'DELETE' | 'POST', string, unknown];

/** What a resource's owner reads of it by id (showDeleted): body and ETag. */
async function readById(api: ApiClient, path: string): Promise<{ status: number; body: unknown; etag: string | undefined }> {
  const response = await api.get(path, { query: { showDeleted: true } });
  return { status: response.status, body: response.body, etag: response.header('etag') };
}

/**
 * Every creative, asset and campaign write of the account, on resources that exist, and `state()`:
 * what those writes could change, read through the API (each resource they name, by id, and the
 * campaigns carrying the name the create sends), so that "changed nothing" is judged on what this
 * test touched, never on the account's whole collections.
 */
async function everyWrite(api: ApiClient, hooks: Parameters<typeof readyCampaign>[1], account: Parameters<typeof readyCampaign>[2]): Promise<{ writes: WriteCall[]; state: () => Promise<unknown> }> {
  const { campaign, creatives, brandId, productIds } = await readyCampaign(api, hooks, account, 1);
  const creative = `/creatives/${creatives[0]!.creativeId}`;
  const asset = `/assets/${pick(await allAssets(api), () => true, 'the account has no live asset').assetId}`;
  const deletedCampaign = (await allCampaigns(api, true)).find((c) => c.deletedAt !== null);
  const restored = `/campaigns/${(deletedCampaign ?? campaign).campaignId}`;
  const name = uniqueName('paused');
  const cw = api.as('creatives:write');
  const cr = api.as('creatives:review');
  const aw = api.as('assets:write');
  const pw = api.as('campaigns:write');
  const writes: WriteCall[] = [
    ['PATCH creative', cw, 'PATCH', creative, { metadata: { cf: 'paused' } }],
    ['DELETE creative', cw, 'DELETE', creative, undefined],
    ['undelete creative', cw, 'POST', `${creative}/undelete`, undefined],
    ['approve', cr, 'POST', `${creative}/approve`, undefined],
    ['reject', cr, 'POST', `${creative}/reject`, { rejectionReason: 'paused' }],
    ['PATCH asset', aw, 'PATCH', asset, { favorited: true, notes: 'paused' }],
    ['archive', aw, 'POST', `${asset}/archive`, undefined],
    ['unarchive', aw, 'POST', `${asset}/unarchive`, undefined],
    ['DELETE asset', aw, 'DELETE', asset, undefined],
    ['undelete asset', aw, 'POST', `${asset}/undelete`, undefined],
    ['POST /campaigns', pw, 'POST', '/campaigns', { name, brandId, productIds }],
    ['PATCH campaign', pw, 'PATCH', `/campaigns/${campaign.campaignId}`, { name: 'paused' }],
    ['DELETE campaign', pw, 'DELETE', `/campaigns/${campaign.campaignId}`, undefined],
    ['undelete campaign', pw, 'POST', `${restored}/undelete`, undefined],
  ];
  const state = async (): Promise<unknown> => ({
    creative: await readById(api, creative),
    asset: await readById(api, asset),
    campaign: await readById(api, `/campaigns/${campaign.campaignId}`),
    restored: await readById(api, restored),
    named: (await allCampaigns(api, true)).filter((c) => c.name === name).map((c) => c.campaignId),
  });
  return { writes, state };
}

async function expectAllPaused(api: ApiClient, writes: readonly WriteCall[]): Promise<void> {
  for (const [what, client, method, path, body] of writes) {
    const response = await sendWrite(client, method, path, body);
    await expect(response, `${what} while writes are paused`).toBeProblem(503, 'WRITES_PAUSED');
    expect(response.header('retry-after'), `${what}: ${response.describe()}`).toMatch(/^\d+$/);
  }
  void api;
}

test('ERR-029 ERR-030 ERR-025 while writes are paused for the account, every creative, asset and campaign write answers 503 WRITES_PAUSED with Retry-After and changes nothing; reads are unaffected', { tag: ['@hook:accounts', '@hook:faults', '@hook:actors', '@hook:events', '@area:products', '@area:creatives', '@area:campaigns', '@area:assets', '@area:deliveries'] }, async ({ api, hooks, account }) => {
  const { writes, state } = await everyWrite(api, hooks, account);
  const before = await state();
  const events = await markEvents(hooks, account);
  await setFaults(hooks, account, { writesPaused: true });
  await expectAllPaused(api, writes);
  expect(await state(), 'nothing the writes named changed, and no campaign carries the paused create\'s name (reads work while writes are paused)').toEqual(before);
  expect(await events.since(), 'nothing was recorded').toEqual([]);
  for (const path of ['/products', '/deliveries']) expect(await api.get(path, { query: { limit: 1 } }), `${path} while writes are paused`).toHaveStatus(200);
  await setFaults(hooks, account, { writesPaused: false });
  const [, client, method, path, body] = writes[0]!;
  expect(await sendWrite(client, method, path, body), 'writes work again once resumed').toHaveStatus(200);
});

test('ERR-031 ERR-029 while writes are paused, POST /runs, stop and POST /upscales answer 503 WRITES_PAUSED too', { tag: ['@hook:accounts', '@hook:faults', '@assumed', '@area:products', '@area:assets', '@area:presets', '@area:runs', '@area:upscales'] }, async ({ api, hooks, account }) => {
  const runs = api.as('runs:write');
  const [productId] = await someProductIds(api, 1);
  const preset = await presetId(runs);
  const asset = first(await allAssets(api), 'live STATIC asset under 4096 pixels', (a) => a.type === 'STATIC' && Math.max(a.width, a.height) < 4096);
  const runsBefore = await listRuns(api.as('runs:read'));
  await setFaults(hooks, account, { writesPaused: true });
  const paused = [
    await runs.post('/runs', { body: { productIds: [productId], creativesPerProduct: 1, presetId: preset }, idempotencyKey: newKey('run') }),
    await runs.post('/runs/run_conformance_unknown/stop'),
    await runs.post('/upscales', { body: { source: { assetId: asset.assetId }, target: '4K' }, idempotencyKey: newKey('upscale') }),
  ];
  for (const response of paused) {
    await expect(response).toBeProblem(503, 'WRITES_PAUSED');
    expect(response.header('retry-after'), response.describe()).toMatch(/^\d+$/);
  }
  // A run carries nothing of the request that made it: on this test's own account, no new run at all.
  expectCreatedNothing(account, 'the paused POST /runs', runsBefore, await listRuns(api.as('runs:read')), (r) => r.runId);
});

test('ERR-032 ERR-026 ERR-025 a campaign create or restore that lost a race answers 503 SERVICE_UNAVAILABLE with Retry-After and changes nothing; the same request then succeeds once', { tag: ['@hook:accounts', '@hook:faults', '@area:products', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { brandId, productIds } = await brandWithProducts(api, 1);
  const deleted = pick(await allCampaigns(api, true), (c) => c.deletedAt !== null, 'the account has no deleted campaign');
  const name = uniqueName('race');
  const createKey = newKey('race');
  const restoreKey = newKey('race');
  const writer = api.as('campaigns:write');
  const before = { campaigns: await allCampaigns(api, true), restored: await readById(api, `/campaigns/${deleted.campaignId}`) };
  await setFaults(hooks, account, { lostRaces: 2 });
  const lost = [await postCampaign(api, { name, brandId, productIds }, createKey), await writer.post(`/campaigns/${deleted.campaignId}/undelete`, { idempotencyKey: restoreKey })];
  for (const response of lost) {
    await expect(response).toBeProblem(503, 'SERVICE_UNAVAILABLE');
    expect(response.header('retry-after'), response.describe()).toMatch(/^\d+$/);
  }
  expect(await readById(api, `/campaigns/${deleted.campaignId}`), 'the campaign whose restore lost is unchanged (still deleted)').toEqual(before.restored);
  expectCreatedNothing(account, 'the create that lost a race', before.campaigns, await allCampaigns(api, true), (c) => c.campaignId, (c) => c.name === name);

  const created = await postCampaign(api, { name, brandId, productIds }, createKey);
  expect(created, 'the same create, retried with its key').toHaveStatus(201);
  const restored = await writer.post(`/campaigns/${deleted.campaignId}/undelete`, { idempotencyKey: restoreKey });
  expect(restored, 'the same restore, retried with its key').toHaveStatus(200);
  expect((await allCampaigns(api, true)).filter((c) => c.name === name).length, 'created once').toBe(1);
  expect(ok(await getCampaign(api, deleted.campaignId)).deletedAt).toBeNull();
});

test('ERR-039 ERR-042 a malformed JSON body answers 400, a non-JSON body 415 and a body over 1 MiB 413, each problem+json, and nothing changes', { tag: ['@assumed', '@area:creatives'] }, async ({ api, account }) => {
  const c = pick(await allCreatives(api), () => true, 'the account has no live creative');
  const path = `/creatives/${encodeURIComponent(c.creativeId)}`;
  const writer = api.as('creatives:write');
  const before = await getCreative(api, c.creativeId);
  // Raw bytes (a Buffer): the client would re-encode a string that is not JSON.
  await expect(await writer.patch(path, { rawBody: Buffer.from('{"metadata": '), contentType: 'application/json' }), 'malformed JSON').toBeProblem(400, 'VALIDATION_ERROR');
  await expect(await writer.patch(path, { rawBody: 'metadata=x', contentType: 'application/x-www-form-urlencoded' }), 'a form body').toBeProblem(415, 'UNSUPPORTED_MEDIA_TYPE');
  await expect(await writer.patch(path, { rawBody: 'metadata', contentType: 'text/plain' }), 'a text body').toBeProblem(415, 'UNSUPPORTED_MEDIA_TYPE');
  const huge = JSON.stringify({ metadata: { cf: 'x'.repeat(1024 * 1024 + 16) } });
  await expect(await writer.patch(path, { rawBody: Buffer.from(huge), contentType: 'application/json' }), 'a body over 1 MiB').toBeProblem(413, 'PAYLOAD_TOO_LARGE');
  const after = await getCreative(api, c.creativeId);
  // What these bodies would have set: metadata "x" or the huge value under `cf`.
  const traces = (json: unknown): string[] => Object.entries((json as { metadata?: Record<string, string> }).metadata ?? {}).filter(([k, v]) => v === 'x' || (k === 'cf' && v.length > 1024)).map(([k]) => `metadata.${k}`);
  expectUnchanged(account, 'the refused bodies changed nothing', before.json, after.json, traces, [before.header('etag'), after.header('etag')]);
});

test('ERR-043 another method on a known path answers 405 METHOD_NOT_ALLOWED with Allow naming the path\'s methods, not the refused one', { tag: ['@assumed', '@area:products', '@area:creatives', '@area:runs', '@area:estimate'] }, async ({ api }) => {
  const cases: [string, string, string[]][] = [
    ['PUT', '/products', ['GET']],
    ['DELETE', '/runs/estimate', ['POST']],
    ['POST', '/creatives/crv_conformance_unknown_0000', ['GET', 'PATCH', 'DELETE']],
  ];
  for (const [method, path, declared] of cases) {
    const response = await api.send(method, path, method === 'GET' || method === 'DELETE' ? {} : { body: {} });
    await expect(response, `${method} ${path}`).toBeProblem(405, 'METHOD_NOT_ALLOWED');
    const allow = (response.header('allow') ?? '').split(',').map((m) => m.trim());
    for (const m of declared) expect(allow, response.describe()).toContain(m);
    expect(allow).not.toContain(method);
  }
});

test('ERR-044 ERR-007 RATE-020 a body over the limit is answered like any other refusal of the operation: its own requestId and the operation\'s RateLimit headers', { tag: ['@assumed', '@area:creatives'] }, async ({ api }) => {
  const c = pick(await allCreatives(api), () => true, 'the account has no live creative');
  const path = `/creatives/${encodeURIComponent(c.creativeId)}`;
  const writer = api.as('creatives:write');
  const huge = Buffer.from(JSON.stringify({ metadata: { cf: 'x'.repeat(1024 * 1024 + 16) } }));
  const refused = [await writer.patch(path, { rawBody: huge, contentType: 'application/json' }), await writer.patch(path, { rawBody: huge, contentType: 'application/json' })];
  for (const r of refused) await expect(r).toBeProblem(413, 'PAYLOAD_TOO_LARGE');
  expect(refused[0]!.problem.requestId, 'each answer has its own requestId').not.toBe(refused[1]!.problem.requestId);
  // The same limits as a PATCH of the creative that reached its handler (the creative-write group).
  const edit = await writer.patch(path, { body: { metadata: {} } });
  expect(edit).toHaveStatus(200);
  const quotas = (r: ApiResponse) => (r.header('ratelimit-policy') ?? '').split(',').map((item) => item.trim().split(';')[0]).sort();
  expect(quotas(refused[1]!), `${refused[1]!.header('ratelimit-policy')} vs ${edit.header('ratelimit-policy')}`).toEqual(quotas(edit));
});
