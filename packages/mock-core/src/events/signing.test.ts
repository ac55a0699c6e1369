/** EVT-043..046: Standard Webhooks signing, checked against the standard's test vector. */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isSigningSecret, newSigningSecret, signatureHeaders } from './signing.ts';

// shared/standards.md, Standard Webhooks: the test vector.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

afterEach(() => {
  vi.useRealTimers();
});

describe('signatureHeaders', () => {
  it('matches the Standard Webhooks test vector', () => {
    expect(signatureHeaders(VECTOR.secret, VECTOR.id, VECTOR.timestamp * 1000, VECTOR.body)).toEqual({
      'webhook-id': VECTOR.id,
      'webhook-timestamp': String(VECTOR.timestamp),
      'webhook-signature': VECTOR.signature,
    });
  });

  it('floors the clock time to whole seconds (the header and the signed content agree)', () => {
    expect(signatureHeaders(VECTOR.secret, VECTOR.id, VECTOR.timestamp * 1000 + 999, VECTOR.body)['webhook-signature']).toBe(VECTOR.signature);
  });

  it('verifies with the library inside the five-minute window and not outside it', () => {
    const headers = signatureHeaders(VECTOR.secret, VECTOR.id, VECTOR.timestamp * 1000, VECTOR.body);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime((VECTOR.timestamp + 300) * 1000);
    expect(new Webhook(VECTOR.secret).verify(VECTOR.body, { ...headers })).toEqual({ test: 2432232314 });
    vi.setSystemTime((VECTOR.timestamp + 301) * 1000);
    expect(() => new Webhook(VECTOR.secret).verify(VECTOR.body, { ...headers })).toThrow(WebhookVerificationError);
    vi.setSystemTime(VECTOR.timestamp * 1000);
    expect(() => new Webhook(VECTOR.secret).verify(`${VECTOR.body} `, { ...headers })).toThrow('No matching signature found');
  });
});

describe('signing secrets', () => {
  it('are whsec_ + base64 of 32 random bytes, different every time', () => {
    const a = newSigningSecret();
    const b = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(a).not.toBe(b);
    expect(isSigningSecret(a)).toBe(true);
  });

  it.each([
    ['the test vector (24 bytes)', VECTOR.secret, true],
    ['64 bytes', `whsec_${Buffer.alloc(64, 7).toString('base64')}`, true],
    ['23 bytes', `whsec_${Buffer.alloc(23, 7).toString('base64')}`, false],
    ['65 bytes', `whsec_${Buffer.alloc(65, 7).toString('base64')}`, false],
    ['no prefix', Buffer.alloc(32, 7).toString('base64'), false],
    ['not base64', 'whsec_not*base64*at*all*not*base64*at*all', false],
  ])('isSigningSecret: %s → %s', (_name, secret, ok) => {
    expect(isSigningSecret(secret)).toBe(ok);
  });
});
