/** toQuery keeps every name as an own member, the names of Object.prototype's members included (issue #34). */
import { describe, expect, it } from 'vitest';
import { toQuery } from './query.ts';

describe('toQuery', () => {
  it.each([
    ['limit=5', { limit: '5' }],
    ['a=1&a=2&a=3', { a: ['1', '2', '3'] }],
    ['constructor=x', { constructor: 'x' }],
    ['toString=x&toString=y', { toString: ['x', 'y'] }],
    ['__proto__=x', { ['__proto__']: 'x' }],
    ['__proto__=x&__proto__=y&hasOwnProperty=z', { ['__proto__']: ['x', 'y'], hasOwnProperty: 'z' }],
  ])('%s', (search, expected) => {
    const query = toQuery(new URLSearchParams(search));
    expect(Object.entries(query)).toEqual(Object.entries(expected));
    expect(Object.getPrototypeOf(query)).toBe(Object.prototype);
  });
});
