/**
 * Creatives (CRTV-*): the pinned fields; only generated image and video creatives are readable;
 * every row of the creative state table (approve, reject, their repeats and opposites, delete of a
 * live or a QUEUED/GENERATING creative, undelete, undelete while the campaign is deleted, update
 * and the update that alters nothing); `showDeleted` and `expand=product` (PAGE-*).
 *
 * Scenes: a campaign created through the API whose creatives are generated with the dashboard
 * action `generateCreatives` (the actors hook, @hook:actors), or data discovered by listing
 * (skipped with the reason when the target has none). Events are read through the events hook.
 */
import { expectUnchanged } from '../fixtures/shared-account.ts';
import { expect, skipWhenAbsent, test } from '../fixtures/index.ts';
import {
  actAs,
  allCampaigns,
  allCreatives,
  dashboard,
  expectCreativeShape,
  expectEventsByKey,
  expectTimestamp,
  getCreative,
  markEvents,
  newCampaign,
  newKey,
  ok,
  pick,
  readyCampaign,
  withoutDeletedAt,
  type Creative,
} from '../fixtures/resources.ts';

const approvePath = (id: string): string => `/creatives/${encodeURIComponent(id)}/approve`;
const rejectPath = (id: string): string => `/creatives/${encodeURIComponent(id)}/reject`;
const undeletePath = (id: string): string => `/creatives/${encodeURIComponent(id)}/undelete`;
const creativePath = (id: string): string => `/creatives/${encodeURIComponent(id)}`;

// ---------------------------------------------------------------------------------------------
// Reading

test('CRTV-003 CRTV-004 CRTV-005 CRTV-006 CRTV-007 CRTV-009 CRTV-010 GEN-001 GEN-005 GEN-007 PAGE-003 ETAG-002 GET /creatives lists usable image and video creatives with their pinned fields, each readable by id', { tag: ['@area:creatives'] }, async ({ api }) => {
  const page = await api.get('/creatives', { query: { limit: 1 } });
  expect(page).toHaveStatus(200);
  expect(page.contentType, 'responses are JSON').toBe('application/json');
  const creatives = await allCreatives(api);
  skipWhenAbsent(creatives.length === 0, 'the account has no readable creative');
  for (const c of creatives) expectCreativeShape(c);
  expect(new Set(creatives.map((c) => c.creativeId)).size, 'creativeIds are unique').toBe(creatives.length);
  for (const listed of creatives.slice(0, 5)) {
    const one = await getCreative(api, listed.creativeId);
    expect(one).toHaveStatus(200);
    expect(one.header('etag'), one.describe()).toMatch(/^"[^"]*"$/);
    expect(one.contentType).toBe('application/json');
    expect(withoutDeletedAt(one.json), 'GET /creatives/{id} reads the listed creative').toEqual(withoutDeletedAt(listed));
  }
});

test('PAGE-009 PAGE-010 PAGE-011 GEN-002 ETAG-002 deleted creatives are listed and read only with showDeleted=true, every row then carrying deletedAt', { tag: ['@area:creatives'] }, async ({ api }) => {
  const live = await allCreatives(api);
  const all = await allCreatives(api, true);
  for (const c of all) {
    expect(Object.hasOwn(c, 'deletedAt'), `with showDeleted every row carries deletedAt: ${JSON.stringify(c)}`).toBe(true);
    if (c.deletedAt !== null) expectTimestamp(c.deletedAt, `deletedAt of ${c.creativeId}`);
  }
  const deleted = all.filter((c) => c.deletedAt !== null);
  skipWhenAbsent(deleted.length === 0, 'the account has no deleted creative');
  expect(live.map((c) => c.creativeId).sort(), 'without showDeleted the list holds exactly the live creatives').toEqual(all.filter((c) => c.deletedAt === null).map((c) => c.creativeId).sort());

  const gone = deleted[0]!;
  await expect(await getCreative(api, gone.creativeId), 'a deleted creative without showDeleted').toBeProblem(404, 'CREATIVE_NOT_FOUND');
  const read = await getCreative(api, gone.creativeId, true);
  expect(read).toHaveStatus(200);
  expect(read.json.deletedAt).toBe(gone.deletedAt);
  expect(read.header('etag'), `a deleted creative read with showDeleted carries a strong ETag: ${read.describe()}`).toMatch(/^"[^"]*"$/);
});

test('CRTV-001 CAMP-001 a campaign opens one creative per product that is neither listed nor readable until it is generated', { tag: ['@hook:accounts', '@hook:actors', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { campaign, productIds, brandId } = await newCampaign(api, 2);
  const ofCampaign = async (): Promise<Creative[]> => (await allCreatives(api, true)).filter((c) => c.campaignId === campaign.campaignId);
  expect(await ofCampaign(), 'the NOT_GENERATED creatives of a new campaign are not listed').toEqual([]);

  // Generated for one product: that creative is listed and readable; the other product's is not.
  const [first] = await dashboard(hooks, account, 'generateCreatives', { campaignId: campaign.campaignId, productIds: [productIds[0]] });
  expect(first, 'generateCreatives named the creative it generated').toBeDefined();
  const generated = ok(await getCreative(api, first!));
  expect({ campaignId: generated.campaignId, productId: generated.productId, brandId: generated.brandId }).toEqual({ campaignId: campaign.campaignId, productId: productIds[0], brandId });
  expect((await ofCampaign()).map((c) => c.creativeId), 'once generated it is listed; the other product\'s creative is not').toEqual([first]);

  await dashboard(hooks, account, 'generateCreatives', { campaignId: campaign.campaignId });
  const rows = await ofCampaign();
  expect(rows.map((c) => c.productId).sort(), 'one creative per covered product, for the campaign\'s brand').toEqual([...productIds].sort());
  expect(rows.every((c) => c.brandId === brandId)).toBe(true);
});

test('CRTV-001 a creative queued for its first generation has no public representation: GET /creatives/{id} answers 404 CREATIVE_NOT_FOUND', { tag: ['@hook:accounts', '@hook:actors', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  // The id of a creative without a public representation: a first generation stopped at QUEUED
  // (`until` of generateCreatives, hooks contract 0.2.0; skipped where the target does not say it
  // honours it, D151).
  const { campaign, productIds } = await newCampaign(api, 1);
  const [queued] = await dashboard(hooks, account, 'generateCreatives', { campaignId: campaign.campaignId, productIds, until: 'QUEUED' });
  expect(queued, 'generateCreatives named the queued creative').toBeDefined();
  await expect(await getCreative(api, queued!), 'a creative not generated yet').toBeProblem(404, 'CREATIVE_NOT_FOUND');
  await expect(await getCreative(api, queued!, true), 'a creative not generated yet, with showDeleted').toBeProblem(404, 'CREATIVE_NOT_FOUND');
  expect((await allCreatives(api, true)).filter((c) => c.creativeId === queued), 'nor listed').toEqual([]);
});

test('CRTV-008 a creative without a ratio of its own shows the ratio of its campaign', { tag: ['@hook:accounts', '@hook:actors', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 2, { aspectRatio: '4:5' });
  for (const c of creatives) expect(c.aspectRatio, JSON.stringify(c)).toBe('4:5');
  const listed = (await allCreatives(api)).filter((c) => creatives.some((k) => k.creativeId === c.creativeId));
  expect(listed.map((c) => c.aspectRatio)).toEqual(['4:5', '4:5']);
});

test('PAGE-001 PAGE-002 expand=product joins each creative\'s product under `product`', { tag: ['@assumed', '@area:products', '@area:creatives'] }, async ({ api }) => {
  const page = await api.get('/creatives', { query: { expand: 'product', limit: 10 } });
  expect(page).toHaveStatus(200);
  const rows = (page.json as { data: (Creative & { product?: { productId: string } })[] }).data;
  skipWhenAbsent(rows.length === 0, 'the account has no readable creative');
  for (const row of rows) {
    expect(row.product?.productId, `the joined product of ${row.creativeId}`).toBe(row.productId);
  }
  const one = await api.get(creativePath(rows[0]!.creativeId), { query: { expand: 'product' } });
  expect(one).toHaveStatus(200);
  const product = await api.get(`/products/${encodeURIComponent(rows[0]!.productId)}`);
  expect(product).toHaveStatus(200);
  expect((one.json as { product?: unknown }).product, 'the joined product is the product as GET /products/{id} returns it').toEqual(product.json);
});

/** Whether `value` holds, at any depth, an object carrying every member of `expected` with its value. */
function holdsObjectLike(value: unknown, expected: Readonly<Record<string, unknown>>): boolean {
  if (Array.isArray(value)) return value.some((v) => holdsObjectLike(v, expected));
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  if (Object.entries(expected).every(([k, v]) => record[k] === v)) return true;
  return Object.values(record).some((v) => holdsObjectLike(v, expected));
}

test('PAGE-001 expand=product joins each creative\'s linked product (pinned part: the product is there, wherever the join puts it)', { tag: ['@area:products', '@area:creatives'] }, async ({ api }) => {
  // The member that holds the join and its shape are a gap (PAGE-002, @assumed above); the interface
  // pins that the linked product is joined: a product object with the creative's productId and the
  // title GET /products/{id} shows (Product carries productId, sku and title).
  const page = await api.get('/creatives', { query: { expand: 'product', limit: 5 } });
  expect(page).toHaveStatus(200);
  const rows = (page.json as { data: (Creative & Record<string, unknown>)[] }).data;
  skipWhenAbsent(rows.length === 0, 'the account has no readable creative');
  const titles = new Map<string, string>();
  for (const row of rows) {
    if (!titles.has(row.productId)) {
      const product = await api.get(`/products/${encodeURIComponent(row.productId)}`);
      expect(product).toHaveStatus(200);
      titles.set(row.productId, (product.json as { title: string }).title);
    }
    // The members of the row (not the row itself, which carries productId as its own field).
    const joined = Object.values(row);
    expect(holdsObjectLike(joined, { productId: row.productId, title: titles.get(row.productId) }), `${row.creativeId} carries its product ${row.productId}: ${JSON.stringify(row)}`).toBe(true);
  }
  const plain = await api.get(creativePath(rows[0]!.creativeId));
  const one = await api.get(creativePath(rows[0]!.creativeId), { query: { expand: 'product' } });
  expect(one).toHaveStatus(200);
  const extra = Object.entries(one.json as Record<string, unknown>).filter(([k]) => !Object.hasOwn(plain.json as object, k)).map(([, v]) => v);
  expect(holdsObjectLike(extra, { productId: rows[0]!.productId, title: titles.get(rows[0]!.productId) }), `GET /creatives/{id}?expand=product adds the product: ${one.text}`).toBe(true);
});

test('ERR-024 PATCH of a creative with an aspectRatio that is no ratio at all answers 422 VALIDATION_ERROR and changes nothing', { tag: ['@area:creatives'] }, async ({ api, account }) => {
  // Which ratios are the delivery ratios is a gap (CRTV-012, @assumed); these values are none.
  const c = (await allCreatives(api))[0];
  skipWhenAbsent(c === undefined, 'the account has no readable creative');
  const before = await getCreative(api, c!.creativeId);
  for (const ratio of ['square', '0:0', '999:1']) {
    const refused = await api.as('creatives:write').patch(creativePath(c!.creativeId), { body: { aspectRatio: ratio } });
    await expect(refused, ratio).toBeProblem(422, 'VALIDATION_ERROR');
  }
  const after = await getCreative(api, c!.creativeId);
  const ratios = ['square', '0:0', '999:1'];
  expectUnchanged(account, 'nothing changed', before.json, after.json, (json) => (ratios.includes(String((json as { aspectRatio?: unknown }).aspectRatio)) ? [`aspectRatio ${String((json as { aspectRatio?: unknown }).aspectRatio)}`] : []));
});

// ---------------------------------------------------------------------------------------------
// Review

test('CRTV-014 CRTV-009 CRTV-029 GEN-008 ETAG-003 EVT-035 approving a PENDING creative sets approvedAt, answers it as GET does and records creative.approved', { tag: ['@hook:accounts', '@hook:actors', '@hook:events', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1);
  const before = creatives[0]!;
  expect(before.approvedAt, 'approvedAt is null until approved').toBeNull();
  const events = await markEvents(hooks, account);

  const approved = await api.as('creatives:review').post(approvePath(before.creativeId), { idempotencyKey: newKey('approve') });
  expect(approved).toHaveStatus(200);
  const body = approved.json as Creative;
  expectTimestamp(body.approvedAt, 'approvedAt after approve');
  const read = await getCreative(api, before.creativeId);
  expect(body, 'the approve answer is the creative as GET returns it').toEqual(read.json);
  expect(approved.header('etag'), 'the approve answer carries the ETag GET reports').toBe(read.header('etag'));
  expectEventsByKey(await events.since(), [['creative.approved', before.creativeId]], account.keyId('creatives:review'));
});

test('CRTV-015 CRTV-030 CRTV-029 EVT-035 rejecting a PENDING creative, with or without a rejectionReason of up to 500 characters, records creative.rejected', { tag: ['@hook:accounts', '@hook:actors', '@hook:events', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 2);
  const [withReason, without] = creatives as [Creative, Creative];
  const events = await markEvents(hooks, account);
  const review = api.as('creatives:review');

  const one = await review.post(rejectPath(withReason.creativeId), { idempotencyKey: newKey('reject'), body: { rejectionReason: 'r'.repeat(500) } });
  expect(one).toHaveStatus(200);
  const two = await review.post(rejectPath(without.creativeId), { idempotencyKey: newKey('reject') });
  expect(two).toHaveStatus(200);
  for (const [response, creative] of [[one, withReason], [two, without]] as const) {
    expect((response.json as Creative).approvedAt, 'a rejected creative is not approved').toBeNull();
    expect(response.json, 'the reject answer is the creative as GET returns it').toEqual((await getCreative(api, creative.creativeId)).json);
  }
  expectEventsByKey(
    await events.since(),
    [
      ['creative.rejected', withReason.creativeId],
      ['creative.rejected', without.creativeId],
    ],
    account.keyId('creatives:review'),
  );
});

test('CRTV-030 ERR-040 ERR-008 a rejectionReason of 0 or 501 characters answers 422 VALIDATION_ERROR naming it, and the creative stays pending', { tag: ['@hook:accounts', '@hook:actors', '@hook:events', '@assumed', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1);
  const c = creatives[0]!;
  const events = await markEvents(hooks, account);
  for (const reason of ['', 'r'.repeat(501)]) {
    const refused = await api.as('creatives:review').post(rejectPath(c.creativeId), { idempotencyKey: newKey('reject'), body: { rejectionReason: reason } });
    await expect(refused, `a rejectionReason of ${reason.length} characters`).toBeProblem(422, 'VALIDATION_ERROR');
    expect(refused.problem.errors?.map((e) => e.field).join(' '), refused.describe()).toContain('rejectionReason');
  }
  expect(await events.since(), 'a refused reject records nothing').toEqual([]);
  expect((await getCreative(api, c.creativeId)).json).toEqual(c);
  await expect(await api.as('creatives:review').post(approvePath(c.creativeId), { idempotencyKey: newKey('approve') }), 'still pending, so it can be approved').toHaveStatus(200);
});

test('CRTV-030 ERR-040 ERR-008 approve and reject refuse an unknown body field alike: 422 VALIDATION_ERROR with one errors entry naming it, and the creative stays pending', { tag: ['@hook:accounts', '@hook:actors', '@assumed', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1);
  const c = creatives[0]!;
  const reviewer = api.as('creatives:review');
  for (const path of [approvePath(c.creativeId), rejectPath(c.creativeId)]) {
    const refused = await reviewer.post(path, { idempotencyKey: newKey('review'), body: { x: 1 } });
    await expect(refused, path).toBeProblem(422, 'VALIDATION_ERROR');
    expect(refused.problem.errors?.map((e) => e.field), refused.describe()).toEqual(['x']);
  }
  expect((await getCreative(api, c.creativeId)).json).toEqual(c);
});

test('CRTV-016 approving an approved creative, or rejecting a rejected one, is a no-op 200 that records nothing', { tag: ['@hook:accounts', '@hook:actors', '@hook:events', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 2);
  const [a, r] = creatives as [Creative, Creative];
  const review = api.as('creatives:review');
  const approved = await review.post(approvePath(a.creativeId), { idempotencyKey: newKey('approve') });
  expect(approved).toHaveStatus(200);
  const rejected = await review.post(rejectPath(r.creativeId), { idempotencyKey: newKey('reject'), body: { rejectionReason: 'off brand' } });
  expect(rejected).toHaveStatus(200);
  const events = await markEvents(hooks, account);

  const again = await review.post(approvePath(a.creativeId), { idempotencyKey: newKey('approve-again') });
  expect(again).toHaveStatus(200);
  expect(again.json, 'the repeat changes nothing (approvedAt included)').toEqual(approved.json);
  expect(again.header('etag')).toBe(approved.header('etag'));
  const rejectedAgain = await review.post(rejectPath(r.creativeId), { idempotencyKey: newKey('reject-again'), body: { rejectionReason: 'another reason' } });
  expect(rejectedAgain).toHaveStatus(200);
  expect(rejectedAgain.json).toEqual(rejected.json);
  expect(rejectedAgain.header('etag')).toBe(rejected.header('etag'));
  expect(await events.since(), 'a repeated review records nothing and sends no event').toEqual([]);
});

test('CRTV-017 ERR-009 the opposite review answers 409 CREATIVE_NOT_PENDING with currentStatus and leaves the creative unchanged', { tag: ['@hook:accounts', '@hook:actors', '@hook:events', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 2);
  const [a, r] = creatives as [Creative, Creative];
  const review = api.as('creatives:review');
  expect(await review.post(approvePath(a.creativeId), { idempotencyKey: newKey('approve') })).toHaveStatus(200);
  expect(await review.post(rejectPath(r.creativeId), { idempotencyKey: newKey('reject') })).toHaveStatus(200);
  const beforeA = await getCreative(api, a.creativeId);
  const beforeR = await getCreative(api, r.creativeId);
  const events = await markEvents(hooks, account);

  const cases = [
    { creative: beforeA, refused: await review.post(rejectPath(a.creativeId), { idempotencyKey: newKey('reject'), body: { rejectionReason: 'too late' } }) },
    { creative: beforeR, refused: await review.post(approvePath(r.creativeId), { idempotencyKey: newKey('approve') }) },
  ];
  for (const { creative, refused } of cases) {
    await expect(refused).toBeProblem(409, 'CREATIVE_NOT_PENDING');
    const currentStatus = refused.problem['currentStatus'];
    expect(typeof currentStatus === 'string' && currentStatus.length > 0, `currentStatus names the creative's status: ${refused.describe()}`).toBe(true);
    const status = (creative.json as { status?: string }).status;
    if (status !== undefined) expect(currentStatus, 'currentStatus is the status the creative shows').toBe(status);
    const after = await getCreative(api, creative.json.creativeId);
    expect(after.json, 'the creative is unchanged').toEqual(creative.json);
    expect(after.header('etag')).toBe(creative.header('etag'));
  }
  expect(await events.since(), 'a refused review records nothing').toEqual([]);
});

test('CRTV-011 CRTV-017 ERR-009 review outcomes read APPROVED and REJECTED, and currentStatus names them', { tag: ['@hook:accounts', '@hook:actors', '@assumed', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 2);
  const [a, r] = creatives as [Creative, Creative];
  expect(creatives.map((c) => c.status)).toEqual(['PENDING', 'PENDING']);
  const review = api.as('creatives:review');
  expect((ok(await review.post(approvePath(a.creativeId), { idempotencyKey: newKey('approve') })) as Creative).status).toBe('APPROVED');
  expect((ok(await review.post(rejectPath(r.creativeId), { idempotencyKey: newKey('reject') })) as Creative).status).toBe('REJECTED');
  const refused = await review.post(rejectPath(a.creativeId), { idempotencyKey: newKey('reject') });
  await expect(refused).toBeProblem(409, 'CREATIVE_NOT_PENDING');
  expect(refused.problem['currentStatus']).toBe('APPROVED');
  const refusedToo = await review.post(approvePath(r.creativeId), { idempotencyKey: newKey('approve') });
  expect(refusedToo.problem['currentStatus']).toBe('REJECTED');
});

test('CRTV-017 ERR-009 approving or rejecting a QUEUED or GENERATING creative answers 409 CREATIVE_NOT_PENDING with its currentStatus', { tag: ['@hook:accounts', '@hook:actors', '@assumed', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1);
  const c = creatives[0]!;
  const review = api.as('creatives:review');
  await dashboard(hooks, account, 'regenerateCreative', { creativeId: c.creativeId });
  for (const expected of ['QUEUED', 'GENERATING']) {
    for (const path of [approvePath(c.creativeId), rejectPath(c.creativeId)]) {
      const refused = await review.post(path, { idempotencyKey: newKey('review') });
      await expect(refused, `${path} while ${expected}`).toBeProblem(409, 'CREATIVE_NOT_PENDING');
      expect(refused.problem['currentStatus']).toBe(expected);
    }
    if (expected === 'QUEUED') await dashboard(hooks, account, 'startGeneration', { creativeId: c.creativeId });
  }
});

test('CRTV-014 CRTV-016 EVT-035 EVT-036 a review through a review link records creative.approved with actor share_link and no apiKeyId', { tag: ['@hook:accounts', '@hook:actors', '@hook:events', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1);
  const c = creatives[0]!;
  const events = await markEvents(hooks, account);
  const outcome = await actAs(hooks, account, { kind: 'share_link' }, 'approveCreative', { creativeId: c.creativeId });
  expect(outcome.status, JSON.stringify(outcome)).toBe(200);
  const recorded = await events.since();
  expect(recorded.map((e) => [e.type, e.resource.id, e.actor])).toEqual([['creative.approved', c.creativeId, { kind: 'share_link' }]]);

  // The API's repeat of the same review is a no-op whoever approved first.
  const repeat = await api.as('creatives:review').post(approvePath(c.creativeId), { idempotencyKey: newKey('approve') });
  expect(repeat).toHaveStatus(200);
  expectTimestamp((repeat.json as Creative).approvedAt, 'approvedAt');
  expect((await events.since()).length, 'the repeat records nothing').toBe(1);
});

// ---------------------------------------------------------------------------------------------
// Delete and undelete

test('CRTV-018 CRTV-029 GEN-002 GEN-008 ETAG-003 PAGE-009 PAGE-010 PAGE-011 EVT-035 deleting a live creative sets deletedAt, hides it without showDeleted and records creative.deleted', { tag: ['@hook:accounts', '@hook:actors', '@hook:events', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 2);
  const [gone, kept] = creatives as [Creative, Creative];
  const events = await markEvents(hooks, account);

  const deleted = await api.as('creatives:write').delete(creativePath(gone.creativeId));
  expect(deleted).toHaveStatus(200);
  const body = deleted.json as Creative;
  expectTimestamp(body.deletedAt, 'deletedAt after DELETE');
  const read = await getCreative(api, gone.creativeId, true);
  expect(read).toHaveStatus(200);
  expect(body, 'the DELETE answer is the creative as GET ?showDeleted=true returns it').toEqual(read.json);
  expect(deleted.header('etag'), 'the DELETE answer carries the ETag GET reports').toBe(read.header('etag'));
  expect(withoutDeletedAt(body), 'only deletedAt changed').toEqual(withoutDeletedAt(gone));

  await expect(await getCreative(api, gone.creativeId), 'a deleted creative without showDeleted').toBeProblem(404, 'CREATIVE_NOT_FOUND');
  const live = (await allCreatives(api)).map((c) => c.creativeId);
  expect(live).not.toContain(gone.creativeId);
  expect(live).toContain(kept.creativeId);
  const all = await allCreatives(api, true);
  expect(all.find((c) => c.creativeId === gone.creativeId)?.deletedAt, 'listed with showDeleted, carrying deletedAt').toBe(body.deletedAt);
  expect(all.find((c) => c.creativeId === kept.creativeId)?.deletedAt, 'a live row carries deletedAt null with showDeleted').toBeNull();
  expectEventsByKey(await events.since(), [['creative.deleted', gone.creativeId]], account.keyId('creatives:write'));
});

test('CRTV-020 ERR-009 ERR-027 deleting a QUEUED or GENERATING creative answers 409 CREATIVE_NOT_DELETABLE with currentStatus, and the same delete succeeds once generation finished', { tag: ['@hook:accounts', '@hook:actors', '@hook:events', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1);
  const c = creatives[0]!;
  const writer = api.as('creatives:write');
  await dashboard(hooks, account, 'regenerateCreative', { creativeId: c.creativeId });
  const events = await markEvents(hooks, account);

  for (const expected of ['QUEUED', 'GENERATING']) {
    const before = await getCreative(api, c.creativeId);
    expect(before).toHaveStatus(200);
    const refused = await writer.delete(creativePath(c.creativeId));
    await expect(refused, `DELETE while ${expected}`).toBeProblem(409, 'CREATIVE_NOT_DELETABLE');
    expect(refused.problem['currentStatus'], refused.describe()).toBe(expected);
    const after = await getCreative(api, c.creativeId);
    expect(after.json, 'the creative is unchanged (still live)').toEqual(before.json);
    expect(after.header('etag')).toBe(before.header('etag'));
    if (expected === 'QUEUED') await dashboard(hooks, account, 'startGeneration', { creativeId: c.creativeId });
  }
  expect(await events.since()).toEqual([]);

  await dashboard(hooks, account, 'finishGeneration', { creativeId: c.creativeId });
  const deleted = await writer.delete(creativePath(c.creativeId));
  expect(deleted, 'the same delete after generation finished').toHaveStatus(200);
  expectTimestamp((deleted.json as Creative).deletedAt, 'deletedAt');
  expectEventsByKey(await events.since(), [['creative.deleted', c.creativeId]], account.keyId('creatives:write'));
});

test('CRTV-021 CRTV-023 CRTV-029 ETAG-003 EVT-035 undeleting a deleted creative makes it live and records creative.restored; undeleting a live one is a no-op 200', { tag: ['@hook:accounts', '@hook:actors', '@hook:events', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1);
  const c = creatives[0]!;
  const writer = api.as('creatives:write');
  expect(await writer.delete(creativePath(c.creativeId))).toHaveStatus(200);
  const events = await markEvents(hooks, account);

  const restored = await writer.post(undeletePath(c.creativeId), { idempotencyKey: newKey('undelete') });
  expect(restored).toHaveStatus(200);
  const body = restored.json as Creative;
  expect(body.deletedAt ?? null, 'deletedAt is null after undelete').toBeNull();
  const read = await getCreative(api, c.creativeId);
  expect(read, 'readable again without showDeleted').toHaveStatus(200);
  expect(withoutDeletedAt(body), 'the undelete answer is the creative as GET returns it').toEqual(withoutDeletedAt(read.json));
  expect(withoutDeletedAt(read.json)).toEqual(withoutDeletedAt(c));
  expect(restored.header('etag')).toBe(read.header('etag'));
  expectEventsByKey(await events.since(), [['creative.restored', c.creativeId]], account.keyId('creatives:write'));

  const again = await writer.post(undeletePath(c.creativeId), { idempotencyKey: newKey('undelete-again') });
  expect(again, 'undelete of a live creative').toHaveStatus(200);
  expect(again.json).toEqual(restored.json);
  expect(again.header('etag')).toBe(restored.header('etag'));
  expect((await events.since()).length, 'the no-op records nothing').toBe(1);
});

test('GEN-003 CRTV-021 a creative deleted on its own days ago is restored (no time limit)', { tag: ['@hook:accounts', '@hook:clock', '@hook:actors', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account, clock }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1);
  const c = creatives[0]!;
  const writer = api.as('creatives:write');
  const deleted = await writer.delete(creativePath(c.creativeId));
  expect(deleted).toHaveStatus(200);
  await clock.advance(3 * 24 * 3600);
  const deletedAt = (deleted.json as Creative).deletedAt!;
  const now = Date.parse((await clock.now()).now);
  expect(now - Date.parse(deletedAt), `the account's clock reads 3 days after the delete (${deletedAt})`).toBeGreaterThanOrEqual(3 * 24 * 3600_000);
  const restored = await writer.post(undeletePath(c.creativeId), { idempotencyKey: newKey('undelete') });
  expect(restored, `undelete of a creative deleted at ${deletedAt}`).toHaveStatus(200);
  expect(ok(await getCreative(api, c.creativeId)).deletedAt ?? null, 'live again').toBeNull();
});

test('CRTV-022 undeleting a creative deleted with its campaign, while the campaign is still deleted, answers 409 CREATIVE_CAMPAIGN_DELETED and changes nothing', { tag: ['@area:creatives', '@area:campaigns'] }, async ({ api }) => {
  const campaigns = await allCampaigns(api, true);
  const creatives = await allCreatives(api, true);
  const withCampaign = pick(
    creatives,
    (c) => c.deletedAt !== null && c.deletedAt !== undefined && campaigns.some((k) => k.campaignId === c.campaignId && k.deletedAt !== null && k.deletedAt === c.deletedAt),
    'the account has no deleted campaign with a creative deleted at the same moment (deleted together)',
  );
  const before = await getCreative(api, withCampaign.creativeId, true);
  const refused = await api.as('creatives:write').post(undeletePath(withCampaign.creativeId), { idempotencyKey: newKey('undelete') });
  await expect(refused).toBeProblem(409, 'CREATIVE_CAMPAIGN_DELETED');
  const after = await getCreative(api, withCampaign.creativeId, true);
  expect(after.json, 'the creative is unchanged (still deleted)').toEqual(before.json);
  expect(after.header('etag')).toBe(before.header('etag'));
});

// ---------------------------------------------------------------------------------------------
// Update

test('CRTV-024 CRTV-027 GEN-008 ETAG-003 EVT-035 a metadata PATCH keeps the creative\'s state, answers it as GET does and records creative.updated', { tag: ['@hook:accounts', '@hook:actors', '@hook:events', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1);
  const c = creatives[0]!;
  const tagBefore = (await getCreative(api, c.creativeId)).header('etag');
  const events = await markEvents(hooks, account);
  const patched = await api.as('creatives:write').patch(creativePath(c.creativeId), { body: { metadata: { channel: 'conformance' } } });
  expect(patched).toHaveStatus(200);
  const read = await getCreative(api, c.creativeId);
  expect(patched.json, 'the PATCH answer is the creative as GET returns it').toEqual(read.json);
  expect(patched.header('etag')).toBe(read.header('etag'));
  expect(patched.header('etag'), 'the representation changed, so its tag did').not.toBe(tagBefore);
  const { metadata, ...rest } = patched.json as Creative;
  expect(metadata).toEqual({ channel: 'conformance' });
  expect(rest, 'everything but metadata is as before (the state is kept)').toEqual(withoutDeletedAt(c));
  expectEventsByKey(await events.since(), [['creative.updated', c.creativeId]], account.keyId('creatives:write'));
});

test('CRTV-026 a creative PATCH that alters nothing (an empty object included) answers 200, records nothing and sends no event', { tag: ['@hook:accounts', '@hook:actors', '@hook:events', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1);
  const c = creatives[0]!;
  const writer = api.as('creatives:write');
  const first = await writer.patch(creativePath(c.creativeId), { body: { metadata: { channel: 'conformance' } } });
  expect(first).toHaveStatus(200);
  const events = await markEvents(hooks, account);

  // {} too: both fields are optional, and no 422 cause of this PATCH covers an empty body.
  const bodies = [{ metadata: { channel: 'conformance' } }, { metadata: { absent: null } }, { metadata: {} }, {}];
  for (const body of bodies) {
    const same = await writer.patch(creativePath(c.creativeId), { body });
    expect(same, JSON.stringify(body)).toHaveStatus(200);
    expect(same.json, `${JSON.stringify(body)} changes nothing`).toEqual(first.json);
    expect(same.header('etag')).toBe(first.header('etag'));
  }
  expect(await events.since(), 'a change that alters nothing records nothing').toEqual([]);
});

test('CRTV-028 ERR-008 a creative PATCH with an unknown field answers 422 VALIDATION_ERROR naming it and changes nothing', { tag: ['@area:creatives'] }, async ({ api, account }) => {
  const c = pick(await allCreatives(api), () => true, 'the account has no live creative');
  const before = await getCreative(api, c.creativeId);
  const refused = await api.as('creatives:write').patch(creativePath(c.creativeId), { body: { colour: 'red' } });
  await expect(refused).toBeProblem(422, 'VALIDATION_ERROR');
  expect(refused.problem.errors?.map((e) => e.field).join(' '), `errors[] names the unknown field: ${refused.describe()}`).toContain('colour');
  const after = await getCreative(api, c.creativeId);
  expectUnchanged(account, 'the refused PATCH changed nothing', before.json, after.json, (json) => ('colour' in (json as object) ? ['colour'] : []), [before.header('etag'), after.header('etag')]);
});

test('CRTV-012 CRTV-024 ERR-024 EVT-033 a creative takes every delivery ratio of its own, null shows the campaign\'s again, and another ratio answers 422', { tag: ['@hook:accounts', '@hook:actors', '@hook:events', '@assumed', '@area:products', '@area:creatives', '@area:campaigns'] }, async ({ api, hooks, account }) => {
  const { creatives } = await readyCampaign(api, hooks, account, 1, { aspectRatio: '4:5' });
  const c = creatives[0]!;
  const writer = api.as('creatives:write');
  const events = await markEvents(hooks, account);
  const ratios = ['1:1', '4:5', '9:16', '16:9', '2:3', '3:2', '4:3', '3:4'];
  for (const ratio of ratios) {
    const patched = await writer.patch(creativePath(c.creativeId), { body: { aspectRatio: ratio } });
    expect(patched, ratio).toHaveStatus(200);
    expect((patched.json as Creative).aspectRatio).toBe(ratio);
  }
  const cleared = await writer.patch(creativePath(c.creativeId), { body: { aspectRatio: null } });
  expect(cleared).toHaveStatus(200);
  expect((cleared.json as Creative).aspectRatio, 'without a ratio of its own it shows the campaign\'s').toBe('4:5');
  for (const ratio of ['7:5', '1:2', 'square', '0:1']) {
    const refused = await writer.patch(creativePath(c.creativeId), { body: { aspectRatio: ratio } });
    await expect(refused, ratio).toBeProblem(422, 'VALIDATION_ERROR');
    expect(refused.problem.errors?.map((e) => e.field).join(' '), refused.describe()).toContain('aspectRatio');
  }
  const recorded = await events.since();
  expect(recorded.map((e) => e.type)).toEqual(Array(ratios.length + 1).fill('creative.updated'));
  expect(recorded[0]!.previousAttributes, 'the first change lists the creative\'s own previous ratio: none').toEqual({ aspectRatio: null });
});
