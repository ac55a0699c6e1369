/** The areas of the API (packages/contract/rules/areas.ts), derived from packages/contract/spec/openapi.yaml, and `--area`'s selection. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { operationsList } from '../spec/contract.ts';
import { AREA_NAMES, areaOfReason, areasCalled, expandAreas, outsideAreas, outsideGrep, outsideReason, PLANES, RESOURCES, resourceOf } from './areas.ts';
import { areaProblems } from '../../conformance/suite/reporters/rules-reporter.ts';

describe('areas from the document', () => {
  it('puts each operation in one resource of one plane, by its tag: the generation plane holds presets, runs, estimate and upscales, nothing of the read plane', () => {
    expect(PLANES.get('generation')).toEqual(['estimate', 'presets', 'runs', 'upscales']);
    expect(PLANES.get('read')).toEqual(['assets', 'campaigns', 'creatives', 'deliveries', 'products']);
    for (const op of operationsList) {
      const plane = op.tag === 'generation-plane' ? 'generation' : 'read';
      expect(PLANES.get(plane), `${op.operationId} (${op.tag})`).toContain(resourceOf(op.operationId));
    }
    expect(resourceOf('estimateRun')).toBe('estimate');
    expect(resourceOf('createRun')).toBe('runs');
    expect(RESOURCES.at(-1)).toBe('webhooks');
  });

  it('is the vocabulary of the config schema (packages/contract/spec/schemas/conformance-config.schema.json area)', () => {
    const schema = JSON.parse(readFileSync(new URL('../spec/schemas/conformance-config.schema.json', import.meta.url), 'utf8')) as { properties: { area: { items: { enum: string[] } } } };
    expect([...schema.properties.area.items.enum].sort()).toEqual([...AREA_NAMES].sort());
  });
});

describe('--area selection', () => {
  it.each<[string, string[]]>([
    ['read', ['products', 'creatives', 'campaigns', 'assets', 'deliveries']],
    ['generation', ['presets', 'runs', 'estimate', 'upscales']],
    ['read,webhooks', ['products', 'creatives', 'campaigns', 'assets', 'deliveries', 'webhooks']],
    [' campaigns , products ', ['products', 'campaigns']],
  ])('%s expands to its resources', (list, resources) => {
    expect(expandAreas(list)).toEqual(resources);
  });

  it('refuses an unknown area, naming the known ones', () => {
    expect(() => expandAreas('read,billing')).toThrow(/unknown area billing; the areas are the planes read, generation .* and the resources products, creatives, campaigns, assets, deliveries, presets, runs, estimate, upscales, webhooks/);
    expect(() => expandAreas(' , ')).toThrow(/at least one area/);
  });

  it('selects a test only when all its areas are chosen: a campaigns test that starts a run is outside --area read', () => {
    const read = expandAreas('read');
    expect(outsideAreas(['@area:products', '@area:campaigns'], read)).toEqual([]);
    expect(outsideAreas(['@spend', '@area:campaigns', '@area:runs'], read)).toEqual(['runs']);
    expect(outsideAreas(['@area:creatives', '@area:webhooks'], read)).toEqual(['webhooks']);
    expect(outsideAreas(['@assumed'], read)).toEqual([]);
  });

  it('leaves out of a listing every test with an area outside the choice, and no other', () => {
    const grep = new RegExp(outsideGrep(expandAreas('read'))!);
    expect(grep.test('PROD-001 lists @area:products @area:runs')).toBe(true);
    expect(grep.test('RUN-001 @area:estimate')).toBe(true);
    expect(grep.test('CAMP-001 @area:products @area:campaigns')).toBe(false);
    expect(outsideGrep(RESOURCES)).toBeUndefined();
  });

  it('gives a skip reason the reports read back as the --area', () => {
    expect(areaOfReason(outsideReason('read,webhooks', ['runs']))).toBe('read,webhooks');
    expect(areaOfReason('@spend: spends credits')).toBeUndefined();
  });
});

describe('a test\'s areas against the operations it called', () => {
  it('derives them from the operations and the webhooks hook', () => {
    expect(areasCalled(['createRun', 'listProducts', 'estimateRun'], ['accounts', 'webhooks'])).toEqual(['products', 'runs', 'estimate', 'webhooks']);
  });

  it('names a test that called an operation of an area it is not tagged with, and only then', () => {
    const record = { tags: ['@area:products', '@area:campaigns'], operations: ['createCampaign', 'createRun', 'listProducts'], areas: areasCalled(['createCampaign', 'createRun', 'listProducts']) };
    expect(areaProblems(record)).toEqual(['touches area runs (createRun) but is not tagged @area:runs (packages/contract/rules/areas.ts)']);
    expect(areaProblems({ ...record, tags: [...record.tags, '@area:runs', '@area:upscales'] })).toEqual([]);
  });
});
