import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { captionOf, renderPng, type Picture } from './image.ts';
import { encodePng, scanlines } from './png.ts';

const picture = (width: number, height: number, key = 'crv_abc123.k9', label = 'MPN-SHARED-01'): Picture => ({ key, label, width, height });

/** Width and height decoded by pngjs (an independent decoder), and the pixels. */
function decode(bytes: Uint8Array): PNG {
  return PNG.sync.read(Buffer.from(bytes));
}

function pixel(png: PNG, x: number, y: number): string {
  const i = (y * png.width + x) * 4;
  return [png.data[i], png.data[i + 1], png.data[i + 2]].join(',');
}

describe('renderPng', () => {
  it.each([
    [1, 1],
    [7, 3],
    [320, 180],
    [816, 1020],
    [1080, 1920],
  ])('%i×%i decodes to exactly that size', async (width, height) => {
    const png = decode(await renderPng(picture(width, height)));
    expect([png.width, png.height]).toEqual([width, height]);
  });

  it('UPSC 4K: a 4096-pixel edge decodes to that size and stays small', async () => {
    const bytes = await renderPng(picture(4096, 2304, 'ast_up4k'));
    const png = decode(bytes);
    expect([png.width, png.height]).toEqual([4096, 2304]);
    expect(bytes.length).toBeLessThan(200_000); // flat bands: the pixels compress to almost nothing
  });

  it('the same picture gives the same bytes; another key another colour, another size other bytes', async () => {
    const a = Buffer.from(await renderPng(picture(300, 200)));
    expect(Buffer.from(await renderPng(picture(300, 200))).equals(a)).toBe(true);
    expect(Buffer.from(await renderPng(picture(301, 200))).equals(a)).toBe(false);
    const other = await renderPng(picture(300, 200, 'crv_other'));
    expect(pixel(decode(other), 2, 100)).not.toBe(pixel(decode(a), 2, 100));
  });

  it('writes the label, the key and the size with its ratio across the picture (light text on a dark panel)', async () => {
    expect(captionOf(picture(816, 1020))).toEqual(['MPN-SHARED-01', 'crv_abc123.k9', '816x1020 4:5']);
    const png = decode(await renderPng(picture(816, 1020)));
    const colours = new Set<string>();
    for (let y = 0; y < png.height; y += 3) for (let x = 0; x < png.width; x += 3) colours.add(pixel(png, x, y));
    expect(colours.has('255,255,255')).toBe(true); // the text
    expect(colours.size).toBeGreaterThanOrEqual(4); // background, bands, panel, text
    // the panel is in the middle, the background near the edge
    expect(pixel(png, 408, 510)).not.toBe(pixel(png, 2, 510));
  });
});

describe('encodePng', () => {
  it('round-trips arbitrary RGB pixels through pngjs, repeated rows or not', async () => {
    const width = 5;
    const height = 4;
    const rgb = Buffer.alloc(width * height * 3);
    for (let i = 0; i < rgb.length; i++) rgb[i] = (i * 37) % 256;
    rgb.copy(rgb, width * 3 * 2, width * 3, width * 3 * 2); // row 2 repeats row 1
    const png = decode(await encodePng(rgb, width, height));
    for (let p = 0; p < width * height; p++) expect([png.data[p * 4], png.data[p * 4 + 1], png.data[p * 4 + 2]]).toEqual([rgb[p * 3], rgb[p * 3 + 1], rgb[p * 3 + 2]]);
  });

  it('filters a row equal to the one above as "up" (zeros), any other as "none"', () => {
    const rgb = Buffer.from([1, 2, 3, 1, 2, 3, 9, 9, 9]); // 1×3: rows 0 and 1 equal
    expect([...scanlines(rgb, 1, 3)]).toEqual([0, 1, 2, 3, 2, 0, 0, 0, 0, 9, 9, 9]);
  });

  it('refuses pixels that do not fill the size', async () => {
    await expect(encodePng(Buffer.alloc(5), 2, 1)).rejects.toThrow(/is not 2×1 RGB/);
  });
});
