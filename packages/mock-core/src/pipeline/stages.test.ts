import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { operations } from '../../../contract/spec/contract.ts';
import { Collection } from '../core/collection.ts';
import { planFor } from '../domain/accounts/service.ts';
import { newAccountState } from '../domain/store.ts';
import { hashKey } from '../domain/accounts/keys.ts';
import { nextRequestId } from './index.ts';
import { beginIdempotent, canonicalJson, finishIdempotent, fingerprint, IDEMPOTENCY_RETENTION_MS, leavesKeyFree } from './idempotency.ts';
import { checkIfMatch, etagOf } from './preconditions.ts';
import { fieldErrors, parseIfMatch } from './validate.ts';

const account = () => newAccountState({ accountId: 'acc_t', name: 't', tag: 'aaaaaa', plan: planFor('enterprise'), createdAt: 0, seed: 1 });
const op = (id: string) => operations.get(id)!;

describe('idempotency store', () => {
  it('IDEM: replays a completed request; a different request under the key is 409 IDEMPOTENCY_KEY_REUSED', () => {
    const a = account();
    const print = fingerprint(op('archiveAsset'), '/assets/x/archive', undefined);
    const start = beginIdempotent(a, 'k1', print, 0);
    expect('begun' in start).toBe(true);
    finishIdempotent(a, 'k1', 'begun' in start ? start.begun : undefined, { status: 200, headers: { 'content-type': 'application/json', etag: '"e"', ratelimit: 'x' }, body: '{"a":1}' }, undefined, undefined);
    const replay = beginIdempotent(a, 'k1', print, 1000);
    expect(replay).toEqual({ replay: { status: 200, headers: { 'content-type': 'application/json', etag: '"e"' }, body: '{"a":1}' } });
    const other = fingerprint(op('archiveAsset'), '/assets/y/archive', undefined);
    expect(() => beginIdempotent(a, 'k1', other, 1000)).toThrow(expect.objectContaining({ code: 'IDEMPOTENCY_KEY_REUSED' }));
  });

  it('IDEM: a request still running is 409 IDEMPOTENCY_IN_PROGRESS with Retry-After', () => {
    const a = account();
    const print = fingerprint(op('createCampaign'), '/campaigns', { name: 'x' });
    beginIdempotent(a, 'k', print, 0);
    expect(() => beginIdempotent(a, 'k', print, 0)).toThrow(expect.objectContaining({ code: 'IDEMPOTENCY_IN_PROGRESS', retryAfter: 1 }));
  });

  it('keys are scoped per account', () => {
    const a = account();
    const b = account();
    const print = fingerprint(op('createCampaign'), '/campaigns', { name: 'x' });
    beginIdempotent(a, 'k', print, 0);
    expect('begun' in beginIdempotent(b, 'k', print, 0)).toBe(true);
  });

  it.each([
    [503, 'WRITES_PAUSED', true],
    [429, 'RATE_LIMITED', true],
    [412, 'PRECONDITION_FAILED', true],
    [409, 'CAMPAIGN_CASCADE_PENDING', true],
    // D72, IDEM-014: every refusal decided before the operation runs
    [403, 'TIER_REQUIRED', true],
    [403, 'LIMIT_EXCEEDED', true],
    [403, 'IMAGE_SIZE_NOT_ENTITLED', true],
    [403, 'IMAGE_UPSCALE_NOT_ENTITLED', true],
    [402, 'INSUFFICIENT_CREDITS', true],
    [409, 'ACCOUNT_SPEND_CAP_EXCEEDED', true],
    [409, 'PRICE_CHANGED', true],
    [409, 'PRICE_EXCEEDS_MAX', true],
    [409, 'IMAGE_SIZE_UNPRICED', true],
    [409, 'IMAGE_UPSCALE_UNPRICED', true],
    [409, 'IMAGE_UPSCALE_IN_PROGRESS', true],
    [503, 'ACCOUNT_SPEND_UNAVAILABLE', true],
    // stored: the answers about the request or the resource it acts on
    [422, 'VALIDATION_ERROR', false],
    [422, 'IMAGE_UPSCALE_TARGET_NOT_LARGER', false],
    [409, 'CREATIVE_NOT_DELETABLE', false],
    [409, 'CREATIVE_NOT_PENDING', false],
    [404, 'CREATIVE_NOT_FOUND', false],
    [200, undefined, false],
  ] as const)('D37 D72: status %i %s leaves the key free: %s', (status, code, free) => {
    expect(leavesKeyFree(status, code)).toBe(free);
    const a = account();
    const print = fingerprint(op('createCampaign'), '/campaigns', {});
    const start = beginIdempotent(a, 'k', print, 0);
    finishIdempotent(a, 'k', 'begun' in start ? start.begun : undefined, { status, headers: {}, body: '' }, code, undefined);
    expect(a.idempotency.has('k')).toBe(!free);
  });

  it('D22: a record expires after 24 hours', () => {
    const a = account();
    const print = fingerprint(op('createCampaign'), '/campaigns', {});
    const start = beginIdempotent(a, 'k', print, 0);
    finishIdempotent(a, 'k', 'begun' in start ? start.begun : undefined, { status: 201, headers: {}, body: '{}' }, undefined, undefined);
    expect('replay' in beginIdempotent(a, 'k', print, IDEMPOTENCY_RETENTION_MS - 1)).toBe(true);
    expect('begun' in beginIdempotent(a, 'k', fingerprint(op('createCampaign'), '/campaigns', { other: 1 }), IDEMPOTENCY_RETENTION_MS)).toBe(true);
  });

  it('D35: spelling out the run defaults is the same request', () => {
    const base = { productIds: ['p'], creativesPerProduct: 1, presetId: 'x' };
    expect(fingerprint(op('createRun'), '/runs', { ...base, imageSize: '1K', referenceSource: 'PRIMARY', modality: 'image' })).toBe(fingerprint(op('createRun'), '/runs', base));
    expect(fingerprint(op('createRun'), '/runs', { ...base, imageSize: '2K' })).not.toBe(fingerprint(op('createRun'), '/runs', base));
  });

  it('canonical JSON ignores key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe(canonicalJson({ a: { c: null, d: [1, { e: 3, f: 2 }] }, b: 1 }));
  });
});

describe('If-Match', () => {
  const rep = { id: 'x', n: 1 };
  const tag = etagOf(rep);
  it.each([
    ['ETAG: the current strong tag matches', tag, true],
    ['ETAG: * matches any existing representation', '*', true],
    ['ETAG: a list matches when any member does', `"nope", ${tag}`, true],
    ['ETAG: a weak tag never matches (strong comparison)', `W/${tag}`, false],
    ['ETAG: a stale tag fails', '"stale"', false],
  ])('%s', (_name, header, ok) => {
    if (ok) expect(() => checkIfMatch(header, rep)).not.toThrow();
    else expect(() => checkIfMatch(header, rep)).toThrow(expect.objectContaining({ code: 'PRECONDITION_FAILED', status: 412 }));
  });
  it('strong ETag grammar and change with the representation', () => {
    expect(tag).toMatch(/^"[\x21\x23-\x7E]+"$/);
    expect(etagOf({ ...rep, n: 2 })).not.toBe(tag);
    expect(etagOf({ n: 1, id: 'x' })).toBe(tag);
  });
  it.each(['"a"', '"a", "b"', 'W/"a"', '*', ' "a" ,W/"b" '])('parses %s', (value) => expect(parseIfMatch(value)).toBeDefined());
  it.each(['a', '"a', '"a" "b"', '', ',', '"a",,"b"'])('refuses malformed %s', (value) => expect(parseIfMatch(value)).toBeUndefined());
});

describe('field errors', () => {
  it('names each offending field once, as a path', () => {
    const errors = fieldErrors([
      { keyword: 'additionalProperties', instancePath: '', schemaPath: '', params: { additionalProperty: 'colour' } },
      { keyword: 'maxLength', instancePath: '/metadata/k', schemaPath: '', params: {}, message: 'must NOT have more than 500 characters' },
      { keyword: 'required', instancePath: '/source', schemaPath: '', params: { missingProperty: 'assetId' } },
      { keyword: 'type', instancePath: '/productIds/2', schemaPath: '', params: {}, message: 'must be string' },
      { keyword: 'oneOf', instancePath: '/source', schemaPath: '', params: {}, message: 'must match exactly one schema in oneOf' },
    ]);
    expect(errors.map((e) => e.field)).toEqual(['colour', 'metadata.k', 'source.assetId', 'productIds[2]']);
  });
});

describe('Collection in the store', () => {
  it('is a Collection', () => expect(account().creatives).toBeInstanceOf(Collection));
});

describe('field errors for metadata keys', () => {
  it('META: an over-long key is one errors[] entry naming metadata.<key>', async () => {
    const { validatorFor } = await import('../../../contract/spec/contract.ts');
    const validate = validatorFor('#/components/schemas/AssetPatch');
    const key = 'k'.repeat(41);
    expect(validate({ metadata: { [key]: 'x' } })).toBe(false);
    expect(fieldErrors(validate.errors ?? [])).toEqual([{ field: `metadata.${key}`, message: expect.any(String) }]);
  });
});

describe('per-request helpers', () => {
  it('request ids keep the req_ prefix and never repeat', () => {
    const ids = Array.from({ length: 5000 }, () => nextRequestId());
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{20,}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('hashKey is sha256 hex, the same on a memoized hit, past the memo bound and for long tokens', () => {
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const token = `cgs_${'a'.repeat(64)}`;
    expect(hashKey(token)).toBe(sha(token));
    expect(hashKey(token)).toBe(sha(token));
    for (let i = 0; i < 2500; i++) expect(hashKey(`cgs_${i}`)).toBe(sha(`cgs_${i}`));
    expect(hashKey(token)).toBe(sha(token));
    const long = 'x'.repeat(10_000);
    expect(hashKey(long)).toBe(sha(long));
    expect(hashKey(long)).toBe(sha(long));
  });
});

describe('fuzz findings, fixed', () => {
  it('KB3: a numeric metadata key is named as a key, an array position as an index', async () => {
    const { validatorFor } = await import('../../../contract/spec/contract.ts');
    const patch = validatorFor('#/components/schemas/AssetPatch');
    const body = { metadata: { '0': 42 } };
    expect(patch(body)).toBe(false);
    expect(fieldErrors(patch.errors ?? [], body).map((e) => e.field)).toEqual(['metadata.0']);
    const create = validatorFor('#/components/schemas/CampaignCreate');
    const campaign = { name: 'x', brandId: 'b', productIds: ['a', 7] };
    expect(create(campaign)).toBe(false);
    expect(fieldErrors(create.errors ?? [], campaign).map((e) => e.field)).toEqual(['productIds[1]']);
  });
});
