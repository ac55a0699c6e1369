import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { DEFECTS } from '../../../conformance/suite/defects/catalogue.ts';
import { DefectNameError, FIXED_RETRY_SECONDS, LEAKED_KEY_ID, MOCK_DEFECTS, parseDefects, retryWithDefects, signedWithDefects, STAND_IN_RATIO, withPayloadDefects } from './defects.ts';
import { attemptTimes, DEFAULT_RETRY_POLICY } from './backoff.ts';
import type { WebhookPayload } from './payload.ts';
import { signatureHeaders } from './signing.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const BODY = '{"type":"creative.approved","timestamp":"2026-01-01T00:00:00.000Z","data":{}}';
// verify() accepts a timestamp within 5 minutes of the wall clock.
const NOW = Date.now();

function verifies(headers: Record<string, string>, body = BODY): boolean {
  try {
    new Webhook(SECRET).verify(body, headers);
    return true;
  } catch {
    return false;
  }
}

describe('parseDefects', () => {
  it('reads repeated and comma-separated names of the defects the mock implements', () => {
    expect(parseDefects(['webhook-bad-signature, webhook-id-unstable', 'webhook-actor-leaks-key', 'webhook-campaign-data-stale,webhook-previous-ratio-shown', 'webhook-campaign-created-as-creative', 'run-charges-unproduced', 'estimate-creates-run', 'run-completed-twice,webhook-retry-fixed', ''])).toEqual(new Set(Object.keys(MOCK_DEFECTS)));
  });

  it('refuses a malformed name and a name the mock does not implement', () => {
    expect(() => parseDefects(['Bad Name'])).toThrow(/defect name/);
    expect(() => parseDefects(['etag-weak'])).toThrow(DefectNameError);
  });

  it('names exactly the catalogue defects injected by the mock', () => {
    expect(Object.keys(MOCK_DEFECTS).sort()).toEqual(DEFECTS.filter((d) => d.via === 'mock').map((d) => d.name).sort());
  });
});

describe('signedWithDefects', () => {
  it('without a defect signs exactly as signatureHeaders does', () => {
    const headers = signedWithDefects(new Set(), SECRET, 'msg_1', NOW, BODY, 3);
    expect(headers).toEqual(signatureHeaders(SECRET, 'msg_1', NOW, BODY));
    expect(verifies({ ...headers })).toBe(true);
  });

  it('webhook-bad-signature: the signature does not verify over the body sent', () => {
    const headers = signedWithDefects(new Set(['webhook-bad-signature']), SECRET, 'msg_1', NOW, BODY, 1);
    expect(headers['webhook-id']).toBe('msg_1');
    expect(headers['webhook-signature']).toMatch(/^v1,/);
    expect(verifies({ ...headers })).toBe(false);
  });

  it('webhook-id-unstable: a retry has another webhook-id, still msg_ and correctly signed', () => {
    const defects = new Set(['webhook-id-unstable']);
    expect(signedWithDefects(defects, SECRET, 'msg_1', NOW, BODY, 1)['webhook-id']).toBe('msg_1');
    const retry = signedWithDefects(defects, SECRET, 'msg_1', NOW, BODY, 2);
    expect(retry['webhook-id']).toMatch(/^msg_1.+/);
    expect(verifies({ ...retry })).toBe(true);
  });
});

describe('withPayloadDefects', () => {
  const payload = (actor: WebhookPayload['actor']): WebhookPayload => ({ type: 'creative.approved', timestamp: '2026-01-01T00:00:00.000Z', data: {}, ...(actor ? { actor } : {}) });

  it('webhook-actor-leaks-key: a user or share-link actor gains an apiKeyId; api_key actors and run.completed are untouched', () => {
    const defects = new Set(['webhook-actor-leaks-key']);
    expect(withPayloadDefects(defects, payload({ kind: 'user' }))!.actor).toEqual({ kind: 'user', apiKeyId: LEAKED_KEY_ID });
    expect(withPayloadDefects(defects, payload({ kind: 'api_key', apiKeyId: 'key_1' }))!.actor).toEqual({ kind: 'api_key', apiKeyId: 'key_1' });
    expect(withPayloadDefects(defects, payload(undefined))).toEqual(payload(undefined));
    expect(withPayloadDefects(defects, undefined)).toBeUndefined();
  });

  it('webhook-campaign-data-stale: campaign.updated data carries the name before the change', () => {
    const updated: WebhookPayload = { type: 'campaign.updated', timestamp: '2026-01-01T00:00:00.000Z', data: { name: 'new' }, previousAttributes: { name: 'old' } };
    expect(withPayloadDefects(new Set(['webhook-campaign-data-stale']), updated)!.data).toEqual({ name: 'old' });
    expect(withPayloadDefects(new Set(['webhook-campaign-data-stale']), payload({ kind: 'user' }))).toEqual(payload({ kind: 'user' }));
  });

  it('webhook-previous-ratio-shown: a null previous aspectRatio becomes a ratio; others are untouched', () => {
    const defects = new Set(['webhook-previous-ratio-shown']);
    const updated = (aspectRatio: string | null): WebhookPayload => ({ type: 'creative.updated', timestamp: '2026-01-01T00:00:00.000Z', data: {}, previousAttributes: { aspectRatio } });
    expect(withPayloadDefects(defects, updated(null))!.previousAttributes).toEqual({ aspectRatio: STAND_IN_RATIO });
    expect(withPayloadDefects(defects, updated('1:1'))!.previousAttributes).toEqual({ aspectRatio: '1:1' });
  });

  it('webhook-campaign-created-as-creative: campaign.created goes out as creative.updated', () => {
    const created: WebhookPayload = { type: 'campaign.created', timestamp: '2026-01-01T00:00:00.000Z', data: { name: 'c' } };
    expect(withPayloadDefects(new Set(['webhook-campaign-created-as-creative']), created)!.type).toBe('creative.updated');
  });

  it('without the defect returns the payload as it is', () => {
    const p = payload({ kind: 'user' });
    expect(withPayloadDefects(new Set(), p)).toBe(p);
  });
});

describe('retryWithDefects', () => {
  it('without the defect is the schedule of the document; webhook-retry-fixed retries every 5 minutes up to the same horizon', () => {
    expect(retryWithDefects(new Set(), DEFAULT_RETRY_POLICY)).toBe(DEFAULT_RETRY_POLICY);
    const fixed = retryWithDefects(new Set(['webhook-retry-fixed']), DEFAULT_RETRY_POLICY);
    const times = attemptTimes(fixed, 0, 60_000);
    expect(times.slice(0, 4)).toEqual([60_000, 60_000 + 300_000, 60_000 + 600_000, 60_000 + 900_000]);
    expect(times.at(-1)).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.horizonSeconds * 1000);
    expect(new Set(times.slice(1).map((t, i) => t - times[i]!))).toEqual(new Set([FIXED_RETRY_SECONDS * 1000]));
  });
});
