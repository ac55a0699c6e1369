/**
 * Standard Webhooks signing (EVT-043..046; shared/standards.md): the secret format and the three
 * headers of a delivery, computed with the `standardwebhooks` package so that the mock signs
 * exactly as receivers verify.
 *
 * - Secret: `whsec_` + base64 of 32 random bytes (the standard allows 24 to 64).
 * - Signed content: `${webhook-id}.${webhook-timestamp}.${raw body}`, HMAC-SHA256, base64, `v1,` prefix.
 * - `webhook-timestamp`: Unix seconds of the moment the request is sent, the wall clock's (the
 *   caller reads it from the injected clock's `wallNow()`): receivers judge it against their own clock.
 */
import { fromBase64, randomBytes, toBase64 } from '../../../contract/platform/crypto.ts';
import { Webhook } from 'standardwebhooks';

export const SECRET_PREFIX = 'whsec_';
export const SECRET_BYTES = 32;

/** `whsec_` + base64 of 24 to 64 bytes. */
export const SECRET_PATTERN = /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${toBase64(randomBytes(SECRET_BYTES))}`;
}

/** True for a secret of the standard's format (24 to 64 bytes of key). */
export function isSigningSecret(secret: string): boolean {
  if (!SECRET_PATTERN.test(secret)) return false;
  const bytes = fromBase64(secret.slice(SECRET_PREFIX.length)).length;
  return bytes >= 24 && bytes <= 64;
}

export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The Standard Webhooks headers of one delivery request sent at `nowMs` (wall-clock time). */
export function signatureHeaders(secret: string, msgId: string, nowMs: number, body: string): SignatureHeaders {
  const seconds = Math.floor(nowMs / 1000);
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(seconds),
    'webhook-signature': new Webhook(secret).sign(msgId, new Date(seconds * 1000), body),
  };
}
