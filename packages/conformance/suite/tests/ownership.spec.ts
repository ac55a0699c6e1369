/**
 * Ownership and the uniform 404 (GEN-004, ERR-019, ERR-020): another account's creative, asset or
 * campaign answers the same 404 as one that does not exist (identical apart from requestId and
 * instance), on reads and on every write, and the write changes nothing; on a write, a deleted
 * item and a creative without a public representation answer that same 404 too.
 */
import { expect, skipWhenAbsent, test, type ApiClient, type ApiResponse } from '../fixtures/index.ts';
import {
  dashboard,
  expectSame404,
  newCampaign,
  newKey,
  oneDeletedOfEachKind,
  oneOfEachKind,
  ownerView,
  pick,
  UNKNOWN_IDS,
  type ResourceKind,
} from '../fixtures/resources.ts';

const UNKNOWN = UNKNOWN_IDS;
type Kind = ResourceKind;

interface Call {
  what: string;
  profile: string;
  method: 'GET' | 'PATCH' | 'DELETE' | 'POST';
  /** The path for an id. */
  path: (id: string) => string;
  body?: unknown;
  key?: boolean;
  query?: Record<string, string | boolean>;
}

const enc = encodeURIComponent;

function calls(kind: Kind, writes: boolean): Call[] {
  const reads: Call[] = [
    { what: `GET /${kind}s/{id}`, profile: 'read', method: 'GET', path: (id) => `/${kind}s/${enc(id)}` },
    { what: `GET /${kind}s/{id}?showDeleted=true`, profile: 'read', method: 'GET', path: (id) => `/${kind}s/${enc(id)}`, query: { showDeleted: true } },
  ];
  if (!writes) return reads;
  const byKind: Record<Kind, Call[]> = {
    creative: [
      { what: 'PATCH /creatives/{id}', profile: 'creatives:write', method: 'PATCH', path: (id) => `/creatives/${enc(id)}`, body: { metadata: { cf_owner: 'b' } } },
      { what: 'DELETE /creatives/{id}', profile: 'creatives:write', method: 'DELETE', path: (id) => `/creatives/${enc(id)}` },
      { what: 'POST /creatives/{id}/undelete', profile: 'creatives:write', method: 'POST', path: (id) => `/creatives/${enc(id)}/undelete`, key: true },
      { what: 'POST /creatives/{id}/approve', profile: 'creatives:review', method: 'POST', path: (id) => `/creatives/${enc(id)}/approve`, key: true },
      { what: 'POST /creatives/{id}/reject', profile: 'creatives:review', method: 'POST', path: (id) => `/creatives/${enc(id)}/reject`, key: true },
    ],
    asset: [
      { what: 'PATCH /assets/{id}', profile: 'assets:write', method: 'PATCH', path: (id) => `/assets/${enc(id)}`, body: { favorited: true } },
      { what: 'POST /assets/{id}/archive', profile: 'assets:write', method: 'POST', path: (id) => `/assets/${enc(id)}/archive`, key: true },
      { what: 'POST /assets/{id}/unarchive', profile: 'assets:write', method: 'POST', path: (id) => `/assets/${enc(id)}/unarchive`, key: true },
      { what: 'DELETE /assets/{id}', profile: 'assets:write', method: 'DELETE', path: (id) => `/assets/${enc(id)}` },
      { what: 'POST /assets/{id}/undelete', profile: 'assets:write', method: 'POST', path: (id) => `/assets/${enc(id)}/undelete`, key: true },
    ],
    campaign: [
      { what: 'PATCH /campaigns/{id}', profile: 'campaigns:write', method: 'PATCH', path: (id) => `/campaigns/${enc(id)}`, body: { name: 'not yours' } },
      { what: 'DELETE /campaigns/{id}', profile: 'campaigns:write', method: 'DELETE', path: (id) => `/campaigns/${enc(id)}` },
      { what: 'POST /campaigns/{id}/undelete', profile: 'campaigns:write', method: 'POST', path: (id) => `/campaigns/${enc(id)}/undelete`, key: true },
    ],
  };
  return [...reads, ...byKind[kind]];
}

async function call(api: ApiClient, c: Call, id: string): Promise<ApiResponse> {
  const client = api.as(c.profile);
  const options = { ...(c.body !== undefined ? { body: c.body } : {}), ...(c.key ? { idempotencyKey: newKey('owner') } : {}), ...(c.query ? { query: c.query } : {}) };
  if (c.method === 'GET') return client.get(c.path(id), options);
  if (c.method === 'PATCH') return client.patch(c.path(id), options);
  if (c.method === 'DELETE') return client.delete(c.path(id), options);
  return client.post(c.path(id), options);
}

test('GEN-004 ERR-019 ERR-020 another account\'s creative, asset and campaign answer the same 404 as unknown ones on every read', { tag: ['@area:creatives', '@area:campaigns', '@area:assets'] }, async ({ api, apiFor, accountB }) => {
  const judged = await oneOfEachKind(api);
  skipWhenAbsent(judged.length === 0, 'account A has no creative, asset or campaign');
  const other = apiFor(accountB);
  for (const [kind, id] of judged) {
    for (const c of calls(kind, false)) await expectSame404(await call(other, c, id), await call(other, c, UNKNOWN[kind]), kind, `${c.what} of account A's ${kind} by account B`);
  }
});

test('GEN-004 ERR-020 every write on another account\'s creative, asset or campaign answers the same 404 as on an unknown one and changes nothing', { tag: ['@area:creatives', '@area:campaigns', '@area:assets'] }, async ({ api, apiFor, accountB }) => {
  const judged = await oneOfEachKind(api);
  skipWhenAbsent(judged.length === 0, 'account A has no creative, asset or campaign');
  const other = apiFor(accountB);
  for (const [kind, id] of judged) {
    const before = await ownerView(api, kind, id);
    for (const c of calls(kind, true).slice(2)) await expectSame404(await call(other, c, id), await call(other, c, UNKNOWN[kind]), kind, `${c.what} on account A's ${kind} by account B`);
    expect(await ownerView(api, kind, id), `account A's ${kind} is unchanged`).toEqual(before);
  }
});

test('ERR-020 a write on a deleted creative, asset or campaign answers the same 404 as on an unknown one and changes nothing', { tag: ['@area:creatives', '@area:campaigns', '@area:assets'] }, async ({ api }) => {
  const judged = await oneDeletedOfEachKind(api);
  skipWhenAbsent(judged.length === 0, 'the account has no deleted creative, asset or campaign');
  for (const [kind, id] of judged) {
    const before = await ownerView(api, kind, id);
    // Every write but undelete, which acts on deleted items.
    for (const c of calls(kind, true).filter((c) => c.method !== 'GET' && !c.what.endsWith('/undelete'))) {
      await expectSame404(await call(api, c, id), await call(api, c, UNKNOWN[kind]), kind, `${c.what} on a deleted ${kind}`);
    }
    expect(await ownerView(api, kind, id), `the deleted ${kind} is unchanged`).toEqual(before);
  }
});

test('ERR-020 CRTV-001 a write on a creative without a public representation answers the same 404 as on an unknown one', { tag: ['@hook:accounts', '@hook:actors', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  // The id of a creative without a public representation: a first generation stopped at QUEUED
  // (`until` of generateCreatives, hooks contract 0.2.0; skipped where the target does not say it
  // honours it, D151).
  const { campaign, productIds } = await newCampaign(api, 1);
  const [hidden] = await dashboard(hooks, account, 'generateCreatives', { campaignId: campaign.campaignId, productIds, until: 'QUEUED' });
  const id = pick([hidden], (x) => x !== undefined, 'generateCreatives named no creative');
  for (const c of calls('creative', true)) await expectSame404(await call(api, c, id!), await call(api, c, UNKNOWN.creative), 'creative', `${c.what} on a creative not generated yet`);
});
