import { describe, expect, it } from 'vitest';
import { embedCode, mediaBase, mediaFields, mediaPath, mediaUrl, parseMediaPath, parsePublicUrl, ratioOf, scaledTo, sizeForRatio, slug } from './links.ts';

describe('sizeForRatio: the largest size exactly in the ratio within the edge', () => {
  it.each([
    ['1:1', 1024, 1024, 1024],
    ['4:5', 1024, 816, 1020],
    ['9:16', 640, 360, 640],
    ['4:5', 640, 512, 640],
    ['16:9', 320, 320, 180],
    ['3:2', 1024, 1023, 682],
    ['8:10', 1024, 816, 1020], // reduced first
    [null, 1024, 1024, 1024],
  ] as const)('%s within %i → %i×%i', (ratio, edge, width, height) => {
    const size = sizeForRatio(ratio, edge);
    expect(size).toEqual({ width, height });
    expect(ratioOf(size)).toBe(ratioOf(sizeForRatio(ratio ?? '1:1', 10_000)));
  });
});

describe('scaledTo keeps the ratio', () => {
  it.each([
    [{ width: 1080, height: 1920 }, 320, { width: 180, height: 320 }],
    [{ width: 4096, height: 2304 }, 320, { width: 320, height: 180 }],
    [{ width: 1280, height: 1024 }, 320, { width: 320, height: 256 }],
    [{ width: 1021, height: 997 }, 320, { width: 320, height: 312 }], // no exact ratio that small: rounded
  ])('%o → %o', (size, edge, want) => expect(scaledTo(size, edge)).toEqual(want));
});

describe('media paths: made and read back in one place', () => {
  it('a base and a size make a path the route reads back', () => {
    const base = mediaBase('crv_abc123.k9', 'MPN SHARED/01');
    expect(base).toBe('/media/crv_abc123.k9/MPN-SHARED-01');
    const path = mediaPath(base, { width: 816, height: 1020 }, 'png');
    expect(parseMediaPath(path)).toEqual({ key: 'crv_abc123.k9', label: 'MPN-SHARED-01', width: 816, height: 1020, format: 'png' });
    expect(parseMediaPath(mediaPath(base, { width: 180, height: 320 }, 'webm'))?.format).toBe('webm');
    expect(parseMediaPath(mediaPath(base, { width: 180, height: 320 }, 'html'))?.format).toBe('html');
  });

  it.each([
    '/media/crv_1/L/100x100.jpg',
    '/media/crv_1/L/0x100.png',
    '/media/crv_1/L/100x0100.png',
    '/media/crv_1/L/4097x100.png',
    '/media/crv_1/L/100x5000.png',
    '/media/crv_1/L/extra/100x100.png',
    '/media/../L/100x100.png',
    '/media/crv_1/L%20x/100x100.png',
    '/media/crv_1/L/100x100.png/',
    '/media/crv_1/100x100.png',
    '/media/',
  ])('%s is not a media path', (path) => expect(parseMediaPath(path)).toBeUndefined());

  it('refuses a key the grammar cannot read back', () => {
    expect(() => mediaBase('crv/1', 'x')).toThrow();
    expect(() => mediaBase('', 'x')).toThrow();
  });

  it.each([
    ['MPN-SHARED-01', 'MPN-SHARED-01'],
    ['Ergonomic Steel Chair', 'Ergonomic-Steel-Chair'],
    ['Café  crème!', 'Cafe-creme'],
    ['', 'item'],
    [null, 'item'],
    ['x'.repeat(60), 'x'.repeat(40)],
  ])('slug(%j) = %j', (text, want) => expect(slug(text)).toBe(want));
});

describe('mediaUrl and mediaFields', () => {
  const stored = { url: '/media/ast_1/SKU', thumbnailUrl: '/media/ast_1/SKU', playerUrl: '/media/ast_1/SKU' };

  it('absolute URLs on the configured origin; a full URL kept from elsewhere is handed out as it is', () => {
    expect(mediaUrl('http://127.0.0.1:4141', '/media/ast_1/SKU', { width: 10, height: 20 }, 'png')).toBe('http://127.0.0.1:4141/media/ast_1/SKU/10x20.png');
    expect(mediaUrl('http://h', 'https://elsewhere.example/x.png', { width: 10, height: 20 }, 'png')).toBe('https://elsewhere.example/x.png');
  });

  it('a video: .webm, a small still, a player page, and an iframe in the same ratio (#17 item 10)', () => {
    const f = mediaFields('http://h', stored, true, { width: 816, height: 1020 });
    expect(f).toEqual({
      url: 'http://h/media/ast_1/SKU/816x1020.webm',
      thumbnailUrl: 'http://h/media/ast_1/SKU/256x320.png',
      playerUrl: 'http://h/media/ast_1/SKU/816x1020.html',
      embedCode: embedCode('http://h/media/ast_1/SKU/816x1020.html', { width: 512, height: 640 }),
    });
    expect(f.embedCode).toContain('width="512" height="640"');
    expect(f.embedCode).toContain('src="http://h/media/ast_1/SKU/816x1020.html"');
  });

  it('an image: .png, no player, no embedCode; a thumbnail only when one is stored', () => {
    expect(mediaFields('http://h', { ...stored, playerUrl: null, thumbnailUrl: null }, false, { width: 1024, height: 1024 })).toEqual({ url: 'http://h/media/ast_1/SKU/1024x1024.png', thumbnailUrl: null, playerUrl: null, embedCode: null });
  });

  it('parsePublicUrl keeps an origin and a path prefix, and refuses what is not http(s)', () => {
    expect(parsePublicUrl('http://localhost:4141/')).toBe('http://localhost:4141');
    expect(parsePublicUrl('https://dev.example.test/mock/')).toBe('https://dev.example.test/mock');
    expect(parsePublicUrl('ftp://x')).toBeInstanceOf(Error);
    expect(parsePublicUrl('localhost:4141')).toBeInstanceOf(Error);
  });
});
