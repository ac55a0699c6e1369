/** scripts/tag-areas.ts: the @area tags a run's record asks for, written into a test's `tag` details. */
import { describe, expect, it } from 'vitest';
import { areasBySite, tagTestAt } from './tag-areas.ts';

describe('tagTestAt', () => {
  it.each<[string, string, string]>([
    ['no details', "test('A-001 x', async ({ api }) => {});", "test('A-001 x', { tag: ['@area:products', '@area:runs'] }, async ({ api }) => {});"],
    ['a string tag', "test('A-001 x', { tag: '@assumed' }, async () => {});", "test('A-001 x', { tag: ['@assumed', '@area:products', '@area:runs'] }, async () => {});"],
    ['a list with one of them', "test('A-001 x', { tag: ['@spend', '@area:runs'] }, async () => {});", "test('A-001 x', { tag: ['@spend', '@area:runs', '@area:products'] }, async () => {});"],
    ['details without tag', "test('A-001 x', { annotation: { type: 'a' } }, async () => {});", "test('A-001 x', { tag: ['@area:products', '@area:runs'], annotation: { type: 'a' } }, async () => {});"],
  ])('adds the missing tags: %s', (_, source, want) => {
    expect(tagTestAt(`// line 1\n${source}\n`, 2, ['products', 'runs']).source).toBe(`// line 1\n${want}\n`);
  });

  it('leaves a test that has every tag, and refuses a line without a test', () => {
    const source = "test('A-001 x', { tag: ['@area:runs'] }, async () => {});";
    expect(tagTestAt(source, 1, ['runs'])).toEqual({ source, added: [] });
    expect(() => tagTestAt(`\n${source}`, 1, ['runs'])).toThrow('no test(...) call at line 1');
  });
});

describe('areasBySite', () => {
  it('takes the union of a test defined in a loop, in the areas\' order, and skips tests that touched none', () => {
    expect(
      areasBySite([
        { file: 'a.spec.ts', line: 3, areas: ['runs'] },
        { file: 'a.spec.ts', line: 3, areas: ['products', 'webhooks'] },
        { file: 'a.spec.ts', line: 9 },
      ]),
    ).toEqual([{ file: 'a.spec.ts', line: 3, areas: ['products', 'runs', 'webhooks'] }]);
  });
});
