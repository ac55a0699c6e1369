/**
 * PNG framing over node:zlib (D49): an RGB, 8-bit, non-interlaced image whose rows are filtered
 * "up" when they repeat the row above (all zeros, which deflate squeezes to almost nothing) and
 * "none" otherwise. The compression is zlib's, run asynchronously on libuv's thread pool, so a 4K
 * picture does not stall the event loop that answers the API. pngjs (a dependency kept for the
 * tests) decodes every size the tests render, an independent check of these bytes.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const deflate = promisify(zlib.deflate);
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

function crc32(parts: Buffer[]): number {
  let c = -1;
  for (const part of parts) for (let i = 0; i < part.length; i++) c = CRC_TABLE[(c ^ part[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(crc32([head.subarray(4), data]), 0);
  return Buffer.concat([head, data, tail]);
}

/** The filtered scanlines: a row equal to the one above is "up" (filter 2, zeros), else "none". */
export function scanlines(rgb: Buffer, width: number, height: number): Buffer {
  const stride = width * 3;
  const out = Buffer.alloc((stride + 1) * height); // zeros: an "up" row needs only its filter byte
  for (let y = 0; y < height; y++) {
    const row = rgb.subarray(y * stride, (y + 1) * stride);
    const at = y * (stride + 1);
    if (y > 0 && row.equals(rgb.subarray((y - 1) * stride, y * stride))) {
      out[at] = 2;
    } else {
      row.copy(out, at + 1);
    }
  }
  return out;
}

/** Encode RGB pixels (3 bytes each, rows top to bottom) as a PNG. */
export async function encodePng(rgb: Buffer, width: number, height: number): Promise<Buffer> {
  if (rgb.length !== width * height * 3) throw new Error(`encodePng: ${rgb.length} bytes is not ${width}×${height} RGB`);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const data = await deflate(scanlines(rgb, width, height), { level: 6 });
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', data), chunk('IEND', Buffer.alloc(0))]);
}
