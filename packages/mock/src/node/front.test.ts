import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { execFile } from 'node:child_process';
import net, { type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildMock } from './app.ts';
import { BODY_LIMIT_BYTES, isApiTarget, readBody, splitUrl, WriteBatch } from './front.ts';
import { handlers } from '../../../mock-core/src/services/handlers.ts';
import type { RawResponse } from '../../../mock-core/src/pipeline/types.ts';

const run = promisify(execFile);

describe('splitUrl (the request target, without new URL on plain paths)', () => {
  // Each target: what the WHATWG parser gives is what splitUrl must give, fast path or not.
  const targets = [
    '/api/public/v1/creatives',
    '/api/public/v1/creatives?limit=50',
    '/api/public/v1/creatives?limit=50&cursor=abc_-&expand=product',
    '/api/public/v1/creatives?limit=5&limit=6',
    '/api/public/v1/creatives?a=1+2&b=%20x&c=%zz&d=',
    '/api/public/v1/creatives?q=%C3%A9&r=é',
    '/api/public/v1/creatives?x=1#frag',
    '/api/public/v1/creatives#frag?x=1',
    '/api/public/v1/creatives/cr_1.2',
    '/api/public/v1/creatives/./cr_1',
    '/api/public/v1/creatives/../products',
    '/api/public/v1/creatives/..',
    '/api/public/v1/creatives/%2e%2e/products',
    '/api/public/v1/creatives/a%2Fb',
    '/api/public/v1/creatives/é',
    '/api/public/v1/creatives/a b',
    '/api/public/v1/creatives/a\\b',
    '/api/public/v1//creatives',
    "/api/public/v1/creatives/a'b(c)*!~$;,=:@",
    '/api/public/v1/creatives/{id}',
    '/api/public/v1/creatives?',
    '/api/public/v1',
  ];
  it.each(targets)('%s', (target) => {
    const url = new URL(target, 'http://mock.invalid');
    const split = splitUrl(target);
    expect(split.pathname).toBe(url.pathname);
    expect([...split.searchParams]).toEqual([...url.searchParams]);
  });
});

describe('the API handler writes the pipeline answer on the raw response', () => {
  it('a header value the mock built wrongly is a logged 500, never a hung connection', async () => {
    const logged: unknown[] = [];
    const mock = buildMock({
      logError: (error) => logged.push(error),
      handlers: { ...handlers, listPresets: { run: () => ({ status: 200, body: {}, headers: { 'x-broken': 'a\nb' } }) } },
    });
    try {
      await mock.app.ready();
      const created = await mock.inject({ method: 'POST', url: '/__mock/accounts', payload: { empty: true } });
      const key = (created.json() as { keys: { all: { key: string } } }).keys.all.key;
      const res = await mock.inject({ method: 'GET', url: '/api/public/v1/presets', headers: { authorization: `Bearer ${key}` } });
      expect(res.statusCode).toBe(500);
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(res.json()).toMatchObject({ status: 500, code: 'INTERNAL_ERROR' });
      expect(logged).toHaveLength(1);
      expect(String(logged[0])).toMatch(/x-broken|Invalid character/i);
    } finally {
      await mock.app.close();
    }
  });
});

describe('isApiTarget (what the front takes; the rest goes to fastify)', () => {
  it.each([
    ['/api/public/v1', true],
    ['/api/public/v1/', true],
    ['/api/public/v1?x=1', true],
    ['/api/public/v1/creatives?limit=5', true],
    ['/api/public/v10/creatives', false],
    ['/api/public/v1x', false],
    ['/api/public', false],
    ['/__mock/accounts', false],
    ['/', false],
    ['http://127.0.0.1/api/public/v1/creatives', false],
  ])('%s → %s', (url, expected) => expect(isApiTarget(url)).toBe(expected));
});

/** A request stream with these headers and chunks (or an error after them). */
function fakeRequest(headers: Record<string, string>, chunks: (string | Buffer)[], fail?: Error): IncomingMessage {
  const stream = new Readable({ read() {} });
  for (const chunk of chunks) stream.push(chunk);
  if (fail) queueMicrotask(() => stream.destroy(fail));
  else stream.push(null);
  return Object.assign(stream, { headers }) as unknown as IncomingMessage;
}

function read(req: IncomingMessage): Promise<{ code?: string; status?: number; body?: Buffer }> {
  return new Promise((resolve) => readBody(req, (error, body) => resolve(error ? { code: error.code, status: error.status } : { body })));
}

describe('readBody (the body as fastify\'s raw-body parser read it)', () => {
  it('no body announced (no Content-Type, Transfer-Encoding or non-zero Content-Length): none, even when bytes follow', async () => {
    expect(await read(fakeRequest({}, []))).toEqual({ body: undefined });
    expect(await read(fakeRequest({ 'content-length': '0' }, []))).toEqual({ body: undefined });
  });
  it('a Content-Type with no bytes is an empty body, not none', async () => {
    const out = await read(fakeRequest({ 'content-type': 'application/json', 'content-length': '0' }, []));
    expect(out.body).toEqual(Buffer.alloc(0));
  });
  it('the bytes of every chunk, in order, with or without a Content-Type', async () => {
    expect((await read(fakeRequest({ 'content-type': 'application/json', 'content-length': '10' }, ['{"a":', Buffer.from('"é"}')]))).body?.toString()).toBe('{"a":"é"}');
    expect((await read(fakeRequest({ 'transfer-encoding': 'chunked' }, ['ab', 'cd']))).body?.toString()).toBe('abcd');
  });
  it('a Content-Length over the limit: 413 at once, nothing read', async () => {
    const req = fakeRequest({ 'content-type': 'application/json', 'content-length': String(BODY_LIMIT_BYTES + 1) }, ['x']);
    expect(await read(req)).toEqual({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    expect(req.listenerCount('data')).toBe(0);
  });
  it('bytes past the limit without a Content-Length (chunked): 413, and reading stops', async () => {
    const big = Buffer.alloc(BODY_LIMIT_BYTES / 2, 120);
    const req = fakeRequest({ 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, [big, big, Buffer.from('x')]);
    expect(await read(req)).toEqual({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    expect(req.listenerCount('data')).toBe(0);
  });
  it('exactly the limit is read', async () => {
    const big = Buffer.alloc(BODY_LIMIT_BYTES, 120);
    expect((await read(fakeRequest({ 'content-type': 'text/plain', 'content-length': String(BODY_LIMIT_BYTES) }, [big]))).body?.length).toBe(BODY_LIMIT_BYTES);
  });
  it('a body shorter than its Content-Length, or a broken stream: 400 VALIDATION_ERROR', async () => {
    expect(await read(fakeRequest({ 'content-type': 'application/json', 'content-length': '10' }, ['{}']))).toEqual({ code: 'VALIDATION_ERROR', status: 400 });
    expect(await read(fakeRequest({ 'content-type': 'application/json' }, ['{'], new Error('aborted')))).toEqual({ code: 'VALIDATION_ERROR', status: 400 });
  });
});

describe('WriteBatch (the answers of one turn, written together)', () => {
  const fakeRes = (log: string[], name: string, broken = false) =>
    ({
      writeHead(status: number, _reason: string, headers: Record<string, string>) {
        if (broken) throw new TypeError(`Invalid character in header content ["x-broken"]`);
        log.push(`${name} head ${status} ${headers['content-length']}`);
      },
      end(body: Buffer) {
        log.push(`${name} end ${body.toString()}`);
      },
    }) as unknown as ServerResponse;
  const answer = (body: string, headers: Record<string, string> = {}): RawResponse => ({ status: 200, headers, body });

  it('writes nothing until the turn ends, then every answer in the order it was ready; one flush per turn', () => {
    const log: string[] = [];
    const flushes: (() => void)[] = [];
    const batch = new WriteBatch(() => log.push('failed'), (flush) => flushes.push(flush));
    const req = {} as IncomingMessage;
    batch.push(req, fakeRes(log, 'a'), answer('A'));
    batch.push(req, fakeRes(log, 'b'), answer('BB'));
    expect(log).toEqual([]);
    expect(flushes).toHaveLength(1);
    expect(batch.size).toBe(2);
    flushes[0]!();
    expect(log).toEqual(['a head 200 1', 'a end A', 'b head 200 2', 'b end BB']);
    expect(batch.size).toBe(0);
    batch.push(req, fakeRes(log, 'c'), answer('C'));
    expect(flushes).toHaveLength(2);
  });

  it('a write that throws is handed to `failed` and the rest of the batch is still written', () => {
    const log: string[] = [];
    const failures: unknown[] = [];
    const batch = new WriteBatch((_req, _res, error) => failures.push(error), () => {});
    const req = {} as IncomingMessage;
    batch.push(req, fakeRes(log, 'a', true), answer('A'));
    batch.push(req, fakeRes(log, 'b'), answer('B'));
    batch.flush();
    expect(failures).toHaveLength(1);
    expect(String(failures[0])).toMatch(/x-broken/);
    expect(log).toEqual(['b head 200 1', 'b end B']);
  });
});

describe('the front over a real socket (the listener the server runs)', () => {
  async function withServer(test: (origin: string, key: string, logged: unknown[]) => Promise<void>) {
    const logged: unknown[] = [];
    const mock = buildMock({ logError: (error) => logged.push(error), responseCache: { verify: true } });
    try {
      await mock.app.listen({ host: '127.0.0.1', port: 0 });
      const origin = `http://127.0.0.1:${(mock.app.server.address() as AddressInfo).port}`;
      const created = await fetch(`${origin}/__mock/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"empty":true}' });
      const key = ((await created.json()) as { keys: { all: { key: string } } }).keys.all.key;
      await test(origin, key, logged);
    } finally {
      await mock.app.close();
    }
  }
  /** One raw HTTP/1.1 exchange (node:http client, so a broken Content-Length can be sent). */
  function exchange(origin: string, options: http.RequestOptions, body?: string | Buffer): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(`${origin}${options.path}`, { ...options, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it('answers the API (GET and HEAD alike) and hands the control plane to fastify', async () => {
    await withServer(async (origin, key, logged) => {
      const auth = { authorization: `Bearer ${key}` };
      const get = await exchange(origin, { method: 'GET', path: '/api/public/v1/presets', headers: auth });
      expect(get.status).toBe(200);
      expect(get.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(get.headers['ratelimit']).toMatch(/^limit=\d+, remaining=\d+, reset=\d+$/);
      const head = await exchange(origin, { method: 'HEAD', path: '/api/public/v1/presets', headers: auth });
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.text)));
      const control = await exchange(origin, { method: 'GET', path: '/__mock/defects' });
      expect(control.status).toBe(200);
      expect(logged).toEqual([]);
    });
  });

  it('a body over the limit is 413 problem+json that closes the connection', async () => {
    await withServer(async (origin, key, logged) => {
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const big = await exchange(origin, { method: 'POST', path: '/api/public/v1/campaigns', headers: { ...headers, 'content-length': String(BODY_LIMIT_BYTES + 10) } }, Buffer.alloc(BODY_LIMIT_BYTES + 10, 32));
      expect(big.status).toBe(413);
      expect(big.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(big.headers['connection']).toBe('close');
      expect(JSON.parse(big.text)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
      expect(big.headers['ratelimit']).toMatch(/^limit=/);
      expect(logged).toEqual([]);
    });
  });

  it('in process too, a refused body says the connection is not reused (node:http would add it on a socket)', async () => {
    const mock = buildMock();
    try {
      // An unknown path: no key is asked for, so the refused body is the answer.
      const res = await mock.inject({ method: 'POST', url: '/api/public/v1/nowhere', headers: { 'content-type': 'application/json' }, payload: Buffer.alloc(BODY_LIMIT_BYTES + 1, 32) });
      expect(res.statusCode).toBe(413);
      expect(res.headers['connection']).toBe('close');
    } finally {
      await mock.app.close();
    }
  });

  it('a malformed percent-escape in an API path is 400 naming the path', async () => {
    await withServer(async (origin, key, logged) => {
      const headers = { authorization: `Bearer ${key}` };
      const bad = await exchange(origin, { method: 'GET', path: '/api/public/v1/products/%E0%A4%A', headers });
      expect(bad.status).toBe(400);
      expect(JSON.parse(bad.text)).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'path' }] });
      expect(logged).toEqual([]);
    });
  });

  it('ERR-003 the status line and the problem title give the same reason phrase (413, 422, 404, on the API and the control plane)', async () => {
    await withServer(async (origin, key) => {
      const phraseOf = async (path: string, init: RequestInit) => {
        const res = await new Promise<IncomingMessage>((resolve, reject) => {
          const body = init.body as string | Buffer | undefined;
          const req = http.request(`${origin}${path}`, { method: init.method, headers: init.headers as Record<string, string>, agent: false }, resolve);
          req.on('error', reject);
          req.end(body);
        });
        const chunks: Buffer[] = [];
        for await (const chunk of res) chunks.push(chunk as Buffer);
        return { line: res.statusMessage, title: (JSON.parse(Buffer.concat(chunks).toString()) as { title: string }).title, status: res.statusCode };
      };
      const json = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const answers = [
        await phraseOf('/api/public/v1/campaigns', { method: 'POST', headers: { ...json, 'idempotency-key': 'k1' }, body: '{"name":""}' }),
        await phraseOf('/api/public/v1/campaigns', { method: 'POST', headers: json, body: Buffer.alloc(BODY_LIMIT_BYTES + 1, 32) }),
        await phraseOf('/__mock/clock', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"advanceSeconds":-1}' }),
        await phraseOf('/nowhere', { method: 'GET', headers: {} }),
      ];
      expect(answers.map((a) => a.status)).toEqual([422, 413, 422, 404]);
      for (const a of answers) expect(a.line, JSON.stringify(a)).toBe(a.title);
    });
  });

  it('#17-4 ERR-044 a URL or a body refused before the operation ran gets its own requestId and the RateLimit headers of the operation reached', async () => {
    await withServer(async (origin, key) => {
      const auth = { authorization: `Bearer ${key}` };
      const json = { ...auth, 'content-type': 'application/json' };
      const big = Buffer.alloc(BODY_LIMIT_BYTES + 10, 32);
      const answers = [
        await exchange(origin, { method: 'PATCH', path: '/api/public/v1/creatives/crv_x', headers: json }, big),
        await exchange(origin, { method: 'PATCH', path: '/api/public/v1/creatives/crv_x', headers: json }, big),
        await exchange(origin, { method: 'GET', path: '/api/public/v1/creatives/%E0%A4%A', headers: auth }),
      ];
      expect(answers.map((a) => a.status)).toEqual([413, 413, 400]);
      const ids = answers.map((a) => (JSON.parse(a.text) as { requestId: string }).requestId);
      expect(new Set(ids).size, ids.join(' ')).toBe(3);
      expect(ids.every((id) => /^req_[0-9a-f]{12}[0-9a-f]{8,}$/.test(id)), ids.join(' ')).toBe(true);
      // A creative write is counted against the creative-write limit (60), a read against the read plane's (200).
      const write = await exchange(origin, { method: 'PATCH', path: '/api/public/v1/creatives/crv_x', headers: json }, '{}');
      expect(write.status).toBe(404);
      expect(answers[0]!.headers['ratelimit-policy']).toBe(write.headers['ratelimit-policy']);
      expect(answers[0]!.headers['ratelimit']).toMatch(/^limit=60,/);
      const read = await exchange(origin, { method: 'GET', path: '/api/public/v1/creatives/crv_x', headers: auth });
      expect(answers[2]!.headers['ratelimit-policy']).toBe(read.headers['ratelimit-policy']);
    });
  });

  it('#12 §5 a body over the limit always gets the 413 problem, never a reset connection (30 PATCHes of 8 MiB with fetch, from another process)', async () => {
    // Another process, so the client keeps writing while the server answers (in one process the
    // two take turns). Before the lingering close, 8 MiB got EPIPE in about 18 of 30 tries here.
    const client = `
      const [origin, key] = process.argv.slice(1);
      const body = Buffer.alloc(8 * 1024 * 1024, 32);
      const outcomes = [];
      for (let i = 0; i < 30; i++) {
        try {
          const res = await fetch(origin + '/api/public/v1/creatives/crv_x', { method: 'PATCH', headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' }, body });
          outcomes.push(res.status + ' ' + (await res.json()).code);
        } catch (error) {
          outcomes.push(String(error.cause?.code ?? error.message));
        }
      }
      console.log(JSON.stringify(outcomes));`;
    await withServer(async (origin, key) => {
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', client, origin, key]);
      const outcomes = JSON.parse(stdout) as string[];
      expect(outcomes).toHaveLength(30);
      expect(outcomes.filter((o) => o !== '413 PAYLOAD_TOO_LARGE')).toEqual([]);
    });
  });

  it('#12 §5 headers or a URL over node\'s limit answer 431 problem+json with the contract\'s members, not fastify\'s JSON', async () => {
    await withServer(async (origin) => {
      const { port } = new URL(origin);
      const raw = (request: string) =>
        new Promise<string>((resolve, reject) => {
          const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(request));
          const chunks: Buffer[] = [];
          socket.on('data', (c: Buffer) => chunks.push(c));
          socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
          socket.on('error', reject);
        });
      for (const request of [
        `GET /api/public/v1/products HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        `GET /api/public/v1/products?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      ]) {
        const answer = await raw(request);
        const [head, body] = answer.split('\r\n\r\n');
        expect(head).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
        expect(head).toMatch(/content-type: application\/problem\+json/i);
        const problem = JSON.parse(body!) as Record<string, unknown>;
        expect(problem).toMatchObject({ type: '/errors/HEADERS_TOO_LARGE', title: 'Request Header Fields Too Large', status: 431, code: 'HEADERS_TOO_LARGE' });
        expect(problem['requestId']).toMatch(/^req_/);
      }
    });
  });

  it('D75 RFC 9112 3.2.2: an absolute-form request target is accepted like its origin form', async () => {
    await withServer(async (origin, key) => {
      const { port } = new URL(origin);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () =>
          socket.end(`GET http://127.0.0.1:${port}/api/public/v1/presets HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`),
        );
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
        socket.on('error', reject);
      });
      expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
      expect(answer).toMatch(/"object":"list"/);
    });
  });

  it('D76 a plain OPTIONS (no CORS preflight) answers 405, and its Allow names the methods the path serves, which OPTIONS is not', async () => {
    await withServer(async (origin) => {
      const res = await fetch(`${origin}/api/public/v1/products`, { method: 'OPTIONS' });
      expect(res.status).toBe(405);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await res.json()) as { code: string }).code).toBe('METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')).toBe('GET, HEAD');
    });
  });

  it('an API request sent to fastify (app.inject instead of mock.inject) is reported, not a silent 404', async () => {
    const logged: unknown[] = [];
    const mock = buildMock({ logError: (error) => logged.push(error) });
    try {
      const res = await mock.app.inject({ method: 'GET', url: '/api/public/v1/presets' });
      expect(res.statusCode).toBe(404);
      expect(String(logged[0])).toMatch(/mock\.inject/);
      const viaFront = await mock.inject({ method: 'GET', url: '/api/public/v1/presets' });
      expect(viaFront.statusCode).toBe(401);
    } finally {
      await mock.app.close();
    }
  });
});
