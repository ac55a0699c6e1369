/**
 * Presets (RUN-016, RUN-017, RUN-019, RUN-040): GET /presets is a Generation-plane list envelope
 * (`object: list`) of presets carrying `object: preset` and `presetId`; the catalog is small and
 * global; a listed presetId is what a run names; an unknown one, or one of the other modality, is
 * refused (D48).
 */
import { expect, needsOperations, test } from '../fixtures/index.ts';
import { walk } from '../fixtures/lists.ts';
import { presets, someProductIds, type Preset } from '../fixtures/generation.ts';

test.beforeEach(({ target }) => {
  needsOperations(target, 'listPresets', 'estimateRun');
});

test('RUN-016 PAGE-004 PAGE-003 GEN-005 GET /presets answers a list envelope with object list, of presets with object preset and a presetId', { tag: ['@area:presets'] }, async ({ api }) => {
  const reader = api.as('runs:read');
  const response = await reader.get('/presets');
  expect(response).toHaveStatus(200);
  const list = response.json as { object: string; data: Preset[]; pagination: { nextCursor: string | null; hasMore: boolean; pageSize: number } };
  expect(list.object).toBe('list');
  expect(list.data.length, 'the catalog holds presets').toBeGreaterThan(0);
  expect(list.pagination.hasMore).toBe(list.pagination.nextCursor !== null);
  for (const preset of list.data) {
    expect(preset.object, JSON.stringify(preset)).toBe('preset');
    expect(typeof preset.presetId === 'string' && preset.presetId.length > 0, JSON.stringify(preset)).toBe(true);
  }
  const all = await presets(reader);
  expect(new Set(all.map((p) => p.presetId)).size, 'presetIds are distinct').toBe(all.length);
});

test('PAGE-005 PAGE-007 PAGE-004 walking GET /presets one at a time returns every preset exactly once, each page with object list', { tag: ['@area:presets'] }, async ({ api }) => {
  const reader = api.as('runs:read');
  const all = await presets(reader);
  const walked = await walk<Preset>(reader, '/presets', { limit: 1 });
  expect(walked.complete, `PAGE-005 the walk reached a null nextCursor (${walked.pages.length} pages)`).toBe(true);
  expect(walked.rows.map((p) => p.presetId), `PAGE-005 the walk one at a time gives every preset once, in the list's order`).toEqual(all.map((p) => p.presetId));
  for (const [index, page] of walked.pages.entries()) {
    expect((page.json as unknown as { object: string }).object, `PAGE-004 page ${index + 1}: object`).toBe('list');
    expect(page.json.data.length, `PAGE-008 page ${index + 1}: rows of a page of limit=1`).toBeLessThanOrEqual(1);
  }
});

test('RUN-017 the preset catalog is global: another account sees the same presets', { tag: ['@area:presets'] }, async ({ api, apiFor, accountB }) => {
  const mine = await presets(api.as('runs:read'));
  const theirs = await presets(apiFor(accountB, 'runs:read'));
  expect(theirs).toEqual(mine);
});

test('RUN-019 a preset carries a name, its modality (image or video) and a description', { tag: ['@assumed', '@area:presets'] }, async ({ api }) => {
  const all = await presets(api.as('runs:read'));
  for (const preset of all) {
    expect(typeof preset.name, JSON.stringify(preset)).toBe('string');
    expect(['image', 'video'], JSON.stringify(preset)).toContain(preset.modality);
    expect(typeof preset.description, JSON.stringify(preset)).toBe('string');
  }
  expect(all.some((p) => p.modality === 'image'), 'an image preset exists').toBe(true);
});

test('RUN-040 the presetId of a run is one GET /presets lists: a listed one is accepted, an unlisted one refused (pinned part, on the estimate that takes the same body)', { tag: ['@area:products', '@area:presets', '@area:estimate'] }, async ({ api }) => {
  // Preset fields beyond presetId (modality) and the refusal's code are gaps (@assumed below): a
  // listed preset must be accepted in some body, an unlisted one in none.
  const reader = api.as('runs:read');
  const productIds = await someProductIds(api, 1);
  const listed = await presets(reader);
  expect(listed.length, 'GET /presets lists presets').toBeGreaterThan(0);
  const answers = [];
  for (const preset of listed.slice(0, 4)) answers.push((await reader.post('/runs/estimate', { body: { productIds, creativesPerProduct: 1, presetId: preset.presetId } })).status);
  expect(answers, 'at least one listed presetId is accepted').toContain(200);
  const unknown = await reader.post('/runs/estimate', { body: { productIds, creativesPerProduct: 1, presetId: `${listed[0]!.presetId}_not_listed` } });
  expect(unknown.status, `a presetId GET /presets does not list is refused: ${unknown.describe()}`).toBeGreaterThanOrEqual(400);
  expect(unknown.status).toBeLessThan(500);
});

test('RUN-040 every presetId listed by GET /presets is accepted by the estimate, in its own modality', { tag: ['@assumed', '@area:products', '@area:presets', '@area:estimate'] }, async ({ api }) => {
  const reader = api.as('runs:read');
  const productIds = await someProductIds(api, 1);
  for (const preset of await presets(reader)) {
    const body = { productIds, creativesPerProduct: 1, presetId: preset.presetId, modality: preset.modality ?? 'image' };
    await expect(await reader.post('/runs/estimate', { body }), `${preset.presetId} (${preset.modality})`).toHaveStatus(200);
  }
});

test('RUN-040 ERR-041 an unknown presetId, or a preset of the other modality, answers 400 VALIDATION_ERROR naming presetId', { tag: ['@assumed', '@area:products', '@area:presets', '@area:estimate'] }, async ({ api }) => {
  const reader = api.as('runs:read');
  const productIds = await someProductIds(api, 1);
  const all = await presets(reader);
  const video = all.find((p) => p.modality === 'video');
  const image = all.find((p) => p.modality === 'image');
  const cases: [string, Record<string, unknown>][] = [['an unknown presetId', { presetId: 'pst_conformance_unknown', modality: 'image' }]];
  if (video) cases.push(['a video preset on an image run', { presetId: video.presetId, modality: 'image' }]);
  if (image) cases.push(['an image preset on a video run', { presetId: image.presetId, modality: 'video' }]);
  for (const [what, extra] of cases) {
    const response = await reader.post('/runs/estimate', { body: { productIds, creativesPerProduct: 1, ...extra } });
    await expect(response, what).toBeProblem(400, 'VALIDATION_ERROR');
    expect(response.problem.errors?.map((e) => e.field), what).toContain('presetId');
  }
});
