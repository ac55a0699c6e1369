/**
 * The response cache of cacheable reads: kept bytes while the account is unchanged, a fresh answer
 * after any change, and the `verify` mode that catches a handler wrongly marked cacheable.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Clock } from '../core/clock.ts';
import { buildMock } from '../../../mock/src/node/app.ts';
import { handlers as realHandlers } from '../services/handlers.ts';
import { newAccountState, Store, type AccountState } from '../domain/store.ts';
import { createHarness, type Harness } from '../testkit/harness.ts';
import { accountStamp, ResponseCache } from './response-cache.ts';
import type { HandlerTable } from '../domain/operation.ts';
import type { RawResponse } from './types.ts';

function account(id = 'acc_1'): AccountState {
  return newAccountState({ accountId: id, name: id, tag: 't', plan: { tier: 'enterprise' } as AccountState['plan'], createdAt: 0, seed: 1 });
}

const answer = (text: string): RawResponse => ({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: text });

describe('ResponseCache (unit)', () => {
  it('keeps the bytes and answers a copy whose headers can be extended per request', () => {
    const cache = new ResponseCache();
    const a = account();
    const key = ResponseCache.keyOf(a, 'listCreatives', '/creatives', { limit: 50 });
    const first = cache.put(key, a, accountStamp(a), answer('{"x":1}'));
    expect(first.body).toBeInstanceOf(Uint8Array);
    const hit = cache.get(key, a)!;
    expect(hit.body).toBe(first.body);
    hit.headers.ratelimit = 'limit=1, remaining=0, reset=1';
    expect(cache.get(key, a)!.headers).toEqual({ 'content-type': 'application/json; charset=utf-8' });
  });

  it.each([
    ['a creative changes', (a: AccountState) => a.creatives.set('cr_1', {} as never)],
    ['a product changes', (a: AccountState) => a.products.set('pr_1', {} as never)],
    ['a campaign changes', (a: AccountState) => a.campaigns.set('cm_1', {} as never)],
    ['an asset changes', (a: AccountState) => a.assets.set('as_1', {} as never)],
    ['a delivery changes', (a: AccountState) => a.deliveries.set('dl_1', {} as never)],
    ['a brand changes', (a: AccountState) => a.brands.set('br_1', {} as never)],
  ])('forgets the entry when %s', (_name, change) => {
    const cache = new ResponseCache();
    const a = account();
    const key = ResponseCache.keyOf(a, 'listCreatives', '/creatives', {});
    cache.put(key, a, accountStamp(a), answer('{}'));
    change(a);
    expect(cache.get(key, a)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('never serves one account object’s bytes to another (a reset re-creates the account under the same id)', () => {
    const cache = new ResponseCache();
    const before = account('acc_demo');
    const key = ResponseCache.keyOf(before, 'listProducts', '/products', {});
    cache.put(key, before, accountStamp(before), answer('{"old":true}'));
    const after = account('acc_demo');
    expect(ResponseCache.keyOf(after, 'listProducts', '/products', {})).toBe(key);
    expect(cache.get(key, after)).toBeUndefined();
  });

  it('keys on the query and on the sparse-pages drill', () => {
    const a = account();
    const plain = ResponseCache.keyOf(a, 'listCreatives', '/creatives', { limit: 5 });
    expect(ResponseCache.keyOf(a, 'listCreatives', '/creatives', { limit: 6 })).not.toBe(plain);
    a.settings.sparsePages = true;
    expect(ResponseCache.keyOf(a, 'listCreatives', '/creatives', { limit: 5 })).not.toBe(plain);
  });

  it('does not keep an answer computed while the account changed', () => {
    const cache = new ResponseCache();
    const a = account();
    const key = ResponseCache.keyOf(a, 'listCreatives', '/creatives', {});
    const stamp = accountStamp(a);
    a.creatives.set('cr_1', {} as never);
    cache.put(key, a, stamp, answer('{}'));
    expect(cache.size).toBe(0);
  });

  it('is bounded: the oldest entry goes first', () => {
    const cache = new ResponseCache({ maxEntries: 3 });
    const a = account();
    const keys = [1, 2, 3, 4].map((n) => ResponseCache.keyOf(a, 'getCreative', `/creatives/cr_${n}`, {}));
    for (const key of keys) cache.put(key, a, accountStamp(a), answer(key));
    expect(cache.size).toBe(3);
    expect(cache.get(keys[0]!, a)).toBeUndefined();
    expect(cache.get(keys[3]!, a)).toBeDefined();
  });

  it('enabled: false keeps nothing', () => {
    const cache = new ResponseCache({ enabled: false });
    const a = account();
    const key = ResponseCache.keyOf(a, 'listCreatives', '/creatives', {});
    cache.put(key, a, accountStamp(a), answer('{}'));
    expect(cache.get(key, a)).toBeUndefined();
  });

  it('check: equal bytes and headers pass, anything else throws', () => {
    const cache = new ResponseCache({ verify: true });
    expect(() => cache.check('k', answer('{"a":1}'), answer('{"a":1}'))).not.toThrow();
    expect(() => cache.check('k', answer('{"a":1}'), answer('{"a":2}'))).toThrow(/stale cached response/);
    expect(() => cache.check('k', answer('{}'), { ...answer('{}'), headers: { etag: '"x"' } })).toThrow(/stale cached response/);
    expect(() => cache.check('k', answer('{}'), { ...answer('{}'), status: 201 })).toThrow(/stale cached response/);
  });
});

describe('cacheable reads over HTTP', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('a write shows on the next read of every cached list and item', async () => {
    h = await createHarness();
    const acct = await h.account();
    const key = acct.key('all');
    const list = await h.request('GET', '/creatives', { key, query: { limit: 100 } });
    const target = (list.body as { data: { creativeId: string; status: string }[] }).data.find((c) => c.status === 'PENDING')!;
    const item = await h.request('GET', `/creatives/${target.creativeId}`, { key });
    expect((await h.request('GET', '/creatives', { key, query: { limit: 100 } })).text).toBe(list.text); // a hit, the same bytes
    expect(h.mock.services.responses.size).toBeGreaterThan(0);

    const approved = await h.request('POST', `/creatives/${target.creativeId}/approve`, { key, headers: { 'idempotency-key': 'k1' } });
    expect(approved.status).toBe(200);
    const listAfter = await h.request('GET', '/creatives', { key, query: { limit: 100 } });
    const itemAfter = await h.request('GET', `/creatives/${target.creativeId}`, { key });
    expect(listAfter.text).not.toBe(list.text);
    expect((listAfter.body as { data: { creativeId: string; status: string }[] }).data.find((c) => c.creativeId === target.creativeId)!.status).toBe('APPROVED');
    expect(itemAfter.headers.etag).not.toBe(item.headers.etag);
    expect((itemAfter.body as { status: string }).status).toBe('APPROVED');
  });

  it('a change by another actor (the control plane) shows on the next read of a cached list', async () => {
    h = await createHarness();
    const acct = await h.account();
    const key = acct.key('read');
    const list = await h.request('GET', '/creatives', { key, query: { limit: 100 } });
    const target = (list.body as { data: { creativeId: string; status: string; metadata?: unknown }[] }).data.find((c) => c.status === 'PENDING')!;
    expect((await h.request('GET', '/creatives', { key, query: { limit: 100 } })).text).toBe(list.text);
    const acted = await h.control('POST', `/__mock/accounts/${acct.accountId}/actions`, { actor: { kind: 'user' }, operationId: 'updateCreative', pathParams: { creativeId: target.creativeId }, body: { metadata: { team: 'a' } } });
    expect(acted.status).toBe(200);
    const after = await h.request('GET', '/creatives', { key, query: { limit: 100 } });
    const shown = (after.body as { data: { creativeId: string; metadata?: unknown }[] }).data.find((c) => c.creativeId === target.creativeId)!;
    expect(shown.metadata).toEqual({ team: 'a' });
  });

  it('the same bytes and headers with the cache on and off (every cacheable operation)', async () => {
    // Two apps over one store and clock: the same account, answered with and without the cache.
    const store = new Store();
    const clock = new Clock({ mode: 'manual', start: Date.parse('2026-03-01T00:00:00Z') });
    const on = buildMock({ store, clock, responseCache: { verify: true } });
    const off = buildMock({ store, clock, responseCache: { enabled: false } });
    try {
      await on.app.ready();
      await off.app.ready();
      const created = await on.inject({ method: 'POST', url: '/__mock/accounts', payload: { seed: 5 } });
      const key = (created.json() as { keys: { all: { key: string } } }).keys.all.key;
      const keys = [key, key];
      const urls = ['/products', '/products?limit=3', '/creatives?expand=product&showDeleted=true', '/creatives?limit=2', '/assets?showDeleted=true', '/deliveries'];
      const first = await on.inject({ method: 'GET', url: '/api/public/v1/creatives?limit=1', headers: { authorization: `Bearer ${keys[0]}` } });
      await off.inject({ method: 'GET', url: '/api/public/v1/creatives?limit=1', headers: { authorization: `Bearer ${keys[1]}` } }); // the same count on both limiters
      const id = (first.json() as { data: { creativeId: string }[] }).data[0]!.creativeId;
      urls.push(`/creatives/${id}`, `/creatives/${id}?expand=product`);
      for (const url of urls) {
        for (let i = 0; i < 2; i++) {
          const a = await on.inject({ method: 'GET', url: `/api/public/v1${url}`, headers: { authorization: `Bearer ${keys[0]}` } });
          const b = await off.inject({ method: 'GET', url: `/api/public/v1${url}`, headers: { authorization: `Bearer ${keys[1]}` } });
          expect(a.statusCode, url).toBe(200);
          expect(a.rawPayload.equals(b.rawPayload), url).toBe(true);
          const { date: _a, ...ha } = a.headers;
          const { date: _b, ...hb } = b.headers;
          expect(ha, url).toEqual(hb);
        }
      }
      expect(on.services.responses.size).toBe(urls.length + 1); // and the first page of one
      expect(off.services.responses.size).toBe(0);
    } finally {
      await on.app.close();
      await off.app.close();
    }
  });

  it('verify catches a handler wrongly marked cacheable (it reads the clock): the request fails loudly', async () => {
    const wrong: HandlerTable = {
      ...realHandlers,
      listProducts: { cacheable: true, run: (ctx) => ({ status: 200, body: { object: 'list', data: [], pagination: { nextCursor: null, hasMore: false, pageSize: ctx.now % 1000 } } }) },
    };
    h = await createHarness({ handlers: wrong });
    const acct = await h.account({ empty: true });
    expect((await h.request('GET', '/products', { key: acct.key('read') })).status).toBe(200);
    h.advance(0.001);
    await expect(h.request('GET', '/products', { key: acct.key('read') })).rejects.toThrow(/stale cached response/);
  });
});
