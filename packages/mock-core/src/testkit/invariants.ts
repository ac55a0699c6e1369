/**
 * State invariants of one account: pure functions over AccountState that return every violation
 * found (an empty list when the state is sound). Nothing is mutated and no clock is read, so the
 * fuzz suite can call them after every step and the soak at its end.
 * How it works and what it decides: docs/internals.md, "packages/mock-core/src/testkit/invariants.ts".
 */
import { DEFAULT_BALANCE } from '../domain/credits/ledger.ts';
import { isFinal, type RunItem } from '../domain/runs/model.ts';
import { isFinalUpscale } from '../domain/upscales/model.ts';
import type { AccountState } from '../domain/store.ts';

export const INVARIANTS = [
  'run-counts',
  'run-items',
  'campaign-cascade',
  'campaign-restore',
  'credits-ledger',
  'credits-holds',
  'asset-derivation',
  'idempotency-resource',
  'delivery-creative',
] as const;

export type InvariantName = (typeof INVARIANTS)[number];

export interface Violation {
  invariant: InvariantName;
  /** The resource concerned (`run:<id>`, `campaign:<id>`, `ledger`, `key:<key>`, ...). */
  subject: string;
  message: string;
}

export interface InvariantOptions {
  /**
   * The balance the ledger started from. Default: the `credits.balance` the account was created
   * with through the control plane, else the ledger's default. Pass it when the control plane set
   * the balance later (POST /__mock/accounts/{id}/credits).
   */
  startBalance?: number;
  /** No request is in flight: a key still `in_progress` is then a stuck key. */
  quiescent?: boolean;
}

const EPSILON = 1e-9;

function near(a: number, b: number): boolean {
  return Math.abs(a - b) <= EPSILON * Math.max(1, Math.abs(a), Math.abs(b));
}

/** Every violation of every state invariant of the account. */
export function accountViolations(account: AccountState, options: InvariantOptions = {}): Violation[] {
  return [
    ...runViolations(account),
    ...campaignViolations(account),
    ...creditViolations(account, options),
    ...derivationViolations(account),
    ...idempotencyViolations(account, options),
    ...deliveryViolations(account),
  ];
}

// ---------------------------------------------------------------------------------------------
// Runs

const OUTCOMES = ['succeeded', 'failed', 'refused', 'stopped'] as const;

export function runViolations(account: AccountState): Violation[] {
  const out: Violation[] = [];
  for (const run of account.runs.values()) {
    const subject = `run:${run.runId}`;
    const c = run.counts;
    const values = [c.succeeded, c.failed, c.refused, c.stopped, c.pending];
    if (!values.every((v) => Number.isInteger(v) && v >= 0)) out.push({ invariant: 'run-counts', subject, message: `counts are not all non-negative integers: ${JSON.stringify(c)}` });
    const sum = values.reduce((a, b) => a + b, 0);
    if (sum !== run.total) out.push({ invariant: 'run-counts', subject, message: `counts sum to ${sum}, total is ${run.total}: ${JSON.stringify(c)}` });
    if (isFinal(run.status)) {
      if (c.pending !== 0) out.push({ invariant: 'run-counts', subject, message: `final (${run.status}) with ${c.pending} pending` });
      if (run.finalizedAt === null) out.push({ invariant: 'run-counts', subject, message: `final (${run.status}) without finalizedAt` });
    } else if (run.finalizedAt !== null) {
      out.push({ invariant: 'run-counts', subject, message: `not final (${run.status}) but finalizedAt is set` });
    }

    const items = account.runItems.get(run.runId);
    if (!items) {
      out.push({ invariant: 'run-items', subject, message: 'the run has no items' });
      continue;
    }
    const list: RunItem[] = [...items.values()];
    if (list.length !== run.total) out.push({ invariant: 'run-items', subject, message: `${list.length} items for a total of ${run.total}` });
    const tally = { succeeded: 0, failed: 0, refused: 0, stopped: 0, pending: 0 };
    let running = 0;
    list.forEach((item, index) => {
      const at = `${subject} item ${item.jobId}`;
      if (item.position !== index) out.push({ invariant: 'run-items', subject, message: `${at} is at place ${index} with position ${item.position}` });
      if (item.runId !== run.runId) out.push({ invariant: 'run-items', subject, message: `${at} names run ${item.runId}` });
      if (item.status === 'SETTLED') {
        if (item.outcome === null) out.push({ invariant: 'run-items', subject, message: `${at} is settled without an outcome` });
        else tally[item.outcome]++;
      } else {
        tally.pending++;
        if (item.outcome !== null) out.push({ invariant: 'run-items', subject, message: `${at} is ${item.status} with outcome ${item.outcome}` });
        if (item.status === 'RUNNING') running++;
      }
      if (item.outcome === 'succeeded') {
        if (item.assetId === null || !account.assets.has(item.assetId)) out.push({ invariant: 'run-items', subject, message: `${at} succeeded but its asset ${item.assetId} does not exist` });
      } else if (item.assetId !== null) {
        out.push({ invariant: 'run-items', subject, message: `${at} is ${item.outcome ?? item.status} but has asset ${item.assetId}` });
      }
    });
    for (const key of [...OUTCOMES, 'pending'] as const) {
      if (tally[key] !== c[key]) out.push({ invariant: 'run-items', subject, message: `${tally[key]} items are ${key}, counts.${key} is ${c[key]}` });
    }
    if (!isFinal(run.status) && running !== run.running) out.push({ invariant: 'run-items', subject, message: `${running} items are RUNNING, run.running is ${run.running}` });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Campaigns and their creatives

export function campaignViolations(account: AccountState): Violation[] {
  const out: Violation[] = [];
  for (const campaign of account.campaigns.values()) {
    const subject = `campaign:${campaign.campaignId}`;
    for (const creativeId of campaign.creativeIds) {
      const creative = account.creatives.get(creativeId);
      if (!creative) {
        out.push({ invariant: 'campaign-cascade', subject, message: `lists creative ${creativeId}, which does not exist` });
        continue;
      }
      if (creative.campaignId !== campaign.campaignId) out.push({ invariant: 'campaign-cascade', subject, message: `lists creative ${creativeId} of campaign ${creative.campaignId}` });
      if (campaign.deletedAt !== null && creative.deletedAt === null) {
        out.push({ invariant: 'campaign-cascade', subject, message: `is deleted but its creative ${creativeId} is live` });
      }
      if (creative.deletedWithCampaign) {
        if (campaign.deletedAt === null) {
          out.push({ invariant: 'campaign-cascade', subject, message: `is live but creative ${creativeId} is still marked deleted with it (not restored with it)` });
        } else if (creative.deletedAt !== campaign.deletedAt) {
          out.push({ invariant: 'campaign-cascade', subject, message: `creative ${creativeId} is marked deleted with the campaign at ${creative.deletedAt}, the campaign went at ${campaign.deletedAt}` });
        }
      }
    }
  }
  for (const creative of account.creatives.values()) {
    const subject = `creative:${creative.creativeId}`;
    const campaign = account.campaigns.get(creative.campaignId);
    if (!campaign) out.push({ invariant: 'campaign-cascade', subject, message: `belongs to campaign ${creative.campaignId}, which does not exist` });
    else if (!campaign.creativeIds.includes(creative.creativeId)) out.push({ invariant: 'campaign-cascade', subject, message: `is not listed by its campaign ${creative.campaignId}` });
    if (creative.deletedWithCampaign && creative.deletedAt === null) out.push({ invariant: 'campaign-cascade', subject, message: 'is live but marked deleted with its campaign' });
  }
  return out;
}

/** What `restoreViolations` compares: per campaign, whether it is deleted and its creatives' deletion. */
export type CascadeSnapshot = Map<string, { deleted: boolean; creatives: Map<string, { deleted: boolean; withCampaign: boolean }> }>;

export function cascadeSnapshot(account: AccountState): CascadeSnapshot {
  const out: CascadeSnapshot = new Map();
  for (const campaign of account.campaigns.values()) {
    const creatives = new Map<string, { deleted: boolean; withCampaign: boolean }>();
    for (const id of campaign.creativeIds) {
      const c = account.creatives.get(id);
      if (c) creatives.set(id, { deleted: c.deletedAt !== null, withCampaign: c.deletedWithCampaign });
    }
    out.set(campaign.campaignId, { deleted: campaign.deletedAt !== null, creatives });
  }
  return out;
}

/**
 * The transition half of the cascade rules, between two snapshots around one change: a campaign
 * restored in between brought back exactly the creatives that were deleted with it (a creative
 * deleted on its own stays deleted), and a campaign deleted in between took every live creative
 * with it and left those already deleted on their own as they were.
 */
export function restoreViolations(before: CascadeSnapshot, after: CascadeSnapshot): Violation[] {
  const out: Violation[] = [];
  for (const [campaignId, now] of after) {
    const then = before.get(campaignId);
    if (!then) continue;
    const subject = `campaign:${campaignId}`;
    if (then.deleted && !now.deleted) {
      for (const [creativeId, was] of then.creatives) {
        const is = now.creatives.get(creativeId);
        if (!was.deleted || !is) continue;
        if (was.withCampaign && is.deleted) out.push({ invariant: 'campaign-restore', subject, message: `was restored but creative ${creativeId}, deleted with it, stayed deleted` });
        if (!was.withCampaign && !is.deleted) out.push({ invariant: 'campaign-restore', subject, message: `was restored and brought back creative ${creativeId}, which was deleted on its own` });
      }
    }
    if (!then.deleted && now.deleted) {
      for (const [creativeId, was] of then.creatives) {
        const is = now.creatives.get(creativeId);
        if (!is) continue;
        if (!was.deleted && !(is.deleted && is.withCampaign)) out.push({ invariant: 'campaign-restore', subject, message: `was deleted but creative ${creativeId} did not go with it` });
        if (was.deleted && is.withCampaign) out.push({ invariant: 'campaign-restore', subject, message: `was deleted and re-marked creative ${creativeId}, already deleted on its own, as deleted with it` });
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Credits

/** The balance the ledger started from (what `creditsOf` applies on first use). */
export function startingBalance(account: AccountState): number {
  const initial = (account as { initialCredits?: { balance: number } | null }).initialCredits;
  return initial?.balance ?? DEFAULT_BALANCE;
}

export function creditViolations(account: AccountState, options: InvariantOptions = {}): Violation[] {
  const out: Violation[] = [];
  const ledger = account.credits;
  const subject = 'ledger';
  if (!ledger.initialApplied) {
    // Never read yet: nothing may have moved.
    if (ledger.journal.length > 0 || ledger.holds.size > 0) out.push({ invariant: 'credits-ledger', subject, message: 'credits moved before the ledger was opened' });
    return out;
  }

  // Journal replay.
  const open = new Map<string, number>();
  const closed = new Set<string>();
  let charged = 0;
  let released = 0;
  const chargedByRef = new Map<string, number>();
  for (const entry of ledger.journal) {
    if (entry.kind === 'hold') {
      if (open.has(entry.holdId) || closed.has(entry.holdId)) out.push({ invariant: 'credits-ledger', subject, message: `hold ${entry.holdId} placed twice` });
      open.set(entry.holdId, entry.amount);
      continue;
    }
    if (!open.has(entry.holdId)) {
      out.push({ invariant: 'credits-ledger', subject, message: `${entry.kind} of hold ${entry.holdId}, which is not open` });
      continue;
    }
    if (!near(open.get(entry.holdId)!, entry.amount)) out.push({ invariant: 'credits-ledger', subject, message: `${entry.kind} of hold ${entry.holdId} moves ${entry.amount}, the hold was ${open.get(entry.holdId)}` });
    open.delete(entry.holdId);
    closed.add(entry.holdId);
    if (entry.kind === 'charge') {
      charged += entry.amount;
      const ref = `${entry.ref.kind}:${entry.ref.id}`;
      chargedByRef.set(ref, (chargedByRef.get(ref) ?? 0) + entry.amount);
    } else {
      released += entry.amount;
    }
  }
  const start = options.startBalance ?? startingBalance(account);
  if (!near(ledger.balance, start - charged)) out.push({ invariant: 'credits-ledger', subject, message: `balance is ${ledger.balance}, the start ${start} minus charges ${charged} is ${start - charged}` });
  if (!near(ledger.totals.charged, charged)) out.push({ invariant: 'credits-ledger', subject, message: `totals.charged is ${ledger.totals.charged}, the journal charges ${charged}` });
  if (!near(ledger.totals.released, released)) out.push({ invariant: 'credits-ledger', subject, message: `totals.released is ${ledger.totals.released}, the journal releases ${released}` });
  let byDay = 0;
  for (const v of ledger.chargedByDay.values()) byDay += v;
  if (!near(byDay, charged)) out.push({ invariant: 'credits-ledger', subject, message: `charges per day sum to ${byDay}, the journal charges ${charged}` });
  let held = 0;
  for (const hold of ledger.holds.values()) held += hold.amount;
  if (!near(ledger.held, held)) out.push({ invariant: 'credits-ledger', subject, message: `held is ${ledger.held}, the open holds sum to ${held}` });
  const holdIds = new Set(ledger.holds.keys());
  for (const id of open.keys()) if (!holdIds.has(id)) out.push({ invariant: 'credits-ledger', subject, message: `hold ${id} is open in the journal but not in the ledger` });
  for (const id of holdIds) if (!open.has(id)) out.push({ invariant: 'credits-ledger', subject, message: `hold ${id} is in the ledger but closed or absent in the journal` });

  // Holds against the work they pay for.
  for (const hold of ledger.holds.values()) {
    const at = `hold ${hold.holdId} (${hold.ref.kind} ${hold.ref.id})`;
    if (hold.ref.kind === 'run') {
      const run = account.runs.get(hold.ref.id);
      const item = hold.ref.jobId === undefined ? undefined : account.runItems.get(hold.ref.id)?.get(hold.ref.jobId);
      if (!run || !item) out.push({ invariant: 'credits-holds', subject: `run:${hold.ref.id}`, message: `${at} belongs to no run item` });
      else if (isFinal(run.status)) out.push({ invariant: 'credits-holds', subject: `run:${run.runId}`, message: `${at} is still open on a final run (${run.status})` });
      else if (item.status !== 'RUNNING' || item.holdId !== hold.holdId) out.push({ invariant: 'credits-holds', subject: `run:${run.runId}`, message: `${at} is open but item ${item.jobId} is ${item.status} holding ${item.holdId}` });
    } else {
      const upscale = account.upscales.get(hold.ref.id);
      if (!upscale) out.push({ invariant: 'credits-holds', subject: `upscale:${hold.ref.id}`, message: `${at} belongs to no upscale` });
      else if (isFinalUpscale(upscale.status)) out.push({ invariant: 'credits-holds', subject: `upscale:${upscale.upscaleId}`, message: `${at} is still open on a final upscale (${upscale.status})` });
      else if (upscale.holdId !== hold.holdId) out.push({ invariant: 'credits-holds', subject: `upscale:${upscale.upscaleId}`, message: `${at} is open but the upscale holds ${upscale.holdId}` });
    }
  }
  for (const run of account.runs.values()) {
    const subject = `run:${run.runId}`;
    for (const item of account.runItems.get(run.runId)?.values() ?? []) {
      if (item.holdId === null) continue;
      if (isFinal(run.status)) out.push({ invariant: 'credits-holds', subject, message: `final (${run.status}) but item ${item.jobId} still holds ${item.holdId}` });
      else if (!ledger.holds.has(item.holdId)) out.push({ invariant: 'credits-holds', subject, message: `item ${item.jobId} (${item.status}) holds ${item.holdId}, which is not open` });
    }
    const expected = run.counts.succeeded * run.credits.perCreative;
    const got = chargedByRef.get(`run:${run.runId}`) ?? 0;
    if (!near(got, expected)) out.push({ invariant: 'credits-holds', subject, message: `charged ${got}, ${run.counts.succeeded} produced × ${run.credits.perCreative} is ${expected}` });
  }
  for (const upscale of account.upscales.values()) {
    const subject = `upscale:${upscale.upscaleId}`;
    if (isFinalUpscale(upscale.status) && upscale.holdId !== null) out.push({ invariant: 'credits-holds', subject, message: `final (${upscale.status}) but still holds ${upscale.holdId}` });
    if (!isFinalUpscale(upscale.status) && upscale.holdId !== null && !ledger.holds.has(upscale.holdId)) out.push({ invariant: 'credits-holds', subject, message: `${upscale.status} and holds ${upscale.holdId}, which is not open` });
    const expected = upscale.status === 'SUCCEEDED' ? upscale.credits.estimated : 0;
    const got = chargedByRef.get(`upscale:${upscale.upscaleId}`) ?? 0;
    if (!near(got, expected)) out.push({ invariant: 'credits-holds', subject, message: `charged ${got} while ${upscale.status}; expected ${expected}` });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Derived assets

export function derivationViolations(account: AccountState): Violation[] {
  const out: Violation[] = [];
  for (const asset of account.assets.values()) {
    const d = asset.derivation;
    if (!d) continue;
    const subject = `asset:${asset.assetId}`;
    const parent = account.assets.get(d.parentAssetId);
    const root = account.assets.get(d.rootAssetId);
    if (!parent) out.push({ invariant: 'asset-derivation', subject, message: `parent ${d.parentAssetId} does not exist` });
    if (!root) out.push({ invariant: 'asset-derivation', subject, message: `root ${d.rootAssetId} does not exist` });
    else if (root.derivation) out.push({ invariant: 'asset-derivation', subject, message: `root ${d.rootAssetId} is itself derived` });
    if (parent) {
      const parentRoot = parent.derivation?.rootAssetId ?? parent.assetId;
      if (parentRoot !== d.rootAssetId) out.push({ invariant: 'asset-derivation', subject, message: `root is ${d.rootAssetId}, its parent's root is ${parentRoot}` });
    }
    if (d.parentAssetId === asset.assetId) out.push({ invariant: 'asset-derivation', subject, message: 'is its own parent' });
  }
  for (const upscale of account.upscales.values()) {
    const subject = `upscale:${upscale.upscaleId}`;
    if (!account.assets.has(upscale.parentAssetId)) out.push({ invariant: 'asset-derivation', subject, message: `source asset ${upscale.parentAssetId} does not exist` });
    if (upscale.status === 'SUCCEEDED') {
      const result = upscale.assetId === null ? undefined : account.assets.get(upscale.assetId);
      if (!result) out.push({ invariant: 'asset-derivation', subject, message: `succeeded but its asset ${upscale.assetId} does not exist` });
      else if (result.derivation?.parentAssetId !== upscale.parentAssetId) out.push({ invariant: 'asset-derivation', subject, message: `its asset ${result.assetId} does not derive from ${upscale.parentAssetId}` });
    } else if (upscale.assetId !== null) {
      out.push({ invariant: 'asset-derivation', subject, message: `is ${upscale.status} but names asset ${upscale.assetId}` });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Idempotency records

const ID_FIELDS: Record<string, string> = { campaign: 'campaignId', creative: 'creativeId', asset: 'assetId', run: 'runId', upscale: 'upscaleId' };
const OBJECT_KINDS: Record<string, string> = { campaign: 'campaign', creative: 'creative', asset: 'asset', run: 'run', upscale: 'upscale' };

function resourceExists(account: AccountState, kind: string, id: string): boolean | undefined {
  switch (kind) {
    case 'campaign':
      return account.campaigns.has(id);
    case 'creative':
      return account.creatives.has(id);
    case 'asset':
      return account.assets.has(id);
    case 'run':
      return account.runs.has(id);
    case 'upscale':
      return account.upscales.has(id);
    default:
      return undefined;
  }
}

export function idempotencyViolations(account: AccountState, options: InvariantOptions = {}): Violation[] {
  const out: Violation[] = [];
  for (const [key, record] of account.idempotency) {
    const subject = `key:${key}`;
    if (record.state === 'in_progress') {
      if (options.quiescent) out.push({ invariant: 'idempotency-resource', subject, message: 'is still in progress with no request in flight' });
      continue;
    }
    if (!record.response) {
      out.push({ invariant: 'idempotency-resource', subject, message: 'is done without a stored response' });
      continue;
    }
    if (record.resource) {
      const exists = resourceExists(account, record.resource.kind, record.resource.id);
      if (exists === undefined) out.push({ invariant: 'idempotency-resource', subject, message: `points at a ${record.resource.kind}, a kind of resource the account does not hold` });
      else if (!exists) out.push({ invariant: 'idempotency-resource', subject, message: `points at ${record.resource.kind} ${record.resource.id}, which does not exist` });
    }
    const { status, body } = record.response;
    if (status >= 200 && status < 300) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = undefined;
      }
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        const rep = parsed as Record<string, unknown>;
        const kind = typeof rep.object === 'string' ? OBJECT_KINDS[rep.object] : undefined;
        const id = kind ? rep[ID_FIELDS[kind]!] : undefined;
        if (kind && typeof id === 'string' && resourceExists(account, kind, id) === false) {
          out.push({ invariant: 'idempotency-resource', subject, message: `replays a ${status} naming ${kind} ${id}, which does not exist` });
        }
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Deliveries

export function deliveryViolations(account: AccountState): Violation[] {
  const out: Violation[] = [];
  for (const delivery of account.deliveries.values()) {
    if (!account.creatives.has(delivery.creativeId)) {
      out.push({ invariant: 'delivery-creative', subject: `delivery:${delivery.deliveryId}`, message: `points at creative ${delivery.creativeId}, which does not exist` });
    }
  }
  return out;
}

/** One line per violation, for failure messages. */
export function formatViolations(violations: readonly Violation[]): string {
  return violations.map((v) => `[${v.invariant}] ${v.subject}: ${v.message}`).join('\n');
}
