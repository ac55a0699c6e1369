/**
 * Slow requests are timed out (issue #34, finding 6; D247): a client that sends its headers or its
 * body a byte at a time gets 408 REQUEST_TIMEOUT in problem+json and its connection closed, on the
 * control plane and on the API alike; an answer that lasts (the change feed's event stream) and an
 * idle keep-alive connection are not cut. Small timeouts (buildMock's `timeouts`) over real sockets.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMock, type Mock } from './app.ts';

const REQUEST_MS = 400;
const HEADERS_MS = 300;

interface Trickle {
  /** Everything the server sent before it closed the connection. */
  received: Promise<string>;
  stop(): void;
}

/**
 * Opens a connection, writes `head` and then one byte of `drip` every 40 ms (a slow client), and
 * collects what the server sends until it closes the connection.
 */
function trickle(port: number, head: string, drip: string): Trickle {
  const socket = net.connect(port, '127.0.0.1');
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  const chunks: Buffer[] = [];
  const received = new Promise<string>((resolve) => {
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => {
      clearInterval(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.on('error', () => undefined);
  });
  socket.on('connect', () => {
    socket.write(head);
    timer = setInterval(() => {
      // A client stops sending once it has an answer (as a browser or curl would).
      if (chunks.length > 0 || socket.destroyed) return clearInterval(timer);
      socket.write(drip[sent++ % drip.length]!);
    }, 40);
  });
  return { received, stop: () => (clearInterval(timer), socket.destroy()) };
}

/** The status and the JSON body of a raw HTTP/1.1 answer. */
function parsed(raw: string): { status: number; contentType: string | undefined; body: Record<string, unknown> } {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const contentType = /\r\ncontent-type: ([^\r]+)/i.exec(head)?.[1];
  return { status, contentType, body: body ? (JSON.parse(body) as Record<string, unknown>) : {} };
}

/** Resolves with what `promise` resolves to, or with `fallback` after `ms` of real time (a hung connection). */
function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  return Promise.race([promise, new Promise<T>((resolve) => setTimeout(() => resolve(fallback), ms))]);
}

describe('request timeouts over a real socket', () => {
  let mock: Mock;
  let port: number;

  beforeAll(async () => {
    mock = buildMock({ timeouts: { requestMs: REQUEST_MS, headersMs: HEADERS_MS } });
    await mock.app.listen({ host: '127.0.0.1', port: 0 });
    port = (mock.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await mock?.app.close();
  });

  it.each([
    ['headers that never end', 'GET /__mock/clock HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'x-slow: aaaaaaaaaaaaaaaaaaaaaaaa\r\n', /headers did not arrive/],
    ['a control-plane body sent a byte at a time', 'POST /__mock/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n', ' ', /body did not arrive/],
    ['an API body sent a byte at a time', 'POST /api/public/v1/campaigns HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n', ' ', /body did not arrive/],
  ])('%s: 408 problem+json, then the connection closes', async (_what, head, drip, detail) => {
    // 20 slow clients at once, as a slowloris would open them.
    const clients = Array.from({ length: 20 }, () => trickle(port, head, drip));
    try {
      const answers = await Promise.all(clients.map((client) => within(client.received, 10 * REQUEST_MS + 3_000, 'still open')));
      for (const raw of answers) {
        expect(raw).not.toBe('still open');
        const answer = parsed(raw);
        expect(answer.status).toBe(408);
        expect(answer.contentType).toBe('application/problem+json; charset=utf-8');
        expect(answer.body).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT', title: 'Request Timeout' });
        expect(String(answer.body['detail'])).toMatch(detail);
      }
    } finally {
      for (const client of clients) client.stop();
    }
  });

  it('the change feed stream and an idle keep-alive connection outlive the request timeout', async () => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: string[] = [];
    let closed = false;
    socket.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.on('connect', resolve));
    // A keep-alive request first, then the connection idles past the request timeout...
    socket.write('GET /__mock/clock HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 3 * REQUEST_MS));
    expect(chunks.join('')).toMatch(/^HTTP\/1\.1 200 /);
    expect(closed).toBe(false);
    // ...then a stream on it, which lasts past the request timeout and still carries messages.
    chunks.length = 0;
    socket.write('GET /__mock/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 3 * REQUEST_MS));
    expect(closed).toBe(false);
    await fetch(`http://127.0.0.1:${port}/__mock/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"advanceSeconds":60}' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const text = chunks.join('');
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text).toMatch(/event: ready/);
    expect(text).toMatch(/event: clock/);
    expect(closed).toBe(false);
    socket.destroy();
  });
});
