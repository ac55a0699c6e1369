/**
 * The mock's pictures (D49): a PNG of exactly the size a URL asks for, drawn from the path alone
 * (same bytes every time), so that a person can tell them apart: a colour from the key, and the
 * label (sku or product name), the key (resource id) and the size with its ratio written across
 * it in a bitmap font (packages/mock-core/src/media/font.ts; no system font). The design is bands of flat colour, so
 * that most rows repeat the one above and even a 4K image is small and quick to encode
 * (packages/mock-core/src/media/png.ts); only one row of each band is painted (D256).
 */
import { sha256 } from '../../../contract/platform/crypto.ts';
import { glyph, GLYPH_HEIGHT, GLYPH_WIDTH, textWidth } from './font.ts';
import { ratioOf, type Size } from './links.ts';
import { encodeScanlines } from './png.ts';

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

/** A filled rectangle [x0, x1) × [y0, y1) of one colour, in paint order. */
interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  colour: Rgb;
}

/**
 * What a picture is made of: rectangles painted in order (D256). Rows between two consecutive
 * rectangle edges are covered by the same rectangles, so they are equal: only the first row of each
 * such band is painted, the others are PNG "up" rows (zeros) without being painted or compared.
 * The main thread's work is (number of bands) × (row width), a few dozen rows for any size, where a
 * whole canvas was width × height (a 4096×4096 picture: about 50 rows of 12 KiB instead of 48 MiB
 * painted and compared).
 */
class Canvas {
  readonly rects: Rect[] = [];
  constructor(
    readonly width: number,
    readonly height: number,
  ) {}

  /** Fill [x0, x1) × [y0, y1) (clamped to the picture, whole pixels). */
  fill(x0: number, y0: number, x1: number, y1: number, colour: Rgb): void {
    x0 = Math.max(0, Math.floor(x0));
    y0 = Math.max(0, Math.floor(y0));
    x1 = Math.min(this.width, Math.ceil(x1));
    y1 = Math.min(this.height, Math.ceil(y1));
    if (x0 >= x1 || y0 >= y1) return;
    this.rects.push({ x0, y0, x1, y1, colour });
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

  /**
   * The PNG scanlines (png.ts `scanlines`, the same bytes) in pieces: band by band, its first row
   * painted and written ("none", or "up" when it equals the row above), its other rows "up" (a
   * filter byte 2 and zeros), handed over as one shared piece of at most UP_ROWS rows. `meter.rows`
   * counts the rows painted.
   */
  scanlines(meter?: RenderMeter): Uint8Array[] {
    const { width, height } = this;
    const stride = width * 3;
    const up = new Uint8Array((stride + 1) * Math.min(UP_ROWS, height));
    for (let at = 0; at < up.length; at += stride + 1) up[at] = 2;
    const pieces: Uint8Array[] = [];
    const edges = new Set<number>([0, height]);
    for (const r of this.rects) edges.add(r.y0).add(r.y1);
    const cuts = [...edges].sort((a, b) => a - b);
    let previous: Uint8Array | undefined;
    for (let b = 0; b + 1 < cuts.length; b++) {
      const top = cuts[b]!;
      const bottom = cuts[b + 1]!;
      const line = new Uint8Array(stride + 1);
      const row = line.subarray(1);
      for (const r of this.rects) {
        if (r.y0 > top || r.y1 <= top) continue;
        const [red, green, blue] = r.colour;
        for (let x = r.x0; x < r.x1; x++) {
          row[x * 3] = red;
          row[x * 3 + 1] = green;
          row[x * 3 + 2] = blue;
        }
      }
      if (meter) meter.rows += 1;
      pieces.push(previous && sameBytes(row, previous) ? up.subarray(0, stride + 1) : line);
      previous = row;
      for (let left = bottom - top - 1; left > 0; left -= UP_ROWS) pieces.push(up.subarray(0, Math.min(left, UP_ROWS) * (stride + 1)));
    }
    return pieces;
  }
}

/** Repeated rows handed to the encoder at once (one shared piece of "up" rows, 768 KiB at 4096 pixels wide). */
const UP_ROWS = 64;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Counts the work of a render on the thread that calls it (a test's view of D256). */
export interface RenderMeter {
  /** Rows painted (each `width` pixels). */
  rows: number;
}

/** The lines written on a picture: label, key, size and ratio. */
export function captionOf(picture: Picture): string[] {
  return [picture.label, picture.key, `${picture.width}x${picture.height} ${ratioOf(picture)}`];
}

/** The PNG of a picture (RGB, 8 bits per channel). */
export function renderPng(picture: Picture, meter?: RenderMeter): Promise<Uint8Array> {
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

  return encodeScanlines(canvas.scanlines(meter), width, height);
}
