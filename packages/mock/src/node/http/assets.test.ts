/**
 * Asset operations over HTTP through the node server, in-process (harness: mock.inject, manual
 * clock): the whole pipeline, not the domain's transitions (those are tables in
 * packages/mock-core/src/domain/assets/transitions.test.ts). Every response is checked with `violations`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextId, type AccountState } from '../../../../mock-core/src/domain/store.ts';
import { createHarness, violations, type Harness, type RequestOptions, type TestAccount, type TestResponse } from '../../../../mock-core/src/testkit/harness.ts';
import { newAsset, type Asset } from '../../../../mock-core/src/domain/assets/model.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

function put(state: AccountState, overrides: Partial<Asset> = {}): Asset {
  const assetId = overrides.assetId ?? nextId(state, 'ast');
  const asset: Asset = {
    ...newAsset({
      assetId,
      productId: 'prd_fixture',
      type: 'STATIC',
      url: `https://media.example.invalid/${assetId}.jpg`,
      name: `Asset ${assetId}`,
      width: 1024,
      height: 1024,
      createdAt: h.clock.now() - 86_400_000,
    }),
    ...overrides,
  };
  state.assets.set(assetId, asset);
  return asset;
}

let keyCounter = 0;
const idem = () => `test-key-${++keyCounter}`;

/** Send and check the response against the document in one step. */
async function call(operationId: string, method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> {
  const res = await h.request(method, path, options);
  expect(violations(operationId, res), `${method} ${path} → ${res.status} ${res.text}`).toEqual([]);
  return res;
}

interface Ctx {
  acct: TestAccount;
  write: string;
  read: string;
}

async function fresh(): Promise<Ctx> {
  const acct = await h.account({ empty: true });
  return { acct, write: acct.key('assets:write'), read: acct.key('read') };
}

const get = (c: Ctx, id: string, query?: RequestOptions['query']) => call('getAsset', 'GET', `/assets/${id}`, { key: c.read, ...(query ? { query } : {}) });
const action = (c: Ctx, op: 'archive' | 'unarchive' | 'undelete', id: string, headers: Record<string, string> = {}) =>
  call(`${op}Asset`, 'POST', `/assets/${id}/${op}`, { key: c.write, headers: { 'idempotency-key': idem(), ...headers } });
const patch = (c: Ctx, id: string, body: unknown, headers: Record<string, string> = {}) => call('updateAsset', 'PATCH', `/assets/${id}`, { key: c.write, body, headers });
const del = (c: Ctx, id: string, headers: Record<string, string> = {}) => call('deleteAsset', 'DELETE', `/assets/${id}`, { key: c.write, headers });

function strong(res: TestResponse): string {
  const tag = res.headers.etag;
  expect(tag).toMatch(/^"[\x21\x23-\x7E]+"$/); // ETAG-002/003: strong (no W/ prefix)
  return tag!;
}

describe('listAssets', () => {
  it('ASST-015 PAGE-009 lists live assets in insertion order; showDeleted includes deleted ones with deletedAt', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    const b = put(c.acct.state, { deletedAt: h.clock.now() - 1000 });
    const d = put(c.acct.state, { archived: true });
    const live = await call('listAssets', 'GET', '/assets', { key: c.read });
    expect(live.status).toBe(200);
    expect(live.body.data.map((x: { assetId: string }) => x.assetId)).toEqual([a.assetId, d.assetId]);
    expect(live.body.data[1].status).toBe('archived');
    const all = await call('listAssets', 'GET', '/assets', { key: c.read, query: { showDeleted: true } });
    expect(all.body.data.map((x: { assetId: string }) => x.assetId)).toEqual([a.assetId, b.assetId, d.assetId]);
    expect(all.body.data[1].deletedAt).toBe(new Date(b.deletedAt!).toISOString());
    expect(all.body.data[0].deletedAt).toBeNull();
  });

  it('PAGE-005 pages with limit and nextCursor until null', async () => {
    const c = await fresh();
    const ids = Array.from({ length: 5 }, () => put(c.acct.state).assetId);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const res = await call('listAssets', 'GET', '/assets', { key: c.read, query: { limit: 2, ...(cursor ? { cursor } : {}) } });
      expect(res.body.pagination.pageSize).toBe(2);
      seen.push(...res.body.data.map((x: { assetId: string }) => x.assetId));
      if (res.body.pagination.nextCursor === null) break;
      cursor = res.body.pagination.nextCursor;
    }
    expect(seen).toEqual(ids);
  });

  it('ASST-005 ASST-006 derivation appears only on the derived asset', async () => {
    const c = await fresh();
    const root = put(c.acct.state);
    const derived = put(c.acct.state, { width: 2048, height: 2048, derivation: { kind: 'ai_rerender', operation: 'image_upscale', parentAssetId: root.assetId, rootAssetId: root.assetId } });
    const res = await call('listAssets', 'GET', '/assets', { key: c.read });
    const byId = new Map(res.body.data.map((x: { assetId: string }) => [x.assetId, x]));
    expect(byId.get(root.assetId)).not.toHaveProperty('derivation');
    expect(byId.get(derived.assetId)).toMatchObject({ derivation: { kind: 'ai_rerender', operation: 'image_upscale', parentAssetId: root.assetId, rootAssetId: root.assetId } });
    const one = await get(c, derived.assetId);
    expect(one.body.derivation.parentAssetId).toBe(root.assetId);
    expect((await get(c, root.assetId)).body).not.toHaveProperty('derivation');
  });

  it('PAGE-013 a limit out of range answers 400; a missing key 401; a foreign cursor 400', async () => {
    const c = await fresh();
    expect((await call('listAssets', 'GET', '/assets', { key: c.read, query: { limit: 101 } })).status).toBe(400);
    expect((await call('listAssets', 'GET', '/assets', {})).status).toBe(401);
    // A cursor from another list (products) is refused.
    const products = await h.account({});
    const page = await h.request('GET', '/products', { key: products.key('read'), query: { limit: 1 } });
    const res = await call('listAssets', 'GET', '/assets', { key: c.read, query: { cursor: page.body.pagination.nextCursor } });
    expect(res.status).toBe(400);
  });
});

describe('getAsset', () => {
  it('ASST-001..003 ASST-014 D7 presents the asset per the schema, with a strong ETag', async () => {
    const c = await fresh();
    const a = put(c.acct.state, { notes: 'hello', metadata: { team: 'brand' } });
    const v = put(c.acct.state, { type: 'VIDEO', width: 1080, height: 1920, durationSec: 15, playerUrl: 'https://player.example.invalid/v', thumbnailUrl: 'https://media.example.invalid/v.jpg' });
    const res = await get(c, a.assetId);
    expect(res.status).toBe(200);
    strong(res);
    expect(res.body).toEqual({
      object: 'asset',
      assetId: a.assetId,
      productId: a.productId,
      type: 'STATIC',
      url: a.url,
      thumbnailUrl: null,
      favorited: false,
      status: 'active',
      name: a.name,
      width: 1024,
      height: 1024,
      durationSec: null,
      playerUrl: null,
      embedCode: null,
      createdAt: new Date(a.createdAt).toISOString(),
      deletedAt: null,
      notes: 'hello',
      metadata: { team: 'brand' },
    });
    const video = await get(c, v.assetId);
    expect(video.body).toMatchObject({ type: 'VIDEO', durationSec: 15, playerUrl: 'https://player.example.invalid/v' });
    expect(video.body).not.toHaveProperty('notes');
    expect(video.body).not.toHaveProperty('metadata');
  });

  it('PAGE-010 ETAG-002 a deleted asset answers 404 without showDeleted and 200 with ETag with it', async () => {
    const c = await fresh();
    const a = put(c.acct.state, { deletedAt: h.clock.now() - 5000 });
    const hidden = await get(c, a.assetId);
    expect(hidden.status).toBe(404);
    expect(hidden.body.code).toBe('ASSET_NOT_FOUND');
    const shown = await get(c, a.assetId, { showDeleted: true });
    expect(shown.status).toBe(200);
    strong(shown);
    expect(shown.body.deletedAt).toBe(new Date(a.deletedAt!).toISOString());
  });

  it('GEN-004 ERR-020 another account\'s asset answers the same 404 as an unknown id (reads and writes)', async () => {
    const owner = await fresh();
    const other = await fresh();
    const a = put(owner.acct.state);
    const strip = (res: TestResponse) => {
      const { requestId: _r, instance: _i, ...rest } = res.body as Record<string, unknown>;
      return { status: res.status, contentType: res.headers['content-type'], body: rest };
    };
    const foreign = await get(other, a.assetId);
    const unknown = await get(other, 'ast_does_not_exist');
    expect(foreign.status).toBe(404);
    expect(strip(foreign)).toEqual(strip(unknown));
    const foreignWrite = await patch(other, a.assetId, { favorited: true });
    const unknownWrite = await patch(other, 'ast_does_not_exist', { favorited: true });
    expect(foreignWrite.status).toBe(404);
    expect(strip(foreignWrite)).toEqual(strip(unknownWrite));
    const foreignArchive = await action(other, 'archive', a.assetId);
    const unknownArchive = await action(other, 'archive', 'ast_does_not_exist');
    expect(strip(foreignArchive)).toEqual(strip(unknownArchive));
    // and the owner's asset is untouched
    expect((await get(owner, a.assetId)).body.favorited).toBe(false);
    expect(owner.acct.state.events).toEqual([]);
  });

  it('ERR-020 a deleted asset read without showDeleted answers the same 404 as an unknown id', async () => {
    const c = await fresh();
    const a = put(c.acct.state, { deletedAt: h.clock.now() });
    const strip = (res: TestResponse) => ({ ...res.body, requestId: undefined, instance: undefined });
    expect(strip(await get(c, a.assetId))).toEqual(strip(await get(c, 'ast_missing')));
  });
});

describe('updateAsset', () => {
  it('ASST-013 ASST-016 EVT-013 changes favorited, notes and metadata; answers as GET does; records asset.updated', async () => {
    const c = await fresh();
    const a = put(c.acct.state, { metadata: { a: '1' } });
    const res = await patch(c, a.assetId, { favorited: true, notes: 'shot on location', metadata: { b: '2' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ favorited: true, notes: 'shot on location', metadata: { a: '1', b: '2' } });
    const after = await get(c, a.assetId);
    expect(after.body).toEqual(res.body);
    expect(strong(after)).toBe(strong(res));
    expect(c.acct.state.events).toHaveLength(1);
    const event = c.acct.state.events[0]!;
    expect(event).toMatchObject({ type: 'asset.updated', resource: { kind: 'asset', id: a.assetId }, timestamp: h.clock.now(), previousAttributes: { favorited: false, notes: '', metadata: { a: '1' } } });
    expect(event.actor).toEqual({ kind: 'api_key', apiKeyId: c.acct.keys['assets:write']!.keyId });
  });

  it('EVT-020 a change that alters nothing is a 200 that records nothing (same ETag)', async () => {
    const c = await fresh();
    const a = put(c.acct.state, { favorited: true, notes: 'x', metadata: { a: '1' } });
    const before = strong(await get(c, a.assetId));
    const res = await patch(c, a.assetId, { favorited: true, notes: 'x', metadata: { a: '1', gone: null } });
    expect(res.status).toBe(200);
    expect(strong(res)).toBe(before);
    expect(c.acct.state.events).toEqual([]);
  });

  it('META-002 META-008 D33 null removes a key; removing the last drops metadata and still records asset.updated with {}', async () => {
    const c = await fresh();
    const a = put(c.acct.state, { metadata: { a: '1', b: '2' } });
    const one = await patch(c, a.assetId, { metadata: { a: null } });
    expect(one.body.metadata).toEqual({ b: '2' });
    const none = await patch(c, a.assetId, { metadata: { b: null } });
    expect(none.status).toBe(200);
    expect(none.body).not.toHaveProperty('metadata');
    expect(c.acct.state.events.map((e) => e.previousAttributes)).toEqual([{ metadata: { a: '1', b: '2' } }, {}]);
  });

  it('META-004 META-007 a 51st key answers 422 with errors[] naming metadata, and nothing changes', async () => {
    const c = await fresh();
    const full = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`key${i}`, `v${i}`]));
    const a = put(c.acct.state, { metadata: full });
    const before = strong(await get(c, a.assetId));
    const res = await patch(c, a.assetId, { metadata: { key50: 'one too many' } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain('metadata');
    expect(strong(await get(c, a.assetId))).toBe(before);
    expect(c.acct.state.events).toEqual([]);
    // replacing one key keeps the map at 50: accepted
    expect((await patch(c, a.assetId, { metadata: { key0: null, key50: 'fits' } })).status).toBe(200);
  });

  it('META-005 a 41-character key answers 422 (40 is accepted)', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    const bad = await patch(c, a.assetId, { metadata: { ['k'.repeat(41)]: 'v' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.some((e: { field: string }) => e.field.startsWith('metadata'))).toBe(true);
    expect(c.acct.state.assets.get(a.assetId)!.metadata).toEqual({});
    const ok = await patch(c, a.assetId, { metadata: { ['k'.repeat(40)]: 'v' } });
    expect(ok.status).toBe(200);
  });

  it('META-006 a 501-character value answers 422 (500 is accepted); a non-string value answers 422', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    const bad = await patch(c, a.assetId, { metadata: { k: 'x'.repeat(501) } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.some((e: { field: string }) => e.field.startsWith('metadata'))).toBe(true);
    expect((await patch(c, a.assetId, { metadata: { k: 7 } })).status).toBe(422);
    expect(c.acct.state.events).toEqual([]);
    const ok = await patch(c, a.assetId, { metadata: { k: 'x'.repeat(500) } });
    expect(ok.status).toBe(200);
    expect(ok.body.metadata.k).toHaveLength(500);
  });

  it('ERR-040 an unknown field or a wrong type answers 422 with errors[]; ASST-016 an empty body changes nothing (200)', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    expect((await patch(c, a.assetId, {})).status).toBe(200);
    for (const body of [{ status: 'archived' }, { favorited: 'yes' }, { notes: 'x'.repeat(5001) }]) {
      const res = await patch(c, a.assetId, body);
      expect(res.status).toBe(422);
      expect(res.body.errors.length).toBeGreaterThan(0);
    }
    expect(c.acct.state.events).toEqual([]);
  });

  it('notes "" clears the notes (decided): the field disappears', async () => {
    const c = await fresh();
    const a = put(c.acct.state, { notes: 'old' });
    const res = await patch(c, a.assetId, { notes: '' });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('notes');
    expect(c.acct.state.events[0]!.previousAttributes).toEqual({});
  });

  it('D32 PATCH of a deleted asset answers 404 ASSET_NOT_FOUND', async () => {
    const c = await fresh();
    const a = put(c.acct.state, { deletedAt: h.clock.now() });
    const res = await patch(c, a.assetId, { favorited: true });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('ASSET_NOT_FOUND');
  });

  it('IDEM-003 IDEM-006 IDEM-008 PATCH with an optional key replays; the same key with another body answers 409', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    const key = idem();
    const first = await patch(c, a.assetId, { favorited: true }, { 'idempotency-key': key });
    const again = await patch(c, a.assetId, { favorited: true }, { 'idempotency-key': key });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    const other = await patch(c, a.assetId, { favorited: false }, { 'idempotency-key': key });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(c.acct.state.events).toHaveLength(1);
    expect(c.acct.state.assets.get(a.assetId)!.favorited).toBe(true);
  });

  it('AUTH: a read-only key answers 403; no key answers 401 ENTITLEMENT_LOST', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    const denied = await call('updateAsset', 'PATCH', `/assets/${a.assetId}`, { key: c.read, body: { favorited: true } });
    expect(denied.status).toBe(403);
    const anonymous = await call('updateAsset', 'PATCH', `/assets/${a.assetId}`, { body: { favorited: true } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('ENTITLEMENT_LOST');
  });
});

describe('If-Match on asset writes (ETAG-004, ETAG-005)', () => {
  it('ETAG-005 a stale tag answers 412 and nothing changes', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    const stale = strong(await get(c, a.assetId));
    await patch(c, a.assetId, { favorited: true });
    const current = strong(await get(c, a.assetId));
    expect(current).not.toBe(stale);
    const eventsBefore = c.acct.state.events.length;
    for (const res of [
      await patch(c, a.assetId, { notes: 'x' }, { 'if-match': stale }),
      await action(c, 'archive', a.assetId, { 'if-match': stale }),
      await del(c, a.assetId, { 'if-match': stale }),
    ]) {
      expect(res.status).toBe(412);
      expect(res.body.code).toBe('PRECONDITION_FAILED');
    }
    expect(strong(await get(c, a.assetId))).toBe(current);
    expect(c.acct.state.events.length).toBe(eventsBefore);
  });

  it('ETAG-004 the current tag, `*` and a list containing the current tag are accepted; a weak tag never matches', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    let tag = strong(await get(c, a.assetId));
    const weak = await patch(c, a.assetId, { favorited: true }, { 'if-match': `W/${tag}` });
    expect(weak.status).toBe(412);
    const exact = await patch(c, a.assetId, { favorited: true }, { 'if-match': tag });
    expect(exact.status).toBe(200);
    tag = strong(exact);
    const listed = await action(c, 'archive', a.assetId, { 'if-match': `"stale-one", ${tag}` });
    expect(listed.status).toBe(200);
    const any = await action(c, 'unarchive', a.assetId, { 'if-match': '*' });
    expect(any.status).toBe(200);
  });

  it('ETAG-004 undelete accepts the tag of the deleted asset (read with showDeleted); a missing asset answers 404, not 412', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    const deleted = await del(c, a.assetId);
    const tag = strong(await get(c, a.assetId, { showDeleted: true }));
    expect(tag).toBe(strong(deleted));
    const restored = await action(c, 'undelete', a.assetId, { 'if-match': tag });
    expect(restored.status).toBe(200);
    const missing = await action(c, 'archive', 'ast_missing', { 'if-match': '"whatever"' });
    expect(missing.status).toBe(404);
    // a write on a deleted asset is 404 even with a matching If-Match
    await del(c, a.assetId);
    const deletedTag = strong(await get(c, a.assetId, { showDeleted: true }));
    expect((await action(c, 'archive', a.assetId, { 'if-match': deletedTag })).status).toBe(404);
  });

  it('ETAG-003 the ETag changes with every change and matches the following GET', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    const tags = [strong(await get(c, a.assetId))];
    const steps: (() => Promise<TestResponse>)[] = [
      () => patch(c, a.assetId, { favorited: true }),
      () => patch(c, a.assetId, { notes: 'n' }),
      () => patch(c, a.assetId, { metadata: { k: 'v' } }),
      () => action(c, 'archive', a.assetId),
      () => action(c, 'unarchive', a.assetId),
      () => del(c, a.assetId),
      () => action(c, 'undelete', a.assetId),
    ];
    for (const step of steps) {
      const res = await step();
      expect(res.status).toBe(200);
      const tag = strong(res);
      expect(tag).not.toBe(tags.at(-1));
      expect(strong(await get(c, a.assetId, { showDeleted: true }))).toBe(tag);
      tags.push(tag);
    }
  });
});

describe('archiveAsset / unarchiveAsset', () => {
  it('ASST-008 ASST-009 ASST-017 archive and unarchive answer 200 with the asset and record their events', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    const archived = await action(c, 'archive', a.assetId);
    expect(archived.status).toBe(200);
    expect(archived.body.status).toBe('archived');
    strong(archived);
    expect((await get(c, a.assetId)).body).toEqual(archived.body);
    const unarchived = await action(c, 'unarchive', a.assetId);
    expect(unarchived.body.status).toBe('active');
    expect(c.acct.state.events.map((e) => e.type)).toEqual(['asset.archived', 'asset.unarchived']);
    expect(c.acct.state.events.every((e) => e.previousAttributes === undefined)).toBe(true);
  });

  it('D32 archive of an archived asset and unarchive of an active one are no-op 200s recording nothing', async () => {
    const c = await fresh();
    const a = put(c.acct.state, { archived: true });
    const b = put(c.acct.state);
    const again = await action(c, 'archive', a.assetId);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('archived');
    const noop = await action(c, 'unarchive', b.assetId);
    expect(noop.status).toBe(200);
    expect(noop.body.status).toBe('active');
    expect(c.acct.state.events).toEqual([]);
  });

  it('D32 archive and unarchive of a deleted asset answer 404', async () => {
    const c = await fresh();
    const a = put(c.acct.state, { deletedAt: h.clock.now() });
    expect((await action(c, 'archive', a.assetId)).status).toBe(404);
    expect((await action(c, 'unarchive', a.assetId)).status).toBe(404);
  });

  it('IDEM-006 a replay of archive returns the stored body with idempotent-replayed; another path under the key answers 409', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    const b = put(c.acct.state);
    const key = idem();
    const headers = { 'idempotency-key': key };
    const first = await call('archiveAsset', 'POST', `/assets/${a.assetId}/archive`, { key: c.write, headers });
    expect(first.status).toBe(200);
    // the asset changes in between: the replay still answers the stored body, without executing
    await action(c, 'unarchive', a.assetId);
    const replay = await call('archiveAsset', 'POST', `/assets/${a.assetId}/archive`, { key: c.write, headers });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(replay.headers.etag).toBe(first.headers.etag);
    expect(c.acct.state.assets.get(a.assetId)!.archived).toBe(false);
    const reused = await call('archiveAsset', 'POST', `/assets/${b.assetId}/archive`, { key: c.write, headers });
    expect(reused.status).toBe(409);
    expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const otherOperation = await call('unarchiveAsset', 'POST', `/assets/${a.assetId}/unarchive`, { key: c.write, headers });
    expect(otherOperation.status).toBe(409);
    expect(c.acct.state.events.map((e) => e.type)).toEqual(['asset.archived', 'asset.unarchived']);
  });

  it('IDEM-005 IDEM-004 a missing key answers 400 IDEMPOTENCY_KEY_REQUIRED, a malformed one 400 INVALID_IDEMPOTENCY_KEY', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    for (const op of ['archive', 'unarchive', 'undelete'] as const) {
      const missing = await call(`${op}Asset`, 'POST', `/assets/${a.assetId}/${op}`, { key: c.write });
      expect(missing.status).toBe(400);
      expect(missing.body.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
      const malformed = await call(`${op}Asset`, 'POST', `/assets/${a.assetId}/${op}`, { key: c.write, headers: { 'idempotency-key': 'has spaces' } });
      expect(malformed.status).toBe(400);
      expect(malformed.body.code).toBe('INVALID_IDEMPOTENCY_KEY');
    }
    expect(c.acct.state.events).toEqual([]);
  });

  it('ERR-029 IDEM-010 while writes are paused archive answers 503 and keeps the key free', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    const key = idem();
    const paused = await call('archiveAsset', 'POST', `/assets/${a.assetId}/archive`, { key: c.write, headers: { 'idempotency-key': key, prefer: 'scenario=writes_paused' } });
    expect(paused.status).toBe(503);
    expect(paused.body.code).toBe('WRITES_PAUSED');
    expect(c.acct.state.assets.get(a.assetId)!.archived).toBe(false);
    const resumed = await call('archiveAsset', 'POST', `/assets/${a.assetId}/archive`, { key: c.write, headers: { 'idempotency-key': key } });
    expect(resumed.status).toBe(200);
    expect(resumed.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('deleteAsset / undeleteAsset', () => {
  it('ASST-010 ASST-017 EVT-014 DELETE answers 200 with deletedAt set and ETag; the asset leaves the list', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    h.advance(7);
    const res = await del(c, a.assetId);
    expect(res.status).toBe(200);
    strong(res);
    expect(res.body.deletedAt).toBe(new Date(h.clock.now()).toISOString());
    const list = await call('listAssets', 'GET', '/assets', { key: c.read });
    expect(list.body.data).toEqual([]);
    expect(c.acct.state.events.map((e) => e.type)).toEqual(['asset.deleted']);
  });

  it('D32 DELETE of a deleted asset answers 404', async () => {
    const c = await fresh();
    const a = put(c.acct.state, { deletedAt: h.clock.now() });
    const res = await del(c, a.assetId);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('ASSET_NOT_FOUND');
    expect((await del(c, 'ast_missing')).status).toBe(404);
  });

  it('ASST-011 GEN-003 undelete restores (deletedAt null) with ETag and asset.restored; an archived asset comes back archived', async () => {
    const c = await fresh();
    const a = put(c.acct.state, { archived: true, deletedAt: h.clock.now() - 400 * 86_400_000 });
    const res = await action(c, 'undelete', a.assetId);
    expect(res.status).toBe(200);
    strong(res);
    expect(res.body).toMatchObject({ deletedAt: null, status: 'archived' });
    expect((await get(c, a.assetId)).body).toEqual(res.body);
    expect(c.acct.state.events.map((e) => e.type)).toEqual(['asset.restored']);
  });

  it('ASST-012 undelete of a live asset is a no-op 200 recording nothing', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    const res = await action(c, 'undelete', a.assetId);
    expect(res.status).toBe(200);
    expect(res.body.deletedAt).toBeNull();
    expect(c.acct.state.events).toEqual([]);
  });

  it('ERR-019 undelete of an unknown asset answers 404; DELETE with a read key answers 403', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    expect((await action(c, 'undelete', 'ast_missing')).status).toBe(404);
    const denied = await call('deleteAsset', 'DELETE', `/assets/${a.assetId}`, { key: c.read });
    expect(denied.status).toBe(403);
    expect(c.acct.state.assets.get(a.assetId)!.deletedAt).toBeNull();
  });

  it('IDEM-006 undelete replays under its key; DELETE with an optional key replays too', async () => {
    const c = await fresh();
    const a = put(c.acct.state);
    const delKey = idem();
    const first = await del(c, a.assetId, { 'idempotency-key': delKey });
    const again = await del(c, a.assetId, { 'idempotency-key': delKey });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    const key = idem();
    const restored = await call('undeleteAsset', 'POST', `/assets/${a.assetId}/undelete`, { key: c.write, headers: { 'idempotency-key': key } });
    const replay = await call('undeleteAsset', 'POST', `/assets/${a.assetId}/undelete`, { key: c.write, headers: { 'idempotency-key': key } });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(restored.text);
    expect(c.acct.state.events.map((e) => e.type)).toEqual(['asset.deleted', 'asset.restored']);
  });
});
