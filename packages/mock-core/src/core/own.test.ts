/** ownValue and putOwn: a name from a request finds and sets own members only (issue #34). */
import { describe, expect, it } from 'vitest';
import { resolveReferences } from '../scenario/references.ts';
import { ownValue, putOwn } from './own.ts';

describe('ownValue / putOwn', () => {
  const FILES: Record<string, string> = { 'a.css': 'text/css' };
  it.each(['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'])('%s is not found in a literal, and is set as its own member', (name) => {
    expect(ownValue(FILES, name)).toBeUndefined();
    const out: Record<string, unknown> = {};
    putOwn(out, name, 'x');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.entries(out)).toEqual([[name, 'x']]);
    expect(JSON.parse(JSON.stringify(out))).toEqual(JSON.parse(`{"${name}":"x"}`));
  });
  it('finds an own member', () => expect(ownValue(FILES, 'a.css')).toBe('text/css'));
  it("a scenario's member named __proto__ stays a member after its references are resolved", () => {
    const resolved = resolveReferences(JSON.parse('{"__proto__":{"polluted":true},"name":"${a.b}"}'), new Map([['a', { b: 'B' }]])) as Record<string, unknown>;
    expect(Object.getPrototypeOf(resolved)).toBe(Object.prototype);
    expect(JSON.stringify(resolved)).toBe('{"__proto__":{"polluted":true},"name":"B"}');
  });
});
