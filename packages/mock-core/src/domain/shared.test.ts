import { describe, expect, it } from 'vitest';
import { iso, mergeMetadata, metadataField } from './shared.ts';

describe('mergeMetadata (META-*)', () => {
  const cases: [string, { current: Record<string, string>; patch: Record<string, string | null>; want: Record<string, string>; changed: boolean }][] = [
    ['META: a string value sets a key', { current: { a: '1' }, patch: { b: '2' }, want: { a: '1', b: '2' }, changed: true }],
    ['META: null removes a key', { current: { a: '1', b: '2' }, patch: { a: null }, want: { b: '2' }, changed: true }],
    ['META: PATCH merges into the existing map', { current: { a: '1' }, patch: { a: '9' }, want: { a: '9' }, changed: true }],
    ['a patch that alters nothing reports no change', { current: { a: '1' }, patch: { a: '1', z: null }, want: { a: '1' }, changed: false }],
    ['inherited names are ordinary keys', { current: {}, patch: { toString: null, constructor: 'x' }, want: { constructor: 'x' }, changed: true }],
  ];
  it.each(cases)('%s', (_name, { current, patch, want, changed }) => {
    const result = mergeMetadata(current, patch);
    expect({ ...result.next }).toEqual(want);
    expect(result.changed).toBe(changed);
  });

  it('keeps a __proto__ key as data', () => {
    const patch = JSON.parse('{"__proto__":"v"}') as Record<string, string>;
    const result = mergeMetadata({}, patch);
    expect(result.changed).toBe(true);
    expect(Object.keys(result.next)).toEqual(['__proto__']);
    expect(JSON.stringify(metadataField(result.next))).toBe('{"metadata":{"__proto__":"v"}}');
  });

  it('META: more than 50 keys after the merge is 422 VALIDATION_ERROR naming metadata', () => {
    const current = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    expect(() => mergeMetadata(current, { extra: 'v' })).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', status: 422, extensions: { errors: [expect.objectContaining({ field: 'metadata' })] } }));
    expect(mergeMetadata(current, { extra: 'v', k0: null }).changed).toBe(true);
  });
});

describe('iso', () => {
  it('formats like Date#toISOString, on a cached hit, past the cache bound, and still refuses an invalid time', () => {
    const times = [0, -0, 1, 1.5, 1_767_225_600_123, -62_198_755_200_000, 8.64e15];
    for (const ms of times) {
      expect(iso(ms)).toBe(new Date(ms).toISOString());
      expect(iso(ms)).toBe(new Date(ms).toISOString());
    }
    for (let i = 0; i < 25_000; i++) expect(iso(1_767_225_600_000 + i * 997)).toBe(new Date(1_767_225_600_000 + i * 997).toISOString());
    expect(iso(times[4]!)).toBe(new Date(times[4]!).toISOString());
    expect(() => iso(Number.NaN)).toThrow(RangeError);
    expect(() => iso(8.64e15 + 1)).toThrow(RangeError);
  });
});
