/**
 * The campaign state table, one row per table row and decided edge (interface "States and
 * transitions / Campaign", D8, D16, D29, D31, D32, D33). Inputs are deep-frozen: a transition that
 * mutated its input would throw.
 */
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../testkit/harness.ts';
import { ApiError, type FieldError, type ProblemExtensions } from '../../core/errors.ts';
import type { EventDraft } from '../../events/model.ts';
import type { Plan } from '../accounts/model.ts';
import type { Product } from '../catalog/model.ts';
import type { Creative } from '../creatives/model.ts';
import type { Campaign } from './model.ts';
import {
  createCampaign,
  deleteCampaign,
  undeleteCampaign,
  updateCampaign,
  type CampaignCreateInput,
  type CampaignTransition,
  type CreateContext,
} from './transitions.ts';

const NOW = Date.UTC(2026, 0, 2, 12, 0, 0);
const EARLIER = NOW - 3600_000;

function campaign(overrides: Partial<Campaign> = {}): Campaign {
  return deepFreeze({
    campaignId: 'cmp_test',
    name: 'Spring',
    brandId: 'brd_a',
    aspectRatio: '1:1',
    createdAt: EARLIER - 86_400_000,
    deletedAt: null,
    metadata: {},
    creativeIds: ['crv_1', 'crv_2', 'crv_3'],
    creatingUntil: EARLIER - 86_400_000,
    cascadeUntil: EARLIER - 86_400_000,
    ...overrides,
  });
}

function creative(id: string, overrides: Partial<Creative> = {}): Creative {
  return deepFreeze({
    creativeId: id,
    productId: `prd_${id}`,
    campaignId: 'cmp_test',
    brandId: 'brd_a',
    mediaType: 'image',
    status: 'PENDING',
    url: `https://media.example.invalid/${id}.png`,
    thumbnailUrl: null,
    playerUrl: null,
    ownAspectRatio: null,
    approvedAt: null,
    rejectionReason: null,
    deletedAt: null,
    deletedWithCampaign: false,
    metadata: {},
    createdAt: EARLIER - 86_400_000,
    cropJobs: 0,
    ...overrides,
  });
}

const PLAN: Pick<Plan, 'campaigns' | 'campaignLimit' | 'productsPerCampaign'> = { campaigns: true, campaignLimit: 3, productsPerCampaign: 2 };

function product(productId: string, brandId: string): Product {
  return { productId, brandId, sku: null, title: productId, primaryImageUrl: '', primaryImageWidth: 1024, primaryImageHeight: 1024, galleryImageUrls: [], createdAt: 0 };
}
const PRODUCTS = new Map([
  ['prd_a1', product('prd_a1', 'brd_a')],
  ['prd_a2', product('prd_a2', 'brd_a')],
  ['prd_a3', product('prd_a3', 'brd_a')],
  ['prd_b1', product('prd_b1', 'brd_b')],
]);

function createContext(overrides: Partial<CreateContext> = {}): CreateContext {
  let n = 0;
  return {
    plan: PLAN,
    liveCampaigns: 0,
    brands: new Set(['brd_a', 'brd_b']),
    products: PRODUCTS,
    creationSeconds: 0,
    newId: (prefix) => `${prefix}_${++n}`,
    ...overrides,
  };
}

const create = (input: Partial<CampaignCreateInput>, context: Partial<CreateContext> = {}) => () =>
  createCampaign(deepFreeze({ name: 'Launch', brandId: 'brd_a', productIds: ['prd_a1', 'prd_a2'], ...input }), createContext(context), NOW);

type Want =
  | {
      changed: true;
      campaign: Partial<Campaign>;
      /** The changed creatives: id → fields. */
      creatives?: Record<string, Partial<Creative>>;
      events: EventDraft[];
      creativeEvents?: Record<string, EventDraft[]>;
    }
  | { changed: false }
  | { error: string; status: number; extensions?: ProblemExtensions; retryAfter?: number };

type Row = [name: string, { given: { campaign: Campaign; creatives: Creative[] }; input: (g: { campaign: Campaign; creatives: Creative[] }) => CampaignTransition; want: Want }];

const three = () => [creative('crv_1'), creative('crv_2', { status: 'APPROVED', approvedAt: EARLIER }), creative('crv_3', { status: 'NOT_GENERATED', url: null })];
const remove = (cascadeSeconds = 0) => (g: { campaign: Campaign; creatives: Creative[] }) => deleteCampaign(g.campaign, g.creatives, { cascadeSeconds }, NOW);
const restore = (liveCampaigns = 0, cascadeSeconds = 0) => (g: { campaign: Campaign; creatives: Creative[] }) =>
  undeleteCampaign(g.campaign, g.creatives, { plan: PLAN, liveCampaigns, cascadeSeconds }, NOW);
const patch = (p: Parameters<typeof updateCampaign>[1]) => (g: { campaign: Campaign }) => updateCampaign(g.campaign, p);
const given = (c: Partial<Campaign> = {}, creatives: Creative[] = three()) => ({ campaign: campaign(c), creatives });
const deletedWith = (id: string, o: Partial<Creative> = {}) => creative(id, { deletedAt: EARLIER, deletedWithCampaign: true, ...o });

const rows: Row[] = [
  // --- update
  ['CAMP-018 EVT-015 EVT-030 live: rename → campaign.updated, previous name', { given: given(), input: patch({ name: 'Summer' }), want: { changed: true, campaign: { name: 'Summer' }, events: [{ type: 'campaign.updated', previousAttributes: { name: 'Spring' } }] } }],
  ['CAMP-018 EVT-031 metadata set: previous map listed whole', { given: given({ metadata: { a: '1' } }), input: patch({ metadata: { b: '2' } }), want: { changed: true, campaign: { metadata: { a: '1', b: '2' } }, events: [{ type: 'campaign.updated', previousAttributes: { metadata: { a: '1' } } }] } }],
  ['CAMP-018 EVT-030 name and metadata together: both listed', { given: given({ metadata: { a: '1' } }), input: patch({ name: 'Summer', metadata: { a: '2' } }), want: { changed: true, campaign: { name: 'Summer', metadata: { a: '2' } }, events: [{ type: 'campaign.updated', previousAttributes: { name: 'Spring', metadata: { a: '1' } } }] } }],
  ['D33 EVT-032 META-008 last metadata key removed: event still sent, previousAttributes {}', { given: given({ metadata: { a: '1' } }), input: patch({ metadata: { a: null } }), want: { changed: true, campaign: { metadata: {} }, events: [{ type: 'campaign.updated', previousAttributes: {} }] } }],
  ['CAMP-027 EVT-020 same name, metadata unchanged: no-op, records nothing', { given: given({ metadata: { a: '1' } }), input: patch({ name: 'Spring', metadata: { a: '1', x: null } }), want: { changed: false } }],
  ['META-004 META-007 merge leaving 51 keys: 422 VALIDATION_ERROR', { given: given({ metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'])) }), input: patch({ metadata: { extra: 'x' } }), want: { error: 'VALIDATION_ERROR', status: 422 } }],
  ['D32 ERR-020 deleted: update → 404 CAMPAIGN_NOT_FOUND', { given: given({ deletedAt: EARLIER }), input: patch({ name: 'x' }), want: { error: 'CAMPAIGN_NOT_FOUND', status: 404 } }],
  // --- delete
  [
    'CAMP-005 CAMP-006 EVT-011 EVT-016 EVT-017 live, nothing generating: deleted with every live creative; creative.deleted for readable ones, campaign.deleted',
    {
      given: given(),
      input: remove(),
      want: {
        changed: true,
        campaign: { deletedAt: NOW, cascadeUntil: NOW },
        creatives: { crv_1: { deletedAt: NOW, deletedWithCampaign: true }, crv_2: { deletedAt: NOW, deletedWithCampaign: true }, crv_3: { deletedAt: NOW, deletedWithCampaign: true } },
        events: [{ type: 'campaign.deleted' }],
        creativeEvents: { crv_1: [{ type: 'creative.deleted' }], crv_2: [{ type: 'creative.deleted' }] },
      },
    },
  ],
  [
    'CAMP-013 a creative deleted on its own before: untouched by the cascade',
    {
      given: given({}, [creative('crv_1'), creative('crv_2', { deletedAt: EARLIER })]),
      input: remove(),
      want: { changed: true, campaign: { deletedAt: NOW, cascadeUntil: NOW }, creatives: { crv_1: { deletedAt: NOW, deletedWithCampaign: true } }, events: [{ type: 'campaign.deleted' }], creativeEvents: { crv_1: [{ type: 'creative.deleted' }] } },
    },
  ],
  ['CAMP-017 the cascade lasts faults.cascadeSeconds', { given: given({}, [creative('crv_1')]), input: remove(30), want: { changed: true, campaign: { deletedAt: NOW, cascadeUntil: NOW + 30_000 }, creatives: { crv_1: { deletedAt: NOW, deletedWithCampaign: true } }, events: [{ type: 'campaign.deleted' }], creativeEvents: { crv_1: [{ type: 'creative.deleted' }] } } }],
  ['CAMP-009 ERR-010 a creative QUEUED and one GENERATING: 409 CAMPAIGN_NOT_DELETABLE, generatingCount 2', { given: given({}, [creative('crv_1', { status: 'QUEUED' }), creative('crv_2', { status: 'GENERATING' }), creative('crv_3')]), input: remove(), want: { error: 'CAMPAIGN_NOT_DELETABLE', status: 409, extensions: { generatingCount: 2 } } }],
  ['CAMP-009 a deleted QUEUED creative does not count', { given: given({}, [creative('crv_1', { status: 'QUEUED', deletedAt: EARLIER })]), input: remove(), want: { changed: true, campaign: { deletedAt: NOW, cascadeUntil: NOW }, events: [{ type: 'campaign.deleted' }] } }],
  ['CAMP-010 ERR-010 still being created: 409 CAMPAIGN_NOT_DELETABLE, reason still_being_created', { given: given({ creatingUntil: NOW + 1000 }), input: remove(), want: { error: 'CAMPAIGN_NOT_DELETABLE', status: 409, extensions: { reason: 'still_being_created' } } }],
  ['CAMP-017 ERR-028 live, a restore still finishing: 409 CAMPAIGN_CASCADE_PENDING with Retry-After', { given: given({ cascadeUntil: NOW + 4500 }), input: remove(), want: { error: 'CAMPAIGN_CASCADE_PENDING', status: 409, retryAfter: 5 } }],
  ['CAMP-017 deleted, its delete still finishing: delete again → 409 CAMPAIGN_CASCADE_PENDING (the "any" row wins)', { given: given({ deletedAt: EARLIER, cascadeUntil: NOW + 1000 }), input: remove(), want: { error: 'CAMPAIGN_CASCADE_PENDING', status: 409, retryAfter: 1 } }],
  ['D32 ERR-020 deleted, its cascade over: delete again → 404 CAMPAIGN_NOT_FOUND', { given: given({ deletedAt: EARLIER, cascadeUntil: NOW }), input: remove(), want: { error: 'CAMPAIGN_NOT_FOUND', status: 404 } }],
  // --- undelete
  [
    'CAMP-011 CAMP-012 CAMP-013 EVT-012 EVT-016 deleted, under the limit: restored with exactly the creatives deleted with it',
    {
      given: given({ deletedAt: EARLIER }, [deletedWith('crv_1'), creative('crv_2', { deletedAt: EARLIER - 1000 }), deletedWith('crv_3', { status: 'NOT_GENERATED', url: null })]),
      input: restore(2),
      want: {
        changed: true,
        campaign: { deletedAt: null, cascadeUntil: NOW },
        creatives: { crv_1: { deletedAt: null, deletedWithCampaign: false }, crv_3: { deletedAt: null, deletedWithCampaign: false } },
        events: [{ type: 'campaign.restored' }],
        creativeEvents: { crv_1: [{ type: 'creative.restored' }] },
      },
    },
  ],
  ['CAMP-017 the restore cascade lasts faults.cascadeSeconds', { given: given({ deletedAt: EARLIER }, []), input: restore(0, 10), want: { changed: true, campaign: { deletedAt: null, cascadeUntil: NOW + 10_000 }, events: [{ type: 'campaign.restored' }] } }],
  ['CAMP-015 ERR-011 D29 deleted, at the campaign limit: 403 LIMIT_EXCEEDED campaigns', { given: given({ deletedAt: EARLIER }), input: restore(3), want: { error: 'LIMIT_EXCEEDED', status: 403, extensions: { limitKey: 'campaigns', limit: 3, current: 3 } } }],
  ['CAMP-015 CAMP-025 ERR-011 D29 D70 deleted, would bring back more products than the plan allows: 403 LIMIT_EXCEEDED productsPerCampaign', { given: given({ deletedAt: EARLIER }, [deletedWith('crv_1'), deletedWith('crv_2'), deletedWith('crv_3')]), input: restore(), want: { error: 'LIMIT_EXCEEDED', status: 403, extensions: { limitKey: 'productsPerCampaign', limit: 2, current: 3 } } }],
  ['D70 D47 products taken out of the campaign (deleted on their own) do not count: restored', { given: given({ deletedAt: EARLIER }, [deletedWith('crv_1'), deletedWith('crv_2'), creative('crv_3', { deletedAt: EARLIER - 1000 })]), input: restore(), want: { changed: true, campaign: { deletedAt: null, cascadeUntil: NOW }, creatives: { crv_1: { deletedAt: null, deletedWithCampaign: false }, crv_2: { deletedAt: null, deletedWithCampaign: false } }, events: [{ type: 'campaign.restored' }], creativeEvents: { crv_1: [{ type: 'creative.restored' }], crv_2: [{ type: 'creative.restored' }] } } }],
  ['D70 two creatives of one product count once', { given: given({ deletedAt: EARLIER }, [deletedWith('crv_1'), deletedWith('crv_2', { productId: 'prd_crv_1' }), deletedWith('crv_3')]), input: restore(), want: { changed: true, campaign: { deletedAt: null, cascadeUntil: NOW }, creatives: { crv_1: { deletedAt: null, deletedWithCampaign: false }, crv_2: { deletedAt: null, deletedWithCampaign: false }, crv_3: { deletedAt: null, deletedWithCampaign: false } }, events: [{ type: 'campaign.restored' }], creativeEvents: { crv_1: [{ type: 'creative.restored' }], crv_2: [{ type: 'creative.restored' }], crv_3: [{ type: 'creative.restored' }] } } }],
  ['CAMP-016 live: undelete → no-op 200', { given: given(), input: restore(3), want: { changed: false } }],
  ['CAMP-017 deleted, its delete still finishing: 409 CAMPAIGN_CASCADE_PENDING', { given: given({ deletedAt: EARLIER, cascadeUntil: NOW + 1 }), input: restore(), want: { error: 'CAMPAIGN_CASCADE_PENDING', status: 409, retryAfter: 1 } }],
  ['CAMP-017 live, its restore still finishing: undelete → 409 CAMPAIGN_CASCADE_PENDING (any state)', { given: given({ cascadeUntil: NOW + 2000 }), input: restore(), want: { error: 'CAMPAIGN_CASCADE_PENDING', status: 409, retryAfter: 2 } }],
  ['GEN-003 deleted years ago: restored (no time limit)', { given: given({ deletedAt: EARLIER - 3 * 365 * 86_400_000 }, []), input: restore(), want: { changed: true, campaign: { deletedAt: null, cascadeUntil: NOW }, events: [{ type: 'campaign.restored' }] } }],
];

function check(t: CampaignTransition, g: { campaign: Campaign; creatives: Creative[] }, want: Want): void {
  if ('error' in want) throw new Error('unreachable');
  expect(t.changed).toBe(want.changed);
  if (!want.changed) {
    expect(t.next.campaign).toBe(g.campaign);
    expect(t.next.creatives).toEqual([]);
    expect(t.events).toEqual([]);
    expect(t.creativeEvents).toEqual([]);
    return;
  }
  expect(t.next.campaign).toEqual({ ...g.campaign, ...want.campaign });
  const byId = new Map(g.creatives.map((c) => [c.creativeId, c]));
  expect(Object.fromEntries(t.next.creatives.map((c) => [c.creativeId, c]))).toEqual(
    Object.fromEntries(Object.entries(want.creatives ?? {}).map(([id, fields]) => [id, { ...byId.get(id), ...fields }])),
  );
  expect(t.events).toEqual(want.events);
  expect(Object.fromEntries(t.creativeEvents.map((e) => [e.creativeId, e.drafts]))).toEqual(want.creativeEvents ?? {});
}

function thrown(act: () => unknown): ApiError {
  try {
    act();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('campaign transitions: update, delete, undelete', () => {
  it.each(rows)('%s', (_name, { given: g, input, want }) => {
    if ('error' in want) {
      const error = thrown(() => input(g));
      expect({ code: error.code, status: error.status }).toEqual({ code: want.error, status: want.status });
      if (want.extensions) expect(error.extensions).toEqual(want.extensions);
      if (want.retryAfter !== undefined) expect(error.retryAfter).toBe(want.retryAfter);
      return;
    }
    check(input(g), g, want);
  });
});

type CreateRow = [name: string, { input: () => CampaignTransition; want: { error: string; status: number; extensions?: ProblemExtensions; errors?: FieldError[] } }];

const createRows: CreateRow[] = [
  ['CAMP-026 D31 a plan without campaigns: 403 TIER_REQUIRED', { input: create({}, { plan: { ...PLAN, campaigns: false } }), want: { error: 'TIER_REQUIRED', status: 403 } }],
  ['CAMP-024 ERR-011 D29 at the campaign limit: 403 LIMIT_EXCEEDED campaigns', { input: create({}, { liveCampaigns: 3 }), want: { error: 'LIMIT_EXCEEDED', status: 403, extensions: { limitKey: 'campaigns', limit: 3, current: 3 } } }],
  ['CAMP-025 ERR-011 D29 more products than the plan allows: 403 LIMIT_EXCEEDED productsPerCampaign', { input: create({ productIds: ['prd_a1', 'prd_a2', 'prd_a3'] }), want: { error: 'LIMIT_EXCEEDED', status: 403, extensions: { limitKey: 'productsPerCampaign', limit: 2, current: 3 } } }],
  ['D16 an unknown product: 404 PRODUCT_NOT_FOUND naming productIds[1]', { input: create({ productIds: ['prd_a1', 'prd_nope'] }), want: { error: 'PRODUCT_NOT_FOUND', status: 404, errors: [{ field: 'productIds[1]', message: 'is not a product of this account' }] } }],
  ['D16 an unknown brand: 422 VALIDATION_ERROR on brandId', { input: create({ brandId: 'brd_nope' }), want: { error: 'VALIDATION_ERROR', status: 422, errors: [{ field: 'brandId', message: 'is not a brand of this account' }] } }],
  ['CAMP-001 D16 a product of another brand: 422 VALIDATION_ERROR naming productIds[0]', { input: create({ productIds: ['prd_b1', 'prd_a1'] }), want: { error: 'VALIDATION_ERROR', status: 422, errors: [{ field: 'productIds[0]', message: 'belongs to another brand than brd_a' }] } }],
];

describe('campaign transitions: create', () => {
  it('CAMP-001 CAMP-002 CAMP-019 EVT-015 EVT-018: one NOT_GENERATED creative per product, campaign.created only', () => {
    const t = create({ aspectRatio: '9:16', metadata: { team: 'growth' } })();
    expect(t.changed).toBe(true);
    expect(t.events).toEqual([{ type: 'campaign.created' }]);
    expect(t.creativeEvents).toEqual([]);
    expect(t.next.campaign).toEqual({
      campaignId: 'cmp_1',
      name: 'Launch',
      brandId: 'brd_a',
      aspectRatio: '9:16',
      createdAt: NOW,
      deletedAt: null,
      metadata: { team: 'growth' },
      creativeIds: ['crv_2', 'crv_3'],
      creatingUntil: NOW,
      cascadeUntil: NOW,
    });
    expect(t.next.creatives.map((c) => [c.creativeId, c.productId, c.brandId, c.campaignId, c.status, c.url, c.deletedAt])).toEqual([
      ['crv_2', 'prd_a1', 'brd_a', 'cmp_1', 'NOT_GENERATED', null, null],
      ['crv_3', 'prd_a2', 'brd_a', 'cmp_1', 'NOT_GENERATED', null, null],
    ]);
  });

  it('CAMP-010 D8 stays CREATING for faults.creationSeconds; without a ratio the campaign gets 1:1 (decided)', () => {
    const t = create({}, { creationSeconds: 20 })();
    expect(t.next.campaign.creatingUntil).toBe(NOW + 20_000);
    expect(t.next.campaign.aspectRatio).toBe('1:1');
    expect(t.next.campaign.metadata).toEqual({});
  });

  it.each(createRows)('%s', (_name, { input, want }) => {
    let allocated = 0;
    const error = thrown(() => {
      const t = input();
      allocated = t.next.creatives.length;
    });
    expect({ code: error.code, status: error.status }).toEqual({ code: want.error, status: want.status });
    if (want.extensions) expect(error.extensions).toEqual(want.extensions);
    if (want.errors) expect(error.extensions.errors).toEqual(want.errors);
    expect(allocated).toBe(0);
  });

  it('ids are allocated only once every check has passed', () => {
    const ids: string[] = [];
    expect(() => createCampaign({ name: 'x', brandId: 'brd_a', productIds: ['prd_nope'] }, createContext({ newId: (p) => (ids.push(p), p) }), NOW)).toThrow(ApiError);
    expect(ids).toEqual([]);
  });
});
