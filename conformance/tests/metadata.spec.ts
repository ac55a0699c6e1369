/**
 * Metadata of creatives, assets and campaigns (META-*): a string sets a key, null removes it, PATCH
 * merges into the existing map, a map emptied of its last key is no longer carried; at most 50 keys
 * after the merge, key names of at most 40 characters, values of at most 500; a violation answers
 * 422 VALIDATION_ERROR with one errors[] entry per offending field and changes nothing.
 *
 * Every check runs on each of the three resource kinds, on a live resource found by listing (the
 * keys it adds are removed again, so the checks are safe on a real account).
 */
import { expect, skipWhenAbsent, test, type ApiClient, type ApiResponse } from '../fixtures/index.ts';
import { allAssets, allCampaigns, allCreatives, pick } from '../fixtures/resources.ts';

interface Kind {
  name: 'creative' | 'asset' | 'campaign';
  writer: string;
  /** A live resource of the account: its path, and its metadata when it has none (preferred). */
  find(api: ApiClient): Promise<string>;
}

type WithMetadata = { metadata?: Record<string, string> };

const KINDS: Kind[] = [
  {
    name: 'creative',
    writer: 'creatives:write',
    async find(api) {
      const rows = await allCreatives(api);
      const c = rows.find((r) => r.metadata === undefined) ?? pick(rows, () => true, 'the account has no live creative');
      return `/creatives/${encodeURIComponent(c.creativeId)}`;
    },
  },
  {
    name: 'asset',
    writer: 'assets:write',
    async find(api) {
      const rows = await allAssets(api);
      const a = rows.find((r) => r.metadata === undefined) ?? pick(rows, () => true, 'the account has no live asset');
      return `/assets/${encodeURIComponent(a.assetId)}`;
    },
  },
  {
    name: 'campaign',
    writer: 'campaigns:write',
    async find(api) {
      const rows = await allCampaigns(api);
      const c = rows.find((r) => r.metadata === undefined) ?? pick(rows, () => true, 'the account has no live campaign');
      return `/campaigns/${encodeURIComponent(c.campaignId)}`;
    },
  },
];

async function read(api: ApiClient, path: string): Promise<ApiResponse> {
  const response = await api.get(path);
  expect(response).toHaveStatus(200);
  return response;
}

async function patchMetadata(writer: ApiClient, path: string, metadata: Record<string, unknown>): Promise<ApiResponse> {
  return writer.patch(path, { body: { metadata } });
}

function metadataOf(response: ApiResponse): Record<string, string> | undefined {
  return (response.json as WithMetadata).metadata;
}

/** Remove the keys a check added (the resource ends as it began). */
async function cleanUp(writer: ApiClient, path: string, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  const response = await patchMetadata(writer, path, Object.fromEntries(keys.map((k) => [k, null])));
  expect(response, 'removing the keys this test added').toHaveStatus(200);
}

/** The 422 names each offending field: every `needle` appears in some errors[] field. */
async function expectRefused(response: ApiResponse, needles: readonly string[], what: string): Promise<void> {
  await expect(response, what).toBeProblem(422, 'VALIDATION_ERROR');
  const fields = (response.problem.errors ?? []).map((e) => e.field);
  for (const needle of needles) expect(fields.some((f) => f.includes(needle)), `${what}: errors[] names ${needle}: ${response.describe()}`).toBe(true);
}

function registerMetadataTests(kind: Kind): void {
  test('META-001 META-002 META-003 META-008 a string sets a key, null removes it, PATCH merges, and a map emptied of its last key is no longer carried', async ({ api }) => {
    const path = await kind.find(api);
    const writer = api.as(kind.writer);
    const original = metadataOf(await read(api, path));
    const base = original ?? {};

    const set = await patchMetadata(writer, path, { cf_alpha: 'one', cf_beta: 'two' });
    expect(set).toHaveStatus(200);
    expect(metadataOf(set), 'the strings set their keys; the keys not named keep theirs').toEqual({ ...base, cf_alpha: 'one', cf_beta: 'two' });
    const merged = await patchMetadata(writer, path, { cf_alpha: 'uno' });
    expect(metadataOf(merged), 'a PATCH merges: cf_beta and the original keys are kept').toEqual({ ...base, cf_alpha: 'uno', cf_beta: 'two' });
    const removed = await patchMetadata(writer, path, { cf_alpha: null });
    expect(metadataOf(removed), 'null removes the key').toEqual({ ...base, cf_beta: 'two' });
    expect(metadataOf(await read(api, path)), 'GET shows the merged map').toEqual({ ...base, cf_beta: 'two' });

    const last = await patchMetadata(writer, path, { cf_beta: null });
    expect(last).toHaveStatus(200);
    if (original === undefined) {
      expect(Object.hasOwn(last.json as object, 'metadata'), `with its last key removed the ${kind.name} carries no metadata: ${last.describe()}`).toBe(false);
      expect(Object.hasOwn((await read(api, path)).json as object, 'metadata')).toBe(false);
    } else {
      expect(metadataOf(last), 'back to the original map').toEqual(original);
    }
  });

  test('META-004 META-007 ERR-008 a merge may leave 50 keys; one leaving 51 answers 422 naming metadata and changes nothing', async ({ api }) => {
    const path = await kind.find(api);
    const writer = api.as(kind.writer);
    const existing = Object.keys(metadataOf(await read(api, path)) ?? {}).length;
    skipWhenAbsent(existing >= 50, `the ${kind.name} already holds ${existing} metadata keys`);
    const added = Array.from({ length: 50 - existing }, (_, i) => `cf_k${i}`);
    try {
      const full = await patchMetadata(writer, path, Object.fromEntries(added.map((k) => [k, 'v'])));
      expect(full, `${added.length} keys added to ${existing}: 50 after the merge`).toHaveStatus(200);
      expect(Object.keys(metadataOf(full)!).length).toBe(50);
      const before = await read(api, path);

      await expectRefused(await patchMetadata(writer, path, { cf_one_too_many: 'v' }), ['metadata'], 'a merge leaving 51 keys');
      const after = await read(api, path);
      expect(after.json, 'the refused merge changed nothing').toEqual(before.json);
      expect(after.header('etag')).toBe(before.header('etag'));

      const swapped = await patchMetadata(writer, path, { cf_swap: 'v', [added[0]!]: null });
      expect(swapped, 'adding one key and removing another leaves 50: the bound is on the merged map').toHaveStatus(200);
      added.push('cf_swap');
    } finally {
      await cleanUp(writer, path, added);
    }
  });

  test('META-005 META-006 META-007 ERR-008 a key of 40 characters and a value of 500 are accepted; 41, 501 or a non-string value answer 422 naming the field and change nothing', async ({ api }) => {
    const path = await kind.find(api);
    const writer = api.as(kind.writer);
    const key40 = `cf_${'k'.repeat(37)}`;
    try {
      const accepted = await patchMetadata(writer, path, { [key40]: 'v'.repeat(500) });
      expect(accepted, 'a 40-character key with a 500-character value').toHaveStatus(200);
      expect(metadataOf(accepted)?.[key40]).toBe('v'.repeat(500));
      const before = await read(api, path);

      const key41 = `cf_${'k'.repeat(38)}`;
      await expectRefused(await patchMetadata(writer, path, { [key41]: 'v' }), ['metadata'], 'a 41-character key');
      await expectRefused(await patchMetadata(writer, path, { cf_long: 'v'.repeat(501) }), ['metadata'], 'a 501-character value');
      await expectRefused(await patchMetadata(writer, path, { cf_number: 5 }), ['metadata'], 'a number as value');
      await expectRefused(await patchMetadata(writer, path, { cf_nested: { a: 'b' } }), ['metadata'], 'an object as value');
      const after = await read(api, path);
      expect(after.json, 'the refused writes changed nothing').toEqual(before.json);
      expect(after.header('etag')).toBe(before.header('etag'));
    } finally {
      await cleanUp(writer, path, [key40]);
    }
  });

  test('META-007 ERR-008 a 422 lists exactly one errors[] entry per offending field', async ({ api, target }) => {
    const path = await kind.find(api);
    const writer = api.as(kind.writer);
    const key41 = `cf_${'k'.repeat(38)}`;
    const cases: [Record<string, unknown>, number][] = [
      [{ [key41]: 'v' }, 1],
      [{ cf_long: 'v'.repeat(501) }, 1],
      [{ cf_long: 'v'.repeat(501), cf_number: 5 }, 2],
      [{ [key41]: 'v', cf_long: 'v'.repeat(501) }, 2],
    ];
    for (const [metadata, offending] of cases) {
      const refused = await patchMetadata(writer, path, metadata);
      await expect(refused).toBeProblem(422, 'VALIDATION_ERROR');
      const fields = (refused.problem.errors ?? []).map((e) => e.field);
      expect(fields.length, `${offending} offending field(s) → ${offending} errors[] entr${offending === 1 ? 'y' : 'ies'}: ${refused.describe()}`).toBe(offending);
      expect(new Set(fields).size, 'each entry names another field').toBe(fields.length);
    }
  });
}

for (const kind of KINDS) {
  test.describe(`${kind.name} metadata`, () => registerMetadataTests(kind));
}
