/**
 * The media route (D49) in-process, through the server's own listener (mock.inject): every URL a
 * seeded account hands out answers real bytes of the stated size and type, with a strong ETag,
 * Cache-Control, HEAD, 304 on If-None-Match, and problem+json for what it does not serve.
 */
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basePath } from '../../../contract/spec/contract.ts';
import { buildMock, type Mock } from '../../../mock/src/node/app.ts';
import { createHarness, type Harness, type TestAccount } from '../testkit/harness.ts';
import { ratioOf } from './links.ts';
import { clipFor } from './node.ts';
import { answerMedia, MediaService, noneMatch, playerPage } from './serve.ts';
import type { MediaTarget } from './links.ts';

let h: Harness;
let account: TestAccount;
beforeAll(async () => {
  h = await createHarness();
  account = await h.account(); // the seeded demo data: products, creatives (image and video), assets, deliveries
});
afterAll(async () => {
  await h.close();
});

async function fetchMedia(url: string, init: { method?: 'GET' | 'HEAD' | 'POST'; headers?: Record<string, string> } = {}, mock: Mock = h.mock) {
  const { pathname } = new URL(url);
  const res = await mock.inject({ method: init.method ?? 'GET', url: pathname, headers: init.headers ?? {} });
  return { status: res.statusCode, headers: res.headers as Record<string, string>, body: res.rawPayload };
}

/** Width and height from the PNG header (IHDR), as the bytes state them. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

async function list(path: string): Promise<any[]> {
  const res = await h.request('GET', path, { key: account.key('all'), query: { limit: 100 } });
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('every URL the API hands out resolves on the mock', () => {
  it('creatives: the image in the shown ratio; a video plays (.webm), its still, its player page, its embedCode', async () => {
    const creatives = await list('/creatives');
    expect(creatives.some((c) => c.mediaType === 'video')).toBe(true);
    for (const c of creatives) {
      expect(c.url.startsWith('http://localhost/media/')).toBe(true);
      const media = await fetchMedia(c.url);
      expect(media.status, c.url).toBe(200);
      if (c.mediaType === 'image') {
        expect(media.headers['content-type']).toBe('image/png');
        expect(ratioOf(pngSize(media.body))).toBe(ratioOf(sizeOf(c.aspectRatio ?? '1:1')));
        continue;
      }
      expect(media.headers['content-type']).toBe('video/webm');
      expect(media.body.subarray(0, 4).toString('hex')).toBe('1a45dfa3'); // EBML: a WebM file
      const still = await fetchMedia(c.thumbnailUrl);
      expect(still.headers['content-type']).toBe('image/png');
      expect(Math.max(...Object.values(pngSize(still.body)))).toBeLessThanOrEqual(320); // small
      const page = await fetchMedia(c.playerUrl);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body.toString()).toContain(`<video src="${c.url.split('/').pop()}"`);
      const frame = /src="([^"]+)" width="(\d+)" height="(\d+)"/.exec(c.embedCode);
      expect(frame?.[1]).toBe(c.playerUrl);
      expect(ratioOf({ width: Number(frame![2]), height: Number(frame![3]) })).toBe(ratioOf(sizeOf(c.aspectRatio ?? '1:1')));
    }
  });

  it('assets: exactly the width and height the asset states; a video asset plays', async () => {
    const assets = await list('/assets');
    for (const a of assets) {
      const media = await fetchMedia(a.url);
      expect(media.status, a.url).toBe(200);
      if (a.type === 'VIDEO') {
        expect(media.headers['content-type']).toBe('video/webm');
        expect((await fetchMedia(a.playerUrl)).status).toBe(200);
      } else {
        expect(media.headers['content-type']).toBe('image/png');
        expect(pngSize(media.body)).toEqual({ width: a.width, height: a.height });
      }
      if (a.thumbnailUrl !== null) expect((await fetchMedia(a.thumbnailUrl)).headers['content-type']).toBe('image/png');
    }
    // one fully decoded by pngjs, not only its header
    const still = assets.find((a) => a.type === 'STATIC')!;
    const png = PNG.sync.read((await fetchMedia(still.url)).body);
    expect({ width: png.width, height: png.height }).toEqual({ width: still.width, height: still.height });
  });

  it('deliveries and product images', async () => {
    for (const d of await list('/deliveries')) {
      const media = await fetchMedia(d.url);
      expect(media.headers['content-type']).toBe(d.mediaType === 'video' ? 'video/webm' : 'image/png');
      if (d.mediaType === 'image') expect(ratioOf(pngSize(media.body))).toBe(ratioOf(sizeOf(d.aspectRatio)));
    }
    const products = await list('/products');
    for (const p of products.slice(0, 10)) {
      for (const url of [p.primaryImageUrl, ...p.galleryImageUrls]) {
        const media = await fetchMedia(url);
        expect(media.headers['content-type']).toBe('image/png');
        expect(pngSize(media.body)).toEqual({ width: 1024, height: 1024 });
      }
    }
  });
});

function sizeOf(ratio: string): { width: number; height: number } {
  const [width, height] = ratio.split(':').map(Number) as [number, number];
  return { width, height };
}

describe('HTTP', () => {
  const path = '/media/crv_http1/MPN-1/320x180.png';

  it('no key needed; Cache-Control, a strong ETag, the exact length; the same bytes every time', async () => {
    const a = await fetchMedia(`http://x${path}`);
    expect(a.status).toBe(200);
    expect(a.headers['cache-control']).toBe('public, max-age=86400');
    expect(a.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/); // strong: no W/
    expect(Number(a.headers['content-length'])).toBe(a.body.length);
    expect(a.headers['x-content-type-options']).toBe('nosniff');
    const fresh = buildMock(); // another mock, nothing kept: drawn again
    const b = await fetchMedia(`http://x${path}`, {}, fresh);
    expect(b.body.equals(a.body)).toBe(true);
    expect(b.headers.etag).toBe(a.headers.etag);
    await fresh.app.close();
  });

  it('HEAD: the headers of GET, no body', async () => {
    const get = await fetchMedia(`http://x${path}`);
    const head = await fetchMedia(`http://x${path}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const name of ['content-type', 'content-length', 'etag', 'cache-control']) expect(head.headers[name], name).toBe(get.headers[name]);
  });

  it('If-None-Match: 304 without a body when a tag matches (weakly, or *), 200 otherwise', async () => {
    const { etag } = (await fetchMedia(`http://x${path}`)).headers;
    for (const header of [etag!, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const res = await fetchMedia(`http://x${path}`, { headers: { 'if-none-match': header } });
      expect(res.status, header).toBe(304);
      expect(res.body.length).toBe(0);
      expect(res.headers.etag).toBe(etag);
    }
    expect((await fetchMedia(`http://x${path}`, { headers: { 'if-none-match': '"nope"' } })).status).toBe(200);
  });

  it.each(['/media/nothing', '/media/', '/media', '/media/crv_1/L/100x100.jpg', '/media/crv_1/L/5000x10.png', '/media/crv_1/L/0x10.png'])('%s: 404 problem+json in the contract\'s shape', async (target) => {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await h.mock.inject({ method, url: target });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      if (method === 'GET') expect(res.json()).toMatchObject({ type: '/errors/NOT_FOUND', status: 404, code: 'NOT_FOUND', title: expect.any(String), requestId: expect.stringMatching(/^req_/) });
    }
  });

  it('another method: 405 problem+json with Allow', async () => {
    const res = await h.mock.inject({ method: 'POST', url: path, payload: 'x' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED', status: 405 });
  });

  it('an API path is still the API (a key is asked for), and /__mock still the control plane', async () => {
    expect((await h.mock.inject({ method: 'GET', url: `${basePath}/creatives` })).statusCode).toBe(401);
    expect((await h.mock.inject({ method: 'GET', url: '/mediathing' })).statusCode).toBe(404);
  });

  it('noneMatch', () => {
    expect(noneMatch(undefined, '"a"')).toBe(false);
    expect(noneMatch('"b", W/"a"', '"a"')).toBe(true);
    expect(noneMatch('"ab"', '"a"')).toBe(false);
  });
});

describe('video', () => {
  it.each([
    [816, 1020, '4x5'],
    [1080, 1920, '9x16'],
    [1024, 576, '16x9'],
    [1000, 999, '1x1'],
    [2000, 1000, '16x9'], // no clip of 2:1: the nearest ratio
  ])('%i×%i plays the clip of ratio %s', (width, height, name) => expect(clipFor(width, height).name).toBe(name));

  it('the player page plays the .webm of its size with a still as poster', () => {
    const page = playerPage({ key: 'crv_1', label: 'L', width: 816, height: 1020, format: 'html' });
    expect(page).toContain('<video src="816x1020.webm" poster="256x320.png" controls autoplay muted loop playsinline');
  });
});

describe('the kept bytes are bounded', () => {
  it('least recently used go first; never more than the bound', async () => {
    const media = new MediaService({ cacheBytes: 4_000 });
    const paths = [1, 2, 3, 4, 5].map((n) => `/media/crv_lru${n}/L/64x64.png`);
    for (const p of paths) await media.resolve(p);
    expect(media.cachedBytes).toBeGreaterThan(0);
    expect(media.cachedBytes).toBeLessThanOrEqual(4_000);
    expect(await media.resolve('/media/x')).toBeUndefined();
  });
});

describe('unique large pictures cannot monopolise the mock (D256)', () => {
  it('16 unique 4096x4096 URLs at once: 2 drawn, 4 wait, the other 10 answered 503 SERVICE_UNAVAILABLE with Retry-After at once; then every one is drawn on asking again', async () => {
    const started: string[] = [];
    const gates: (() => void)[] = [];
    const render = (target: MediaTarget): Promise<Uint8Array> => {
      started.push(target.key);
      return new Promise((resolve) => gates.push(() => resolve(new Uint8Array([1, 2, 3]))));
    };
    const media = new MediaService({ concurrentRenders: 2, maxWaiting: 4, render });
    const paths = Array.from({ length: 16 }, (_, i) => `/media/crv_big${i}/L/4096x4096.png`);
    const answers = paths.map((path) => answerMedia(media, 'GET', path, undefined));
    const early = await Promise.all(answers.slice(6));
    for (const answer of early) {
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.headers['content-type']).toMatch(/problem\+json/);
      expect(JSON.parse(Buffer.from(answer.body!).toString()).code).toBe('SERVICE_UNAVAILABLE');
    }
    expect(started).toHaveLength(2); // the rest neither drawn nor holding memory
    while (gates.length > 0) gates.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
    while (gates.length > 0) {
      gates.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect((await Promise.all(answers.slice(0, 6))).map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(started).toHaveLength(6);
    // Asked again, a refused one is drawn; a drawn one is kept and not drawn again.
    const again = answerMedia(media, 'GET', paths[10]!, undefined);
    await new Promise((resolve) => setImmediate(resolve));
    gates.shift()!();
    expect((await again).status).toBe(200);
    expect((await answerMedia(media, 'GET', paths[0]!, undefined)).status).toBe(200);
    expect(started).toHaveLength(7);
  });

  it('drawing a 4096x4096 picture paints a few dozen rows, not 4096 (the rest are repeated rows the encoder gets as one shared piece)', async () => {
    const { renderPng } = await import('./image.ts');
    const meter = { rows: 0 };
    const png = await renderPng({ key: 'crv_big', label: 'MPN-SHARED-01', width: 4096, height: 4096 }, meter);
    const decoded = PNG.sync.read(Buffer.from(png));
    // The rows that differ from the one above: each needs painting; nothing else does.
    const stride = decoded.width * 4;
    let changes = 1;
    for (let y = 1; y < decoded.height; y++) if (Buffer.compare(decoded.data.subarray(y * stride, (y + 1) * stride), decoded.data.subarray((y - 1) * stride, y * stride)) !== 0) changes++;
    expect(meter.rows).toBeGreaterThanOrEqual(changes);
    expect(meter.rows).toBeLessThanOrEqual(2 * changes);
    expect(meter.rows).toBeLessThan(100); // of 4096
  });
});

describe('the origin of the URLs', () => {
  it('--public-url (buildMock publicUrl) names the origin and path prefix of every URL', async () => {
    const mock = buildMock({ publicUrl: 'https://dev.example.test/mock' });
    const res = await mock.inject({ method: 'POST', url: '/__mock/accounts', payload: '{}', headers: { 'content-type': 'application/json' } });
    const key = (res.json() as { keys: Record<string, { key: string }> }).keys.all!.key;
    const creatives = await mock.inject({ method: 'GET', url: `${basePath}/creatives?limit=5`, headers: { authorization: `Bearer ${key}` } });
    const urls = (creatives.json() as { data: { url: string }[] }).data.map((c) => c.url);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url).toMatch(/^https:\/\/dev\.example\.test\/mock\/media\//);
    await mock.app.close();
  });

  it('without it, the origin the server listens on', async () => {
    const mock = buildMock();
    await mock.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = mock.app.server.address() as { port: number };
      expect(mock.services.store.publicOrigin).toBe(`http://127.0.0.1:${port}`);
      const res = await fetch(`http://127.0.0.1:${port}/media/crv_sock/L/16x16.png`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
    } finally {
      await mock.app.close();
    }
  });
});
