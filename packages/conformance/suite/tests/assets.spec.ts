/**
 * Assets (ASST-*): the pinned fields, `derivation` on upscaled assets, `showDeleted`; every row of
 * the asset state table: archive, unarchive, delete, undelete (and its no-op on a live asset),
 * update of `favorited`, `notes` and `metadata` (and the update that alters nothing), each with the
 * event it records (read through the events hook, @hook:events).
 */
import { expect, skipWhenAbsent, test } from '../fixtures/index.ts';
import {
  actAs,
  allAssets,
  expectAssetShape,
  expectEventsByKey,
  expectTimestamp,
  getAsset,
  markEvents,
  newKey,
  ok,
  pick,
  type Asset,
} from '../fixtures/resources.ts';

const assetPath = (id: string): string => `/assets/${encodeURIComponent(id)}`;
const actionPath = (id: string, action: 'archive' | 'unarchive' | 'undelete'): string => `/assets/${encodeURIComponent(id)}/${action}`;

test('ASST-001 ASST-002 ASST-003 ASST-005 ASST-015 GEN-005 GEN-007 PAGE-003 ETAG-002 GET /assets lists assets with their pinned fields, each readable by id with a strong ETag', { tag: ['@area:assets'] }, async ({ api }) => {
  const assets = await allAssets(api);
  skipWhenAbsent(assets.length === 0, 'the account has no live asset');
  const everyId = new Set((await allAssets(api, true)).map((a) => a.assetId));
  for (const a of assets) {
    expectAssetShape(a);
    expect(a.deletedAt, 'without showDeleted only live assets are listed').toBeNull();
    if (a.derivation !== undefined) {
      expect(a.derivation, `derivation of ${a.assetId}`).toMatchObject({ kind: 'ai_rerender', operation: 'image_upscale' });
      for (const id of [a.derivation.parentAssetId, a.derivation.rootAssetId]) expect(everyId.has(id), `derivation of ${a.assetId} names the asset ${id}`).toBe(true);
    }
  }
  for (const listed of assets.slice(0, 5)) {
    const one = await getAsset(api, listed.assetId);
    expect(one).toHaveStatus(200);
    expect(one.header('etag'), one.describe()).toMatch(/^"[^"]*"$/);
    expect(one.json).toEqual(listed);
  }
});

test('ASST-003 ASST-007 a still image is STATIC with durationSec null, a video VIDEO with a duration', { tag: ['@assumed', '@area:assets'] }, async ({ api }) => {
  const assets = await allAssets(api, true);
  skipWhenAbsent(assets.length === 0, 'the account has no asset');
  for (const a of assets) {
    expect(['STATIC', 'VIDEO'], JSON.stringify(a)).toContain(a.type);
    if (a.type === 'STATIC') expect(a.durationSec, JSON.stringify(a)).toBeNull();
    else expect(typeof a.durationSec, JSON.stringify(a)).toBe('number');
  }
});

test('PAGE-009 PAGE-010 PAGE-011 GEN-002 ASST-015 deleted assets are listed and read only with showDeleted=true', { tag: ['@area:assets'] }, async ({ api }) => {
  const live = await allAssets(api);
  const all = await allAssets(api, true);
  const deleted = pick(all, (a) => a.deletedAt !== null, 'the account has no deleted asset');
  expect(live.map((a) => a.assetId).sort()).toEqual(all.filter((a) => a.deletedAt === null).map((a) => a.assetId).sort());
  expectTimestamp(deleted.deletedAt, 'deletedAt');
  await expect(await getAsset(api, deleted.assetId), 'a deleted asset without showDeleted').toBeProblem(404, 'ASSET_NOT_FOUND');
  const read = await getAsset(api, deleted.assetId, true);
  expect(read).toHaveStatus(200);
  expect(read.json).toEqual(deleted);
  expect(read.header('etag'), read.describe()).toMatch(/^"[^"]*"$/);
});

test('ASST-008 ASST-009 ASST-004 ASST-017 GEN-008 EVT-035 archive changes the status and records asset.archived; unarchive brings it back and records asset.unarchived', { tag: ['@hook:accounts', '@hook:events', '@area:assets'] }, async ({ api, hooks, account }) => {
  const asset = pick(await allAssets(api), () => true, 'the account has no live asset');
  const writer = api.as('assets:write');
  // Start from a live (not archived) asset whatever it was.
  const start = await writer.post(actionPath(asset.assetId, 'unarchive'), { idempotencyKey: newKey('unarchive') });
  expect(start).toHaveStatus(200);
  const live = start.json as Asset;
  const events = await markEvents(hooks, account);

  const archived = await writer.post(actionPath(asset.assetId, 'archive'), { idempotencyKey: newKey('archive') });
  expect(archived).toHaveStatus(200);
  const archivedBody = archived.json as Asset;
  expect(archivedBody.status, 'archive changes the status').not.toBe(live.status);
  expect(archivedBody, 'the archive answer is the asset as GET returns it').toEqual(ok(await getAsset(api, asset.assetId)));
  expect({ ...archivedBody, status: live.status }, 'only the status changed').toEqual(live);

  const unarchived = await writer.post(actionPath(asset.assetId, 'unarchive'), { idempotencyKey: newKey('unarchive') });
  expect(unarchived).toHaveStatus(200);
  expect(unarchived.json, 'unarchive brings the live asset back').toEqual(live);
  expect(unarchived.json).toEqual(ok(await getAsset(api, asset.assetId)));
  expectEventsByKey(
    await events.since(),
    [
      ['asset.archived', asset.assetId],
      ['asset.unarchived', asset.assetId],
    ],
    account.keyId('assets:write'),
  );
});

test('ERR-045 ERR-040 archive, unarchive and undelete take no body, like approve: a field answers 422 VALIDATION_ERROR naming it and the asset is unchanged', { tag: ['@assumed', '@area:assets'] }, async ({ api }) => {
  const asset = (await allAssets(api))[0];
  skipWhenAbsent(asset === undefined, 'the account has no live asset');
  const before = ok(await getAsset(api, asset!.assetId));
  for (const action of ['archive', 'unarchive', 'undelete'] as const) {
    const refused = await api.as('assets:write').post(actionPath(asset!.assetId, action), { idempotencyKey: newKey(action), body: { colour: 'red' } });
    await expect(refused, action).toBeProblem(422, 'VALIDATION_ERROR');
    expect(refused.problem.errors?.map((e) => e.field), refused.describe()).toEqual(['colour']);
  }
  expect(ok(await getAsset(api, asset!.assetId)), 'nothing changed').toEqual(before);
});

test('ASST-014 an asset reads active, archived after archive; a repeated archive or unarchive is a no-op; an archived asset deleted and restored comes back archived', { tag: ['@hook:accounts', '@hook:events', '@assumed', '@area:assets'] }, async ({ api, hooks, account }) => {
  const asset = pick(await allAssets(api), (a) => a.status === 'active', 'the account has no active asset');
  const writer = api.as('assets:write');
  expect((ok(await writer.post(actionPath(asset.assetId, 'archive'), { idempotencyKey: newKey('archive') })) as Asset).status).toBe('archived');
  const events = await markEvents(hooks, account);
  expect(ok(await writer.post(actionPath(asset.assetId, 'archive'), { idempotencyKey: newKey('archive') })), 'archive of an archived asset').toEqual(ok(await getAsset(api, asset.assetId)));
  expect(await events.since(), 'a repeated archive records nothing').toEqual([]);

  expect(await writer.delete(assetPath(asset.assetId))).toHaveStatus(200);
  const restored = ok(await writer.post(actionPath(asset.assetId, 'undelete'), { idempotencyKey: newKey('undelete') })) as Asset;
  expect(restored.status, 'archival and deletion are independent').toBe('archived');
  expect((ok(await writer.post(actionPath(asset.assetId, 'unarchive'), { idempotencyKey: newKey('unarchive') })) as Asset).status).toBe('active');
  const mark = await markEvents(hooks, account);
  expect((ok(await writer.post(actionPath(asset.assetId, 'unarchive'), { idempotencyKey: newKey('unarchive') })) as Asset).status, 'unarchive of an active asset').toBe('active');
  expect(await mark.since(), 'a repeated unarchive records nothing').toEqual([]);
});

test('ASST-010 ASST-011 ASST-012 ASST-017 GEN-002 GEN-008 ETAG-003 PAGE-009 PAGE-010 EVT-035 deleting an asset sets deletedAt and records asset.deleted; undelete makes it live and records asset.restored; a repeat is a no-op', { tag: ['@hook:accounts', '@hook:events', '@area:assets'] }, async ({ api, hooks, account }) => {
  const asset = pick(await allAssets(api), () => true, 'the account has no live asset');
  const writer = api.as('assets:write');
  const events = await markEvents(hooks, account);

  const deleted = await writer.delete(assetPath(asset.assetId));
  expect(deleted).toHaveStatus(200);
  const body = deleted.json as Asset;
  expectTimestamp(body.deletedAt, 'deletedAt after DELETE');
  expect({ ...body, deletedAt: null }, 'only deletedAt changed').toEqual(asset);
  const read = await getAsset(api, asset.assetId, true);
  expect(body, 'the DELETE answer is the asset as GET ?showDeleted=true returns it').toEqual(read.json);
  expect(deleted.header('etag')).toBe(read.header('etag'));
  await expect(await getAsset(api, asset.assetId), 'a deleted asset without showDeleted').toBeProblem(404, 'ASSET_NOT_FOUND');
  expect((await allAssets(api)).map((a) => a.assetId)).not.toContain(asset.assetId);
  expect((await allAssets(api, true)).find((a) => a.assetId === asset.assetId)?.deletedAt).toBe(body.deletedAt);

  const restored = await writer.post(actionPath(asset.assetId, 'undelete'), { idempotencyKey: newKey('undelete') });
  expect(restored).toHaveStatus(200);
  expect(restored.json, 'undelete makes it live again, as it was').toEqual(asset);
  const live = await getAsset(api, asset.assetId);
  expect(restored.json).toEqual(live.json);
  expect(restored.header('etag')).toBe(live.header('etag'));
  expectEventsByKey(
    await events.since(),
    [
      ['asset.deleted', asset.assetId],
      ['asset.restored', asset.assetId],
    ],
    account.keyId('assets:write'),
  );

  const again = await writer.post(actionPath(asset.assetId, 'undelete'), { idempotencyKey: newKey('undelete-again') });
  expect(again, 'undelete of a live asset').toHaveStatus(200);
  expect(again.json).toEqual(asset);
  expect((await events.since()).length, 'the no-op records nothing').toBe(2);
});

test('GEN-003 ASST-011 an asset deleted days ago is restored (no time limit)', { tag: ['@hook:accounts', '@hook:clock', '@area:assets'] }, async ({ api, clock }) => {
  const asset = pick(await allAssets(api), () => true, 'the account has no live asset');
  const writer = api.as('assets:write');
  const deleted = await writer.delete(assetPath(asset.assetId));
  expect(deleted).toHaveStatus(200);
  await clock.advance(3 * 24 * 3600);
  const deletedAt = (deleted.json as Asset).deletedAt!;
  const now = Date.parse((await clock.now()).now);
  expect(now - Date.parse(deletedAt), `the account's clock reads 3 days after the delete (${deletedAt})`).toBeGreaterThanOrEqual(3 * 24 * 3600_000);
  const restored = await writer.post(actionPath(asset.assetId, 'undelete'), { idempotencyKey: newKey('undelete') });
  expect(restored, `undelete of an asset deleted at ${deletedAt}`).toHaveStatus(200);
  expect(ok(await getAsset(api, asset.assetId)).deletedAt).toBeNull();
});

test('ASST-013 ASST-016 GEN-008 ETAG-003 EVT-035 a PATCH of favorited, notes or metadata keeps the asset\'s state, answers it as GET does and records asset.updated', { tag: ['@hook:accounts', '@hook:events', '@area:assets'] }, async ({ api, hooks, account }) => {
  const asset = pick(await allAssets(api), () => true, 'the account has no live asset');
  const writer = api.as('assets:write');
  const events = await markEvents(hooks, account);
  const changes: Record<string, unknown>[] = [{ favorited: !asset.favorited }, { notes: `conformance notes ${newKey()}` }, { metadata: { conformance: 'yes' } }];
  let expected: Asset = asset;
  for (const change of changes) {
    const patched = await writer.patch(assetPath(asset.assetId), { body: change });
    expect(patched, JSON.stringify(change)).toHaveStatus(200);
    expected = { ...expected, ...change, ...(change['metadata'] ? { metadata: { ...(expected.metadata ?? {}), conformance: 'yes' } } : {}) } as Asset;
    expect(patched.json, `after ${JSON.stringify(change)}: that field changed, the state did not`).toEqual(expected);
    const read = await getAsset(api, asset.assetId);
    expect(patched.json, 'the PATCH answer is the asset as GET returns it').toEqual(read.json);
    expect(patched.header('etag')).toBe(read.header('etag'));
  }
  expectEventsByKey(await events.since(), changes.map(() => ['asset.updated', asset.assetId] as const), account.keyId('assets:write'));
});

test('ASST-016 EVT-020 an asset PATCH that alters nothing answers 200 and records nothing', { tag: ['@hook:accounts', '@hook:events', '@area:assets'] }, async ({ api, hooks, account }) => {
  const asset = pick(await allAssets(api), () => true, 'the account has no live asset');
  const writer = api.as('assets:write');
  const set = await writer.patch(assetPath(asset.assetId), { body: { notes: 'conformance', metadata: { conformance: 'yes' } } });
  expect(set).toHaveStatus(200);
  const events = await markEvents(hooks, account);
  const bodies = [{ favorited: asset.favorited }, { notes: 'conformance' }, { metadata: { conformance: 'yes' } }, { metadata: { absent: null } }, {}];
  for (const body of bodies) {
    const same = await writer.patch(assetPath(asset.assetId), { body });
    expect(same, JSON.stringify(body)).toHaveStatus(200);
    expect(same.json, `${JSON.stringify(body)} changes nothing`).toEqual(set.json);
    expect(same.header('etag')).toBe(set.header('etag'));
  }
  expect(await events.since(), 'a change that alters nothing records nothing').toEqual([]);
});

test('ASST-008 ASST-013 EVT-035 EVT-036 an archive in the dashboard and an edit by staff record asset.archived and asset.updated with that actor and no apiKeyId', { tag: ['@hook:accounts', '@hook:actors', '@hook:events', '@area:assets'] }, async ({ api, hooks, account }) => {
  const asset = pick(await allAssets(api), () => true, 'the account has no live asset');
  const writer = api.as('assets:write');
  expect(await writer.post(actionPath(asset.assetId, 'unarchive'), { idempotencyKey: newKey('unarchive') })).toHaveStatus(200);
  const events = await markEvents(hooks, account);
  const archived = await actAs(hooks, account, { kind: 'user' }, 'archiveAsset', { assetId: asset.assetId });
  expect(archived.status, JSON.stringify(archived)).toBe(200);
  const edited = await actAs(hooks, account, { kind: 'staff' }, 'updateAsset', { assetId: asset.assetId }, { notes: 'edited by staff' });
  expect(edited.status, JSON.stringify(edited)).toBe(200);
  expect((await events.since()).map((e) => [e.type, e.resource.id, e.actor])).toEqual([
    ['asset.archived', asset.assetId, { kind: 'user' }],
    ['asset.updated', asset.assetId, { kind: 'staff' }],
  ]);
  expect(edited.body, 'the change is the one the API reads').toEqual(ok(await getAsset(api, asset.assetId)));
});
