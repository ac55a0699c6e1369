/**
 * D72 (IDEM-010, IDEM-013, IDEM-014): one rule for every refusal decided before a write runs, over
 * every write operation that takes an Idempotency-Key (stop takes none, D27) × every such refusal
 * that can meet it, in-process over HTTP with the real handlers:
 * - a refusal stores nothing: once the condition is fixed, the identical request under the same key
 *   runs anew (its success, not a replayed refusal);
 * - a replay of a stored success answers what a fresh request would while the caller may not make
 *   it (suspended account, lapsed plan or feature, writes paused), and replays again once it may.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addAsset } from '../testkit/runs.ts';
import { creditsOf } from '../domain/credits/ledger.ts';
import { scene, type Scene } from '../testkit/campaigns.ts';
import type { TestResponse } from '../testkit/harness.ts';

let s: Scene | undefined;
afterEach(async () => {
  await s?.h.close();
  s = undefined;
});

interface Write {
  method: string;
  path: string;
  body?: unknown;
}

interface Operation {
  /** The key profile that may make the request. */
  key: string;
  /** The success status. */
  ok: number;
  /** Sets up a target and returns the request that succeeds on it. */
  given(s: Scene): Promise<Write>;
}

async function enterprise(): Promise<Scene> {
  const sc = await scene();
  Object.assign(sc.a.state.plan, { tier: 'enterprise', campaigns: true, runsWrite: true, imageSizes: ['1K', '2K', '4K'], upscales: true, campaignLimit: 100, productsPerCampaign: 100 });
  return sc;
}

const campaignBody = (s: Scene, n = 2) => {
  const ps = s.products(n);
  return { name: 'Spring launch', brandId: ps[0]!.brandId, productIds: ps.map((p) => p.productId) };
};
const creative = async (s: Scene, deleted = false) => {
  const { creativeIds } = await s.readyCampaign({ products: 1 });
  const id = creativeIds[0]!;
  if (deleted) expect((await s.h.request('DELETE', `/creatives/${id}`, { key: s.a.key('creatives:write') })).status).toBe(200);
  return id;
};
const asset = (s: Scene, overrides: Parameters<typeof addAsset>[1] = {}) => addAsset(s.a.state, { width: 1024, height: 768, ...overrides }).assetId;
const runBody = (s: Scene, extra: Record<string, unknown> = {}) => ({ productIds: [s.products(1)[0]!.productId], creativesPerProduct: 1, presetId: 'pst_studio_white', ...extra });

const OPERATIONS: Record<string, Operation> = {
  createCampaign: { key: 'campaigns:write', ok: 201, given: async (s) => ({ method: 'POST', path: '/campaigns', body: campaignBody(s) }) },
  updateCampaign: { key: 'campaigns:write', ok: 200, given: async (s) => ({ method: 'PATCH', path: `/campaigns/${(await s.createCampaign()).campaignId}`, body: { name: 'Renamed' } }) },
  deleteCampaign: { key: 'campaigns:write', ok: 200, given: async (s) => ({ method: 'DELETE', path: `/campaigns/${(await s.createCampaign()).campaignId}` }) },
  undeleteCampaign: {
    key: 'campaigns:write',
    ok: 200,
    given: async (s) => {
      const { campaignId } = await s.createCampaign();
      expect((await s.h.request('DELETE', `/campaigns/${campaignId}`, { key: s.a.key('campaigns:write') })).status).toBe(200);
      return { method: 'POST', path: `/campaigns/${campaignId}/undelete` };
    },
  },
  updateCreative: { key: 'creatives:write', ok: 200, given: async (s) => ({ method: 'PATCH', path: `/creatives/${await creative(s)}`, body: { metadata: { team: 'growth' } } }) },
  deleteCreative: { key: 'creatives:write', ok: 200, given: async (s) => ({ method: 'DELETE', path: `/creatives/${await creative(s)}` }) },
  undeleteCreative: { key: 'creatives:write', ok: 200, given: async (s) => ({ method: 'POST', path: `/creatives/${await creative(s, true)}/undelete` }) },
  approveCreative: { key: 'creatives:review', ok: 200, given: async (s) => ({ method: 'POST', path: `/creatives/${await creative(s)}/approve` }) },
  rejectCreative: { key: 'creatives:review', ok: 200, given: async (s) => ({ method: 'POST', path: `/creatives/${await creative(s)}/reject`, body: { rejectionReason: 'Off brand' } }) },
  updateAsset: { key: 'assets:write', ok: 200, given: async (s) => ({ method: 'PATCH', path: `/assets/${asset(s)}`, body: { favorited: true } }) },
  deleteAsset: { key: 'assets:write', ok: 200, given: async (s) => ({ method: 'DELETE', path: `/assets/${asset(s)}` }) },
  archiveAsset: { key: 'assets:write', ok: 200, given: async (s) => ({ method: 'POST', path: `/assets/${asset(s)}/archive` }) },
  unarchiveAsset: { key: 'assets:write', ok: 200, given: async (s) => ({ method: 'POST', path: `/assets/${asset(s, { archived: true })}/unarchive` }) },
  undeleteAsset: { key: 'assets:write', ok: 200, given: async (s) => ({ method: 'POST', path: `/assets/${asset(s, { deletedAt: s.h.clock.now() - 1000 })}/undelete` }) },
  createRun: { key: 'runs:write', ok: 202, given: async (s) => ({ method: 'POST', path: '/runs', body: runBody(s, { imageSize: '4K' }) }) },
  createUpscale: { key: 'runs:write', ok: 202, given: async (s) => ({ method: 'POST', path: '/upscales', body: { source: { assetId: asset(s) }, target: '4K' } }) },
};

/** A condition that refuses a request before the operation runs: `set` brings it about, `clear` fixes it. */
interface Condition {
  status: number;
  code: string;
  set(s: Scene): void;
  clear(s: Scene): void;
  /** The key profile the refused request is sent with (default: the operation's own). */
  key?: string;
}

const plan = (s: Scene) => s.a.state.plan;
const suspended: Condition = { status: 401, code: '', set: (s) => void (s.a.state.suspended = true), clear: (s) => void (s.a.state.suspended = false) };
const paused: Condition = { status: 503, code: 'WRITES_PAUSED', set: (s) => void (s.a.state.faults.writesPaused = true), clear: (s) => void (s.a.state.faults.writesPaused = false) };
const scope: Condition = { status: 403, code: 'API_TOKEN_SCOPE_DENIED', key: 'read', set: () => undefined, clear: () => undefined };
const campaignsLapsed = (status: number, code: string): Condition => ({ status, code, set: (s) => void (plan(s).campaigns = false), clear: (s) => void (plan(s).campaigns = true) });
const runsLapsed: Condition = { status: 401, code: 'UNAUTHORIZED', set: (s) => void (plan(s).runsWrite = false), clear: (s) => void (plan(s).runsWrite = true) };
const campaignLimit: Condition = { status: 403, code: 'LIMIT_EXCEEDED', set: (s) => void (plan(s).campaignLimit = [...s.a.state.campaigns.values()].filter((c) => c.deletedAt === null).length), clear: (s) => void (plan(s).campaignLimit = 100) };
const productsLimit: Condition = { status: 403, code: 'LIMIT_EXCEEDED', set: (s) => void (plan(s).productsPerCampaign = 1), clear: (s) => void (plan(s).productsPerCampaign = 100) };
const sizeLapsed: Condition = { status: 403, code: 'IMAGE_SIZE_NOT_ENTITLED', set: (s) => void (plan(s).imageSizes = ['1K', '2K']), clear: (s) => void (plan(s).imageSizes = ['1K', '2K', '4K']) };
const upscalesLapsed: Condition = { status: 403, code: 'IMAGE_UPSCALE_NOT_ENTITLED', set: (s) => void (plan(s).upscales = false), clear: (s) => void (plan(s).upscales = true) };
const noBalance: Condition = { status: 402, code: 'INSUFFICIENT_CREDITS', set: (s) => void (creditsOf(s.a.state).balance = 0), clear: (s) => void (creditsOf(s.a.state).balance = 10_000) };
const noBudget: Condition = { status: 409, code: 'ACCOUNT_SPEND_CAP_EXCEEDED', set: (s) => void (creditsOf(s.a.state).dailyBudget = 0), clear: (s) => void (creditsOf(s.a.state).dailyBudget = null) };

const EVERY_WRITE: Record<string, Condition> = { 'writes paused': paused, 'account suspended': suspended, 'scope missing': scope };

/** Refusals decided before the operation runs, per operation (IDEM-014). */
const REFUSALS: Record<string, Record<string, Condition>> = {
  createCampaign: { 'plan without campaigns': campaignsLapsed(403, 'TIER_REQUIRED'), 'campaign limit': campaignLimit, 'products-per-campaign limit': productsLimit },
  updateCampaign: { 'plan without campaigns': campaignsLapsed(401, 'ENTITLEMENT_LOST') },
  deleteCampaign: { 'plan without campaigns': campaignsLapsed(401, 'ENTITLEMENT_LOST') },
  undeleteCampaign: { 'plan without campaigns': campaignsLapsed(401, 'ENTITLEMENT_LOST'), 'campaign limit': campaignLimit, 'products-per-campaign limit': productsLimit },
  createRun: { 'plan without runs': runsLapsed, 'plan without 4K': sizeLapsed, 'daily budget spent': noBudget },
  createUpscale: { 'plan without runs': runsLapsed, 'plan without upscales': upscalesLapsed, 'balance too small': noBalance, 'daily budget spent': noBudget },
};

/** What a stored success meets on replay while the caller may not make it (IDEM-013): no limit or balance here, the stored operation already counted. */
const ENTITLEMENTS: Record<string, Record<string, Condition>> = {
  createCampaign: { 'plan without campaigns': campaignsLapsed(403, 'TIER_REQUIRED') },
  updateCampaign: { 'plan without campaigns': campaignsLapsed(401, 'ENTITLEMENT_LOST') },
  deleteCampaign: { 'plan without campaigns': campaignsLapsed(401, 'ENTITLEMENT_LOST') },
  undeleteCampaign: { 'plan without campaigns': campaignsLapsed(401, 'ENTITLEMENT_LOST') },
  createRun: { 'plan without runs': runsLapsed, 'plan without 4K': sizeLapsed },
  createUpscale: { 'plan without runs': runsLapsed, 'plan without upscales': upscalesLapsed },
};

const rows = (table: Record<string, Record<string, Condition>>, everyWrite: Record<string, Condition>) =>
  Object.keys(OPERATIONS).flatMap((op) => Object.entries({ ...everyWrite, ...(table[op] ?? {}) }).map(([name, condition]) => [op, name, condition] as const));

function send(s: Scene, op: string, write: Write, key: string, idempotencyKey: string): Promise<TestResponse> {
  return s.call(op, write.method, write.path, { key: s.a.key(key), headers: { 'idempotency-key': idempotencyKey }, ...(write.body !== undefined ? { body: write.body } : {}) });
}

function expectRefused(res: TestResponse, condition: Condition): void {
  expect(res.status, res.text).toBe(condition.status);
  if (condition.code) expect(res.body.code, res.text).toBe(condition.code);
  expect(res.headers['idempotent-replayed']).toBeUndefined();
}

describe('D72 IDEM-010 IDEM-014: a refusal decided before the operation runs stores nothing', () => {
  it.each(rows(REFUSALS, EVERY_WRITE))('%s, %s: refused, then the identical request under the same key runs anew once fixed', async (op, _name, condition) => {
    s = await enterprise();
    const operation = OPERATIONS[op]!;
    const write = await operation.given(s);
    const key = s.idem();
    condition.set(s);
    expectRefused(await send(s, op, write, condition.key ?? operation.key, key), condition);
    condition.clear(s);
    const retried = await send(s, op, write, operation.key, key);
    expect(retried.status, retried.text).toBe(operation.ok);
    expect(retried.headers['idempotent-replayed'], 'processed anew, not a replay').toBeUndefined();
  });
});

describe('D72 IDEM-013: a replay re-checks authentication and entitlement first', () => {
  it.each(rows(ENTITLEMENTS, { 'writes paused': paused, 'account suspended': suspended }))('%s, %s: a stored success replays as the fresh refusal while it holds, then as itself', async (op, _name, condition) => {
    s = await enterprise();
    const operation = OPERATIONS[op]!;
    const write = await operation.given(s);
    const key = s.idem();
    const first = await send(s, op, write, operation.key, key);
    expect(first.status, first.text).toBe(operation.ok);
    condition.set(s);
    expectRefused(await send(s, op, write, operation.key, key), condition);
    condition.clear(s);
    const replayed = await send(s, op, write, operation.key, key);
    expect(replayed.status, replayed.text).toBe(operation.ok);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(first.body);
  });
});
