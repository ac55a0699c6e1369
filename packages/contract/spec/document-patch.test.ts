/**
 * `next` as changes to the current document (D286): the diff rebuilds its target exactly, key order
 * included, without touching its base; and the document packages/contract/spec/contract.ts reads under
 * CGS_API_VERSION=next (the generated patch applied to the generated current document) is the
 * generated openapi.next.json, byte for byte as JSON.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyDocumentPatch, diffDocuments } from './document-patch.ts';

const generated = (file: string) => JSON.parse(readFileSync(new URL(`./generated/${file}`, import.meta.url), 'utf8')) as { document: unknown };

describe('diffDocuments and applyDocumentPatch', () => {
  it.each([
    ['equal', { a: 1 }, { a: 1 }, 0],
    ['a value changed', { a: 1, b: { c: 'x' } }, { a: 1, b: { c: 'y' } }, 1],
    ['a key removed', { a: 1, b: 2 }, { a: 1 }, 1],
    ['a key added at the end', { a: 1 }, { a: 1, b: { c: [1] } }, 1],
    ['a key added before another: the object is replaced (key order)', { a: 1, c: 3 }, { a: 1, b: 2, c: 3 }, 1],
    ['keys reordered', { a: 1, b: 2 }, { b: 2, a: 1 }, 1],
    ['an array changed: replaced whole', { a: [1, 2] }, { a: [1, 3] }, 1],
    ['an object becomes a scalar', { a: { b: 1 } }, { a: null }, 1],
    ['the root replaced', [1], { a: 1 }, 1],
  ] as const)('%s', (_, from, to, count) => {
    const before = JSON.stringify(from);
    const patch = diffDocuments(from, to);
    expect(patch).toHaveLength(count);
    expect(JSON.stringify(applyDocumentPatch(from, patch))).toBe(JSON.stringify(to));
    expect(JSON.stringify(from)).toBe(before);
  });
});

describe('the pending version read through the patch', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it('packages/contract/spec/contract.ts under CGS_API_VERSION=next reads openapi.next.json exactly, and the patch is small', async () => {
    vi.stubEnv('CGS_API_VERSION', 'next');
    vi.stubEnv('CONFORMANCE_API_VERSION', '');
    vi.resetModules();
    const contract = await import('./contract.ts');
    expect(contract.apiVersion).toBe('next');
    expect(JSON.stringify(contract.document)).toBe(JSON.stringify(generated('openapi.next.json').document));
    expect(JSON.stringify(contract.document)).not.toBe(JSON.stringify(generated('openapi.json').document));
    expect(readFileSync(new URL('./generated/openapi.next-patch.json', import.meta.url)).length).toBeLessThan(16_000);
  });
});
