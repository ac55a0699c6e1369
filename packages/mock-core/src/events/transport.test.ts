/** The HTTP transport over real loopback sockets: status, errors, timeout, loopback only. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpTransport } from './transport.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const delivery = (url: string, timeoutMs = 2000) => ({ url, headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' }, body: '{"type":"asset.updated"}', timeoutMs });

describe('httpTransport', () => {
  it('POSTs the body and headers and answers the status', async () => {
    let seen: { method?: string; url?: string; headers?: Record<string, unknown>; body?: string } = {};
    const port = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() };
        res.statusCode = 202;
        res.end('ignored');
      });
    });
    expect(await httpTransport(delivery(`http://127.0.0.1:${port}/hooks?x=1`))).toEqual({ status: 202 });
    expect(seen).toMatchObject({ method: 'POST', url: '/hooks?x=1', body: '{"type":"asset.updated"}', headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'content-length': '24' } });
  });

  it('answers any status, 5xx included', async () => {
    const port = await listen((_req, res) => {
      res.statusCode = 503;
      res.end();
    });
    expect(await httpTransport(delivery(`http://127.0.0.1:${port}/`))).toEqual({ status: 503 });
  });

  it('reaches a receiver through the name localhost', async () => {
    const port = await listen((_req, res) => res.end());
    expect(await httpTransport(delivery(`http://localhost:${port}/`))).toEqual({ status: 200 });
  });

  it('a closed port is an error', async () => {
    const port = await listen(() => undefined);
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    const result = await httpTransport(delivery(`http://127.0.0.1:${port}/`));
    expect(result).toEqual({ error: expect.stringContaining('ECONNREFUSED') });
  });

  it('a receiver that does not answer within the timeout is an error', async () => {
    const port = await listen(() => undefined); // never answers
    const result = await httpTransport(delivery(`http://127.0.0.1:${port}/`, 150));
    expect(result).toEqual({ error: expect.stringContaining('no answer within 150 ms') });
  });

  it.each(['http://192.0.2.1/hooks', 'http://example.com/', 'ftp://127.0.0.1/'])('refuses %s without connecting', async (url) => {
    expect(await httpTransport(delivery(url))).toEqual({ error: expect.stringMatching(/^refused: the url /) });
  });
});
