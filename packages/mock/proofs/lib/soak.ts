/**
 * Concurrency soak on loopback: a REAL server (`buildMock()` listening on 127.0.0.1, port 0, real
 * clock) in this process, and many clients over real sockets with keep-alive, bounded in requests
 * and in time. Run by `npm run soak` and, short, by packages/mock/proofs/lib/soak.test.ts.
 * How it works and what it decides: docs/internals.md, "packages/mock/proofs/lib/soak.ts".
 */
import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import { buildMock } from '../../src/node/app.ts';
import { Clock } from '../../../mock-core/src/core/clock.ts';
import { accountViolations, formatViolations, INVARIANTS } from '../../../mock-core/src/testkit/invariants.ts';
import { setGlobalGeneration } from '../../../mock-core/src/domain/runs/settings.ts';
import { sleep, type Stats, Client } from './soak/client.ts';
import { seeded } from '../../../contract/platform/seeded.ts';
import { ALL_LIMITS_HIGH, newAccount, type Replays, mixedClient } from './soak/traffic.ts';
import { type ScenarioResult, idempotencyScenarios, ifMatchScenarios, lostUpdateScenarios, rateLimitScenarios } from './soak/races.ts';

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

// ---------------------------------------------------------------------------------------------
// Helpers

function forcedGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  // Without --expose-gc (vitest): switch the flag on and take `gc` from a fresh context.
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
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
      Array.from({ length: options.clients }, (_, i) => mixedClient(client, loadAccounts[i % loadAccounts.length]!, seeded(options.seed * 1000 + i), i, () => Date.now() < deadline && loadRequests < budget, () => loadRequests++, replays)),
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
