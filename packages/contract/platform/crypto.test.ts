/** The platform's hashes and encodings give node:crypto's and Buffer's bytes, on either path (crypto.ts). */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { utf8, utf8Length } from './bytes.ts';
import { equalBytes, fromBase64, sha256, sha256Base64url, sha256Hex, sha256Portable, toBase64, toBase64url } from './crypto.ts';

const SAMPLES = ['', 'a', 'ab', 'abc', 'é ☃ 𝄞', 'x'.repeat(1000), JSON.stringify({ v: 1, l: 'creatives:live', i: 7, p: 1 })];

describe('platform crypto', () => {
  it.each(SAMPLES.map((s) => [s.slice(0, 20), s]))('sha256 and its encodings of %j are node:crypto\'s and Buffer\'s', (_label, text) => {
    const expected = createHash('sha256').update(text).digest();
    expect(Buffer.from(sha256(text))).toEqual(expected);
    expect(Buffer.from(sha256Portable(text))).toEqual(expected);
    expect(sha256Hex(text)).toBe(expected.toString('hex'));
    expect(sha256Base64url(text)).toBe(expected.toString('base64url'));
    const bytes = Buffer.from(text);
    expect(toBase64(bytes)).toBe(bytes.toString('base64'));
    expect(toBase64url(bytes)).toBe(bytes.toString('base64url'));
    expect(Buffer.from(fromBase64(bytes.toString('base64url')))).toEqual(bytes);
    expect(Buffer.from(fromBase64(bytes.toString('base64')))).toEqual(bytes);
    expect(utf8Length(text)).toBe(bytes.length);
  });

  it('decodes leniently as Buffer does (stray characters skipped, the first = ends it), and UTF-8 as Buffer does', () => {
    for (const text of ['ab$cd', 'YWJj=ZGVm', 'YW Jj\n', '!!!', 'Zm9v+/-_']) expect(Buffer.from(fromBase64(text)), text).toEqual(Buffer.from(text, 'base64'));
    for (const bytes of [[0xef, 0xbb, 0xbf, 0x7b, 0x7d], [0xff, 0x41], [0xe2, 0x82]]) expect(utf8(new Uint8Array(bytes))).toBe(Buffer.from(bytes).toString('utf8'));
    expect(equalBytes(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(equalBytes(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(equalBytes(new Uint8Array([1]), new Uint8Array([1, 0]))).toBe(false);
  });
});
