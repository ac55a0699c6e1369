/**
 * Run progression on the injected clock. The pure transitions (transitions.ts) say what an event
 * does; this module decides when events happen (clock.schedule), moves credits (the ledger),
 * produces assets and records `run.completed`.
 * How it works and what it decides: docs/internals.md, "packages/mock-core/src/domain/runs/scheduler.ts".
 */
import type { TimeSource } from '../../core/clock.ts';
import type { EventDraft, ResourceKind } from '../../events/model.ts';
import type { RequestContext } from '../operation.ts';
import { nextId, type AccountState, type Store } from '../store.ts';
import { newAsset, type Asset } from '../assets/model.ts';
import { chargeHold, creditsOf, placeHold, releaseHold } from '../credits/ledger.ts';
import { LONG_EDGE_PX } from '../credits/ratecard.ts';
import { mediaBase, productLabel } from '../../media/links.ts';
import { findPreset } from '../presets/catalog.ts';
import { drawItemOutcome, durationFactor, runDrawKey } from './draw.ts';
import { isFinal, type ItemOutcome, type Run, type RunItem } from './model.ts';
import { effectiveSpeed } from './settings.ts';
import { EXPIRY_MS, itemTransition, runTransition, type ItemEvent, type RunEvent } from './transitions.ts';

/** Items of one run in progress at once. */
export const CONCURRENCY = 4;
/** Longest duration of one item at speed 1, in seconds (a 10-item run: 3 waves, about 30 s). */
export const BASE_ITEM_SECONDS = 10;

export interface GenerationEnv {
  account: AccountState;
  store: Store;
  clock: TimeSource;
  emit(resource: { kind: ResourceKind; id: string }, drafts: readonly EventDraft[]): void;
}

export function envOf(ctx: RequestContext): GenerationEnv {
  return { account: ctx.account, store: ctx.store, clock: ctx.clock, emit: (resource, drafts) => ctx.emit(resource, drafts) };
}

/**
 * Schedule `task` for the env's account, skipped if the account is no longer in the store by then
 * (POST /__mock/reset, or a state load): a reset account must not keep spending or sending events.
 */
export function scheduleFor(env: Pick<GenerationEnv, 'account' | 'store' | 'clock'>, at: number, task: () => void): void {
  env.clock.schedule(at, () => {
    if (env.store.accounts.get(env.account.accountId) === env.account) task();
  });
}

export function itemBaseMs(env: Pick<GenerationEnv, 'store' | 'account'>): number {
  return Math.max(1, Math.round((BASE_ITEM_SECONDS * 1000) / effectiveSpeed(env.store, env.account)));
}

/** D11: the expected duration of a whole run, an upper bound (every item takes at most the base). */
export function expectedDurationSeconds(total: number, baseMs: number): number {
  return Math.ceil((Math.ceil(total / CONCURRENCY) * baseMs) / 1000);
}

export function itemsOf(account: AccountState, runId: string) {
  const items = account.runItems.get(runId);
  if (!items) throw new Error(`no items for run ${runId}`);
  return items;
}

function itemAt(account: AccountState, runId: string, position: number): RunItem {
  const items = itemsOf(account, runId);
  return items.get(items.ids()[position]!)!;
}

function applyRun(env: GenerationEnv, runId: string, event: RunEvent): Run {
  const run = env.account.runs.get(runId)!;
  const t = runTransition(run, event, env.clock.now());
  if (!t.changed) return run;
  env.account.runs.set(runId, t.next);
  if (t.events.length) env.emit({ kind: 'run', id: runId }, t.events);
  // The injected defect `run-completed-twice` (packages/mock-core/src/events/defects.ts): the final status records run.completed once more.
  if (env.store.defects.has('run-completed-twice') && t.events.some((e) => e.type === 'run.completed')) env.emit({ kind: 'run', id: runId }, [{ type: 'run.completed' }]);
  return t.next;
}

function applyItem(env: GenerationEnv, item: RunItem, event: ItemEvent): RunItem {
  const t = itemTransition(item, event, env.clock.now());
  if (t.changed) itemsOf(env.account, item.runId).set(item.jobId, t.next);
  return t.next;
}

/** Start the run's first items at the next tick and arm its 24 h expiry. */
export function launchRun(env: GenerationEnv, run: Run): void {
  scheduleFor(env, run.createdAt, () => pump(env, run.runId));
  scheduleFor(env, run.createdAt + EXPIRY_MS, () => expireRun(env, run.runId));
}

/** Fill free slots with the next items, in request order. */
function pump(env: GenerationEnv, runId: string): void {
  for (;;) {
    const run = env.account.runs.get(runId);
    if (!run || isFinal(run.status) || run.status === 'STOPPING') return;
    if (run.running >= CONCURRENCY || run.nextPosition >= run.total) return;
    startItem(env, run);
  }
}

function startItem(env: GenerationEnv, run: Run): void {
  const { account, clock } = env;
  const now = clock.now();
  const position = run.nextPosition;
  const item = itemAt(account, run.runId, position);
  // RUN-003: credits are held per item as it starts.
  const hold = placeHold(creditsOf(account), { kind: 'run', id: run.runId, jobId: item.jobId }, run.credits.perCreative, now);
  applyRun(env, run.runId, { type: 'item_started' });
  if (!hold.ok) {
    // Balance or budget ran out mid-run: the item is refused, nothing held or charged.
    applyItem(env, item, { type: 'start', holdId: null, drawn: 'refused', settlesAt: null });
    settle(env, run.runId, position, 'refused');
    return;
  }
  const key = runDrawKey(run.ordinal);
  const drawn = drawItemOutcome(account.generation, key, position);
  const settlesAt = drawn === 'stall' ? null : now + Math.max(1, Math.round(itemBaseMs(env) * durationFactor(account.generation.seed, key, position)));
  applyItem(env, item, { type: 'start', holdId: hold.hold.holdId, drawn, settlesAt });
  if (settlesAt !== null) scheduleSettle(env, run.runId, position, settlesAt);
}

/** At `at`, the running item settles with the outcome it drew when it started, and a slot frees. */
function scheduleSettle(env: GenerationEnv, runId: string, position: number, at: number): void {
  scheduleFor(env, at, () => {
    const drawn = itemAt(env.account, runId, position).drawn;
    if (drawn === null || drawn === 'stall') return;
    settle(env, runId, position, drawn);
    pump(env, runId);
  });
}

/** A running item ends: charge its hold if it produced a creative, release it otherwise. */
function settle(env: GenerationEnv, runId: string, position: number, outcome: Exclude<ItemOutcome, 'stopped'>): void {
  const { account, clock } = env;
  const run = account.runs.get(runId);
  const item = itemAt(account, runId, position);
  if (!run || isFinal(run.status) || item.status !== 'RUNNING') return; // settled by the expiry already
  const now = clock.now();
  let assetId: string | null = null;
  if (item.holdId !== null) {
    if (outcome === 'succeeded') {
      chargeHold(creditsOf(account), item.holdId, now); // RUN-003: charged only for a produced creative
      assetId = produceAsset(account, run, item, now).assetId;
    } else if (env.store.defects.has('run-charges-unproduced')) {
      chargeHold(creditsOf(account), item.holdId, now); // the injected defect: charged though nothing was produced
    } else {
      releaseHold(creditsOf(account), item.holdId, now);
    }
  }
  applyItem(env, item, { type: 'settle', outcome, assetId });
  applyRun(env, runId, { type: 'item_settled', outcome });
}

/** The creative a succeeded item produced, delivered as an asset the account owns. */
function produceAsset(account: AccountState, run: Run, item: RunItem, now: number): Asset {
  const assetId = nextId(account, 'ast');
  const product = account.products.get(item.productId);
  const preset = findPreset(run.presetId);
  const video = run.modality === 'video';
  const edge = LONG_EDGE_PX[run.imageSize ?? '1K'];
  const base = mediaBase(assetId, productLabel(product)); // D49
  const asset = newAsset({
    assetId,
    productId: item.productId,
    type: video ? 'VIDEO' : 'STATIC',
    url: base,
    thumbnailUrl: video ? base : null,
    name: `${product?.title ?? item.productId} · ${preset?.name ?? run.presetId} #${(item.position % run.creativesPerProduct) + 1}`,
    width: video ? 1080 : edge,
    height: video ? 1920 : edge,
    durationSec: video ? 15 : null,
    playerUrl: video ? base : null,
    createdAt: now,
  });
  account.assets.set(assetId, asset);
  return asset;
}

/**
 * RUN-006, RUN-023: stop. Items not started settle `stopped` now; running items finish on their
 * own schedule (charged only if they produce a creative). With nothing running, the run becomes
 * STOPPED at the next tick, so the 202 always reads STOPPING. Unchanged when already STOPPING or
 * final (RUN-038).
 */
export function stopRun(env: GenerationEnv, runId: string): Run {
  const { account, clock } = env;
  const run = account.runs.get(runId)!;
  if (isFinal(run.status) || run.status === 'STOPPING') return run;
  const now = clock.now();
  let completesAt = now;
  for (let p = 0; p < run.nextPosition; p++) {
    const item = itemAt(account, runId, p);
    if (item.status === 'RUNNING') completesAt = Math.max(completesAt, item.settlesAt ?? run.createdAt + EXPIRY_MS);
  }
  for (let p = run.nextPosition; p < run.total; p++) applyItem(env, itemAt(account, runId, p), { type: 'settle', outcome: 'stopped', assetId: null });
  const next = applyRun(env, runId, { type: 'stop', completesAt });
  if (next.running === 0) scheduleFor(env, now, () => applyRun(env, runId, { type: 'drain' }));
  return next;
}

/** RUN-032: 24 h after create, a run that is not final expires; unsettled items fail, holds are released. */
function expireRun(env: GenerationEnv, runId: string): void {
  const { account, clock } = env;
  const run = account.runs.get(runId);
  if (!run || isFinal(run.status)) return;
  const now = clock.now();
  for (const item of itemsOf(account, runId).values()) {
    if (item.status === 'SETTLED') continue;
    if (item.holdId !== null) releaseHold(creditsOf(account), item.holdId, now);
    applyItem(env, item, { type: 'settle', outcome: 'failed', assetId: null });
  }
  applyRun(env, runId, { type: 'expire' });
}

/**
 * Re-arm a run's tasks from its saved state (tasks are closures and are not saved with the state,
 * see packages/mock/src/node/persistence.ts): running items settle when they were due (at once if that time has
 * passed), free slots fill, a drained STOPPING run ends, and the expiry stays armed.
 */
export function resumeRun(env: GenerationEnv, run: Run): void {
  if (isFinal(run.status)) return;
  const now = env.clock.now();
  for (let p = 0; p < run.nextPosition; p++) {
    const item = itemAt(env.account, run.runId, p);
    if (item.status === 'RUNNING' && item.settlesAt !== null) scheduleSettle(env, run.runId, p, item.settlesAt);
  }
  if (run.status === 'STOPPING') {
    if (run.running === 0) scheduleFor(env, now, () => applyRun(env, run.runId, { type: 'drain' }));
  } else {
    scheduleFor(env, now, () => pump(env, run.runId));
  }
  scheduleFor(env, run.createdAt + EXPIRY_MS, () => expireRun(env, run.runId));
}
