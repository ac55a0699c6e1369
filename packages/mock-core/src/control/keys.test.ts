/** Control plane, keys: createKey, revokeKey, expireKey. */
import { describe, expect, it } from 'vitest';
import { controlSuite } from '../testkit/control.ts';

const t = controlSuite({ account: { empty: true } });
const { control } = t;

describe('POST /__mock/accounts/{accountId}/keys', () => {
  it('creates a read-only key without expiry, usable at once', async () => {
    const res = await control('createKey', 'POST', `/__mock/accounts/${t.acc.accountId}/keys`, { name: 'reader', scopes: ['read'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'reader', scopes: ['read'], expiresAt: null });
    expect(res.body.key).toMatch(/^cgs_[0-9a-f]{64}$/);
    expect((await t.h.request('GET', '/products', { key: res.body.key })).status).toBe(200);
  });

  it('creates a write key with a 30, 90 or 365-day expiry', async () => {
    const res = await control('createKey', 'POST', `/__mock/accounts/${t.acc.accountId}/keys`, { scopes: ['creatives:write'], expiresInDays: 90 });
    expect(res.body).toMatchObject({ name: 'key', scopes: ['creatives:write'], expiresAt: '2026-04-01T00:00:00.000Z' });
  });

  it('creates a legacy runs:write key without expiry', async () => {
    const res = await control('createKey', 'POST', `/__mock/accounts/${t.acc.accountId}/keys`, { scopes: ['runs:write'], legacy: true });
    expect(res.status).toBe(201);
    expect(res.body.expiresAt).toBeNull();
  });

  it.each([
    ['a write key without expiry', { scopes: ['assets:write'] }, 'expiresInDays'],
    ['a legacy key with another write scope', { scopes: ['runs:write', 'assets:write'], legacy: true }, 'expiresInDays'],
    ['runs:read without read', { scopes: ['runs:read'] }, 'scopes'],
  ])('refuses %s with 422 naming the field (a key rule)', async (_what, body, field) => {
    const res = await control('createKey', 'POST', `/__mock/accounts/${t.acc.accountId}/keys`, body);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field }] });
    expect(t.acc.state.keys.size).toBe(8);
  });

  it.each([
    ['no scopes', {}, 'scopes'],
    ['an empty scope list', { scopes: [] }, 'scopes'],
    ['an unknown scope', { scopes: ['admin'] }, 'scopes[0]'],
    ['a repeated scope', { scopes: ['read', 'read'] }, 'scopes'],
    ['a 60-day expiry', { scopes: ['read'], expiresInDays: 60 }, 'expiresInDays'],
    ['a non-boolean legacy flag', { scopes: ['read'], legacy: 'no' }, 'legacy'],
  ])('refuses %s with 422 (the schema)', async (_what, body, field) => {
    const res = await control('createKey', 'POST', `/__mock/accounts/${t.acc.accountId}/keys`, body);
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });
});

describe('revoke and expire', () => {
  it('a revoked key answers 401 from its next request; revoking again changes nothing', async () => {
    const keyId = t.acc.keys.read!.keyId;
    const res = await control('revokeKey', 'POST', `/__mock/accounts/${t.acc.accountId}/keys/${keyId}/revoke`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ keyId, status: 'revoked', revokedAt: '2026-01-01T00:00:00.000Z' });
    expect((await t.h.request('GET', '/products', { key: t.acc.key('read') })).status).toBe(401);
    t.h.advance(10);
    const again = await control('revokeKey', 'POST', `/__mock/accounts/${t.acc.accountId}/keys/${keyId}/revoke`);
    expect(again.body.revokedAt).toBe('2026-01-01T00:00:00.000Z');
  });

  it('an expired key answers 401', async () => {
    const keyId = t.acc.keys.all!.keyId;
    const res = await control('expireKey', 'POST', `/__mock/accounts/${t.acc.accountId}/keys/${keyId}/expire`);
    expect(res.body).toMatchObject({ keyId, status: 'expired', expiresAt: '2026-01-01T00:00:00.000Z' });
    expect((await t.h.request('GET', '/products', { key: t.acc.key('all') })).status).toBe(401);
  });

  it('an unknown key is 404 KEY_NOT_FOUND; another account\'s key is unknown too', async () => {
    const other = await t.h.account({ empty: true });
    for (const op of ['revoke', 'expire'] as const) {
      for (const keyId of ['key_nope', other.keys.read!.keyId]) {
        const res = await control(`${op}Key`, 'POST', `/__mock/accounts/${t.acc.accountId}/keys/${keyId}/${op}`);
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ code: 'KEY_NOT_FOUND', status: 404 });
      }
    }
    expect((await t.h.request('GET', '/products', { key: other.key('read') })).status).toBe(200);
  });
});
