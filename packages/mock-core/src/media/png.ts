/**
 * PNG framing over zlib's deflate (D49): an RGB, 8-bit, non-interlaced image whose rows are filtered
 * "up" when they repeat the row above (all zeros, which deflate squeezes to almost nothing) and
 * "none" otherwise. In Node the compression is node:zlib's (level 6), run asynchronously on libuv's
 * thread pool, so a 4K picture does not stall the event loop that answers the API; where there is
 * no node:zlib (the in-process mock in a browser, D60) it is the web's CompressionStream('deflate'),
 * the same zlib format. pngjs (a dependency kept for the tests) decodes every size the tests render,
 * an independent check of these bytes.
 */
import { nodeBuiltin } from '../../../contract/platform/node.ts';

interface NodeDeflate {
  write(chunk: Uint8Array): boolean;
  end(): void;
  on(event: 'data', listener: (chunk: Uint8Array) => void): this;
  on(event: 'end', listener: () => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
}

interface NodeZlib {
  createDeflate(options: { level: number }): NodeDeflate;
}

const zlib = nodeBuiltin<NodeZlib>('node:zlib');

/**
 * zlib's deflate of the concatenated chunks (the same bytes however the input is cut: no flush in
 * between). The chunks are handed over as they are (a chunk may be one buffer given many times), so
 * a picture's repeated rows are never copied into one large buffer on the caller's thread (D256).
 */
function deflate(chunks: Iterable<Uint8Array>): Promise<Uint8Array> {
  if (zlib) {
    return new Promise((resolve, reject) => {
      const stream = zlib.createDeflate({ level: 6 });
      const out: Uint8Array[] = [];
      stream.on('data', (chunk) => out.push(chunk));
      stream.on('error', reject);
      stream.on('end', () => resolve(concat(out)));
      for (const chunk of chunks) stream.write(chunk);
      stream.end();
    });
  }
  const stream = new Blob([...chunks] as Uint8Array<ArrayBuffer>[]).stream().pipeThrough(new CompressionStream('deflate'));
  return new Response(stream).arrayBuffer().then((buffer) => new Uint8Array(buffer));
}

const SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function uint32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value);
  return out;
}

const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

function crc32(parts: Uint8Array[]): number {
  let c = -1;
  for (const part of parts) for (let i = 0; i < part.length; i++) c = CRC_TABLE[(c ^ part[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const head = new Uint8Array(8);
  head.set(uint32(data.length), 0);
  for (let i = 0; i < 4; i++) head[4 + i] = type.charCodeAt(i);
  return concat([head, data, uint32(crc32([head.subarray(4), data]))]);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The filtered scanlines: a row equal to the one above is "up" (filter 2, zeros), else "none". */
export function scanlines(rgb: Uint8Array, width: number, height: number): Uint8Array {
  const stride = width * 3;
  const out = new Uint8Array((stride + 1) * height); // zeros: an "up" row needs only its filter byte
  for (let y = 0; y < height; y++) {
    const row = rgb.subarray(y * stride, (y + 1) * stride);
    const at = y * (stride + 1);
    if (y > 0 && sameBytes(row, rgb.subarray((y - 1) * stride, y * stride))) {
      out[at] = 2;
    } else {
      out.set(row, at + 1);
    }
  }
  return out;
}

/** Encode RGB pixels (3 bytes each, rows top to bottom) as a PNG. */
export async function encodePng(rgb: Uint8Array, width: number, height: number): Promise<Uint8Array> {
  if (rgb.length !== width * height * 3) throw new Error(`encodePng: ${rgb.length} bytes is not ${width}×${height} RGB`);
  return encodeScanlines([scanlines(rgb, width, height)], width, height);
}

/**
 * Encode filtered scanlines (a filter byte, then the row, for each row: what `scanlines` makes) as a
 * PNG; they may come in pieces of any size (packages/mock-core/src/media/image.ts hands repeated rows over as one
 * shared piece).
 */
export async function encodeScanlines(pieces: readonly Uint8Array[], width: number, height: number): Promise<Uint8Array> {
  const length = pieces.reduce((n, piece) => n + piece.length, 0);
  if (length !== (width * 3 + 1) * height) throw new Error(`encodeScanlines: ${length} bytes is not ${width}×${height} filtered RGB`);
  const header = new Uint8Array(13);
  header.set(uint32(width), 0);
  header.set(uint32(height), 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const data = await deflate(pieces);
  return concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', data), chunk('IEND', new Uint8Array(0))]);
}
