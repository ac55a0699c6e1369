/**
 * The document version is passed in, not fixed by the order of imports (D210): a choice made before
 * packages/contract/spec/contract.ts reads it wins over the environment, and a different choice after the read throws
 * instead of serving the other document silently.
 */
import { describe, expect, it } from 'vitest';
import { apiVersion } from './contract.ts';
import { chooseApiVersion, versionChoice, type ApiVersion } from './api-versions.ts';

describe('the choice of the document version', () => {
  it.each([
    { env: {}, chosen: undefined, read: 'current' },
    { env: { CGS_API_VERSION: 'next' }, chosen: undefined, read: 'next' },
    { env: { CONFORMANCE_API_VERSION: 'next' }, chosen: undefined, read: 'next' },
    { env: { CGS_API_VERSION: 'next' }, chosen: 'current', read: 'current' },
    { env: {}, chosen: 'next', read: 'next' },
  ] as const)('env $env, chosen $chosen: reads $read', ({ env, chosen, read }) => {
    const choice = versionChoice(env);
    if (chosen !== undefined) choice.choose(chosen);
    expect(choice.read()).toBe(read);
    expect(choice.read()).toBe(read);
  });

  it('a choice after the read: the same version is kept, another throws', () => {
    const choice = versionChoice({});
    expect(choice.read()).toBe('current');
    expect(() => choice.choose('current')).not.toThrow();
    expect(() => choice.choose('next')).toThrow(/chosen after packages\/contract\/spec\/contract.ts loaded the 'current' document/);
    expect(choice.read()).toBe('current');
  });

  it('this process: packages/contract/spec/contract.ts has read its version, so choosing another now throws', () => {
    const other: ApiVersion = apiVersion === 'current' ? 'next' : 'current';
    expect(() => chooseApiVersion(other)).toThrow(/chosen after packages\/contract\/spec\/contract.ts loaded/);
    expect(() => chooseApiVersion(apiVersion)).not.toThrow();
  });
});
