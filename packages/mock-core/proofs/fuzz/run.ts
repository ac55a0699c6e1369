/**
 * The fuzz run: fast-check generates sequences of steps (requests from the document, repeats,
 * clock advances, dashboard changes); each sequence runs against a fresh in-process mock and
 * account; every exchange is checked (check.ts) and every step is followed by the account's state
 * invariants (packages/mock-core/src/testkit/invariants.ts). Seeded and reproducible: the same seed (and path) replays the
 * same sequences, and a failure is shrunk to a short sequence whose failing request and response
 * are printed.
 */
import fc from 'fast-check';
import { operationsList } from '../../../contract/spec/contract.ts';
import { accountViolations, cascadeSnapshot, formatViolations, INVARIANTS, restoreViolations } from '../../src/testkit/invariants.ts';
import type { TestResponse } from '../../src/testkit/harness.ts';
import { checkExchange, checkReplay, type Problem } from './check.ts';
import { KNOWN_BUGS, knownBugOf } from './known-bugs.ts';
import { stepArb, type RequestPlan, type Step } from './plan.ts';
import { createWorld, describeRequest, describeResponse, materialize, resolveRef, send, type ConcreteRequest, type FuzzWorld, type WorldProfile } from './world.ts';

export interface FuzzOptions {
  seed: number;
  /** Sequences to run (fast-check numRuns). */
  runs: number;
  /** Longest sequence. */
  maxSteps: number;
  /** Only these operations (default: every operation of the document). */
  operations?: readonly string[];
  /** Fail on known bugs too (known-bugs.ts). */
  strict?: boolean;
  /** Replay one counterexample (`path` printed with a failure). */
  path?: string;
  /** Stop generating new sequences after this long (seconds). */
  timeLimitSeconds?: number;
  /** The world of each sequence (default: createWorld on a new in-process harness). */
  world?: (profile: WorldProfile) => Promise<FuzzWorld>;
  /** Called after each sequence. */
  onRun?: (figures: FuzzFigures) => void;
}

export interface FuzzFigures {
  seed: number;
  sequences: number;
  steps: number;
  /** Every request sent to the mock (preflight reads and probes included). */
  requests: number;
  /** Requests sent with one deliberate defect. */
  defective: number;
  /** State-invariant sweeps (after every step) and single invariant evaluations (sweeps × invariants). */
  invariantSweeps: number;
  invariantChecks: number;
  fiveXX: number;
  /** Status counts per operation. */
  byOperation: Record<string, Record<string, number>>;
  /** Answers per operation, status, code and first field named (`createRun 400 VALIDATION_ERROR presetId`). */
  codes: Record<string, number>;
  /** Refusals per defect (`body:drop-required` → count). */
  defects: Record<string, number>;
  knownBugs: Record<string, number>;
  peakHeapBytes: number;
  elapsedMs: number;
}

export interface FuzzResult {
  figures: FuzzFigures;
  /** The report of the shrunk failure, when the property failed. */
  failure?: string;
}

class PropertyFailure extends Error {}

const profileArb: fc.Arbitrary<WorldProfile> = fc.record({
  dataSeed: fc.constantFrom(1, 2, 3),
  credits: fc.oneof(
    { weight: 3, arbitrary: fc.constant({ balance: 10_000, dailyBudget: null as number | null }) },
    { weight: 1, arbitrary: fc.record({ balance: fc.integer({ min: 0, max: 60 }), dailyBudget: fc.option(fc.integer({ min: 0, max: 40 }), { nil: null }) }) },
  ),
  outcomeMix: fc.record({ succeeded: fc.integer({ min: 1, max: 4 }), failed: fc.nat(2), refused: fc.nat(1), stall: fc.nat(1) }),
  upscaleOutcomeMix: fc.record({ succeeded: fc.integer({ min: 1, max: 3 }), failed: fc.nat(1), stall: fc.nat(1) }),
  limits: fc.constantFrom<WorldProfile['limits']>('high', 'high', 'high', 'high', 'high', 'low'),
});

function emptyFigures(seed: number): FuzzFigures {
  return { seed, sequences: 0, steps: 0, requests: 0, defective: 0, invariantSweeps: 0, invariantChecks: 0, fiveXX: 0, byOperation: {}, codes: {}, defects: {}, knownBugs: {}, peakHeapBytes: 0, elapsedMs: 0 };
}

function tally(figures: FuzzFigures, operationId: string, response: TestResponse): void {
  figures.requests++;
  if (response.status >= 500) figures.fiveXX++;
  const row = (figures.byOperation[operationId] ??= {});
  row[String(response.status)] = (row[String(response.status)] ?? 0) + 1;
  const body = (response.body ?? {}) as { code?: string; errors?: { field?: string }[] };
  const code = `${operationId} ${response.status}${body.code ? ` ${body.code}` : ''}${body.errors?.[0]?.field ? ` ${body.errors[0].field}` : ''}`;
  figures.codes[code] = (figures.codes[code] ?? 0) + 1;
}

function summarizeStep(step: Step): string {
  switch (step.kind) {
    case 'request':
      return `${step.plan.operationId}${step.plan.defect ? ` [defect ${step.plan.defect.target}:${step.plan.defect.kind}]` : ''}`;
    case 'repeat':
      return 'repeat the previous request';
    case 'advance':
      return `advance the clock ${step.seconds} s`;
    case 'dashboard':
      return `dashboard ${step.action}`;
  }
}

function report(problem: Problem, index: number, steps: readonly Step[]): string {
  const lines = [`${problem.check}: ${problem.message}`, '', `at step ${index + 1} of ${steps.length}; the steps up to it:`];
  steps.slice(0, index + 1).forEach((s, i) => lines.push(`  ${i + 1}. ${summarizeStep(s)}`));
  if (problem.plan) {
    const plan = JSON.stringify(problem.plan);
    lines.push('', 'plan (ids as <pool#n>):', plan.length > 2000 ? `${plan.slice(0, 2000)}… (${plan.length} chars)` : plan);
  }
  if (problem.request) lines.push('', 'request:', describeRequest(problem.request));
  if (problem.response) lines.push('', 'response:', describeResponse(problem.response));
  return lines.join('\n');
}

interface Exchange {
  request: ConcreteRequest;
  response: TestResponse;
}

/** Send a request; an unexpected error the mock logged (a 500, a failed scheduled task) becomes a problem. */
async function exchange(world: FuzzWorld, request: ConcreteRequest, figures: FuzzFigures): Promise<Exchange | Problem> {
  try {
    const response = await send(world, request);
    tally(figures, request.operationId, response);
    return { request, response };
  } catch (error) {
    figures.fiveXX++;
    return { check: 'mock-error', message: `the mock logged an unexpected error: ${(error as Error).message}`, request };
  }
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const figures = emptyFigures(options.seed);
  const started = Date.now();
  const deadline = options.timeLimitSeconds ? started + options.timeLimitSeconds * 1000 : Infinity;
  const operations = options.operations ?? operationsList.map((o) => o.operationId);
  // `size: 'max'`: long sequences (state builds up), while shrinking may still drop any step.
  const steps = fc.array(stepArb(operations), { minLength: 1, maxLength: options.maxSteps, size: 'max' });

  /** Fail the sequence unless the problem is a known bug (and the run is not strict). */
  const raise = (problem: Problem, index: number, sequence: readonly Step[]): void => {
    const known = knownBugOf(problem);
    if (known && !options.strict) {
      figures.knownBugs[known.id] = (figures.knownBugs[known.id] ?? 0) + 1;
      return;
    }
    throw new PropertyFailure(report(problem, index, sequence) + (known ? `\n\n(known bug ${known.id}: ${known.title})` : ''));
  };

  const property = fc.asyncProperty(profileArb, steps, async (profile, sequence) => {
    const world = await (options.world ?? createWorld)(profile);
    figures.sequences++;
    let last: (Exchange & { plan: RequestPlan; at: number }) | undefined;
    try {
      for (let index = 0; index < sequence.length; index++) {
        const step = sequence[index]!;
        figures.steps++;
        const before = cascadeSnapshot(world.state);
        const sizes = collectionSizes(world);
        switch (step.kind) {
          case 'request': {
            const { request, preflights } = await materialize(world, step.plan);
            for (const pre of preflights) {
              tally(figures, pre.request.operationId, pre.response);
              for (const problem of checkExchange(undefined, pre.request, pre.response)) raise(problem, index, sequence);
            }
            if (step.plan.defect) {
              figures.defective++;
              const key = `${step.plan.defect.target}:${step.plan.defect.kind}`;
              figures.defects[key] = (figures.defects[key] ?? 0) + 1;
            }
            const result = await exchange(world, request, figures);
            if ('check' in result) {
              raise({ ...result, plan: step.plan }, index, sequence);
              last = undefined;
              break;
            }
            for (const problem of checkExchange(step.plan, result.request, result.response)) raise(problem, index, sequence);
            if (result.response.headers['idempotent-replayed'] === 'true') checkNothingCreated(world, sizes, result, index, sequence, raise);
            last = { ...result, plan: step.plan, at: world.harness.clock.now() };
            break;
          }
          case 'repeat': {
            if (!last) break;
            const result = await exchange(world, last.request, figures);
            if ('check' in result) {
              raise({ ...result, plan: last.plan }, index, sequence);
              break;
            }
            for (const problem of checkExchange(last.plan, result.request, result.response)) raise(problem, index, sequence);
            // Keys are kept 24 hours (D22): after that the retry is a new request.
            const fresh = world.harness.clock.now() - last.at < 24 * 3600 * 1000;
            if (fresh) for (const problem of checkReplay(last.request, last.response, result.response)) raise({ ...problem, plan: last.plan }, index, sequence);
            if (result.response.headers['idempotent-replayed'] === 'true') checkNothingCreated(world, sizes, result, index, sequence, raise);
            last = { ...result, plan: last.plan, at: fresh ? last.at : world.harness.clock.now() };
            break;
          }
          case 'advance': {
            world.harness.advance(step.seconds);
            // A scheduled task that failed surfaces on the next request: probe at once.
            const probe: ConcreteRequest = { method: 'GET', path: '/presets?limit=1', headers: { authorization: `Bearer ${world.keys.all!.key}` }, operationId: 'listPresets' };
            const result = await exchange(world, probe, figures);
            if ('check' in result) raise({ ...result, message: `after advancing ${step.seconds} s: ${result.message}` }, index, sequence);
            else for (const problem of checkExchange(undefined, result.request, result.response)) raise(problem, index, sequence);
            break;
          }
          case 'dashboard': {
            const input: Record<string, unknown> = {
              campaignId: resolveRef(world.state, step.campaign),
              productId: resolveRef(world.state, step.product),
              creativeId: resolveRef(world.state, step.creative),
              ...(step.action === 'generateCreatives' ? { mediaType: step.mediaType } : {}),
            };
            const res = await world.harness.control('POST', `/__mock/accounts/${world.accountId}/actions`, { actor: { kind: 'user' }, action: step.action, input });
            if (res.status >= 500) raise({ check: 'no-5xx', message: `the dashboard action ${step.action} answered ${res.status}: ${res.text}` }, index, sequence);
            break;
          }
        }
        // State invariants after every step.
        const found = [...accountViolations(world.state, { quiescent: true }), ...restoreViolations(before, cascadeSnapshot(world.state))];
        figures.invariantSweeps++;
        figures.invariantChecks += INVARIANTS.length;
        if (found.length > 0) {
          const context = step.kind === 'request' || step.kind === 'repeat' ? last : undefined;
          raise({ check: 'state-invariant', message: `the account's state breaks its invariants:\n${formatViolations(found)}`, ...(context ? { request: context.request, response: context.response, plan: context.plan } : {}) }, index, sequence);
        }
      }
    } finally {
      await world.harness.close();
      figures.peakHeapBytes = Math.max(figures.peakHeapBytes, process.memoryUsage().heapUsed);
      options.onRun?.(figures);
    }
  });

  const details = await fc.check(property, {
    seed: options.seed,
    numRuns: options.runs,
    ...(options.path ? { path: options.path } : {}),
    ...(Number.isFinite(deadline) ? { plugins: [fc.interruptAfterTimeLimit(Math.max(1, deadline - Date.now()))] } : {}),
  });
  figures.elapsedMs = Date.now() - started;
  if (!details.failed) return { figures };
  const error = details.errorInstance;
  const message = error instanceof PropertyFailure ? error.message : error instanceof Error ? `${error.stack ?? error.message}` : String(error);
  const failure = [
    `Fuzz property failed after ${details.numRuns} sequences (${details.numShrinks} shrinks).`,
    `Reproduce: npm run fuzz -- --seed ${details.seed} --runs ${options.runs} --max-steps ${options.maxSteps} --path "${details.counterexamplePath ?? ''}"`,
    '',
    message,
  ].join('\n');
  return { figures, failure };
}

function collectionSizes(world: FuzzWorld): Record<string, number> {
  const s = world.state;
  return { campaigns: s.campaigns.size, creatives: s.creatives.size, runs: s.runs.size, upscales: s.upscales.size, assets: s.assets.size };
}

function checkNothingCreated(world: FuzzWorld, before: Record<string, number>, result: Exchange, index: number, sequence: readonly Step[], raise: (p: Problem, i: number, s: readonly Step[]) => void): void {
  const after = collectionSizes(world);
  const grown = Object.keys(after).filter((k) => after[k]! > before[k]!);
  if (grown.length > 0) raise({ check: 'replay', message: `a replayed response created resources (${grown.join(', ')})`, request: result.request, response: result.response }, index, sequence);
}

/** The figures as text (the CLI and the README). */
export function formatFigures(figures: FuzzFigures): string {
  const lines = [
    `seed ${figures.seed}: ${figures.sequences} sequences, ${figures.steps} steps, ${figures.requests} requests (${figures.defective} with a deliberate defect) in ${(figures.elapsedMs / 1000).toFixed(1)} s`,
    `invariants: ${figures.invariantSweeps} sweeps, ${figures.invariantChecks} invariant checks; 5xx seen: ${figures.fiveXX}; peak heap ${(figures.peakHeapBytes / 1048576).toFixed(0)} MiB`,
  ];
  const known = Object.entries(figures.knownBugs);
  if (known.length > 0) {
    lines.push('known bugs seen (tolerated; --strict fails on them):');
    for (const [id, n] of known) lines.push(`  ${id}: ${n} × — ${KNOWN_BUGS.find((b) => b.id === id)?.title ?? ''}`);
  }
  lines.push('status per operation:');
  for (const op of operationsList) {
    const row = figures.byOperation[op.operationId];
    if (!row) {
      lines.push(`  ${op.operationId.padEnd(20)} (never sent)`);
      continue;
    }
    const cells = Object.entries(row)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([status, n]) => `${status}×${n}`);
    lines.push(`  ${op.operationId.padEnd(20)} ${cells.join(' ')}`);
  }
  return lines.join('\n');
}
