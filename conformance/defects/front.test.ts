import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otherCase, rewrittenReason, startFront, type Front } from './front.ts';

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
