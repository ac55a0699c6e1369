/**
 * The hashes and random bytes of the mock, for every platform it runs on (D60): the node:http
 * server and the in-process MSW handlers in Node or in a browser. Nothing here imports a Node-only
 * module: SHA-256 is node:crypto's when the process offers it (`process.getBuiltinModule`, Node
 * 20.16+: native, about ten times faster on large bodies, which the server hashes for every ETag),
 * else @noble/hashes (pure JavaScript, synchronous, as the pipeline needs); random bytes are Web
 * Crypto's `crypto.getRandomValues`, which Node and browsers both have. Both digests are the same
 * bytes (crypto.test.ts).
 */
import { sha256 as nobleSha256 } from '@noble/hashes/sha2';

type NodeHash = { update(data: string | Uint8Array): NodeHash; digest(): Uint8Array };
type NodeCrypto = { createHash(algorithm: 'sha256'): NodeHash };

const ENCODER = new TextEncoder();

function nodeCrypto(): NodeCrypto | undefined {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    return host?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;
  } catch {
    return undefined;
  }
}

const native = nodeCrypto();

/** SHA-256 in JavaScript (@noble/hashes): what the browser uses, exported for the test that compares both. */
export function sha256Portable(data: string | Uint8Array): Uint8Array {
  return nobleSha256(typeof data === 'string' ? ENCODER.encode(data) : data);
}

/** SHA-256 of a string (its UTF-8 bytes) or bytes. */
export const sha256: (data: string | Uint8Array) => Uint8Array = native ? (data) => native.createHash('sha256').update(data).digest() : sha256Portable;

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 1) out += HEX[bytes[i]!]!;
  return out;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function base64With(bytes: Uint8Array, alphabet: string, pad: boolean): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += alphabet[(n >> 18) & 63]! + alphabet[(n >> 12) & 63]! + alphabet[(n >> 6) & 63]! + alphabet[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += alphabet[(n >> 18) & 63]! + alphabet[(n >> 12) & 63]! + (pad ? '==' : '');
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += alphabet[(n >> 18) & 63]! + alphabet[(n >> 12) & 63]! + alphabet[(n >> 6) & 63]! + (pad ? '=' : '');
  }
  return out;
}

/** Base64 with padding (RFC 4648 section 4), as Buffer#toString('base64'). */
export function toBase64(bytes: Uint8Array): string {
  return base64With(bytes, B64, true);
}

/** Base64url without padding (RFC 4648 section 5), as Buffer#toString('base64url'). */
export function toBase64url(bytes: Uint8Array): string {
  return base64With(bytes, B64URL, false);
}

const DECODE = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i += 1) {
  DECODE[B64.charCodeAt(i)] = i;
  DECODE[B64URL.charCodeAt(i)] = i;
}

/**
 * Base64 or base64url (either alphabet, padding optional) to bytes, as leniently as
 * Buffer.from(text, 'base64'): characters outside both alphabets are skipped, the first `=` ends it.
 */
export function fromBase64(text: string): Uint8Array {
  const out = new Uint8Array(Math.floor((text.length * 3) / 4) + 3);
  let length = 0;
  let bits = 0;
  let value = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 61 /* = */) break;
    const digit = code < 128 ? DECODE[code]! : -1;
    if (digit < 0) continue;
    value = (value << 6) | digit;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[length++] = (value >> bits) & 0xff;
    }
  }
  return out.slice(0, length);
}

export function sha256Hex(data: string | Uint8Array): string {
  return toHex(sha256(data));
}

export function sha256Base64url(data: string | Uint8Array): string {
  return toBase64url(sha256(data));
}

/** `n` bytes from the platform's CSPRNG (Web Crypto). */
export function randomBytes(n: number): Uint8Array {
  const bytes = new Uint8Array(n);
  globalThis.crypto.getRandomValues(bytes);
  return bytes;
}

/** `n` random bytes as hex (2n characters), as randomBytes(n).toString('hex'). */
export function randomHex(n: number): string {
  return toHex(randomBytes(n));
}

/** Whether two byte strings are equal, in time that depends only on their length. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
