/**
 * Bytes without Node's Buffer, for the core that runs in Node and in browsers (D60): UTF-8 as
 * Buffer decodes and encodes it (bad sequences replaced by U+FFFD, a byte-order mark kept).
 */
const DECODER = new TextDecoder('utf-8', { ignoreBOM: true });
const ENCODER = new TextEncoder();

export function utf8(bytes: Uint8Array): string {
  return DECODER.decode(bytes);
}

export function utf8Bytes(text: string): Uint8Array {
  return ENCODER.encode(text);
}

/** The UTF-8 length of a string, without encoding it when it is plain ASCII-sized. */
export function utf8Length(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) length += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      length += 2; // a surrogate pair: 4 bytes for 2 UTF-16 units
      i += 1;
    } else length += 2;
  }
  return length;
}
