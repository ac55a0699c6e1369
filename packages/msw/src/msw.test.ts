/**
 * The in-process mock as MSW handlers (msw.ts) through msw/node's setupServer: the API answers
 * through the server's pipeline (the same bytes as the server's for the same seed), the control
 * plane through the same dispatch (HTTP and the typed `control` agree), problems reject with their
 * code, and webhooks are signed as the server signs them. The equivalence suite across every
 * operation is packages/msw/src/msw.equivalence.test.ts's.
 */
import { setupServer } from 'msw/node';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMock } from '../../mock/src/node/app.ts';
import { Clock } from '../../mock-core/src/core/clock.ts';
import { seedDemo } from '../../mock-core/src/seed/account.ts';
import { ControlProblem, createMockHandlers, type WebhookDelivery } from './msw.ts';

const BASE = 'http://api.test';
const API = `${BASE}/api/public/v1`;
const delivered: WebhookDelivery[] = [];
const mock = createMockHandlers({ baseUrl: BASE, webhooks: { deliver: async (d) => (delivered.push(d), { status: 204 }) } });
const server = setupServer(...mock.handlers);

beforeAll(async () => {
  server.listen({ onUnhandledRequest: 'error' });
  await mock.ready;
});
afterAll(() => {
  server.close();
  mock.dispose();
});

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

describe('createMockHandlers', () => {
  it('answers the API with the bytes and headers the server sends for the same seed (HEAD: no body, the same length)', async () => {
    const served = buildMock({ clock: new Clock({ mode: 'manual' }), publicUrl: BASE });
    await seedDemo(served.services, 42);
    const key = mock.demo!.keys['all']!.key;
    for (const path of ['/campaigns?limit=3', '/creatives?limit=2&status=APPROVED', '/campaigns/nope']) {
      const inProcess = await fetch(`${API}${path}`, { headers: auth(key) });
      const viaServer = await served.inject({ method: 'GET', url: `/api/public/v1${path}`, headers: auth(key) });
      expect(inProcess.status).toBe(viaServer.statusCode);
      expect(inProcess.statusText).toBe(viaServer.statusMessage);
      const body = await inProcess.text();
      const strip = (text: string) => text.replace(/req_[0-9a-f]+/g, 'req_');
      expect(strip(body)).toBe(strip(viaServer.body));
      for (const name of ['content-type', 'etag', 'ratelimit', 'ratelimit-policy', 'content-length']) expect(inProcess.headers.get(name), name).toBe(viaServer.headers[name] ?? null);
      const head = await fetch(`${API}${path}`, { method: 'HEAD', headers: auth(key) });
      const headViaServer = await served.inject({ method: 'HEAD', url: `/api/public/v1${path}`, headers: auth(key) });
      expect(head.headers.get('content-length')).toBe(String(new TextEncoder().encode(body).length));
      for (const name of ['content-type', 'etag', 'ratelimit', 'content-length']) expect(head.headers.get(name), name).toBe(headViaServer.headers[name] ?? null);
      expect(await head.text()).toBe('');
    }
    // The media the URLs point at: the same PNG bytes (node:zlib here), ETag and headers; a player page; no clips (D61).
    const listed = (await (await fetch(`${API}/creatives?limit=1&status=APPROVED`, { headers: auth(key) })).json()) as { data: { url: string }[] };
    const image = listed.data[0]!.url;
    expect(image.startsWith(`${BASE}/media/`)).toBe(true);
    const png = await fetch(image);
    const pngViaServer = await served.inject({ method: 'GET', url: image.slice(BASE.length) });
    expect(png.status).toBe(200);
    expect(Buffer.from(await png.arrayBuffer()).equals(pngViaServer.rawPayload)).toBe(true);
    for (const name of ['content-type', 'etag', 'cache-control', 'content-length']) expect(png.headers.get(name), name).toBe(pngViaServer.headers[name] ?? null);
    expect((await fetch(image, { headers: { 'if-none-match': pngViaServer.headers['etag'] as string } })).status).toBe(304);
    expect((await fetch(image.replace(/\.png$/, '.html'))).headers.get('content-type')).toBe('text/html; charset=utf-8');
    const clip = await fetch(image.replace(/\.png$/, '.webm'));
    expect([clip.status, ((await clip.json()) as { code: string }).code]).toEqual([404, 'NOT_FOUND']);
    await served.app.close();
  });

  it('serves the control plane over HTTP and as typed methods through the same dispatch', async () => {
    const created = await mock.control.createAccount({ plan: 'growth' });
    expect(created.accountId).toMatch(/^acc_/);
    const overHttp = await fetch(`${BASE}/__mock/accounts/${created.accountId}`);
    expect(overHttp.status).toBe(200);
    expect(await overHttp.json()).toEqual(await mock.control.getAccount(created.accountId));
    const me = await fetch(`${API}/creatives`, { headers: auth(created.keys['all']!.key) });
    expect(me.status).toBe(200);
    const before = await mock.control.getClock();
    const after = await mock.control.advanceClock(90);
    expect(Date.parse(after.now) - Date.parse(before.now)).toBe(90_000);
    const problem = await mock.control.getAccount('acc_nope').catch((error: unknown) => error);
    expect(problem).toBeInstanceOf(ControlProblem);
    expect(problem).toMatchObject({ status: 404, code: 'ACCOUNT_NOT_FOUND' });
    const events = await mock.control.listEvents(created.accountId, { limit: 5 });
    expect(Array.isArray(events.data)).toBe(true);
    const requests = await mock.control.listRequests(created.accountId);
    expect(requests.data[0]).toMatchObject({ method: 'GET', path: '/api/public/v1/creatives', status: 200 });
    const invalid = await fetch(`${BASE}/__mock/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"advanceSeconds":-1}' });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    // reset: every account gone, the demo account of the seed back with the same keys
    expect(await mock.control.reset()).toBeUndefined();
    await expect(mock.control.getAccount(created.accountId)).rejects.toMatchObject({ status: 404, code: 'ACCOUNT_NOT_FOUND' });
    expect((await fetch(`${API}/creatives?limit=1`, { headers: auth(mock.demo!.keys['all']!.key) })).status).toBe(200);
  });

  it('D132: mock.demo.keys has the shape of createAccount().keys (a KeyProfile per name), and each key is the demo account\'s', async () => {
    const created = await mock.control.createAccount({ plan: 'growth' });
    const demo = mock.demo!.keys;
    expect(Object.keys(demo).sort()).toEqual(Object.keys(created.keys).sort());
    for (const [name, profile] of Object.entries(demo)) {
      expect(Object.keys(profile).sort(), name).toEqual(Object.keys(created.keys[name]!).sort());
      expect(profile.scopes, name).toEqual(created.keys[name]!.scopes);
      expect(profile.key, name).toMatch(/^cgs_[0-9a-f]{64}$/);
    }
    const stored = (await mock.control.getAccount(mock.demo!.accountId)).keys;
    expect(stored.find((k) => k.keyId === demo['all']!.keyId)?.last4).toBe(demo['all']!.key.slice(-4));
    const me = await fetch(`${API}/creatives?limit=1`, { headers: auth(demo['read']!.key) });
    expect(me.status).toBe(200);
  });

  it('delivers webhooks signed as the server signs them, when the clock reaches them', async () => {
    const accountId = mock.demo!.accountId;
    const endpoint = await mock.control.createWebhookEndpoint(accountId, { url: 'http://127.0.0.1:9/hooks', eventTypes: ['campaign.updated'] });
    const key = mock.demo!.keys['all']!.key;
    const list = (await (await fetch(`${API}/campaigns?limit=1`, { headers: auth(key) })).json()) as { data: { campaignId: string }[] };
    const patched = await fetch(`${API}/campaigns/${list.data[0]!.campaignId}`, { method: 'PATCH', headers: { ...auth(key), 'content-type': 'application/json' }, body: '{"name":"Renamed in-process"}' });
    expect(patched.status, await patched.clone().text()).toBe(200);
    expect(delivered).toHaveLength(0);
    await mock.control.advanceClock(120);
    expect(delivered).toHaveLength(1);
    const payload = new Webhook(endpoint.secret).verify(delivered[0]!.body, delivered[0]!.headers) as { type: string };
    expect(payload.type).toBe('campaign.updated');
    expect(delivered[0]!.url).toBe('http://127.0.0.1:9/hooks');
  });

  it('streams the control plane\'s server-sent events as a ReadableStream, over HTTP and from control; a cancel stops watching', async () => {
    const response = await fetch(`${BASE}/__mock/stream`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^event: ready\ndata: \{"clock":/);
    // (msw/node's interceptor passes a cancel on to the mock's stream at its next write, a keep-alive
    // up to 20 s later: not awaited here; dispose() closes every stream.)
    void reader.cancel();
    const stream = await mock.control.streamChanges();
    const direct = stream.getReader();
    expect(new TextDecoder().decode((await direct.read()).value)).toMatch(/^event: ready\n/);
    const watching = mock.services.feed.watching;
    await direct.cancel();
    expect(mock.services.feed.watching).toBe(watching - 1);
  });
});

describe('the handlers claim their prefixes only', () => {
  it('answer under the API, /__mock and /media of their base URL, not beside them; a relative base URL is resolved against the page', async () => {
    const { getResponse } = await import('msw');
    const page = globalThis as { location?: { href: string } };
    page.location = { href: 'http://page.test/app/index.html' };
    const relative = createMockHandlers({ baseUrl: '/mock/', seed: false });
    delete page.location;
    try {
      const at = async (url: string) => (await getResponse(relative.handlers, new Request(url)))?.status;
      expect(await at('http://page.test/mock/api/public/v1/creatives')).toBe(401);
      expect(await at('http://page.test/mock/api/public/v1?x=1')).toBe(404); // the API's own 404: no operation at its root
      expect(await at('http://page.test/mock/__mock/accounts')).toBe(200);
      expect(await at('http://page.test/mock/media/nope.png')).toBe(404);
      for (const outside of ['http://page.test/mock/api/public/v10/creatives', 'http://page.test/mock/__mockery', 'http://page.test/api/public/v1/creatives', 'http://other.test/mock/__mock/accounts']) {
        expect(await at(outside), outside).toBeUndefined();
      }
    } finally {
      relative.dispose();
    }
  });
});
