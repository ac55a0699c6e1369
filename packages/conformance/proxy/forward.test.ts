import { describe, expect, it } from 'vitest';
import { forwardable, forwardableHeaders } from './forward.ts';

describe('what a hop never forwards', () => {
  it.each([
    ['Connection', 'keep-alive', false],
    ['Keep-Alive', 'timeout=5', false],
    ['Transfer-Encoding', 'chunked', false],
    ['Upgrade', 'h2c', false],
    ['TE', 'trailers', false],
    ['Trailer', 'x', false],
    ['Proxy-Connection', 'keep-alive', false],
    ['Host', 'example', false],
    ['X-Named', 'by Connection', false],
    ['ETag', '"v1"', true],
    ['Content-Length', '3', true],
    ['RateLimit-Policy', '"default";q=10;w=1', true],
  ])('%s: forwarded %s', (name, value, kept) => {
    const raw = ['Connection', 'keep-alive, X-Named', name, value];
    expect(forwardable(raw, 'keep-alive, X-Named').includes(name)).toBe(kept);
    expect(Object.hasOwn(forwardableHeaders({ connection: 'keep-alive, X-Named', [name.toLowerCase()]: value }), name.toLowerCase())).toBe(kept);
  });
  it('keeps the order and case of the raw field lines, and drops what it is told to', () => {
    expect(forwardable(['B', '1', 'a', '2', 'B', '3'], undefined)).toEqual(['B', '1', 'a', '2', 'B', '3']);
    expect(forwardableHeaders({ 'content-length': '3', etag: '"x"', ':status': '200' }, ['content-length'])).toEqual({ etag: '"x"' });
  });
});
