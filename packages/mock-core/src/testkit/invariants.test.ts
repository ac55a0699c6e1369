/**
 * The state invariants (packages/mock-core/src/testkit/invariants.ts) hold on a sound account, and each one FAILS on a state
 * corrupted the way it guards against: one row per corruption, `[name, { invariant, corrupt }]`.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { accountViolations, cascadeSnapshot, INVARIANTS, restoreViolations, type InvariantName } from './invariants.ts';
import { createHarness, type Harness } from './harness.ts';
import { setGenerationSettings } from '../domain/runs/settings.ts';
import { isFinal } from '../domain/runs/model.ts';
import type { AccountState } from '../domain/store.ts';

interface World {
  h: Harness;
  state: AccountState;
  key: string;
  /** A final run with produced and failed items. */
  finalRunId: string;
  /** A run with items still running (open holds). */
  liveRunId: string;
  /** A delivered upscale and its asset. */
  upscaleId: string;
}

let w: World;

async function world(): Promise<World> {
  const h = await createHarness();
  const acct = await h.account({ seed: 5 });
  const state = acct.state;
  const key = acct.key('all');
  const post = async (path: string, idem: string, body: unknown) => {
    const res = await h.request('POST', path, { key, headers: { 'idempotency-key': idem }, body });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body as Record<string, string>;
  };
  setGenerationSettings(state, { outcomePattern: ['succeeded', 'failed', 'succeeded', 'refused'] });
  const products = state.products.ids().slice(0, 3);
  const finalRunId = (await post('/runs', 'inv-run-1', { productIds: products.slice(0, 2), creativesPerProduct: 2, presetId: 'pst_studio_white' })).runId!;
  const upscaleId = (await post('/upscales', 'inv-up-1', { source: { productId: products[0], image: 'primary' }, target: '2K' })).upscaleId!;
  h.advance(600);
  const liveRunId = (await post('/runs', 'inv-run-2', { productIds: products, creativesPerProduct: 3, presetId: 'pst_lifestyle' })).runId!;
  h.advance(1); // items started: holds open
  // A campaign created and deleted through the API (its creatives go with it).
  const brandId = state.brands.ids()[0]!;
  const campaign = await post('/campaigns', 'inv-cmp-1', { name: 'Invariants', brandId, productIds: [...state.products.values()].filter((p) => p.brandId === brandId).slice(0, 2).map((p) => p.productId) });
  const del = await h.request('DELETE', `/campaigns/${campaign.campaignId}`, { key });
  if (del.status !== 200) throw new Error(`delete campaign: ${del.status} ${del.text}`);
  return { h, state, key, finalRunId, liveRunId, upscaleId };
}

beforeEach(async () => {
  w = await world();
  return async () => {
    await w.h.close();
  };
});

function itemsOf(runId: string) {
  return [...w.state.runItems.get(runId)!.values()];
}

function deletedCampaign() {
  return [...w.state.campaigns.values()].find((c) => c.deletedAt !== null && c.creativeIds.length > 0)!;
}

function derivedAsset() {
  return [...w.state.assets.values()].find((a) => a.derivation !== null)!;
}

const cases: [string, { invariant: InvariantName; corrupt: (state: AccountState) => void; quiescent?: boolean }][] = [
  ['counts that do not sum to the total', { invariant: 'run-counts', corrupt: (s) => void s.runs.get(w.finalRunId)!.counts.succeeded++ }],
  ['a final run with items pending', {
    invariant: 'run-counts',
    corrupt: (s) => {
      const run = s.runs.get(w.finalRunId)!;
      run.counts.failed--;
      run.counts.pending++;
    },
  }],
  ['a final run without finalizedAt', { invariant: 'run-counts', corrupt: (s) => void (s.runs.get(w.finalRunId)!.finalizedAt = null) }],
  ['an item whose outcome disagrees with the counts', {
    invariant: 'run-items',
    corrupt: () => {
      const item = itemsOf(w.finalRunId).find((i) => i.outcome === 'failed')!;
      item.outcome = 'refused';
    },
  }],
  ['a produced item whose asset does not exist', {
    invariant: 'run-items',
    corrupt: () => {
      const item = itemsOf(w.finalRunId).find((i) => i.outcome === 'succeeded')!;
      item.assetId = 'ast_missing';
    },
  }],
  ['items out of request order', {
    invariant: 'run-items',
    corrupt: () => {
      const [a, b] = itemsOf(w.finalRunId);
      [a!.position, b!.position] = [b!.position, a!.position];
    },
  }],
  ['a live creative in a deleted campaign', {
    invariant: 'campaign-cascade',
    corrupt: (s) => {
      const c = s.creatives.get(deletedCampaign().creativeIds[0]!)!;
      c.deletedAt = null;
      c.deletedWithCampaign = false;
    },
  }],
  ['a restored campaign that left the creatives deleted with it', { invariant: 'campaign-cascade', corrupt: () => void (deletedCampaign().deletedAt = null) }],
  ['a creative marked deleted with its campaign at another time', {
    invariant: 'campaign-cascade',
    corrupt: (s) => {
      const c = [...s.creatives.values()].find((x) => x.deletedWithCampaign)!;
      c.deletedAt = c.deletedAt! - 1000;
    },
  }],
  ['a creative its campaign does not list', {
    invariant: 'campaign-cascade',
    corrupt: (s) => {
      const campaign = s.campaigns.get(s.creatives.values().next().value!.campaignId)!;
      campaign.creativeIds = campaign.creativeIds.slice(1);
    },
  }],
  ['a balance that is not the start minus the charges', { invariant: 'credits-ledger', corrupt: (s) => void (s.credits.balance -= 1) }],
  ['held credits that are not the open holds', { invariant: 'credits-ledger', corrupt: (s) => void (s.credits.held += 2) }],
  ['totals that disagree with the journal', { invariant: 'credits-ledger', corrupt: (s) => void (s.credits.totals.charged += 1) }],
  ['a hold charged twice', {
    invariant: 'credits-ledger',
    corrupt: (s) => {
      const charge = s.credits.journal.find((e) => e.kind === 'charge')!;
      s.credits.journal.push({ ...charge });
    },
  }],
  ['a hold left open on a final run', {
    invariant: 'credits-holds',
    corrupt: (s) => {
      const item = itemsOf(w.finalRunId)[0]!;
      const hold = { holdId: 'hld_leak', ref: { kind: 'run' as const, id: w.finalRunId, jobId: item.jobId }, amount: 1, placedAt: 0 };
      s.credits.holds.set(hold.holdId, hold);
      s.credits.held += 1;
      s.credits.journal.push({ kind: 'hold', holdId: hold.holdId, ref: hold.ref, amount: 1, at: 0 });
      item.holdId = hold.holdId;
    },
  }],
  ['a hold released while its item still runs', {
    invariant: 'credits-holds',
    corrupt: (s) => {
      const item = itemsOf(w.liveRunId).find((i) => i.status === 'RUNNING' && i.holdId !== null)!;
      const hold = s.credits.holds.get(item.holdId!)!;
      s.credits.holds.delete(hold.holdId);
      s.credits.held -= hold.amount;
      s.credits.journal.push({ kind: 'release', holdId: hold.holdId, ref: hold.ref, amount: hold.amount, at: 0 });
      s.credits.totals.released += hold.amount;
      // the item still says it holds it
    },
  }],
  ['a run charged more than it produced', { invariant: 'credits-holds', corrupt: (s) => void (s.runs.get(w.finalRunId)!.credits.perCreative = 7) }],
  ['a delivered upscale charged another price', { invariant: 'credits-holds', corrupt: (s) => void (s.upscales.get(w.upscaleId)!.credits.estimated = 99) }],
  ['a derived asset whose parent does not exist', { invariant: 'asset-derivation', corrupt: () => void (derivedAsset().derivation!.parentAssetId = 'ast_missing') }],
  ['a derived asset whose root is derived', {
    invariant: 'asset-derivation',
    corrupt: (s) => {
      const a = derivedAsset();
      const other = [...s.assets.values()].find((x) => x.derivation !== null && x.assetId !== a.assetId) ?? a;
      a.derivation!.rootAssetId = other.assetId;
    },
  }],
  ['a delivered upscale whose asset does not exist', { invariant: 'asset-derivation', corrupt: (s) => void (s.upscales.get(w.upscaleId)!.assetId = 'ast_missing') }],
  ['an idempotency record pointing at a missing resource', {
    invariant: 'idempotency-resource',
    corrupt: (s) => void (s.idempotency.get('inv-cmp-1')!.resource = { kind: 'campaign', id: 'cmp_missing' }),
  }],
  ['a stored 2xx naming a missing run', {
    invariant: 'idempotency-resource',
    corrupt: (s) => {
      const record = s.idempotency.get('inv-run-1')!;
      delete record.resource;
      record.response = { ...record.response!, body: record.response!.body.replace(w.finalRunId, 'run_missing') };
    },
  }],
  ['a key stuck in progress with nothing in flight', { invariant: 'idempotency-resource', quiescent: true, corrupt: (s) => void (s.idempotency.get('inv-up-1')!.state = 'in_progress') }],
  ['a delivery of a missing creative', { invariant: 'delivery-creative', corrupt: (s) => void (s.deliveries.values().next().value!.creativeId = 'crv_missing') }],
];

describe('state invariants', () => {
  it('hold on a sound account (runs final and running, an upscale, a deleted campaign)', () => {
    expect(isFinal(w.state.runs.get(w.finalRunId)!.status)).toBe(true);
    expect(w.state.runs.get(w.liveRunId)!.running).toBeGreaterThan(0);
    expect(w.state.credits.holds.size).toBeGreaterThan(0);
    expect(accountViolations(w.state, { quiescent: true })).toEqual([]);
  });

  it('every invariant has a corruption that breaks it', () => {
    const covered = new Set<string>([...cases.map(([, c]) => c.invariant), 'campaign-restore']);
    expect(INVARIANTS.filter((name) => !covered.has(name))).toEqual([]);
  });

  it.each(cases)('fails on %s', (_name, { invariant, corrupt, quiescent }) => {
    expect(accountViolations(w.state, { quiescent: true })).toEqual([]);
    corrupt(w.state);
    const found = accountViolations(w.state, { quiescent: quiescent ?? false });
    expect(found.map((v) => v.invariant)).toContain(invariant);
  });

  it('stay sound through a campaign restore through the API', async () => {
    const campaign = deletedCampaign();
    const before = cascadeSnapshot(w.state);
    const res = await w.h.request('POST', `/campaigns/${campaign.campaignId}/undelete`, { key: w.key, headers: { 'idempotency-key': 'inv-restore' } });
    expect(res.status).toBe(200);
    expect([...restoreViolations(before, cascadeSnapshot(w.state)), ...accountViolations(w.state, { quiescent: true })]).toEqual([]);
  });
});

describe('campaign-restore (a transition between two snapshots)', () => {
  const restoreCases: [string, (state: AccountState, campaignId: string) => void][] = [
    ['a restore that leaves a creative deleted with the campaign deleted', (s, id) => {
      const campaign = s.campaigns.get(id)!;
      campaign.deletedAt = null;
      for (const cid of campaign.creativeIds) s.creatives.get(cid)!.deletedWithCampaign = false; // flags cleared, creatives left deleted
    }],
    ['a restore that brings back a creative deleted on its own', (s, id) => {
      const campaign = s.campaigns.get(id)!;
      campaign.deletedAt = null;
      for (const cid of campaign.creativeIds) {
        const c = s.creatives.get(cid)!;
        c.deletedAt = null;
        c.deletedWithCampaign = false;
      }
    }],
  ];

  it.each(restoreCases)('fails on %s', (_name, corrupt) => {
    // The demo's deleted campaign holds creatives deleted with it and one deleted on its own.
    const campaign = [...w.state.campaigns.values()].find((c) => c.deletedAt !== null && c.creativeIds.some((id) => !w.state.creatives.get(id)!.deletedWithCampaign) && c.creativeIds.some((id) => w.state.creatives.get(id)!.deletedWithCampaign))!;
    expect(campaign).toBeDefined();
    const before = cascadeSnapshot(w.state);
    corrupt(w.state, campaign.campaignId);
    expect(restoreViolations(before, cascadeSnapshot(w.state)).map((v) => v.invariant)).toContain('campaign-restore');
  });

  it('fails on a delete that leaves a live creative behind', () => {
    const campaign = [...w.state.campaigns.values()].find((c) => c.deletedAt === null && c.creativeIds.length > 0)!;
    const before = cascadeSnapshot(w.state);
    campaign.deletedAt = 1;
    expect(restoreViolations(before, cascadeSnapshot(w.state)).map((v) => v.invariant)).toContain('campaign-restore');
  });
});
