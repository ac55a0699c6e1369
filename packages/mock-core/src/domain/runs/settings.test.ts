import { describe, expect, it } from 'vitest';
import { Store, newAccountState } from '../store.ts';
import { planFor } from '../accounts/service.ts';
import { drawItemOutcome, durationFactor, pick, runDrawKey, unit } from './draw.ts';
import { defaultGenerationSettings, effectiveSpeed, generationView, globalGeneration, setGenerationSettings, setGlobalGeneration } from './settings.ts';

const account = () => newAccountState({ accountId: 'acc_1', name: 'A', tag: 'aaaaaa', plan: planFor('enterprise'), createdAt: 0, seed: 5 });

describe('setGenerationSettings', () => {
  const table: [string, { input: unknown; ok: boolean; fields?: string[] }][] = [
    ['a mix (missing weights are 0)', { input: { outcomeMix: { succeeded: 3, refused: 1 } }, ok: true }],
    ['a pattern', { input: { outcomePattern: ['succeeded', 'stall'] }, ok: true }],
    ['clearing the pattern and the speed', { input: { outcomePattern: null, speed: null }, ok: true }],
    ['seed and speed', { input: { seed: 3, speed: 20 }, ok: true }],
    ['a mix with no positive weight', { input: { outcomeMix: { succeeded: 0 } }, ok: false, fields: ['outcomeMix'] }],
    ['an unknown outcome', { input: { outcomeMix: { exploded: 1 } }, ok: false, fields: ['outcomeMix.exploded', 'outcomeMix'] }],
    ['a negative weight', { input: { upscaleOutcomeMix: { failed: -1, succeeded: 1 } }, ok: false, fields: ['upscaleOutcomeMix.failed'] }],
    ['refused is not an upscale outcome', { input: { upscaleOutcomeMix: { refused: 1 } }, ok: false, fields: ['upscaleOutcomeMix.refused', 'upscaleOutcomeMix'] }],
    ['an empty pattern', { input: { outcomePattern: [] }, ok: false, fields: ['outcomePattern'] }],
    ['a zero speed', { input: { speed: 0 }, ok: false, fields: ['speed'] }],
    ['a fractional seed', { input: { seed: 1.5 }, ok: false, fields: ['seed'] }],
    ['an unknown field', { input: { colour: 'red' }, ok: false, fields: ['colour'] }],
  ];
  it.each(table)('%s', (_name, { input, ok, fields }) => {
    const a = account();
    const before = structuredClone(a.generation);
    const r = setGenerationSettings(a, input);
    expect(r.ok).toBe(ok);
    if (!r.ok) {
      expect(r.errors.map((e) => e.field)).toEqual(fields);
      expect(a.generation).toEqual(before); // nothing changes on an error
    }
  });

  it('defaults: everything succeeds, the account seed, the global speed', () => {
    const a = account();
    expect(a.generation).toEqual(defaultGenerationSettings(5));
    const store = new Store();
    expect(effectiveSpeed(store, a)).toBe(1);
    expect(setGlobalGeneration(store, { speed: 4 })).toEqual({ ok: true });
    expect(effectiveSpeed(store, a)).toBe(4);
    setGenerationSettings(a, { speed: 2 });
    expect(generationView(store, a)).toMatchObject({ speed: 2, effectiveSpeed: 2 });
    expect(setGlobalGeneration(store, { speed: -1 }).ok).toBe(false);
    expect(globalGeneration(new Store()).speed).toBe(1); // one global per mock
  });
});

describe('draws', () => {
  it('are deterministic and in [0, 1)', () => {
    for (let i = 0; i < 1000; i++) {
      const u = unit(7, 'run#3', i, 'outcome');
      expect(u).toBe(unit(7, 'run#3', i, 'outcome'));
      expect(u).toBeGreaterThanOrEqual(0);
      expect(u).toBeLessThan(1);
      const f = durationFactor(7, 'run#3', i);
      expect(f).toBeGreaterThanOrEqual(0.6);
      expect(f).toBeLessThan(1);
    }
    expect(unit(7, 'run#3', 0, 'outcome')).not.toBe(unit(8, 'run#3', 0, 'outcome'));
  });

  it('follow the weights of the mix', () => {
    const settings = { ...defaultGenerationSettings(11), outcomeMix: { succeeded: 3, failed: 1, refused: 0, stall: 0 } };
    const counts = { succeeded: 0, failed: 0, refused: 0, stall: 0 };
    for (let i = 0; i < 4000; i++) counts[drawItemOutcome(settings, runDrawKey(0), i)]++;
    expect(counts.refused + counts.stall).toBe(0);
    expect(counts.succeeded / 4000).toBeGreaterThan(0.7);
    expect(counts.succeeded / 4000).toBeLessThan(0.8);
  });

  it('a pattern cycles by position and wins over the mix', () => {
    const settings = { ...defaultGenerationSettings(1), outcomePattern: ['failed', 'succeeded', 'stall'] as const as ('failed' | 'succeeded' | 'stall')[] };
    expect([0, 1, 2, 3, 4].map((p) => drawItemOutcome(settings, runDrawKey(9), p))).toEqual(['failed', 'succeeded', 'stall', 'failed', 'succeeded']);
  });

  it('pick skips zero weights, also at the edges', () => {
    const w = { a: 0, b: 1, c: 0 };
    expect(pick(w, ['a', 'b', 'c'], 0)).toBe('b');
    expect(pick(w, ['a', 'b', 'c'], 0.999999)).toBe('b');
  });
});
