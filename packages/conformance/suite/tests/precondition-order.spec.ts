/**
 * Preconditions judged after existence and ownership (GEN-004, ERR-020, ETAG-005): a write carrying
 * a stale If-Match on another account's, or a deleted, creative, asset or campaign answers the
 * uniform 404 of an unknown id, never 412: a 412 would tell the caller that the item exists (RFC 9110
 * 13.2.2 evaluates preconditions after the checks that would answer 404 anyway).
 *
 * The defect proof's `precondition-before-existence` (packages/conformance/suite/defects/catalogue/precondition.ts)
 * is caught here only: no test of a resource's own file makes this write.
 */
import { caseWhenPresent, expect, skipWhenAbsent, test, type ApiClient, type ApiResponse } from '../fixtures/index.ts';
import { expectSame404, oneDeletedOfEachKind, oneOfEachKind, ownerView, UNKNOWN_IDS, type ResourceKind } from '../fixtures/resources.ts';

const UNKNOWN = UNKNOWN_IDS;
type Kind = ResourceKind;
const KINDS: readonly Kind[] = ['creative', 'asset', 'campaign'];

/** A tag no representation has: a precondition judged first would fail with 412. */
const STALE = '"conformance-stale-etag"';

interface Write {
  what: string;
  profile: string;
  method: 'PATCH' | 'DELETE';
  body?: unknown;
}

/** Writes that take If-Match (ETAG-004), per kind. */
const WRITES: Record<Kind, Write[]> = {
  creative: [
    { what: 'PATCH /creatives/{id}', profile: 'creatives:write', method: 'PATCH', body: { metadata: { cf_gap: 'b' } } },
    { what: 'DELETE /creatives/{id}', profile: 'creatives:write', method: 'DELETE' },
  ],
  asset: [
    { what: 'PATCH /assets/{id}', profile: 'assets:write', method: 'PATCH', body: { favorited: true } },
    { what: 'DELETE /assets/{id}', profile: 'assets:write', method: 'DELETE' },
  ],
  campaign: [
    { what: 'PATCH /campaigns/{id}', profile: 'campaigns:write', method: 'PATCH', body: { name: 'conformance not yours' } },
    { what: 'DELETE /campaigns/{id}', profile: 'campaigns:write', method: 'DELETE' },
  ],
};

async function write(api: ApiClient, kind: Kind, w: Write, id: string): Promise<ApiResponse> {
  const client = api.as(w.profile);
  const path = `/${kind}s/${encodeURIComponent(id)}`;
  const options = { ifMatch: STALE, ...(w.body !== undefined ? { body: w.body } : {}) };
  return w.method === 'PATCH' ? client.patch(path, options) : client.delete(path, options);
}

/** The uniform 404, and in particular not a 412 that would reveal the item exists. */
async function expectSame404NotPrecondition(response: ApiResponse, reference: ApiResponse, kind: Kind, what: string): Promise<void> {
  expect(response.status, `${what}: a 412 would reveal that the item exists\n${response.describe()}`).not.toBe(412);
  await expectSame404(response, reference, kind, what);
}

test('GEN-004 ERR-020 ETAG-005 a write with a stale If-Match on another account\'s creative, asset or campaign answers the uniform 404, not 412, and changes nothing', { tag: ['@area:creatives', '@area:campaigns', '@area:assets'] }, async ({ api, apiFor, accountB }) => {
  const judged = await oneOfEachKind(api);
  skipWhenAbsent(judged.length === 0, 'account A has no creative, asset or campaign');
  for (const kind of KINDS) caseWhenPresent(judged.some(([k]) => k === kind), `account A has no ${kind}`);
  const other = apiFor(accountB);
  for (const [kind, id] of judged) {
    const before = await ownerView(api, kind, id);
    for (const w of WRITES[kind]) {
      await expectSame404NotPrecondition(await write(other, kind, w, id), await write(other, kind, w, UNKNOWN[kind]), kind, `${w.what} with If-Match on account A's ${kind} by account B`);
    }
    expect(await ownerView(api, kind, id), `account A's ${kind} is unchanged`).toEqual(before);
  }
});

test('ERR-020 ETAG-005 a write with a stale If-Match on a deleted creative, asset or campaign answers the uniform 404, not 412, and changes nothing', { tag: ['@area:creatives', '@area:campaigns', '@area:assets'] }, async ({ api }) => {
  const judged = await oneDeletedOfEachKind(api);
  skipWhenAbsent(judged.length === 0, 'the account has no deleted creative, asset or campaign');
  for (const kind of KINDS) caseWhenPresent(judged.some(([k]) => k === kind), `the account has no deleted ${kind}`);
  for (const [kind, id] of judged) {
    const before = await ownerView(api, kind, id);
    for (const w of WRITES[kind]) {
      await expectSame404NotPrecondition(await write(api, kind, w, id), await write(api, kind, w, UNKNOWN[kind]), kind, `${w.what} with If-Match on a deleted ${kind}`);
    }
    expect(await ownerView(api, kind, id), `the deleted ${kind} is unchanged`).toEqual(before);
  }
});
