import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otherCase, rewrittenReason, startFront, startH2Front, type Front, type H2Front } from './front.ts';

describe('what the front rewrites', () => {
  it('reason phrases: the older names where RFC 9110 renamed a status, else a gateway wording; none as HTTP/2', () => {
    expect(rewrittenReason(422, 'rewrite')).toBe('Unprocessable Entity');
    expect(rewrittenReason(413, 'rewrite')).toBe('Payload Too Large');
    expect(rewrittenReason(404, 'rewrite')).toBe('NOT FOUND');
    expect(rewrittenReason(404, 'none')).toBe('');
    expect(rewrittenReason(404, 'keep')).toBeUndefined();
  });
  it('header names in another case', () => {
    expect(otherCase('etag')).toBe('ETAG');
    expect(otherCase('content-type')).toBe('CONTENT-TYPE');
    expect(otherCase('retry-after')).toBe('Retry-After');
  });
});

describe('startFront', () => {
  let upstream: Server;
  let front: Front;
  beforeAll(async () => {
    upstream = createServer((req, res) => {
      res.statusMessage = 'Unprocessable Content';
      res.writeHead(422, { 'content-type': 'application/problem+json', etag: '"v1"', 'content-length': '13' });
      res.end('{"title":"x"}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    front = await startFront(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, { hide: ['/__mock'], reasons: 'rewrite', rechunk: true, headers: true, compress: true });
  });
  afterAll(async () => {
    await front.close();
    await new Promise((resolve) => upstream.close(resolve));
  });

  const get = (path: string, headers: Record<string, string> = {}): Promise<{ status: number; reason: string; headers: Record<string, unknown>; raw: string[]; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const req = request(`${front.origin}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, reason: res.statusMessage!, headers: res.headers, raw: res.rawHeaders, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });

  it('hides /__mock with a plain 404', async () => {
    const hidden = await get('/__mock/clock');
    expect(hidden.status).toBe(404);
    expect(hidden.headers['content-type']).toBe('text/html');
  });

  it('keeps status, body and the ETag; rewrites the reason phrase, re-chunks, compresses and re-cases the headers', async () => {
    const plain = await get('/api/x');
    expect(plain.status).toBe(422);
    expect(plain.reason).toBe('Unprocessable Entity');
    expect(plain.headers['transfer-encoding']).toBe('chunked');
    expect(plain.headers['content-length']).toBeUndefined();
    expect(plain.headers['etag']).toBe('"v1"');
    expect(plain.raw).toContain('ETAG');
    expect(plain.headers['via']).toBe('1.1 front');
    expect(plain.body.toString()).toBe('{"title":"x"}');
    const zipped = await get('/api/x', { 'accept-encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.body).toString()).toBe('{"title":"x"}');
    expect(front.counts).toMatchObject({ hidden: 1, forwarded: 2, compressed: 1 });
  });
});

describe('across an HTTP/2 hop (startFront over h2c to startH2Front)', () => {
  let upstream: Server;
  let h2: H2Front;
  let front: Front;
  const seen: { method: string; headers: Record<string, unknown>; body: string }[] = [];
  beforeAll(async () => {
    upstream = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method!, headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.statusMessage = 'Unprocessable Content';
        // Mixed-case names, a field the Connection field names, a chunked body: what HTTP/2 cannot carry as such.
        res.writeHead(422, ['Content-Type', 'application/problem+json', 'ETag', '"v1"', 'X-Custom', 'a', 'X-Custom', 'b', 'Connection', 'keep-alive, X-Hop', 'X-Hop', 'secret']);
        res.write('{"title":');
        res.end('"x"}');
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    h2 = await startH2Front(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
    front = await startFront(h2.origin, { upstream: 'h2c' });
  });
  afterAll(async () => {
    await front.close();
    await h2.close();
    await new Promise((resolve) => upstream.close(resolve));
  });

  it('keeps status, body, the ETag and repeated fields; the reason phrase, the field names\' case and the connection\'s fields do not cross', async () => {
    const answer = await new Promise<{ status: number; reason: string; raw: string[]; body: string }>((resolve, reject) => {
      const req = request(`${front.origin}/api/x?q=1`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Request': 'r1' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, reason: res.statusMessage!, raw: res.rawHeaders, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.end('{"a":1}');
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toBe('{"title":"x"}');
    // HTTP/2 has no reason phrase: the HTTP/1.1 front writes its own (Node's), not the target's.
    expect(answer.reason).not.toBe('Unprocessable Content');
    const names = answer.raw.filter((_, i) => i % 2 === 0);
    expect(names).toContain('etag');
    expect(names).not.toContain('ETag');
    expect(names).not.toContain('x-hop');
    const custom = answer.raw.flatMap((v, i) => (i % 2 === 0 && v.toLowerCase() === 'x-custom' ? [answer.raw[i + 1]] : []));
    expect(custom.join(', ')).toBe('a, b');
    expect(h2.counts.forwarded).toBe(1);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json', 'x-request': 'r1' } });
  });

  it('forwards a request without a body (GET, HEAD: the HTTP/2 stream ends with its headers)', async () => {
    for (const method of ['GET', 'HEAD']) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`${front.origin}/api/y`, { method }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject);
        req.end();
      });
      expect(status, method).toBe(422);
      expect(seen.at(-1)).toMatchObject({ method, body: '' });
    }
  });
});
