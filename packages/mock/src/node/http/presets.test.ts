/**
 * Preset operations over HTTP through the node server, in-process (packages/mock-core/src/testkit/runs.ts `world`: mock.inject,
 * manual clock): the whole pipeline over the catalogue of packages/mock-core/src/domain/presets/catalog.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { violations } from '../../../../mock-core/src/testkit/harness.ts';
import { guardTaskErrors, world, type World } from '../../../../mock-core/src/testkit/runs.ts';
import { findPreset, presets } from '../../../../mock-core/src/domain/presets/catalog.ts';

let w: World;
afterEach(async () => {
  await w?.h.close();
});
guardTaskErrors();

describe('preset catalog', () => {
  it('RUN-017: small, with unique ids, each serving one modality (D13)', () => {
    const all = [...presets.values()];
    expect(all.length).toBeGreaterThan(0);
    expect(all.length).toBeLessThanOrEqual(25);
    expect(new Set(all.map((p) => p.presetId)).size).toBe(all.length);
    expect(new Set(all.map((p) => p.modality))).toEqual(new Set(['image', 'video']));
    expect(findPreset('pst_studio_white')?.modality).toBe('image');
    expect(findPreset('nope')).toBeUndefined();
  });
});

describe('GET /presets', () => {
  it('RUN-016, RUN-017, RUN-019, PAGE-004: the small global catalog', async () => {
    w = await world();
    const res = await w.h.request('GET', '/presets', { key: w.read });
    expect(res.status).toBe(200);
    expect(violations('listPresets', res)).toEqual([]);
    expect(res.body.object).toBe('list');
    expect(res.body.data.length).toBeGreaterThan(0);
    for (const p of res.body.data) expect(p).toMatchObject({ object: 'preset', presetId: expect.any(String), name: expect.any(String), modality: expect.stringMatching(/^(image|video)$/) });
    const other = await w.h.account();
    const res2 = await w.h.request('GET', '/presets', { key: other.key('runs:read') });
    expect(res2.body.data).toEqual(res.body.data);
  });

  it('pages with limit and cursor', async () => {
    w = await world();
    const first = await w.h.request('GET', '/presets', { key: w.read, query: { limit: 4 } });
    expect(violations('listPresets', first)).toEqual([]);
    expect(first.body.data).toHaveLength(4);
    const second = await w.h.request('GET', '/presets', { key: w.read, query: { limit: 4, cursor: first.body.pagination.nextCursor } });
    expect(violations('listPresets', second)).toEqual([]);
    expect(second.body.pagination).toMatchObject({ nextCursor: null, hasMore: false });
  });

  it.each([
    ['AUTH-008: a read-only key', 'read', 403],
    ['no key', undefined, 401],
  ] as const)('%s is refused', async (_name, profile, status) => {
    w = await world();
    const res = await w.h.request('GET', '/presets', profile ? { key: w.acct.key(profile) } : {});
    expect(res.status).toBe(status);
    expect(violations('listPresets', res)).toEqual([]);
  });

  it('a bad limit answers 400', async () => {
    w = await world();
    const res = await w.h.request('GET', '/presets', { key: w.read, query: { limit: 0 } });
    expect(res.status).toBe(400);
    expect(violations('listPresets', res)).toEqual([]);
  });
});

