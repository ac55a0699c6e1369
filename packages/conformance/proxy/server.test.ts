/**
 * The validating proxy over real sockets: it forwards exactly what it receives (both ways, bodies
 * streamed), reports the client's invalid requests, and — against the mock behind the defect
 * catalogue's fault-injecting proxy (packages/conformance/suite/defects/proxy.ts) — reports, exchange by exchange,
 * exactly the violations the suite's response checker finds in what the client received: every
 * defect the suite catches in an exchange, the proxy reports too.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResponse } from '../suite/checks/index.ts';
import type { Violation } from '../suite/checks/types.ts';
import { DEFECTS, type Defect } from '../suite/defects/catalogue.ts';
import { startProxy } from '../suite/defects/proxy.ts';
import { buildMock } from '../../mock/src/node/app.ts';
import type { Inspection, ObservedExchange } from './inspect.ts';
import { startValidatingProxy, type ValidatingProxy } from './server.ts';

const BASE = '/api/public/v1';

interface Answer {
  status: number;
  statusMessage: string;
  rawHeaders: string[];
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One request over a fresh connection, with the headers exactly as given (order and case). */
function send(origin: string, method: string, target: string, rawHeaders: string[] = [], body?: Buffer | string): Promise<Answer> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    // An array of headers is sent as it is: node adds no Host to it.
    const req = request({ host: url.hostname, port: url.port, method, path: target, headers: ['Host', url.host, ...rawHeaders], agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, statusMessage: res.statusMessage ?? '', rawHeaders: res.rawHeaders, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
const endToEnd = (raw: string[]) => raw.filter((_, i) => i % 2 === 0 ? !PER_CONNECTION.has(raw[i]!.toLowerCase()) : !PER_CONNECTION.has(raw[i - 1]!.toLowerCase()));

describe('the validating proxy forwards without altering', () => {
  let upstream: Server;
  let upstreamOrigin: string;
  let proxy: ValidatingProxy;
  const received: { method: string; url: string; rawHeaders: string[]; body: Buffer }[] = [];
  let releaseSecondChunk: () => void = () => {};

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ method: req.method!, url: req.url!, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks) });
        if (req.url === `${BASE}/stream`) {
          // The head and a first chunk, the rest only once the client has seen the first.
          res.writeHead(200, { 'Content-Type': 'text/plain' });
          res.write('first;');
          releaseSecondChunk = () => res.end('second');
          return;
        }
        res.writeHead(299, 'Odd Reason', [['X-Mixed-Case', 'a'], ['x-twice', '1'], ['x-twice', '2'], ['Content-Type', 'application/json'], ['Date', 'Mon, 01 Jan 2001 00:00:00 GMT']].flat());
        res.end(Buffer.from([0x7b, 0x7d, 0xff, 0x00]));
      });
    });
    upstreamOrigin = await listen(upstream);
    proxy = await startValidatingProxy({ target: `${upstreamOrigin}${BASE}`, port: 0 });
  });
  afterAll(async () => {
    await proxy.close();
    await close(upstream);
  });

  it('passes the method, target, headers (order, case, repeats) and body bytes on, and answers the target\'s status, reason, headers and bytes', async () => {
    const body = Buffer.from([0x00, 0x01, 0xfe, 0x7b]);
    const headers = ['X-Client', 'one', 'authorization', 'Bearer k', 'x-dup', 'a', 'X-Dup', 'b', 'Content-Type', 'application/octet-stream', 'Content-Length', String(body.length)];
    const target = `${BASE}/anything/%7Bodd%7D?b=2&a=1&a=%20`;
    const answer = await send(proxy.origin, 'PATCH', target, headers, body);
    const got = received.at(-1)!;
    expect(got.method).toBe('PATCH');
    expect(got.url).toBe(target);
    expect(got.body.equals(body)).toBe(true);
    const hostAt = got.rawHeaders.findIndex((h) => h.toLowerCase() === 'host');
    expect(got.rawHeaders[hostAt + 1]).toBe(new URL(upstreamOrigin).host);
    expect(endToEnd(got.rawHeaders.filter((_, i) => i !== hostAt && i !== hostAt + 1))).toEqual(headers);

    expect([answer.status, answer.statusMessage]).toEqual([299, 'Odd Reason']);
    expect(answer.body.equals(Buffer.from([0x7b, 0x7d, 0xff, 0x00]))).toBe(true);
    expect(endToEnd(answer.rawHeaders)).toEqual(['X-Mixed-Case', 'a', 'x-twice', '1', 'x-twice', '2', 'Content-Type', 'application/json']);
    expect(answer.headers['date'], 'the target\'s Date, not one of the proxy\'s').toBe('Mon, 01 Jan 2001 00:00:00 GMT');
    await proxy.idle();
    expect(proxy.tally.counts.forwarded).toBe(1);
  });

  it('streams: the client reads the first chunk before the target has sent the rest', async () => {
    const url = new URL(proxy.origin);
    const text = await new Promise<string>((resolve, reject) => {
      request({ host: url.hostname, port: url.port, path: `${BASE}/stream`, agent: false }, (res) => {
        let seen = '';
        res.on('data', (c: Buffer) => {
          seen += c.toString();
          if (seen === 'first;') releaseSecondChunk();
        });
        res.on('end', () => resolve(seen));
        res.on('error', reject);
      })
        .on('error', reject)
        .end();
    });
    expect(text).toBe('first;second');
  }, 10_000); // a proxy that buffers never releases the second chunk: it times out
});

// ---------------------------------------------------------------------------------------------
// Against the mock, behind each defect of the catalogue

interface Seen {
  /** The suite's checker on what the client received. */
  client: Violation[];
  /** What the proxy reported for the same exchange. */
  proxy: Violation[];
  request: Inspection['request'];
  label: string;
}

describe('the validating proxy in front of the mock and the defect catalogue', () => {
  const mock = buildMock();
  let mockOrigin: string;

  beforeAll(async () => {
    await mock.app.listen({ host: '127.0.0.1', port: 0 });
    mockOrigin = `http://127.0.0.1:${(mock.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await mock.app.close();
  });

  /** A morning of a client's traffic through [validating proxy → defect proxy (defect) → mock]. */
  async function traffic(defect: Defect | undefined, checker: 'inline' | 'worker' = 'inline'): Promise<{ seen: Seen[]; proxy: ValidatingProxy }> {
    const faulty = await startProxy(mockOrigin, defect);
    const reported: { exchange: ObservedExchange; inspection: Inspection }[] = [];
    const proxy = await startValidatingProxy({ target: `${faulty.origin}${BASE}`, port: 0, enforceAssumptions: true, checker, onExchange: (exchange, inspection) => reported.push({ exchange, inspection }) });
    const seen: Seen[] = [];
    try {
      const created = await send(proxy.origin, 'POST', '/__mock/accounts', ['content-type', 'application/json'], JSON.stringify({ plan: 'enterprise' }));
      const key = (JSON.parse(created.body.toString()) as { keys: { all: { key: string } } }).keys.all.key;
      let n = 0;
      const call = async (label: string, method: string, path: string, options: { body?: unknown; headers?: string[]; idempotent?: boolean } = {}) => {
        const headers = ['authorization', `Bearer ${key}`, ...(options.headers ?? [])];
        if (options.idempotent) headers.push('idempotency-key', `proxy-test-${(n += 1)}`);
        const body = options.body === undefined ? undefined : JSON.stringify(options.body);
        if (body !== undefined) headers.push('content-type', 'application/json');
        const before = reported.length;
        const answer = await send(proxy.origin, method, `${BASE}${path}`, headers, body);
        const grouped: Record<string, string[]> = {};
        for (let i = 0; i < answer.rawHeaders.length; i += 2) (grouped[answer.rawHeaders[i]!.toLowerCase()] ??= []).push(answer.rawHeaders[i + 1]!);
        const report = checkResponse({ request: { method, url: `${faulty.origin}${BASE}${path}` }, response: { status: answer.status, headers: grouped, body: answer.body.toString('utf8') } }, { basePath: BASE });
        await proxy.idle();
        // Calls go one at a time: the proxy checked exactly this exchange since the last one.
        const mine = reported.slice(before);
        expect(mine.map((r) => `${r.exchange.method} ${r.exchange.target}`), label).toEqual([`${method} ${BASE}${path}`]);
        seen.push({ label, client: report.violations, proxy: [...mine[0]!.inspection.violations], request: mine[0]!.inspection.request });
        return answer;
      };
      const json = (answer: Answer) => JSON.parse(answer.body.toString() || 'null') as any;

      await call('list products', 'GET', '/products?limit=2');
      const products = json(await call('list products, 1', 'GET', '/products?limit=1'));
      const productId = products?.data?.[0]?.productId ?? 'prd_unknown';
      const creatives = json(await call('list creatives', 'GET', '/creatives?limit=2'));
      const creativeId = creatives?.data?.[0]?.creativeId ?? 'crt_unknown';
      const one = await call('get a creative', 'GET', `/creatives/${creativeId}`);
      const etag = one.headers['etag'] ?? '"none"';
      await call('patch with If-Match', 'PATCH', `/creatives/${creativeId}`, { body: { metadata: { proxy_test: 'yes' } }, headers: ['if-match', etag] });
      await call('patch with a stale If-Match', 'PATCH', `/creatives/${creativeId}`, { body: { metadata: { proxy_test: 'no' } }, headers: ['if-match', '"stale"'] });
      await call('get a missing creative', 'GET', '/creatives/crt_missing');
      await call('a bad query', 'GET', '/products?limit=abc');
      const brandId = products?.data?.[0]?.brandId ?? 'brd_unknown';
      await call('create a campaign', 'POST', '/campaigns', { body: { name: 'proxy test', brandId, productIds: [productId] }, idempotent: true });
      await call('create an invalid campaign', 'POST', '/campaigns', { body: { name: '' }, idempotent: true });
      await call('a read 429', 'GET', '/products', { headers: ['prefer', 'scenario=rate_limited'] });
      await call('a write 429', 'POST', '/campaigns', { body: { name: 'x', brandId, productIds: [productId] }, idempotent: true, headers: ['prefer', 'scenario=rate_limited'] });
      await call('writes paused', 'POST', '/campaigns', { body: { name: 'x', brandId, productIds: [productId] }, idempotent: true, headers: ['prefer', 'scenario=writes_paused'] });
      const presets = json(await call('presets', 'GET', '/presets'));
      const presetId = presets?.data?.[0]?.presetId ?? 'pst_unknown';
      const run = json(await call('start a run', 'POST', '/runs', { body: { productIds: [productId], creativesPerProduct: 1, presetId }, idempotent: true }));
      await call('a generation 429', 'POST', '/runs', { body: { productIds: [productId], creativesPerProduct: 1, presetId }, idempotent: true, headers: ['prefer', 'scenario=rate_limited'] });
      await call('get the run', 'GET', `/runs/${run?.runId ?? 'run_unknown'}`);
      await call('the run items', 'GET', `/runs/${run?.runId ?? 'run_unknown'}/items`);
    } finally {
      await proxy.close();
      await faulty.close();
    }
    return { seen, proxy };
  }

  it('without a defect: no violation; the two invalid requests reported as the client\'s', async () => {
    const { seen, proxy } = await traffic(undefined);
    expect(seen.flatMap((s) => s.proxy.map((v) => `${s.label}: ${v.check} ${v.message}`))).toEqual([]);
    expect(seen.flatMap((s) => s.client)).toEqual([]);
    expect(seen.filter((s) => s.request).map((s) => `${s.label}: ${s.request!.code}`)).toEqual(['a bad query: VALIDATION_ERROR', 'create an invalid campaign: VALIDATION_ERROR']);
    expect(proxy.tally.counts).toMatchObject({ violating: 0, violations: 0, invalidRequests: 2, unchecked: 0 });
    // Every API exchange was checked (the control plane's account creation is forwarded, not checked).
    expect(proxy.tally.counts.checked).toBe(seen.length);
    expect(proxy.tally.counts.forwarded).toBe(seen.length + 1);
  });

  const proxyDefects = DEFECTS.filter((d) => d.via === 'proxy');
  it(`behind each of the ${proxyDefects.length} proxy defects: the proxy reports exactly what the suite's checker finds in each exchange`, async () => {
    const caught: string[] = [];
    const missed: string[] = [];
    for (const defect of proxyDefects) {
      const { seen, proxy } = await traffic(defect);
      for (const s of seen) expect(s.proxy, `${defect.name}: ${s.label}`).toEqual(s.client);
      const violations = seen.flatMap((s) => s.client);
      if (violations.length) caught.push(defect.name);
      else missed.push(defect.name);
      expect(proxy.tally.counts.violations, defect.name).toBe(violations.length);
    }
    // Not vacuous: the defects this traffic shows in single exchanges (headers, envelopes, status
    // codes, problem bodies, rate-limit fields) are caught by the checker, and so by the proxy.
    // Those of the catalogue's later entries that need a scenario this traffic does not play (a
    // lapsed plan, a far rate limit, media pages...) are checked exchange by exchange above, when
    // they show, and caught by the suite's own tests.
    const shownHere = [
      'etag-weak', 'etag-missing', 'location-elsewhere', 'json-as-text', 'object-tag-dropped', 'null-fields-omitted', 'timestamp-offset',
      'create-201-as-200', 'accepted-202-as-200', 'not-found-as-403', 'bad-request-as-422', 'problem-as-json', 'problem-type-mismatch',
      'problem-request-id-missing', 'problem-422-without-errors', 'problem-instance-wrong', 'precondition-as-409', 'ratelimit-remaining-above-limit',
      'ratelimit-draft-8', 'ratelimit-reset-timestamp', 'ratelimit-policy-duplicate', 'ratelimit-429-remaining', 'retry-after-missing',
      'retry-after-http-date', 'read-429-as-problem', 'generation-429-as-text',
    ];
    expect(shownHere.filter((name) => !caught.includes(name))).toEqual([]);
    expect(caught.length).toBeGreaterThanOrEqual(shownHere.length);
  }, 180_000); // 72 proxies one after another: about 30 s, up to 60 s on a loaded 2-core machine

  it('with its checks on a thread of their own (as cgs-proxy runs): the same findings; the rules report: a violated rule failed, a checked one passed', async () => {
    const { seen, proxy } = await traffic(DEFECTS.find((d) => d.name === 'etag-weak'), 'worker');
    for (const s of seen) expect(s.proxy, s.label).toEqual(s.client);
    expect(seen.some((s) => s.proxy.length > 0)).toBe(true);
    expect(proxy.checker, 'the checks ran on the checker thread to the end').toBe('worker');
    const dir = mkdtempSync(join(tmpdir(), 'cgs-proxy-report-'));
    try {
      const lines = proxy.tally.write(dir, 'test');
      const report = JSON.parse(readFileSync(join(dir, 'rules.json'), 'utf8')) as { rules: { id: string; result: string; violated: number }[] };
      const rule = (id: string) => report.rules.find((r) => r.id === id);
      expect(rule('ETAG-002')).toMatchObject({ result: 'failed' });
      expect(rule('ETAG-002')!.violated).toBeGreaterThan(0);
      expect(rule('ERR-002')).toMatchObject({ result: 'passed', violated: 0 });
      expect(lines.join('\n')).toContain('ETAG-002');
      expect(readFileSync(join(dir, 'rules.md'), 'utf8')).toContain('| ETAG-002 | pinned | failed |');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
