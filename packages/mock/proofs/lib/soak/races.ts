/** The soak's exact scenarios, each on a dedicated account: idempotency, If-Match, lost updates and rate limits under concurrent requests (docs/internals.md, "packages/mock/proofs/lib/soak.ts"). */
import { Clock } from '../../../../mock-core/src/core/clock.ts';
import type { AccountState } from '../../../../mock-core/src/domain/store.ts';
import { sleep, type Reply, Client } from './client.ts';
import { ALL_LIMITS_HIGH, type SoakAccount, newAccount, readableCreatives, liveAssets, liveCampaigns, brandProducts } from './traffic.ts';

export interface ScenarioResult {
  name: string;
  passed: boolean;
  detail: string;
}

function countBy(replies: Reply[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of replies) {
    const code = (r.body as { code?: string } | undefined)?.code;
    const k = `${r.status}${code ? ` ${code}` : ''}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

export async function idempotencyScenarios(burst: Client, client: Client, account: SoakAccount, width: number, log: (s: string) => void): Promise<ScenarioResult[]> {
  const key = account.keys.all!.key;
  const state = account.state;
  const out: ScenarioResult[] = [];
  const n = Math.max(4, width);
  const { brandId, productIds } = brandProducts(state);

  const race = async (name: string, path: string, body: unknown, count: () => number, idOf: (r: Reply) => string | undefined, created: number) => {
    const before = count();
    const k = `race-${name.replace(/[^A-Za-z0-9#]/g, "_").replace("#", "-")}-${Date.now()}`;
    const replies = await Promise.all(Array.from({ length: n }, () => burst.request('POST', path, { key, headers: { 'idempotency-key': k }, body })));
    // Once the first has finished, a retry replays it.
    await sleep(50);
    let retry = await client.request('POST', path, { key, headers: { 'idempotency-key': k }, body });
    for (let i = 0; i < 40 && retry.status === 409; i++) {
      await sleep(100);
      retry = await client.request('POST', path, { key, headers: { 'idempotency-key': k }, body });
    }
    const made = count() - before;
    const successes = [...replies, retry].filter((r) => r.status === created);
    const ids = new Set(successes.map(idOf));
    const others = replies.filter((r) => r.status !== created && !(r.status === 409 && (r.body as { code?: string })?.code === 'IDEMPOTENCY_IN_PROGRESS' && r.headers['retry-after'] !== undefined));
    const record = state.idempotency.get(k);
    const passed = made === 1 && ids.size === 1 && others.length === 0 && retry.headers['idempotent-replayed'] === 'true' && record?.resource?.id === [...ids][0];
    const detail = `${n} concurrent identical requests under one key: ${made} resource(s) made, answers ${JSON.stringify(countBy(replies))}, distinct ids ${ids.size}, retry ${retry.status} replayed=${retry.headers['idempotent-replayed'] ?? 'no'}`;
    log(`  ${passed ? 'ok  ' : 'FAIL'} idempotency ${name}: ${detail}`);
    out.push({ name: `idempotency: ${name}`, passed, detail });
  };

  for (let round = 0; round < 3; round++) {
    await race(`createCampaign#${round}`, '/campaigns', { name: `Race ${round}`, brandId, productIds: productIds.slice(0, 2) }, () => state.campaigns.size, (r) => (r.body as { campaignId?: string })?.campaignId, 201);
    await race(`createRun#${round}`, '/runs', { productIds: productIds.slice(0, 2), creativesPerProduct: 1, presetId: 'pst_studio_white' }, () => state.runs.size, (r) => (r.body as { runId?: string })?.runId, 202);
    await race(`createUpscale#${round}`, '/upscales', { source: { productId: productIds[round]!, image: 'primary' }, target: '4K' }, () => state.upscales.size, (r) => (r.body as { upscaleId?: string })?.upscaleId, 202);
  }
  // A slow write holds its key in progress: every concurrent duplicate is 409 IDEMPOTENCY_IN_PROGRESS.
  await client.request('PATCH', `/__mock/accounts/${account.accountId}/faults`, { body: { slowWritesMs: 300 } });
  await race('createCampaign (slow write)', '/campaigns', { name: 'Race slow', brandId, productIds: productIds.slice(2, 4) }, () => state.campaigns.size, (r) => (r.body as { campaignId?: string })?.campaignId, 201);
  await race('createRun (slow write)', '/runs', { productIds: productIds.slice(2, 4), creativesPerProduct: 2, presetId: 'pst_lifestyle' }, () => state.runs.size, (r) => (r.body as { runId?: string })?.runId, 202);
  await client.request('PATCH', `/__mock/accounts/${account.accountId}/faults`, { body: { slowWritesMs: 0 } });
  return out;
}

export async function ifMatchScenarios(burst: Client, client: Client, account: SoakAccount, width: number, log: (s: string) => void): Promise<ScenarioResult[]> {
  const key = account.keys.all!.key;
  const state = account.state;
  const n = Math.max(4, width);
  const out: ScenarioResult[] = [];
  const targets: { name: string; path: string; body: (i: number) => unknown }[] = [
    { name: 'creative', path: `/creatives/${readableCreatives(state)[0]}`, body: (i) => ({ metadata: { race: `v${i}` } }) },
    { name: 'asset', path: `/assets/${liveAssets(state)[0]}`, body: (i) => ({ notes: `race ${i}` }) },
    { name: 'campaign', path: `/campaigns/${liveCampaigns(state)[0]}`, body: (i) => ({ name: `Race name ${i}` }) },
  ];
  for (const target of targets) {
    for (let round = 0; round < 3; round++) {
      const etag = (await client.request('GET', target.path, { key })).headers.etag;
      const replies = await Promise.all(Array.from({ length: n }, (_, i) => burst.request('PATCH', target.path, { key, headers: { 'if-match': etag ?? '"none"' }, body: target.body(round * 1000 + i) })));
      const wins = replies.filter((r) => r.status === 200).length;
      const stale = replies.filter((r) => r.status === 412 && (r.body as { code?: string })?.code === 'PRECONDITION_FAILED').length;
      const passed = etag !== undefined && wins === 1 && stale === n - 1;
      const detail = `${n} concurrent PATCHes with If-Match ${etag}: ${JSON.stringify(countBy(replies))}`;
      log(`  ${passed ? 'ok  ' : 'FAIL'} If-Match ${target.name}#${round}: ${detail}`);
      out.push({ name: `If-Match: ${target.name}#${round}`, passed, detail });
    }
  }
  return out;
}

export async function lostUpdateScenarios(burst: Client, client: Client, account: SoakAccount, width: number, log: (s: string) => void): Promise<ScenarioResult[]> {
  const key = account.keys.all!.key;
  const state = account.state;
  const out: ScenarioResult[] = [];
  const room = (meta: Record<string, string> | undefined) => 50 - Object.keys(meta ?? {}).length;
  const creative = readableCreatives(state).find((id) => room(state.creatives.get(id)!.metadata) >= 10)!;
  const asset = liveAssets(state).find((id) => room(state.assets.get(id)!.metadata) >= 10)!;
  const campaign = liveCampaigns(state).find((id) => room(state.campaigns.get(id)!.metadata) >= 10)!;
  const targets = [
    { name: 'creative', path: `/creatives/${creative}`, meta: () => state.creatives.get(creative)!.metadata },
    { name: 'asset', path: `/assets/${asset}`, meta: () => state.assets.get(asset)!.metadata },
    { name: 'campaign', path: `/campaigns/${campaign}`, meta: () => state.campaigns.get(campaign)!.metadata },
  ];
  for (const target of targets) {
    const n = Math.max(4, Math.min(width, room(target.meta()) - 1));
    const replies = await Promise.all(Array.from({ length: n }, (_, i) => burst.request('PATCH', target.path, { key, body: { metadata: { [`lost_update_${i}`]: `value ${i}` } } })));
    const read = await client.request('GET', target.path, { key });
    const metadata = ((read.body as { metadata?: Record<string, string> }) ?? {}).metadata ?? {};
    const missing = Array.from({ length: n }, (_, i) => `lost_update_${i}`).filter((k, i) => metadata[k] !== `value ${i}`);
    const passed = replies.every((r) => r.status === 200) && missing.length === 0;
    const detail = `${n} concurrent PATCHes of different metadata keys: ${JSON.stringify(countBy(replies))}, missing afterwards: ${missing.length ? missing.join(', ') : 'none'}`;
    log(`  ${passed ? 'ok  ' : 'FAIL'} lost update ${target.name}: ${detail}`);
    out.push({ name: `lost update: ${target.name}`, passed, detail });
  }
  return out;
}

export async function rateLimitScenarios(burst: Client, client: Client, store: Map<string, AccountState>, clock: Clock, width: number, log: (s: string) => void): Promise<ScenarioResult[]> {
  const out: ScenarioResult[] = [];
  // Start each burst at the beginning of a 60 s window, so that it cannot straddle two.
  const alignWindow = async () => {
    const into = clock.now() % 60_000;
    if (into > 5_000) await client.request('POST', '/__mock/clock', { body: { advanceSeconds: (60_000 - into + 5) / 1000 } });
  };
  // `limited`: the one limit set to N for the case (every other limit is out of reach).
  const cases: { name: string; limited: string; keys: string[]; request: (a: SoakAccount, i: number) => [string, string, unknown?] }[] = [
    { name: 'group read limit of one key', limited: 'group:read', keys: ['all'], request: () => ['GET', '/products?limit=5'] },
    { name: 'campaign write limit of one key', limited: 'group:campaign_writes', keys: ['all'], request: (a, i) => ['PATCH', `/campaigns/${liveCampaigns(a.state)[0]}`, { metadata: { rl: `v${i}` } }] },
    { name: 'account-wide read cap across two keys', limited: 'account:read', keys: ['all', 'read'], request: (_a, i) => ['GET', i % 2 ? '/creatives?limit=3' : '/assets?limit=3'] },
  ];
  for (const c of cases) {
    const limit = Math.max(5, Math.floor(width * 0.75));
    const m = limit * 2 + 3;
    const limits = { ...ALL_LIMITS_HIGH, [c.limited]: limit };
    const account = await newAccount(client, store, { seed: 21, limits });
    await alignWindow();
    const replies = await Promise.all(
      Array.from({ length: m }, (_, i) => {
        const [method, path, body] = c.request(account, i);
        return burst.request(method, path, { key: account.keys[c.keys[i % c.keys.length]!]!.key, ...(body !== undefined ? { body } : {}) });
      }),
    );
    const limited = replies.filter((r) => r.status === 429);
    const admitted = replies.length - limited.length;
    const wellFormed = limited.every((r) => r.headers['retry-after'] !== undefined && /remaining=0/.test(r.headers.ratelimit ?? ''));
    const passed = admitted === limit && limited.length === m - limit && wellFormed;
    const detail = `limit ${limit}, ${m} concurrent requests: ${admitted} admitted, ${limited.length} answered 429${wellFormed ? '' : ' (some 429 without Retry-After or remaining=0)'}`;
    log(`  ${passed ? 'ok  ' : 'FAIL'} rate limit, ${c.name}: ${detail}`);
    out.push({ name: `rate limit: ${c.name}`, passed, detail });
  }
  return out;
}
