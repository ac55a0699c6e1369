/**
 * The guard of /__mock, /__hooks and /console/ (issue #34, finding 2; D245, D246): a foreign Host
 * (DNS rebinding), a page of another origin and a body that is not JSON are refused before anything
 * runs; the API keeps answering any origin and any Host; /docs/ and /console/ cannot be framed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basePath } from '../../../contract/spec/contract.ts';
import { buildMock, type Mock } from '../node/app.ts';
import { hostAllowed, isJsonType } from './guard.ts';

describe('hostAllowed (D245)', () => {
  const allowed = ['tunnel.example.test', '.dev.example.test'];
  it.each([
    ['localhost:4010', true],
    ['LOCALHOST', true],
    ['localhost.:4010', true],
    ['app.localhost:4010', true],
    ['127.0.0.1:4010', true],
    ['127.8.9.10', true],
    ['[::1]:4010', true],
    ['192.168.1.20:4010', true],
    ['0x7f.1:4010', true],
    ['tunnel.example.test', true],
    ['a.dev.example.test:443', true],
    ['dev.example.test', true],
    ['attacker.example', false],
    ['127.0.0.1.nip.io', false],
    ['localhost.attacker.example', false],
    ['example.test', false],
    ['evil-tunnel.example.test', false],
    ['', false],
    ['a b', false],
    ['user@localhost', false],
  ])('%s → %s', (host, expected) => {
    expect(hostAllowed(host, allowed)).toBe(expected);
  });
  it('a request without Host (HTTP/1.0) has no name to rebind', () => expect(hostAllowed(undefined, [])).toBe(true));
});

describe('isJsonType', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['Application/JSON', true],
    ['application/merge-patch+json', true],
    ['text/plain', false],
    ['text/plain;charset=UTF-8', false],
    ['application/x-www-form-urlencoded', false],
    ['multipart/form-data; boundary=x', false],
    ['application/jsonx', false],
    [undefined, false],
  ])('%s → %s', (type, expected) => expect(isJsonType(type)).toBe(expected));
});

describe('the guard in the server', () => {
  let mock: Mock;
  const APP = 'http://localhost:3000';
  beforeAll(async () => {
    mock = buildMock({ publicUrl: 'https://mock.example.test/base', web: { cors: { origins: [APP] }, allowedHosts: ['tunnel.example.test'] } });
    await mock.app.ready();
  });
  afterAll(() => mock.app.close());

  const accounts = async () => ((await mock.inject({ method: 'GET', url: '/__mock/accounts' })).json() as { data?: unknown[] } | unknown[]);
  const count = async () => {
    const body = await accounts();
    return Array.isArray(body) ? body.length : (body.data?.length ?? -1);
  };

  it.each([
    ['GET', '/__mock/clock'],
    ['GET', '/__hooks/capabilities'],
    ['GET', '/console/'],
    ['POST', '/__mock/reset'],
  ])('a foreign Host on %s %s is 403 HOST_NOT_ALLOWED', async (method, url) => {
    const res = await mock.inject({ method: method as 'GET', url, headers: { host: 'attacker.example:4010' } });
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(res.json()).toMatchObject({ status: 403, code: 'HOST_NOT_ALLOWED', instance: url });
  });

  it.each([['localhost:4010'], ['127.0.0.1:4010'], ['[::1]:4010'], ['tunnel.example.test'], ['mock.example.test'], ['10.0.0.7:4010']])('Host %s is answered', async (host) => {
    expect((await mock.inject({ method: 'GET', url: '/__mock/clock', headers: { host } })).statusCode).toBe(200);
  });

  it.each([['/%63onsole/'], ['/%5F%5Fmock/clock'], ['/__mock//clock']])('a percent-encoded or doubled path %s is guarded too', async (url) => {
    const res = await mock.inject({ method: 'GET', url, headers: { host: 'attacker.example' } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'HOST_NOT_ALLOWED' });
  });

  it('the API answers any Host (its keys guard it)', async () => {
    const res = await mock.inject({ method: 'GET', url: `${basePath}/products`, headers: { host: 'attacker.example' } });
    expect(res.statusCode).toBe(401);
  });

  it.each([['http://evil.example'], ['null'], ['http://localhost:4011'], ['https://localhost:3000']])('a page of %s may not reset the mock (403 ORIGIN_NOT_ALLOWED), and nothing changes', async (origin) => {
    const before = await count();
    expect(before).toBeGreaterThan(-1);
    await mock.inject({ method: 'POST', url: '/__mock/accounts', headers: { 'content-type': 'application/json' }, payload: '{"empty":true}' });
    const made = await count();
    const res = await mock.inject({ method: 'POST', url: '/__mock/reset', headers: { origin, host: 'localhost:4010' } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(await count()).toBe(made);
  });

  it.each([
    ['the mock itself (same origin)', 'http://localhost:4010'],
    ['a --cors-origin', APP],
    ["--public-url's origin", 'https://mock.example.test'],
  ])('%s may use the control plane', async (_what, origin) => {
    const res = await mock.inject({ method: 'POST', url: '/__mock/clock', headers: { origin, host: 'localhost:4010', 'content-type': 'application/json' }, payload: '{"advanceSeconds":1}' });
    expect(res.statusCode, res.body).toBe(200);
  });

  it.each([
    ['text/plain', 'POST', '/__mock/accounts', '{"empty":true}'],
    ['application/x-www-form-urlencoded', 'POST', '/__mock/reset', 'a=1'],
    ['multipart/form-data; boundary=x', 'POST', '/__mock/accounts', '--x--'],
    [undefined, 'POST', '/__mock/accounts', '{"empty":true}'],
    ['text/plain', 'POST', '/__hooks/accounts', '{}'],
  ])('a %s body is 415 UNSUPPORTED_MEDIA_TYPE before anything runs', async (type, method, url, payload) => {
    const before = await count();
    const res = await mock.inject({ method: method as 'POST', url, headers: type === undefined ? {} : { 'content-type': type }, payload: Buffer.from(payload) });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', title: 'Unsupported Media Type' });
    expect(await count()).toBe(before);
  });

  it("a listed page can read its 415 (CORS headers on the refusal), a foreign page's 403 has none", async () => {
    const listed = await mock.inject({ method: 'POST', url: '/__mock/clock', headers: { origin: APP, 'content-type': 'text/plain' }, payload: '{}' });
    expect(listed.statusCode).toBe(415);
    expect(listed.headers['access-control-allow-origin']).toBe(APP);
    const foreign = await mock.inject({ method: 'POST', url: '/__mock/clock', headers: { origin: 'http://evil.example', 'content-type': 'text/plain' }, payload: '{}' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('a request without a body needs no Content-Type (curl -X POST .../reset)', async () => {
    expect((await mock.inject({ method: 'POST', url: '/__mock/reset' })).statusCode).toBe(204);
  });

  it.each([['/console/'], ['/docs/']])('%s cannot be framed by another page', async (url) => {
    const res = await mock.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBe("frame-ancestors 'self'");
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
  });
});

describe('over a real socket, with the defaults (no flags)', () => {
  let mock: Mock;
  let port: number;
  beforeAll(async () => {
    mock = buildMock();
    await mock.app.listen({ host: '127.0.0.1', port: 0 });
    port = (mock.app.server.address() as AddressInfo).port;
  });
  afterAll(() => mock.app.close());

  function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it('DNS rebinding (Host: attacker.example) reads nothing', async () => {
    const res = await send('GET', '/__mock/accounts', { host: 'attacker.example' });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'HOST_NOT_ALLOWED' });
  });

  it('an absolute-form target is judged by its own host, not the Host header (RFC 9112 3.2.2)', async () => {
    const foreign = await send('GET', 'http://attacker.example/__mock/accounts', { host: `127.0.0.1:${port}` });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject({ code: 'HOST_NOT_ALLOWED' });
    expect((await send('GET', `http://127.0.0.1:${port}/__mock/accounts`, { host: 'attacker.example' })).status).toBe(200);
  });

  it("a page's text/plain POST makes no account, and a form POST resets nothing", async () => {
    const before = (await send('GET', '/__mock/accounts', {})).body;
    const text = await send('POST', '/__mock/accounts', { origin: 'http://evil.example', 'content-type': 'text/plain;charset=UTF-8' }, '{"empty":true}');
    expect(text.status).toBe(403);
    const sameOriginText = await send('POST', '/__mock/accounts', { 'content-type': 'text/plain;charset=UTF-8' }, '{"empty":true}');
    expect(sameOriginText.status).toBe(415);
    expect(sameOriginText.headers['connection']).toBe('close');
    const form = await send('POST', '/__mock/reset', { 'content-type': 'application/x-www-form-urlencoded' }, 'x=1');
    expect(form.status).toBe(415);
    expect((await send('GET', '/__mock/accounts', {})).body).toBe(before);
  });
});
