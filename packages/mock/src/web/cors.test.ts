import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basePath } from '../../../contract/spec/contract.ts';
import { controlHeaders } from '../../../mock-core/src/control/document.ts';
import { createHarness, type Harness, type TestAccount } from '../../../mock-core/src/testkit/harness.ts';
import { corsLists, PREFLIGHT_MAX_AGE_SECONDS } from './cors.ts';

const APP = 'http://localhost:3000';

describe('the CORS lists are derived from the documents', () => {
  const lists = corsLists();

  it.each([
    ['authorization', 'the bearer security scheme'],
    ['content-type', 'operations with a request body'],
    ['idempotency-key', 'the Idempotency-Key header parameters'],
    ['if-match', 'the If-Match header parameter'],
    ['prefer', "mock-control.yaml's x-public-request-headers"],
  ])('a browser may send %s (%s)', (name) => {
    expect(lists.requestHeaders).toContain(name);
  });

  it.each([['allow'], ['etag'], ['location'], ['ratelimit'], ['ratelimit-policy'], ['retry-after'], ['www-authenticate']])('a script may read %s', (name) => {
    expect(lists.responseHeaders).toContain(name);
  });

  it('lists nothing the documents do not declare for a browser (webhook headers go to receivers, not from pages)', () => {
    expect(lists.requestHeaders).toEqual(['authorization', 'content-type', 'idempotency-key', 'if-match', 'prefer']);
    expect(lists.requestHeaders.some((name) => name.startsWith('webhook-'))).toBe(false);
    expect(lists.responseHeaders).toEqual(['allow', 'etag', 'location', 'ratelimit', 'ratelimit-policy', 'retry-after', 'www-authenticate']);
  });

  it('allows the methods of both documents', () => {
    expect(lists.methods).toEqual(['DELETE', 'GET', 'PATCH', 'POST', 'PUT']);
  });

  it('reads the headers the mock honours beyond the public document from the control document', () => {
    expect(controlHeaders().request).toEqual(expect.arrayContaining(['Content-Type', 'Prefer']));
  });
});

interface Injected {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

async function send(harness: Harness, method: string, url: string, headers: Record<string, string> = {}, payload?: string): Promise<Injected> {
  const res = await harness.mock.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
  return { status: res.statusCode, headers: res.headers as Record<string, string | undefined>, body: res.payload };
}

function preflight(harness: Harness, url: string, origin = APP, requestHeaders = 'authorization, if-match, content-type, idempotency-key, prefer'): Promise<Injected> {
  return send(harness, 'OPTIONS', url, { origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': requestHeaders });
}

describe('CORS on (the default, any origin)', () => {
  let harness: Harness;
  let account: TestAccount;
  beforeAll(async () => {
    harness = await createHarness();
    account = await harness.account();
  });
  afterAll(() => harness.close());

  it.each([[`${basePath}/creatives/crv_x`], [`${basePath}/products`], [`${basePath}/no-such-route?limit=-1`], ['/elsewhere'], ['/docs/']])(
    'answers a preflight to %s with 204, the origin, methods, headers and Max-Age, with no key',
    async (url) => {
      const res = await preflight(harness, url);
      expect(res.status).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers['access-control-allow-origin']).toBe(APP);
      expect(res.headers['access-control-allow-methods']).toBe('DELETE, GET, PATCH, POST, PUT');
      expect(res.headers['access-control-allow-headers']).toBe(corsLists().requestHeaders.join(', '));
      expect(res.headers['access-control-max-age']).toBe(String(PREFLIGHT_MAX_AGE_SECONDS));
      expect(res.headers['vary']).toContain('Origin');
      expect(res.headers['ratelimit']).toBeUndefined(); // never reached the pipeline
    },
  );

  it('counts a preflight against no rate limit', async () => {
    const remaining = async () => (await harness.request('GET', '/products', { key: account.key('read'), headers: { origin: APP } })).headers['ratelimit'];
    const before = await remaining();
    for (let i = 0; i < 5; i++) await preflight(harness, `${basePath}/products`);
    const after = await remaining();
    const left = (field: string | undefined) => Number(/remaining=(\d+)/.exec(field ?? '')?.[1]);
    expect(left(after)).toBe(left(before) - 1);
  });

  it('allows Private Network Access on the API when Chromium asks for it', async () => {
    const res = await send(harness, 'OPTIONS', `${basePath}/products`, { origin: 'https://preview.example', 'access-control-request-method': 'GET', 'access-control-request-private-network': 'true' });
    expect(res.headers['access-control-allow-private-network']).toBe('true');
  });

  it.each([['/__mock/accounts'], ['/__mock/clock'], ['/__hooks/capabilities'], ['/console/']])('refuses a preflight of another origin to %s (403, no Access-Control headers, no Private Network Access): D246', async (url) => {
    const res = await send(harness, 'OPTIONS', url, { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type', 'access-control-request-private-network': 'true' });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ status: 403, code: 'ORIGIN_NOT_ALLOWED' });
    expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('answers Origin: null on the API without credentials or Private Network Access', async () => {
    const pre = await send(harness, 'OPTIONS', `${basePath}/products`, { origin: 'null', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization', 'access-control-request-private-network': 'true' });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('null');
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
    expect(pre.headers['access-control-allow-private-network']).toBeUndefined();
    const res = await harness.request('GET', '/products', { key: account.key('read'), headers: { origin: 'null' } });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('null');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('keeps the contract answer for an OPTIONS that is not a preflight', async () => {
    const plain = await send(harness, 'OPTIONS', `${basePath}/products`, { origin: APP });
    expect(plain.status).toBe(405);
    expect(JSON.parse(plain.body)).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
    expect(plain.headers['access-control-allow-origin']).toBe(APP);
  });

  it.each([
    ['a 200', 'GET', `${basePath}/products`, { key: 'read' }, 200],
    ['a 401', 'GET', `${basePath}/products`, {}, 401],
    ['a 429', 'GET', `${basePath}/products`, { key: 'read', prefer: 'scenario=rate_limited' }, 429],
    ['a 404 of the API', 'GET', `${basePath}/nowhere`, { key: 'read' }, 404],
    ['a 400 of the front (a broken percent-escape)', 'GET', `${basePath}/creatives/%E0%A4%A`, { key: 'read' }, 400],
    ['the API reference', 'GET', '/docs/', {}, 200],
  ] as const)('%s carries Access-Control-Allow-Origin and Expose-Headers', async (_name, method, url, options, status) => {
    const headers: Record<string, string> = { origin: APP };
    if ('key' in options) headers['authorization'] = `Bearer ${account.key(options.key)}`;
    if ('prefer' in options) headers['prefer'] = options.prefer;
    const res = await send(harness, method, url, headers);
    expect(res.status, res.body).toBe(status);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers['access-control-expose-headers']).toBe('allow, etag, location, ratelimit, ratelimit-policy, retry-after, www-authenticate');
    expect(res.headers['vary']).toBe('Origin');
  });

  it('a 413 for an oversized body carries them too', async () => {
    const res = await send(harness, 'POST', `${basePath}/campaigns`, { origin: APP, 'content-type': 'application/json', authorization: `Bearer ${account.key('all')}` }, 'x'.repeat(1024 * 1024 + 1));
    expect(res.status).toBe(413);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
  });

  it('sends no CORS headers to a request without an Origin (not a browser, or same-origin)', async () => {
    const res = await harness.request('GET', '/products', { key: account.key('read') });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS restricted to a list of origins (--cors-origin)', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await createHarness({ web: { cors: { origins: [APP, 'http://127.0.0.1:5173'] } } });
  });
  afterAll(() => harness.close());

  it('reflects a listed origin', async () => {
    expect((await preflight(harness, `${basePath}/products`, 'http://127.0.0.1:5173')).headers['access-control-allow-origin']).toBe('http://127.0.0.1:5173');
    const control = await send(harness, 'GET', '/__mock/clock', { origin: APP });
    expect(control.status).toBe(200);
    expect(control.headers['access-control-allow-origin']).toBe(APP);
    const pre = await send(harness, 'OPTIONS', '/__mock/clock', { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-private-network': 'true' });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe(APP);
    expect(pre.headers['access-control-allow-private-network']).toBe('true');
  });

  it('gives another origin no Access-Control headers (the browser refuses)', async () => {
    const pre = await preflight(harness, `${basePath}/products`, 'http://evil.example');
    expect(pre.status).toBe(204);
    expect(Object.keys(pre.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const res = await send(harness, 'GET', `${basePath}/products`, { origin: 'http://evil.example' });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['vary']).toBe('Origin');
    const control = await send(harness, 'GET', '/__mock/clock', { origin: 'http://evil.example' });
    expect(control.status).toBe(403);
    expect(control.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS off (--cors off)', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await createHarness({ web: { cors: { enabled: false } } });
  });
  afterAll(() => harness.close());

  it('answers a preflight as any other OPTIONS (405), with no Access-Control headers', async () => {
    const res = await preflight(harness, `${basePath}/products`);
    expect(res.status).toBe(405);
    expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('sends no Access-Control headers on answers', async () => {
    const res = await send(harness, 'GET', '/docs/', { origin: APP });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('still refuses a page of another origin on the control plane (a no-cors POST needs no CORS to be sent): D246', async () => {
    const res = await send(harness, 'POST', '/__mock/reset', { origin: APP });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
  });
});
