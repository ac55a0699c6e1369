/**
 * Concurrency soak on loopback: a REAL server (`buildMock()` listening on 127.0.0.1, port 0, real
 * clock) in this process, and many clients over real sockets with keep-alive, bounded in requests
 * and in time. Run by `npm run soak` and, short, by scripts/lib/soak.test.ts.
 * How it works and what it decides: docs/internals.md, "scripts/lib/soak.ts".
 */
import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import { basePath, matchOperation } from '../../spec/contract.ts';
import { buildMock } from '../../mock/adapters/node/app.ts';
import { Clock } from '../../mock/core/clock.ts';
import { accountViolations, formatViolations, INVARIANTS } from '../../mock/testkit/invariants.ts';
import { setGlobalGeneration } from '../../mock/domain/runs/settings.ts';
import type { AccountState } from '../../mock/domain/store.ts';
import { sentRequest, violations, type TestResponse } from '../../mock/testkit/harness.ts';

export interface SoakOptions {
  /** Length of the mixed load, seconds. */
  seconds: number;
  /** Concurrent clients of the mixed load (and the width of the scenario bursts). */
  clients: number;
  seed: number;
  /** Stop the mixed load after this many requests (default: no bound but time). */
  maxRequests?: number;
  /** Part of the run before memory is measured (default 0.3). */
  warmupFraction?: number;
  log?: (line: string) => void;
}

export interface ScenarioResult {
  name: string;
  passed: boolean;
  detail: string;
}

export interface SoakFigures {
  seed: number;
  clients: number;
  seconds: number;
  requests: number;
  byStatus: Record<string, number>;
  fiveXX: number;
  nonConforming: number;
  clientErrors: number;
  crashes: number;
  invariantChecks: number;
  invariantViolations: number;
  /** Retries of a keyed write that succeeded, all of which must replay it. */
  replays: number;
  scenarios: ScenarioResult[];
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  memory: {
    samples: number;
    baselineHeapMiB: number;
    peakHeapMiB: number;
    peakRssMiB: number;
    /** Slopes after warm-up, KiB per second: heap after GC, and the serialized size of the accounts' state. */
    heapSlopeKiBps: number;
    dataSlopeKiBps: number;
    /** heap growth after warm-up vs data growth after warm-up, MiB. */
    heapGrowthMiB: number;
    dataGrowthMiB: number;
    flat: boolean;
    /** Whether the run was long enough (after warm-up) for a verdict on the slope. */
    measured: boolean;
  };
  elapsedMs: number;
}

export interface SoakResult {
  figures: SoakFigures;
  failures: string[];
}

/** The heap may grow this many times faster than the serialized data it holds, plus a noise allowance. */
const HEAP_PER_DATA_FACTOR = 4;
const SLOPE_ALLOWANCE_KIBPS = 48;
/** Seconds of samples after warm-up needed for a verdict. */
const MIN_MEASURED_SECONDS = 20;

const HIGH = 1_000_000_000;
const ALL_LIMITS_HIGH: Record<string, number> = Object.fromEntries(
  ['group:read', 'group:generation_read', 'group:generation_write', 'group:creative_reviews', 'group:creative_writes', 'group:asset_writes', 'group:campaign_writes', 'account:read', 'account:generation', 'account:writes', 'ip:read', 'ip:generation', 'ip:writes'].map((n) => [n, HIGH]),
);

// ---------------------------------------------------------------------------------------------
// Helpers

function forcedGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  // Without --expose-gc (vitest): switch the flag on and take `gc` from a fresh context.
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/** mulberry32: a small seeded PRNG for the clients' choices. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function slope(points: { t: number; y: number }[]): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const mt = points.reduce((s, p) => s + p.t, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p.y - my);
    den += (p.t - mt) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Reply extends TestResponse {
  operationId?: string;
}

interface Stats {
  requests: number;
  byStatus: Record<string, number>;
  fiveXX: number;
  nonConforming: number;
  clientErrors: number;
  latencies: number[];
  problems: string[];
}

class Client {
  constructor(
    private readonly origin: string,
    private readonly agent: http.Agent,
    private readonly stats: Stats,
  ) {}

  /** A public API request (path below the base) or a control-plane one (`/__mock/...`). */
  request(method: string, path: string, options: { key?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Reply> {
    const control = path.startsWith('/__mock');
    const fullPath = control ? path : `${basePath}${path}`;
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const started = performance.now();
    return new Promise<Reply>((resolve, reject) => {
      const req = http.request(`${this.origin}${fullPath}`, { method, headers, agent: this.agent, timeout: 30_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const lower: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) lower[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
          let body: unknown;
          if ((lower['content-type'] ?? '').includes('json') && text) {
            try {
              body = JSON.parse(text);
            } catch {
              body = undefined;
            }
          }
          const reply: Reply = { status: res.statusCode ?? 0, headers: lower, text, body };
          if (!control) this.record(method, path, reply, performance.now() - started);
          resolve(reply);
        });
      });
      req.on('timeout', () => req.destroy(new Error(`timeout: ${method} ${fullPath}`)));
      req.on('error', (error) => {
        if (!control) {
          this.stats.clientErrors++;
          this.stats.problems.push(`client error on ${method} ${fullPath}: ${(error as Error).message}`);
        }
        reject(error);
      });
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  private record(method: string, path: string, reply: Reply, ms: number): void {
    const s = this.stats;
    s.requests++;
    s.latencies.push(ms);
    s.byStatus[String(reply.status)] = (s.byStatus[String(reply.status)] ?? 0) + 1;
    if (reply.status >= 500) {
      s.fiveXX++;
      s.problems.push(`5xx: ${method} ${path} → ${reply.status} ${reply.text.slice(0, 300)}`);
    }
    const matched = matchOperation(method, path.split('?')[0]!);
    if (!matched) return;
    reply.operationId = matched.operation.operationId;
    const broken = violations(matched.operation.operationId, { ...reply, request: sentRequest(method, path) });
    if (broken.length > 0) {
      s.nonConforming++;
      if (s.problems.length < 50) s.problems.push(`non-conforming: ${method} ${path} → ${reply.status}: ${broken.join('; ')}`);
    }
  }
}

interface SoakAccount {
  accountId: string;
  state: AccountState;
  keys: Record<string, { key: string; keyId: string; scopes: string[] }>;
}

async function newAccount(control: Client, store: Map<string, AccountState>, body: Record<string, unknown>): Promise<SoakAccount> {
  const res = await control.request('POST', '/__mock/accounts', { body });
  if (res.status !== 201) throw new Error(`soak: account creation failed: ${res.status} ${res.text}`);
  const { accountId, keys } = res.body as { accountId: string; keys: SoakAccount['keys'] };
  return { accountId, keys, state: store.get(accountId)! };
}

function readableCreatives(state: AccountState): string[] {
  const out: string[] = [];
  for (const c of state.creatives.values()) {
    const campaign = state.campaigns.get(c.campaignId);
    if (c.url !== null && (c.mediaType === 'image' || c.mediaType === 'video') && c.status !== 'NOT_GENERATED' && c.deletedAt === null && campaign?.deletedAt === null) out.push(c.creativeId);
  }
  return out;
}

/** Creatives with a public representation (live or deleted: undelete and showDeleted reads need those too). */
function readableOrDeleted(state: AccountState): string[] {
  const out: string[] = [];
  for (const c of state.creatives.values()) if (c.url !== null && (c.mediaType === 'image' || c.mediaType === 'video') && c.status !== 'NOT_GENERATED') out.push(c.creativeId);
  return out;
}

function liveAssets(state: AccountState): string[] {
  return [...state.assets.values()].filter((a) => a.deletedAt === null).map((a) => a.assetId);
}

function liveCampaigns(state: AccountState): string[] {
  return [...state.campaigns.values()].filter((c) => c.deletedAt === null).map((c) => c.campaignId);
}

/** Product ids of one brand (a campaign covers products of its brand). */
function brandProducts(state: AccountState): { brandId: string; productIds: string[] } {
  const brandId = state.brands.ids()[0]!;
  return { brandId, productIds: [...state.products.values()].filter((p) => p.brandId === brandId).map((p) => p.productId) };
}

// ---------------------------------------------------------------------------------------------
// The soak

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const failures: string[] = [];
  const gc = forcedGc();
  const stats: Stats = { requests: 0, byStatus: {}, fiveXX: 0, nonConforming: 0, clientErrors: 0, latencies: [], problems: [] };
  let crashes = 0;
  const crashNotes: string[] = [];
  const onUncaught = (error: unknown) => {
    crashes++;
    crashNotes.push(`uncaught: ${String((error as Error)?.stack ?? error)}`);
  };
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);

  gc();
  const baselineHeap = process.memoryUsage().heapUsed;
  const clock = new Clock({ mode: 'real' });
  const mock = buildMock({
    clock,
    responseCache: { verify: true }, // a stale kept answer is a logged error, counted as a crash
    logError: (error, context) => {
      crashes++;
      crashNotes.push(`the mock logged an error in ${context}: ${String((error as Error)?.stack ?? error)}`);
    },
  });
  setGlobalGeneration(mock.services.store, { speed: 40 }); // run items settle in a fraction of a second
  await mock.app.listen({ host: '127.0.0.1', port: 0 });
  const address = mock.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const origin = `http://127.0.0.1:${port}`;
  log(`soak: server on ${origin}, ${options.clients} clients, ${options.seconds} s, seed ${options.seed}`);

  const agent = new http.Agent({ keepAlive: true, maxSockets: options.clients });
  const burstAgent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const client = new Client(origin, agent, stats);
  const burst = new Client(origin, burstAgent, stats);
  const store = mock.services.store.accounts;
  const scenarios: ScenarioResult[] = [];
  let invariantChecks = 0;
  let invariantViolations = 0;
  const samples: { t: number; heap: number; data: number }[] = [];
  const replays: Replays = { count: 0, failed: 0, notes: [] };
  let peakRss = 0;

  try {
    // Accounts: three for the mixed load, one per scenario family.
    const loadAccounts = await Promise.all([1, 2, 3].map((s) => newAccount(client, store, { seed: s, limits: ALL_LIMITS_HIGH })));
    const idemAccount = await newAccount(client, store, { seed: 11, limits: ALL_LIMITS_HIGH });
    const raceAccount = await newAccount(client, store, { seed: 12, limits: ALL_LIMITS_HIGH });
    const allAccounts = [...loadAccounts, idemAccount, raceAccount];

    const dataBytes = (): number => {
      let total = 0;
      for (const account of store.values()) {
        try {
          total += v8.serialize(account).length;
        } catch {
          total += JSON.stringify([...account.events, ...account.idempotency.values()]).length;
        }
      }
      return total;
    };
    const sample = () => {
      // The invariants hold between any two requests, not only at the end (keys in flight aside).
      for (const account of store.values()) {
        const found = accountViolations(account);
        invariantChecks += INVARIANTS.length;
        invariantViolations += found.length;
        if (found.length > 0 && failures.length < 10) failures.push(`state invariants of ${account.accountId} during the load:\n${formatViolations(found)}`);
      }
      gc();
      const usage = process.memoryUsage();
      peakRss = Math.max(peakRss, usage.rss);
      samples.push({ t: (Date.now() - started) / 1000, heap: usage.heapUsed, data: dataBytes() });
    };

    // Mixed load.
    const deadline = Date.now() + options.seconds * 1000;
    const budget = options.maxRequests ?? Infinity;
    let loadRequests = 0;
    const loadDone = Promise.all(
      Array.from({ length: options.clients }, (_, i) => mixedClient(client, loadAccounts[i % loadAccounts.length]!, prng(options.seed * 1000 + i), i, () => Date.now() < deadline && loadRequests < budget, () => loadRequests++, replays)),
    );

    // Memory samples through the run.
    const sampleEvery = Math.max(400, Math.floor((options.seconds * 1000) / 40));
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        sample();
        await sleep(sampleEvery);
      }
    })();

    // Scenarios, under the load, after a short warm-up.
    await sleep(Math.min(2000, options.seconds * 200));
    scenarios.push(...(await idempotencyScenarios(burst, client, idemAccount, options.clients, log)));
    scenarios.push(...(await ifMatchScenarios(burst, client, raceAccount, options.clients, log)));
    scenarios.push(...(await lostUpdateScenarios(burst, client, raceAccount, options.clients, log)));
    scenarios.push(...(await rateLimitScenarios(burst, client, store, clock, options.clients, log)));

    await loadDone;
    sampling = false;
    await sampler;
    sample();
    log(`soak: load done, ${stats.requests} requests`);

    // Settle every run and upscale (24 h later: stalled runs expire), then check every account.
    await client.request('POST', '/__mock/clock', { body: { advanceSeconds: 25 * 3600 } });
    await sleep(50);
    for (const account of allAccounts) {
      const found = accountViolations(account.state, { quiescent: true });
      invariantChecks += INVARIANTS.length;
      invariantViolations += found.length;
      if (found.length > 0) failures.push(`state invariants of ${account.accountId}:\n${formatViolations(found)}`);
    }
    for (const account of [...store.values()].filter((a) => !allAccounts.some((x) => x.accountId === a.accountId))) {
      const found = accountViolations(account, { quiescent: true });
      invariantChecks += INVARIANTS.length;
      invariantViolations += found.length;
      if (found.length > 0) failures.push(`state invariants of ${account.accountId}:\n${formatViolations(found)}`);
    }
    // The server is still up and answering.
    const alive = await client.request('GET', '/__mock/clock');
    if (alive.status !== 200) failures.push(`the server no longer answers the control plane (${alive.status})`);
  } catch (error) {
    failures.push(`the soak stopped: ${String((error as Error)?.stack ?? error)}`);
  } finally {
    agent.destroy();
    burstAgent.destroy();
    await mock.app.close();
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
  }

  // Memory: slopes after warm-up.
  const warmupAt = (samples[0]?.t ?? 0) + (options.warmupFraction ?? 0.3) * options.seconds;
  const after = samples.filter((s) => s.t >= warmupAt);
  const measured = after.length >= 3 ? after : samples.slice(Math.floor(samples.length / 3));
  const heapSlope = slope(measured.map((s) => ({ t: s.t, y: s.heap }))) / 1024;
  const dataSlope = slope(measured.map((s) => ({ t: s.t, y: s.data }))) / 1024;
  const first = measured[0];
  const last = measured[measured.length - 1];
  // A slope needs a span: shorter runs report the memory figures without a verdict.
  const span = measured.length >= 2 ? measured[measured.length - 1]!.t - measured[0]!.t : 0;
  const measuredEnough = span >= MIN_MEASURED_SECONDS && measured.length >= 8;
  const flat = heapSlope <= HEAP_PER_DATA_FACTOR * Math.max(0, dataSlope) + SLOPE_ALLOWANCE_KIBPS;
  const sorted = [...stats.latencies].sort((a, b) => a - b);
  const figures: SoakFigures = {
    seed: options.seed,
    clients: options.clients,
    seconds: options.seconds,
    requests: stats.requests,
    byStatus: stats.byStatus,
    fiveXX: stats.fiveXX,
    nonConforming: stats.nonConforming,
    clientErrors: stats.clientErrors,
    crashes,
    invariantChecks,
    invariantViolations,
    replays: replays.count,
    scenarios,
    latencyMs: { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1] ?? 0 },
    memory: {
      samples: samples.length,
      baselineHeapMiB: baselineHeap / 1048576,
      peakHeapMiB: Math.max(0, ...samples.map((s) => s.heap)) / 1048576,
      peakRssMiB: peakRss / 1048576,
      heapSlopeKiBps: heapSlope,
      dataSlopeKiBps: dataSlope,
      heapGrowthMiB: first && last ? (last.heap - first.heap) / 1048576 : 0,
      dataGrowthMiB: first && last ? (last.data - first.data) / 1048576 : 0,
      flat,
      measured: measuredEnough,
    },
    elapsedMs: Date.now() - started,
  };
  if (stats.fiveXX > 0) failures.push(`${stats.fiveXX} 5xx answers`);
  if (stats.nonConforming > 0) failures.push(`${stats.nonConforming} responses break the document`);
  if (stats.clientErrors > 0) failures.push(`${stats.clientErrors} requests got no HTTP answer`);
  if (replays.failed > 0) failures.push(`${replays.failed} of ${replays.count} retries under the same Idempotency-Key were not replays:\n${replays.notes.slice(0, 5).join('\n')}`);
  if (crashes > 0) failures.push(`${crashes} crashes:\n${crashNotes.slice(0, 5).join('\n')}`);
  for (const s of scenarios) if (!s.passed) failures.push(`scenario ${s.name}: ${s.detail}`);
  if (measuredEnough && !flat) failures.push(`memory is not flat: heap grows ${heapSlope.toFixed(1)} KiB/s after warm-up while the data grows ${dataSlope.toFixed(1)} KiB/s (allowed: ${HEAP_PER_DATA_FACTOR} × data + ${SLOPE_ALLOWANCE_KIBPS} KiB/s)`);
  if (stats.problems.length > 0) failures.push(...stats.problems.slice(0, 20));
  return { figures, failures };
}

// ---------------------------------------------------------------------------------------------
// Mixed load

interface Replays {
  count: number;
  failed: number;
  notes: string[];
}

async function mixedClient(client: Client, account: SoakAccount, random: () => number, index: number, more: () => boolean, count: () => void, replays: Replays): Promise<void> {
  const key = account.keys.all!.key;
  const state = account.state;
  let n = 0;
  const pick = <T>(list: readonly T[]): T | undefined => (list.length === 0 ? undefined : list[Math.floor(random() * list.length)]);
  const idem = () => `soak-${index}-${n++}-${Math.floor(random() * 1e9)}`;
  const metaKeys = ['color', 'size', 'channel', 'owner', 'region', 'season'];
  const metaPatch = () => {
    const patch: Record<string, string | null> = {};
    for (let k = 0; k < 1 + Math.floor(random() * 3); k++) patch[pick(metaKeys)!] = random() < 0.25 ? null : `v${Math.floor(random() * 5)}`;
    return patch;
  };
  const send = async (method: string, path: string, opts: { headers?: Record<string, string>; body?: unknown } = {}) => {
    count();
    try {
      return await client.request(method, path, { key, ...opts });
    } catch {
      return undefined; // counted as a client error
    }
  };
  const etagOf = async (path: string) => (await send('GET', `${path}?showDeleted=true`))?.headers.etag;
  let lastKeyed: { method: string; path: string; headers: Record<string, string>; body?: unknown; reply?: Reply } | undefined;
  const keyed = async (entry: NonNullable<typeof lastKeyed>) => {
    lastKeyed = entry;
    entry.reply = await send(entry.method, entry.path, { headers: entry.headers, body: entry.body });
    return entry.reply;
  };

  while (more()) {
    // Mostly creatives the API can act on (campaigns created here open NOT_GENERATED ones: 404s).
    const creative = random() < 0.85 ? (pick(readableOrDeleted(state)) ?? pick(state.creatives.ids())) : pick(state.creatives.ids());
    const asset = pick(state.assets.ids());
    const campaign = pick(state.campaigns.ids());
    const run = pick(state.runs.ids());
    const upscale = pick(state.upscales.ids());
    const r = random();
    if (r < 0.45) {
      // Reads.
      const reads: (() => Promise<unknown>)[] = [
        () => send('GET', `/creatives?limit=${1 + Math.floor(random() * 50)}${random() < 0.3 ? '&showDeleted=true' : ''}${random() < 0.2 ? '&expand=product' : ''}`),
        () => send('GET', `/creatives/${creative}`),
        () => send('GET', `/assets?limit=20`),
        () => send('GET', `/assets/${asset}?showDeleted=true`),
        () => send('GET', `/campaigns${random() < 0.5 ? '?showDeleted=true' : ''}`),
        () => send('GET', `/campaigns/${campaign}`),
        () => send('GET', `/products?limit=50`),
        () => send('GET', `/deliveries?limit=10`),
        () => send('GET', `/presets`),
        () => send('GET', `/runs`),
        () => (run ? send('GET', `/runs/${run}`) : send('GET', '/runs')),
        () => (run ? send('GET', `/runs/${run}/items?limit=10`) : send('GET', '/presets')),
        () => (upscale ? send('GET', `/upscales/${upscale}`) : send('GET', '/presets')),
        async () => {
          const first = await send('GET', '/creatives?limit=5');
          const cursor = (first?.body as { pagination?: { nextCursor?: string | null } } | undefined)?.pagination?.nextCursor;
          if (cursor) await send('GET', `/creatives?limit=5&cursor=${encodeURIComponent(cursor)}`);
        },
      ];
      await pick(reads)!();
      continue;
    }
    const writes: (() => Promise<unknown>)[] = [
      async () => {
        const headers: Record<string, string> = {};
        if (random() < 0.3) {
          const etag = await etagOf(`/creatives/${creative}`);
          if (etag) headers['if-match'] = etag;
        }
        await send('PATCH', `/creatives/${creative}`, { headers, body: random() < 0.2 ? { aspectRatio: pick(['1:1', '4:5', '9:16', null]) } : { metadata: metaPatch() } });
      },
      () => send('PATCH', `/assets/${asset}`, { body: random() < 0.5 ? { favorited: random() < 0.5 } : { metadata: metaPatch(), notes: random() < 0.5 ? '' : `note ${Math.floor(random() * 9)}` } }),
      () => send('PATCH', `/campaigns/${campaign}`, { body: random() < 0.5 ? { name: `Campaign ${Math.floor(random() * 9)}` } : { metadata: metaPatch() } }),
      () => send('DELETE', `/creatives/${creative}`),
      () => keyed({ method: 'POST', path: `/creatives/${creative}/undelete`, headers: { 'idempotency-key': idem() } }),
      () => send('POST', `/creatives/${creative}/${random() < 0.5 ? 'approve' : 'reject'}`, { headers: { 'idempotency-key': idem() } }),
      () => send('DELETE', `/assets/${asset}`),
      () => send('POST', `/assets/${asset}/${pick(['undelete', 'archive', 'unarchive'])}`, { headers: { 'idempotency-key': idem() } }),
      () => send('DELETE', `/campaigns/${campaign}`),
      () => send('POST', `/campaigns/${campaign}/undelete`, { headers: { 'idempotency-key': idem() } }),
      async () => {
        // Creates are bounded, so the data the run makes stays small.
        if (state.campaigns.size >= 40) return send('GET', '/campaigns');
        const { brandId, productIds } = brandProducts(state);
        const k = idem();
        return keyed({ method: 'POST', path: '/campaigns', headers: { 'idempotency-key': k }, body: { name: `Soak ${k}`, brandId, productIds: productIds.slice(0, 1 + Math.floor(random() * 3)) } });
      },
      async () => {
        if (state.runs.size >= 40) return send('GET', '/runs');
        return keyed({ method: 'POST', path: '/runs', headers: { 'idempotency-key': idem() }, body: { productIds: state.products.ids().slice(0, 1 + Math.floor(random() * 3)), creativesPerProduct: 1 + Math.floor(random() * 3), presetId: 'pst_studio_white' } });
      },
      () => (run ? send('POST', `/runs/${run}/stop`) : send('POST', '/runs/estimate', { body: { productIds: state.products.ids().slice(0, 2), creativesPerProduct: 2, presetId: 'pst_flat_lay' } })),
      async () => {
        if (state.upscales.size >= 30) return send('GET', '/presets');
        const source = random() < 0.5 && asset ? { assetId: asset } : { productId: pick(state.products.ids())!, image: 'primary' };
        return keyed({ method: 'POST', path: '/upscales', headers: { 'idempotency-key': idem() }, body: { source, target: pick(['2K', '4K']) } });
      },
      async () => {
        // A retry of an earlier keyed write: after a 2xx it replays the original, byte for byte.
        const original = lastKeyed;
        if (!original?.reply) return send('GET', '/presets');
        const retry = await send(original.method, original.path, { headers: original.headers, body: original.body });
        if (retry && original.reply.status < 300) {
          replays.count++;
          if (retry.headers['idempotent-replayed'] !== 'true' || retry.status !== original.reply.status || retry.text !== original.reply.text) {
            replays.failed++;
            replays.notes.push(`retry of ${original.method} ${original.path} (${original.headers['idempotency-key']}): ${original.reply.status} → ${retry.status}, replayed=${retry.headers['idempotent-replayed'] ?? 'no'}`);
          }
        }
        return retry;
      },
    ];
    await pick(writes)!();
  }
}

// ---------------------------------------------------------------------------------------------
// Scenarios

function countBy(replies: Reply[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of replies) {
    const code = (r.body as { code?: string } | undefined)?.code;
    const k = `${r.status}${code ? ` ${code}` : ''}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

async function idempotencyScenarios(burst: Client, client: Client, account: SoakAccount, width: number, log: (s: string) => void): Promise<ScenarioResult[]> {
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

async function ifMatchScenarios(burst: Client, client: Client, account: SoakAccount, width: number, log: (s: string) => void): Promise<ScenarioResult[]> {
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

async function lostUpdateScenarios(burst: Client, client: Client, account: SoakAccount, width: number, log: (s: string) => void): Promise<ScenarioResult[]> {
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

async function rateLimitScenarios(burst: Client, client: Client, store: Map<string, AccountState>, clock: Clock, width: number, log: (s: string) => void): Promise<ScenarioResult[]> {
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

/** The figures as text (the CLI and the README). */
export function formatSoakFigures(f: SoakFigures): string {
  const m = f.memory;
  return [
    `seed ${f.seed}, ${f.clients} clients, ${f.seconds} s: ${f.requests} requests in ${(f.elapsedMs / 1000).toFixed(1)} s; statuses ${JSON.stringify(f.byStatus)}`,
    `5xx: ${f.fiveXX}; non-conforming responses: ${f.nonConforming}; requests without an answer: ${f.clientErrors}; crashes: ${f.crashes}`,
    `invariants: ${f.invariantChecks} checks, ${f.invariantViolations} violations; retries replayed: ${f.replays}; scenarios: ${f.scenarios.filter((s) => s.passed).length}/${f.scenarios.length} exact`,
    `latency ms: p50 ${f.latencyMs.p50.toFixed(1)}, p95 ${f.latencyMs.p95.toFixed(1)}, p99 ${f.latencyMs.p99.toFixed(1)}, max ${f.latencyMs.max.toFixed(1)}`,
    `memory: baseline heap ${m.baselineHeapMiB.toFixed(1)} MiB, peak heap ${m.peakHeapMiB.toFixed(1)} MiB, peak RSS ${m.peakRssMiB.toFixed(1)} MiB, ${m.samples} samples after forced GC; after warm-up heap ${m.heapSlopeKiBps.toFixed(1)} KiB/s (+${m.heapGrowthMiB.toFixed(2)} MiB) vs data ${m.dataSlopeKiBps.toFixed(1)} KiB/s (+${m.dataGrowthMiB.toFixed(2)} MiB): ${m.measured ? (m.flat ? 'flat' : 'GROWING') : `${m.flat ? 'flat' : 'growing'} (too short for a verdict: needs ${MIN_MEASURED_SECONDS} s after warm-up)`}`,
  ].join('\n');
}
