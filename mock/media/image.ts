/**
 * The mock's pictures (D49): a PNG of exactly the size a URL asks for, drawn from the path alone
 * (same bytes every time), so that a person can tell them apart: a colour from the key, and the
 * label (sku or product name), the key (resource id) and the size with its ratio written across
 * it in a bitmap font (mock/media/font.ts; no system font). The design is bands of flat colour, so
 * that most rows repeat the one above and even a 4K image is small and quick to encode
 * (mock/media/png.ts).
 */
import { sha256 } from '../../platform/crypto.ts';
import { glyph, GLYPH_HEIGHT, GLYPH_WIDTH, textWidth } from './font.ts';
import { ratioOf, type Size } from './links.ts';
import { encodePng } from './png.ts';

type Rgb = readonly [number, number, number];

export interface Picture extends Size {
  key: string;
  label: string;
}

/** A colour of the key's own hue (HSL → RGB), so a resource keeps its colour in every size. */
function palette(key: string): { background: Rgb; band: Rgb; panel: Rgb } {
  const digest = sha256(key);
  const hue = ((digest[0]! << 8) | digest[1]!) % 360;
  return { background: hsl(hue, 0.55, 0.62), band: hsl(hue, 0.6, 0.38), panel: hsl(hue, 0.45, 0.2) };
}

function hsl(h: number, s: number, l: number): Rgb {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number): number => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

class Canvas {
  readonly data: Uint8Array;
  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.data = new Uint8Array(width * height * 3);
  }

  /** Fill [x0, x1) × [y0, y1): one row is painted, the others copied from it. */
  fill(x0: number, y0: number, x1: number, y1: number, [r, g, b]: Rgb): void {
    x0 = Math.max(0, Math.floor(x0));
    y0 = Math.max(0, Math.floor(y0));
    x1 = Math.min(this.width, Math.ceil(x1));
    y1 = Math.min(this.height, Math.ceil(y1));
    if (x0 >= x1 || y0 >= y1) return;
    const stride = this.width * 3;
    const first = y0 * stride;
    for (let x = x0; x < x1; x++) {
      const i = first + x * 3;
      this.data[i] = r;
      this.data[i + 1] = g;
      this.data[i + 2] = b;
    }
    for (let y = y0 + 1; y < y1; y++) this.data.copyWithin(y * stride + x0 * 3, first + x0 * 3, first + x1 * 3);
  }

  /** One line of text, `scale` image pixels per font pixel, centred on x. */
  text(text: string, cx: number, y: number, scale: number, colour: Rgb): void {
    let x = Math.round(cx - (textWidth(text) * scale) / 2);
    for (const ch of text) {
      const rows = glyph(ch);
      for (let gy = 0; gy < GLYPH_HEIGHT; gy++) {
        for (let gx = 0; gx < GLYPH_WIDTH; gx++) {
          if (rows[gy]![gx]) this.fill(x + gx * scale, y + gy * scale, x + (gx + 1) * scale, y + (gy + 1) * scale, colour);
        }
      }
      x += (GLYPH_WIDTH + 1) * scale;
    }
  }
}

/** The lines written on a picture: label, key, size and ratio. */
export function captionOf(picture: Picture): string[] {
  return [picture.label, picture.key, `${picture.width}x${picture.height} ${ratioOf(picture)}`];
}

/** The PNG of a picture (RGB, 8 bits per channel). */
export function renderPng(picture: Picture): Promise<Uint8Array> {
  const { width, height } = picture;
  const canvas = new Canvas(width, height);
  const colours = palette(picture.key);
  canvas.fill(0, 0, width, height, colours.background);
  const band = Math.max(1, Math.round(height * 0.08));
  canvas.fill(0, 0, width, band, colours.band);
  canvas.fill(0, height - band, width, height, colours.band);

  const lines = captionOf(picture);
  const widest = Math.max(...lines.map(textWidth));
  const lineHeight = GLYPH_HEIGHT + 3;
  // The largest whole scale at which the caption fits 90% of the width and 60% of the height;
  // an image too small for even one font pixel per pixel shows its colours only.
  const scale = Math.floor(Math.min((width * 0.9) / widest, (height * 0.6) / (lines.length * lineHeight)));
  if (scale >= 1) {
    const pad = 2 * scale;
    const blockHeight = lines.length * lineHeight * scale - 3 * scale;
    const top = Math.round((height - blockHeight) / 2);
    canvas.fill(width / 2 - (widest * scale) / 2 - pad, top - pad, width / 2 + (widest * scale) / 2 + pad, top + blockHeight + pad, colours.panel);
    lines.forEach((line, i) => canvas.text(line, width / 2, top + i * lineHeight * scale, scale, [255, 255, 255]));
  }

  return encodePng(canvas.data, width, height);
}
