/**
 * Each proxy defect transforms a sample exchange as its catalogue entry describes, and the proxy
 * without a defect (or outside the public API) forwards exactly what it receives. Exchanges run
 * through `exchange()` with a fake target, so no socket is needed (one test starts the real proxy).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DEFECT_KINDS, DEFECTS, defectNamed } from './catalogue.ts';
import type { Headers, ProxyRequest, ProxyResponse } from './exchange.ts';
import { DefectMemory } from './memory.ts';
import { BATCH_PROJECT, DEFECT_HEADER, grepOfPlan, repeatsOf, SELECT_PATH } from './batch.ts';
import { exchange, startProxy, startSwitchingProxy } from './proxy.ts';
import { judge, testsByDefect, testsOf } from './report.ts';

const BASE = '/api/public/v1';
const RATE = { ratelimit: 'limit=200, remaining=150, reset=30', 'ratelimit-policy': '200;w=60, 1000;w=60' };

function req(method: string, url: string, headers: Headers = {}, body = ''): ProxyRequest {
  return { method, url: `${BASE}${url}`, headers: { authorization: 'Bearer key-a', ...headers }, body };
}

function json(status: number, body: unknown, headers: Headers = {}): ProxyResponse {
  return { status, headers: { 'content-type': 'application/json', ...RATE, ...headers }, body: JSON.stringify(body) };
}

function problem(status: number, code: string, extra: Record<string, unknown> = {}, headers: Headers = {}): ProxyResponse {
  const body = { type: `/errors/${code}`, title: 'x', status, code, detail: 'Not found.', instance: '/p', requestId: 'req_1', ...extra };
  return { status, headers: { 'content-type': 'application/problem+json', ...RATE, ...headers }, body: JSON.stringify(body) };
}

const page = (ids: string[], nextCursor: string | null, pageSize = 7) => ({ data: ids.map((id) => ({ productId: id, sku: null, title: id })), pagination: { nextCursor, hasMore: nextCursor !== null, pageSize } });
const run = (extra: Record<string, unknown> = {}) => ({ object: 'run', runId: 'run_1', status: 'SUCCEEDED', total: 4, counts: { succeeded: 4, failed: 0, refused: 0, stopped: 0, pending: 0 }, createdAt: '2026-01-01T00:00:00.000Z', finalizedAt: '2026-01-01T00:05:00.000Z', ...extra });

interface Outcome {
  /** What the mock received. */
  sent: ProxyRequest;
  /** What the client received. */
  answered: ProxyResponse;
}

/** One exchange through `defect`; the fake target answers `response` to whatever it is sent. */
async function through(name: string | undefined, request: ProxyRequest, response: ProxyResponse, memory = new DefectMemory()): Promise<Outcome> {
  const defect = name === undefined ? undefined : defectNamed(name);
  if (name !== undefined && !defect) throw new Error(`no defect ${name}`);
  let sent: ProxyRequest | undefined;
  const answered = await exchange(defect, memory, request, async (r) => {
    sent = r;
    return structuredClone(response);
  });
  return { sent: sent!, answered };
}

const bodyOf = (r: ProxyResponse) => JSON.parse(r.body) as Record<string, any>;

type Case = [name: string, check: () => Promise<void>];

const cases: Case[] = [
  // headers
  ['etag-weak', async () => {
    const { answered } = await through('etag-weak', req('GET', '/creatives/c1'), json(200, { object: 'creative' }, { etag: '"abc"' }));
    expect(answered.headers['etag']).toBe('W/"abc"');
  }],
  ['etag-missing', async () => {
    const { answered } = await through('etag-missing', req('GET', '/creatives/c1'), json(200, { object: 'creative' }, { etag: '"abc"' }));
    expect(answered.headers['etag']).toBeUndefined();
  }],
  ['location-elsewhere', async () => {
    const { answered } = await through('location-elsewhere', req('POST', '/runs'), json(202, run(), { location: `${BASE}/runs/run_1` }));
    expect(answered.headers['location']).toBe(`${BASE}/runs`);
  }],
  ['json-as-text', async () => {
    const { answered } = await through('json-as-text', req('GET', '/products'), json(200, page(['p1'], null)));
    expect(answered.headers['content-type']).toMatch(/^text\/plain/);
    const error = await through('json-as-text', req('GET', '/products/x'), problem(404, 'PRODUCT_NOT_FOUND'));
    expect(error.answered.headers['content-type']).toBe('application/problem+json');
  }],
  // envelopes and fields
  ['object-tag-dropped', async () => {
    const { answered } = await through('object-tag-dropped', req('GET', '/runs'), json(200, { object: 'list', data: [run()], pagination: { nextCursor: null, hasMore: false, pageSize: 25 } }));
    const body = bodyOf(answered);
    expect(body['object']).toBe('list');
    expect(body['data'][0]).not.toHaveProperty('object');
  }],
  ['null-fields-omitted', async () => {
    const { answered } = await through('null-fields-omitted', req('GET', '/products'), json(200, page(['p1'], null)));
    const body = bodyOf(answered);
    expect(body['data'][0]).not.toHaveProperty('sku');
    expect(body['pagination']).toEqual({ nextCursor: null, hasMore: false, pageSize: 7 });
  }],
  ['list-envelope-object', async () => {
    const { answered } = await through('list-envelope-object', req('GET', '/products'), json(200, page(['p1'], null)));
    expect(bodyOf(answered)['object']).toBe('list');
    const generation = await through('list-envelope-object', req('GET', '/presets'), json(200, { object: 'list', data: [], pagination: { nextCursor: null, hasMore: false, pageSize: 25 } }));
    expect(generation.answered.body).toBe(JSON.stringify({ object: 'list', data: [], pagination: { nextCursor: null, hasMore: false, pageSize: 25 } }));
  }],
  ['timestamp-offset', async () => {
    const { answered } = await through('timestamp-offset', req('GET', '/runs/run_1'), json(200, run()));
    const body = bodyOf(answered);
    expect(body['createdAt']).toBe('2026-01-01T01:00:00.000+01:00');
    expect(Date.parse(body['createdAt'])).toBe(Date.parse('2026-01-01T00:00:00.000Z'));
  }],
  // status codes
  ['create-201-as-200', async () => {
    const { answered } = await through('create-201-as-200', req('POST', '/campaigns'), json(201, { object: 'campaign' }));
    expect(answered.status).toBe(200);
  }],
  ['accepted-202-as-200', async () => {
    const { answered } = await through('accepted-202-as-200', req('POST', '/runs'), json(202, run()));
    expect(answered.status).toBe(200);
  }],
  ['not-found-as-403', async () => {
    const { answered } = await through('not-found-as-403', req('GET', '/products/x'), problem(404, 'PRODUCT_NOT_FOUND'));
    expect(answered.status).toBe(403);
    expect(bodyOf(answered)).toMatchObject({ status: 403, title: 'Forbidden', code: 'PRODUCT_NOT_FOUND' });
  }],
  ['bad-request-as-422', async () => {
    const { answered } = await through('bad-request-as-422', req('GET', '/products?limit=0'), problem(400, 'VALIDATION_ERROR'));
    expect(answered.status).toBe(422);
    expect(bodyOf(answered)).toMatchObject({ status: 422, title: 'Unprocessable Content', code: 'VALIDATION_ERROR' });
    expect(bodyOf(answered)['errors']).toHaveLength(1);
  }],
  // error bodies
  ['problem-as-json', async () => {
    const { answered } = await through('problem-as-json', req('GET', '/products/x'), problem(404, 'PRODUCT_NOT_FOUND'));
    expect(answered.headers['content-type']).toBe('application/json');
  }],
  ['problem-type-mismatch', async () => {
    const { answered } = await through('problem-type-mismatch', req('GET', '/products/x'), problem(404, 'PRODUCT_NOT_FOUND'));
    expect(bodyOf(answered)['type']).toBe('/errors/product-not-found');
  }],
  ['problem-request-id-missing', async () => {
    const { answered } = await through('problem-request-id-missing', req('GET', '/products/x'), problem(404, 'PRODUCT_NOT_FOUND'));
    expect(bodyOf(answered)).not.toHaveProperty('requestId');
  }],
  ['problem-422-without-errors', async () => {
    const { answered } = await through('problem-422-without-errors', req('PATCH', '/creatives/c1'), problem(422, 'VALIDATION_ERROR', { errors: [{ field: 'x', message: 'y' }] }));
    expect(bodyOf(answered)).not.toHaveProperty('errors');
  }],
  ['problem-instance-wrong', async () => {
    const { answered } = await through('problem-instance-wrong', req('GET', '/products/x'), problem(404, 'PRODUCT_NOT_FOUND'));
    expect(bodyOf(answered)['instance']).toBe('/errors/PRODUCT_NOT_FOUND');
  }],
  // idempotency
  ['idempotency-replay-executes', async () => {
    const memory = new DefectMemory();
    const first = await through('idempotency-replay-executes', req('POST', '/runs', { 'idempotency-key': 'k1' }), json(202, run()), memory);
    const again = await through('idempotency-replay-executes', req('POST', '/runs', { 'idempotency-key': 'k1' }), json(202, run()), memory);
    expect(first.sent.headers['idempotency-key']).not.toBe(again.sent.headers['idempotency-key']);
    expect(first.sent.headers['idempotency-key']).toMatch(/^k1-/);
    const quoted = await through('idempotency-replay-executes', req('POST', '/runs', { 'idempotency-key': '"k1"' }), json(202, run()), memory);
    expect(quoted.sent.headers['idempotency-key']).toMatch(/^"k1-[a-z0-9]+"$/);
    const malformed = await through('idempotency-replay-executes', req('POST', '/runs', { 'idempotency-key': 'bad key!' }), json(400, {}), memory);
    expect(malformed.sent.headers['idempotency-key']).toBe('bad key!');
  }],
  ['idempotency-reuse-accepted', async () => {
    const a = await through('idempotency-reuse-accepted', req('POST', '/runs', { 'idempotency-key': 'k1' }, '{"a":1}'), json(202, run()));
    const same = await through('idempotency-reuse-accepted', req('POST', '/runs', { 'idempotency-key': 'k1' }, '{"a":1}'), json(202, run()));
    const other = await through('idempotency-reuse-accepted', req('POST', '/runs', { 'idempotency-key': 'k1' }, '{"a":2}'), json(202, run()));
    expect(same.sent.headers['idempotency-key']).toBe(a.sent.headers['idempotency-key']);
    expect(other.sent.headers['idempotency-key']).not.toBe(a.sent.headers['idempotency-key']);
    const long = await through('idempotency-reuse-accepted', req('POST', '/runs', { 'idempotency-key': 'k'.repeat(255) }, '{}'), json(202, run()));
    expect(long.sent.headers['idempotency-key']!.length).toBe(255);
  }],
  ['idempotency-key-not-required', async () => {
    const { sent } = await through('idempotency-key-not-required', req('POST', '/runs'), json(202, run()));
    expect(sent.headers['idempotency-key']).toMatch(/^[A-Za-z0-9\-_.:~]{1,255}$/);
    const patch = await through('idempotency-key-not-required', req('PATCH', '/creatives/c1'), json(200, {}));
    expect(patch.sent.headers['idempotency-key']).toBeUndefined();
  }],
  ['idempotency-replay-status', async () => {
    const replay = await through('idempotency-replay-status', req('POST', '/campaigns', { 'idempotency-key': 'k' }), json(201, {}, { 'idempotent-replayed': 'true' }));
    expect(replay.answered.status).toBe(200);
    const first = await through('idempotency-replay-status', req('POST', '/campaigns', { 'idempotency-key': 'k' }), json(201, {}));
    expect(first.answered.status).toBe(201);
  }],
  // preconditions
  ['if-match-ignored', async () => {
    const { sent } = await through('if-match-ignored', req('PATCH', '/creatives/c1', { 'if-match': '"old"' }), json(200, {}));
    expect(sent.headers['if-match']).toBeUndefined();
  }],
  ['precondition-as-409', async () => {
    const { answered } = await through('precondition-as-409', req('PATCH', '/creatives/c1', { 'if-match': '"old"' }), problem(412, 'PRECONDITION_FAILED'));
    expect(answered.status).toBe(409);
    expect(bodyOf(answered)).toMatchObject({ status: 409, title: 'Conflict' });
  }],
  ['precondition-before-existence', async () => {
    const memory = new DefectMemory();
    await through('precondition-before-existence', req('GET', '/creatives/c1'), json(200, { object: 'creative', creativeId: 'c1' }), memory);
    const other = { ...req('PATCH', '/creatives/c1', { 'if-match': '"x"' }), headers: { authorization: 'Bearer key-b', 'if-match': '"x"' } };
    const { answered } = await through('precondition-before-existence', other, problem(404, 'CREATIVE_NOT_FOUND'), memory);
    expect(answered.status).toBe(412);
    expect(bodyOf(answered)).toMatchObject({ status: 412, code: 'PRECONDITION_FAILED', type: '/errors/PRECONDITION_FAILED' });
    const unknown = await through('precondition-before-existence', { ...other, url: `${BASE}/creatives/nope` }, problem(404, 'CREATIVE_NOT_FOUND'), memory);
    expect(unknown.answered.status, 'an id nobody has seen keeps its 404').toBe(404);
    const without = await through('precondition-before-existence', req('PATCH', '/creatives/c1'), problem(404, 'CREATIVE_NOT_FOUND'), memory);
    expect(without.answered.status).toBe(404);
  }],
  // ownership: account A reads c1; account B then gets the 404 the defect changes
  ...(['foreign-404-leaks-detail', 'foreign-403', 'foreign-readable'] as const).map((name): Case => [
    name,
    async () => {
      const memory = new DefectMemory();
      await through(name, req('GET', '/creatives/c1'), json(200, { object: 'creative', creativeId: 'c1' }), memory);
      const own = await through(name, req('GET', '/creatives/c2'), problem(404, 'CREATIVE_NOT_FOUND'), memory);
      expect(own.answered.status, 'an id nobody has seen keeps the uniform 404').toBe(404);
      expect(bodyOf(own.answered)['detail']).toBe('Not found.');
      const foreign = await through(name, { ...req('GET', '/creatives/c1'), headers: { authorization: 'Bearer key-b' } }, problem(404, 'CREATIVE_NOT_FOUND'), memory);
      if (name === 'foreign-404-leaks-detail') expect(bodyOf(foreign.answered)['detail']).toMatch(/another account/);
      if (name === 'foreign-403') expect(bodyOf(foreign.answered)).toMatchObject({ status: 403, code: 'API_TOKEN_SCOPE_DENIED' });
      if (name === 'foreign-readable') expect(foreign.answered).toMatchObject({ status: 200, body: JSON.stringify({ object: 'creative', creativeId: 'c1' }) });
    },
  ]),
  // pagination
  ['has-more-inverted', async () => {
    const { answered } = await through('has-more-inverted', req('GET', '/products'), json(200, page(['p1'], 'c2')));
    expect(bodyOf(answered)['pagination']).toMatchObject({ nextCursor: 'c2', hasMore: false });
  }],
  ['page-size-understated', async () => {
    const { answered } = await through('page-size-understated', req('GET', '/products?limit=3'), json(200, page(['p1', 'p2', 'p3'], 'c2', 3)));
    expect(bodyOf(answered)['pagination']['pageSize']).toBe(2);
  }],
  ['pagesize-off-by-one', async () => {
    const { answered } = await through('pagesize-off-by-one', req('GET', '/products?limit=3'), json(200, page(['p1', 'p2', 'p3'], 'c2', 3)));
    expect(bodyOf(answered)['pagination']['pageSize']).toBe(4);
    expect(bodyOf(answered)['data']).toHaveLength(3);
  }],
  ['walk-truncated', async () => {
    const first = await through('walk-truncated', req('GET', '/products?limit=2'), json(200, page(['p1', 'p2'], 'c2', 2)));
    expect(bodyOf(first.answered)['pagination']).toMatchObject({ nextCursor: null, hasMore: false });
    const later = await through('walk-truncated', req('GET', '/products?limit=2&cursor=c2'), json(200, page(['p3', 'p4'], 'c3', 2)));
    expect(bodyOf(later.answered)['pagination']['nextCursor']).toBe('c3');
  }],
  ['row-dropped', async () => {
    const { answered } = await through('row-dropped', req('GET', '/products'), json(200, page(['p1', 'p2', 'p3'], null)));
    expect(bodyOf(answered)['data'].map((p: { productId: string }) => p.productId)).toEqual(['p1', 'p2']);
  }],
  ['row-repeated', async () => {
    const memory = new DefectMemory();
    await through('row-repeated', req('GET', '/products?limit=2'), json(200, page(['p1', 'p2'], 'c2', 2)), memory);
    const next = await through('row-repeated', req('GET', '/products?limit=2&cursor=c2'), json(200, page(['p3', 'p4'], null, 2)), memory);
    expect(bodyOf(next.answered)['data'].map((p: { productId: string }) => p.productId)).toEqual(['p2', 'p3']);
  }],
  // rate limits
  ['ratelimit-remaining-above-limit', async () => {
    const { answered } = await through('ratelimit-remaining-above-limit', req('GET', '/products'), json(200, {}));
    expect(answered.headers['ratelimit']).toBe('limit=200, remaining=201, reset=30');
  }],
  ['ratelimit-draft-8', async () => {
    const { answered } = await through('ratelimit-draft-8', req('GET', '/products'), json(200, {}));
    expect(answered.headers['ratelimit']).toBe('"default";r=150;t=30');
    expect(answered.headers['ratelimit-policy']).toBe('"default";q=200;w=60');
  }],
  ['ratelimit-reset-timestamp', async () => {
    const { answered } = await through('ratelimit-reset-timestamp', req('GET', '/products'), json(200, {}));
    expect(answered.headers['ratelimit']).toMatch(/^limit=200, remaining=150, reset=1\d{9}$/);
  }],
  ['ratelimit-policy-duplicate', async () => {
    const { answered } = await through('ratelimit-policy-duplicate', req('GET', '/products'), json(200, {}));
    expect(answered.headers['ratelimit-policy']).toBe('200;w=60, 1000;w=60, 200;w=60');
  }],
  ['ratelimit-429-remaining', async () => {
    const limited = { status: 429, headers: { 'content-type': 'text/plain', ratelimit: 'limit=200, remaining=0, reset=30', 'retry-after': '30' }, body: 'Too Many Requests' };
    const { answered } = await through('ratelimit-429-remaining', req('GET', '/products'), limited);
    expect(answered.headers['ratelimit']).toBe('limit=200, remaining=1, reset=30');
  }],
  ['retry-after-missing', async () => {
    const { answered } = await through('retry-after-missing', req('POST', '/runs'), problem(503, 'WRITES_PAUSED', {}, { 'retry-after': '30' }));
    expect(answered.headers['retry-after']).toBeUndefined();
  }],
  ['retry-after-http-date', async () => {
    const { answered } = await through('retry-after-http-date', req('POST', '/runs'), problem(429, 'RATE_LIMITED', {}, { 'retry-after': '30' }));
    expect(answered.headers['retry-after']).toBe('Thu, 01 Jan 2026 00:00:30 GMT');
  }],
  ['read-429-as-problem', async () => {
    const limited = { status: 429, headers: { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '3' }, body: 'Too Many Requests' };
    const { answered } = await through('read-429-as-problem', req('GET', '/products'), limited);
    expect(answered.headers['content-type']).toBe('application/problem+json');
    expect(bodyOf(answered)).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
  }],
  ['generation-429-as-text', async () => {
    const { answered } = await through('generation-429-as-text', req('GET', '/presets'), problem(429, 'RATE_LIMITED', {}, { 'retry-after': '3' }));
    expect(answered.headers['content-type']).toMatch(/^text\/plain/);
    expect(() => JSON.parse(answered.body)).toThrow();
  }],
  // runs
  ['run-counts-off', async () => {
    const { answered } = await through('run-counts-off', req('GET', '/runs/run_1'), json(200, run()));
    const { counts, total } = bodyOf(answered);
    expect(Object.values(counts as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(total + 1);
  }],
  ['run-total-off', async () => {
    const { answered } = await through('run-total-off', req('GET', '/runs/run_1'), json(200, run()));
    expect(bodyOf(answered)['total']).toBe(5);
  }],
  ['rate-limited-far-too-early', async () => {
    const fresh = await through('rate-limited-far-too-early', req('GET', '/products'), json(200, page(['p1'], null), { ratelimit: 'limit=200, remaining=199, reset=30' }));
    expect(fresh.answered.status).toBe(200);
    const { answered } = await through('rate-limited-far-too-early', req('GET', '/products'), json(200, page(['p1'], null), { ratelimit: 'limit=200, remaining=190, reset=30' }));
    expect(answered.status).toBe(429);
    expect(answered.headers['content-type']).toMatch(/^text\/plain/);
    expect(answered.headers['ratelimit']).toBe('limit=200, remaining=0, reset=30');
    expect(answered.headers['retry-after']).toBe('30');
  }],
  ['ratelimit-farther-limit', async () => {
    const { answered } = await through('ratelimit-farther-limit', req('GET', '/products'), json(200, page(['p1'], null)));
    expect(answered.headers['ratelimit']).toBe('limit=1000, remaining=950, reset=30');
  }],
  ['retry-after-missing-on-409', async () => {
    const { answered } = await through('retry-after-missing-on-409', req('POST', '/campaigns'), problem(409, 'IDEMPOTENCY_IN_PROGRESS', {}, { 'retry-after': '1' }));
    expect(answered.headers['retry-after']).toBeUndefined();
    const reused = await through('retry-after-missing-on-409', req('POST', '/campaigns'), problem(409, 'IDEMPOTENCY_KEY_REUSED', {}, { 'retry-after': '1' }));
    expect(reused.answered.headers['retry-after']).toBe('1');
  }],
  ['upscales-own-counter', async () => {
    const { answered } = await through('upscales-own-counter', req('POST', '/upscales'), json(202, { upscaleId: 'u1' }, { ratelimit: 'limit=20, remaining=17, reset=30' }));
    expect(answered.headers['ratelimit']).toBe('limit=20, remaining=19, reset=30');
  }],
  ['generation-counted-in-read-cap', async () => {
    const memory = new DefectMemory();
    const before = await through('generation-counted-in-read-cap', req('GET', '/presets'), json(200, { data: [] }), memory);
    expect(before.answered.status, 'no read cap exhausted yet').toBe(200);
    const group = await through('generation-counted-in-read-cap', req('GET', '/products'), problem(429, 'RATE_LIMITED', {}, { ratelimit: 'limit=200, remaining=0, reset=30' }), memory);
    expect(group.answered.status).toBe(429);
    expect((await through('generation-counted-in-read-cap', req('GET', '/presets'), json(200, { data: [] }), memory)).answered.status, 'the read group quota is not a cap').toBe(200);
    await through('generation-counted-in-read-cap', req('GET', '/products'), problem(429, 'RATE_LIMITED', {}, { ratelimit: 'limit=2, remaining=0, reset=40', 'ratelimit-policy': '2;w=60, 200;w=60' }), memory);
    const { answered } = await through('generation-counted-in-read-cap', req('GET', '/presets'), json(200, { data: [] }, { 'ratelimit-policy': '120;w=60, 360;w=60, 600;w=60' }), memory);
    expect(answered.status).toBe(429);
    expect(answered.headers).toMatchObject({ 'content-type': 'application/problem+json', ratelimit: 'limit=2, remaining=0, reset=40', 'ratelimit-policy': '2;w=60, 120;w=60, 360;w=60, 600;w=60', 'retry-after': '40' });
    expect(bodyOf(answered)['code']).toBe('RATE_LIMITED');
    expect((await through('generation-counted-in-read-cap', req('GET', '/products'), json(200, page(['p1'], null)), memory)).answered.status).toBe(200);
    expect((await through('generation-counted-in-read-cap', req('GET', '/runs'), json(200, { data: [] }), memory)).answered.status, 'a read that succeeds clears it').toBe(200);
  }],
  ['write-counted-in-read-cap', async () => {
    const memory = new DefectMemory();
    const patch = (): ReturnType<typeof req> => req('PATCH', '/assets/a1');
    expect((await through('write-counted-in-read-cap', patch(), json(200, {}), memory)).answered.status, 'no read cap exhausted yet').toBe(200);
    await through('write-counted-in-read-cap', req('GET', '/products'), problem(429, 'RATE_LIMITED', {}, { ratelimit: 'limit=200, remaining=0, reset=30' }), memory);
    expect((await through('write-counted-in-read-cap', patch(), json(200, {}), memory)).answered.status, 'the read group quota is not a cap').toBe(200);
    await through('write-counted-in-read-cap', req('GET', '/products'), problem(429, 'RATE_LIMITED', {}, { ratelimit: 'limit=3, remaining=0, reset=40', 'ratelimit-policy': '3;w=60, 200;w=60' }), memory);
    expect((await through('write-counted-in-read-cap', req('GET', '/presets'), json(200, { data: [] }), memory)).answered.status, 'generation traffic is left alone').toBe(200);
    const { answered } = await through('write-counted-in-read-cap', patch(), json(200, {}, { 'ratelimit-policy': '60;w=60, 300;w=60, 600;w=60' }), memory);
    expect(answered.status).toBe(429);
    expect(answered.headers).toMatchObject({ 'content-type': 'text/plain; charset=utf-8', ratelimit: 'limit=3, remaining=0, reset=40', 'ratelimit-policy': '3;w=60, 60;w=60, 300;w=60, 600;w=60', 'retry-after': '40' });
    expect((await through('write-counted-in-read-cap', req('GET', '/products'), json(200, page(['p1'], null)), memory)).answered.status).toBe(200);
    expect((await through('write-counted-in-read-cap', patch(), json(200, {}), memory)).answered.status, 'a read that succeeds clears it').toBe(200);
  }],
  ['has-more-inverted-off-products', async () => {
    const products = await through('has-more-inverted-off-products', req('GET', '/products'), json(200, page(['p1'], 'c2')));
    expect(bodyOf(products.answered)['pagination']['hasMore']).toBe(true);
    const { answered } = await through('has-more-inverted-off-products', req('GET', '/campaigns'), json(200, page(['p1'], 'c2')));
    expect(bodyOf(answered)['pagination']['hasMore']).toBe(false);
  }],
  ['expand-product-ignored', async () => {
    expect((await through('expand-product-ignored', req('GET', '/creatives?expand=product&limit=5'), json(200, {}))).sent.url).toBe(`${BASE}/creatives?limit=5`);
    expect((await through('expand-product-ignored', req('GET', '/creatives/c1?expand=product'), json(200, {}))).sent.url).toBe(`${BASE}/creatives/c1`);
  }],
  ['run-estimated-completion-dropped', async () => {
    const { answered } = await through('run-estimated-completion-dropped', req('POST', '/runs'), json(202, run({ estimatedCompletion: { completesAt: '2026-01-01T00:10:00Z', durationSeconds: 600 } })));
    expect(bodyOf(answered)).not.toHaveProperty('estimatedCompletion');
  }],
  ['run-item-object-wrong', async () => {
    const items = { object: 'list', data: [{ object: 'run_item', jobId: 'j1' }], pagination: { nextCursor: null, hasMore: false, pageSize: 25 } };
    const { answered } = await through('run-item-object-wrong', req('GET', '/runs/run_1/items'), json(200, items));
    expect(bodyOf(answered)['data'][0]['object']).toBe('item');
  }],
  ['run-price-not-the-quote', async () => {
    const { answered } = await through('run-price-not-the-quote', req('POST', '/runs'), json(202, run({ credits: { estimated: 8, rateCardVersion: 'v1' } })));
    expect(bodyOf(answered)['credits']['estimated']).toBe(9);
  }],
  ['idempotency-malformed-accepted', async () => {
    const { sent } = await through('idempotency-malformed-accepted', req('POST', '/campaigns', { 'idempotency-key': '"unterminated' }), json(201, {}));
    expect(sent.headers['idempotency-key']).toMatch(/^fixed-/);
    const good = await through('idempotency-malformed-accepted', req('POST', '/campaigns', { 'idempotency-key': 'k-1' }), json(201, {}));
    expect(good.sent.headers['idempotency-key']).toBe('k-1');
  }],
  ['preset-unlisted-accepted', async () => {
    const memory = new DefectMemory();
    await through('preset-unlisted-accepted', req('GET', '/presets'), json(200, { object: 'list', data: [{ object: 'preset', presetId: 'pst_a' }], pagination: { nextCursor: null, hasMore: false, pageSize: 25 } }), memory);
    const { sent } = await through('preset-unlisted-accepted', req('POST', '/runs/estimate', {}, JSON.stringify({ presetId: 'pst_nope', productIds: ['p1'] })), json(200, {}), memory);
    expect(JSON.parse(sent.body)).toEqual({ presetId: 'pst_a', productIds: ['p1'] });
  }],
  ['upscale-target-unchecked', async () => {
    const { sent } = await through('upscale-target-unchecked', req('POST', '/upscales', {}, JSON.stringify({ source: { assetId: 'a1' }, target: '8K' })), json(202, {}));
    expect(JSON.parse(sent.body)['target']).toBe('4K');
  }],
  ['insufficient-credits-as-403', async () => {
    const { answered } = await through('insufficient-credits-as-403', req('POST', '/upscales'), problem(402, 'INSUFFICIENT_CREDITS'));
    expect(answered.status).toBe(403);
    expect(bodyOf(answered)['status']).toBe(403);
  }],
  ['upscale-not-entitled-as-tier-required', async () => {
    const { answered } = await through('upscale-not-entitled-as-tier-required', req('POST', '/upscales'), problem(403, 'IMAGE_UPSCALE_NOT_ENTITLED'));
    expect(bodyOf(answered)).toMatchObject({ code: 'TIER_REQUIRED', type: '/errors/TIER_REQUIRED' });
  }],
  ['target-not-larger-as-400', async () => {
    const { answered } = await through('target-not-larger-as-400', req('POST', '/upscales'), problem(422, 'IMAGE_UPSCALE_TARGET_NOT_LARGER'));
    expect(answered.status).toBe(400);
    expect(bodyOf(answered)).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  }],
  ['creative-ratio-refused-as-400', async () => {
    const { answered } = await through('creative-ratio-refused-as-400', req('PATCH', '/creatives/c1', {}, '{"aspectRatio":"square"}'), problem(422, 'VALIDATION_ERROR'));
    expect(answered.status).toBe(400);
    const other = await through('creative-ratio-refused-as-400', req('PATCH', '/creatives/c1', {}, '{"colour":"red"}'), problem(422, 'VALIDATION_ERROR'));
    expect(other.answered.status).toBe(422);
  }],
  ['image-size-unchecked', async () => {
    const { sent } = await through('image-size-unchecked', req('POST', '/runs/estimate', {}, JSON.stringify({ presetId: 'p', imageSize: '8K' })), json(200, {}));
    expect(JSON.parse(sent.body)).toEqual({ presetId: 'p' });
    const video = await through('image-size-unchecked', req('POST', '/runs', {}, JSON.stringify({ modality: 'video', imageSize: '1K' })), json(202, {}));
    expect(JSON.parse(video.sent.body)).toEqual({ modality: 'video' });
    const fine = await through('image-size-unchecked', req('POST', '/runs', {}, JSON.stringify({ imageSize: '2K' })), json(202, {}));
    expect(JSON.parse(fine.sent.body)).toEqual({ imageSize: '2K' });
  }],
  ['creative-undelete-scope-denied', async () => {
    const { answered } = await through('creative-undelete-scope-denied', req('POST', '/creatives/c1/undelete'), json(200, { object: 'creative' }));
    expect(answered.status).toBe(403);
    expect(bodyOf(answered)).toMatchObject({ code: 'API_TOKEN_SCOPE_DENIED', instance: `${BASE}/creatives/c1/undelete` });
  }],
  ['lapsed-plan-told-apart', async () => {
    const memory = new DefectMemory();
    const bad = await through('lapsed-plan-told-apart', req('PATCH', '/campaigns/c1'), problem(401, 'ENTITLEMENT_LOST'), memory);
    expect(bodyOf(bad.answered)['detail']).toBe('Not found.');
    await through('lapsed-plan-told-apart', req('GET', '/campaigns'), json(200, page([], null)), memory);
    const lapsed = await through('lapsed-plan-told-apart', req('PATCH', '/campaigns/c1'), problem(401, 'ENTITLEMENT_LOST'), memory);
    expect(bodyOf(lapsed.answered)['detail']).toMatch(/plan/);
  }],
  ['write-429-as-problem', async () => {
    const limited = { status: 429, headers: { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '3' }, body: 'Too Many Requests' };
    expect((await through('write-429-as-problem', req('PATCH', '/assets/a1'), limited)).answered.headers['content-type']).toBe('application/problem+json');
    expect((await through('write-429-as-problem', req('GET', '/assets'), limited)).answered.headers['content-type']).toMatch(/^text\/plain/);
  }],
  ['creative-undelete-own-counter', async () => {
    const { answered } = await through('creative-undelete-own-counter', req('POST', '/creatives/c1/undelete'), json(200, {}, { ratelimit: 'limit=60, remaining=57, reset=9' }));
    expect(answered.headers['ratelimit']).toBe('limit=60, remaining=59, reset=9');
  }],
  ['bad-key-401-lists-account-cap', async () => {
    const { answered } = await through('bad-key-401-lists-account-cap', req('GET', '/products'), problem(401, 'UNAUTHORIZED', {}, { 'ratelimit-policy': '200;w=60, 2000;w=60' }));
    expect(answered.headers['ratelimit-policy']).toBe('200;w=60, 1000;w=60');
  }],
  ['sku-lists-one-product', async () => {
    const { answered } = await through('sku-lists-one-product', req('GET', '/products?sku=S1'), json(200, page(['p1', 'p2'], null)));
    expect(bodyOf(answered)['data']).toHaveLength(1);
  }],
  ['media-url-relative', async () => {
    const creative = { object: 'creative', url: 'http://127.0.0.1:4010/media/c1.png', thumbnailUrl: 'http://127.0.0.1:4010/media/c1-thumb.png', playerUrl: null };
    const { answered } = await through('media-url-relative', req('GET', '/creatives/c1'), json(200, creative));
    expect(bodyOf(answered)).toMatchObject({ url: '/media/c1.png', thumbnailUrl: '/media/c1-thumb.png', playerUrl: null });
  }],
  ['embed-code-wrong-ratio', async () => {
    const creative = { object: 'creative', embedCode: '<iframe src="x" width="400" height="500"></iframe>' };
    const { answered } = await through('embed-code-wrong-ratio', req('GET', '/creatives/c1'), json(200, creative));
    expect(bodyOf(answered)['embedCode']).toBe('<iframe src="x" width="800" height="500"></iframe>');
  }],
  ['run-items-reversed', async () => {
    const items = { object: 'list', data: [{ position: 0 }, { position: 1 }], pagination: { nextCursor: null, hasMore: false, pageSize: 25 } };
    const { answered } = await through('run-items-reversed', req('GET', '/runs/run_1/items'), json(200, items));
    expect(bodyOf(answered)['data']).toEqual([{ position: 1 }, { position: 0 }]);
  }],
  ['run-finalized-at-moving', async () => {
    const memory = new DefectMemory();
    const a = await through('run-finalized-at-moving', req('GET', '/runs/run_1'), json(200, run()), memory);
    const b = await through('run-finalized-at-moving', req('GET', '/runs/run_1'), json(200, run()), memory);
    expect(bodyOf(a.answered)['finalizedAt']).not.toBe(bodyOf(b.answered)['finalizedAt']);
    expect(bodyOf(b.answered)['finalizedAt']).toMatch(/Z$/);
    const running = await through('run-finalized-at-moving', req('GET', '/runs/run_1'), json(200, run({ status: 'RUNNING', finalizedAt: null })), memory);
    expect(bodyOf(running.answered)['finalizedAt']).toBeNull();
  }],
  ['run-final-without-finalized-at', async () => {
    const { answered } = await through('run-final-without-finalized-at', req('GET', '/runs/run_1'), json(200, run()));
    expect(bodyOf(answered)['finalizedAt']).toBeNull();
  }],
];

describe('the defect catalogue', () => {
  it('holds at least 25 defects, at least 2 of every kind, with unique names, rules and a grep', () => {
    expect(DEFECTS.length).toBeGreaterThanOrEqual(25);
    for (const kind of DEFECT_KINDS) expect(DEFECTS.filter((d) => d.kind === kind).length, kind).toBeGreaterThanOrEqual(2);
    expect(new Set(DEFECTS.map((d) => d.name)).size).toBe(DEFECTS.length);
    for (const d of DEFECTS) {
      expect(d.rules.length, d.name).toBeGreaterThan(0);
      expect(() => new RegExp(d.grep), d.name).not.toThrow();
      const file = /\\b(\w+)\\\.spec/.exec(d.grep)?.[1] ?? 'any';
      for (const rule of d.rules) expect(new RegExp(d.grep).test(`  ${file}.spec.ts ${rule} title`), `${d.name}'s grep selects the tests of ${rule}`).toBe(true);
      expect(d.via === 'mock' || d.request !== undefined || d.response !== undefined, `${d.name} changes something`).toBe(true);
    }
  });

  it('has a unit case for every proxy defect', () => {
    expect(cases.map(([name]) => name).sort()).toEqual(DEFECTS.filter((d) => d.via === 'proxy').map((d) => d.name).sort());
  });
});

describe('each proxy defect transforms a sample exchange as described', () => {
  it.each(cases)('%s', async (_name, check) => {
    await check();
  });
});

describe('the proxy', () => {
  it('forwards unchanged without a defect, and never alters the control plane', async () => {
    const sample = json(200, page(['p1', 'p2'], 'c2'), { etag: '"abc"' });
    const plain = await through(undefined, req('GET', '/products', { 'if-match': '"x"' }), sample);
    expect(plain.answered).toEqual(sample);
    expect(plain.sent.headers['if-match']).toBe('"x"');
    for (const defect of DEFECTS) {
      const control: ProxyRequest = { method: 'POST', url: '/__mock/accounts', headers: { 'if-match': '"x"', 'idempotency-key': 'k' }, body: '{}' };
      const out = await through(defect.name, control, sample);
      expect(out.answered, defect.name).toEqual(sample);
      expect(out.sent, defect.name).toEqual(control);
    }
  });

  it('serves over HTTP: forwards method, path, headers and body, and applies the defect to the answer', async () => {
    const seen: { method?: string; url?: string; key?: string; body?: string; bytes?: string } = {};
    const target = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const bytes = Buffer.concat(chunks);
        Object.assign(seen, { method: request.method, url: request.url, key: request.headers['idempotency-key'], body: bytes.toString('utf8'), bytes: bytes.toString('hex') });
        response.writeHead(201, { 'content-type': 'application/json', etag: '"v1"', location: `${BASE}/campaigns/cmp_1` });
        response.end(JSON.stringify({ object: 'campaign', campaignId: 'cmp_1' }));
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const proxy = await startProxy(`http://127.0.0.1:${(target.address() as AddressInfo).port}`, defectNamed('etag-weak'));
    try {
      const response = await fetch(`${proxy.origin}${BASE}/campaigns?x=1`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'k1' }, body: '{"name":"n"}' });
      expect(response.status).toBe(201);
      expect(response.headers.get('etag')).toBe('W/"v1"');
      expect(response.headers.get('location')).toBe(`${BASE}/campaigns/cmp_1`);
      expect(await response.json()).toEqual({ object: 'campaign', campaignId: 'cmp_1' });
      expect(seen).toMatchObject({ method: 'POST', url: `${BASE}/campaigns?x=1`, key: 'k1', body: '{"name":"n"}' });
      expect(proxy.forwarded).toBe(1);
      // Bytes that are not UTF-8 reach the target unchanged (a malformed-body test must stay malformed).
      await (await fetch(`${proxy.origin}${BASE}/campaigns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) })).arrayBuffer();
      expect(seen.bytes).toBe('7bfffe7d');
    } finally {
      await proxy.close();
      await new Promise((resolve) => target.close(resolve));
    }
  });
});

describe('the switching proxy of a batch run', () => {
  it('applies the defect each request names (a memory each), the last named to a request without the header, and never forwards the header', async () => {
    const seen: { url?: string; named?: string | string[] | undefined }[] = [];
    const target = createServer((request, response) => {
      seen.push({ url: request.url, named: request.headers[DEFECT_HEADER] });
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json', etag: '"v1"' });
      response.end(JSON.stringify({ object: 'creative', creativeId: 'crt_1' }));
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const proxy = await startSwitchingProxy(`http://127.0.0.1:${(target.address() as AddressInfo).port}`, [defectNamed('etag-weak')!, defectNamed('etag-missing')!]);
    const get = async (named?: string) => {
      const response = await fetch(`${proxy.origin}${BASE}/creatives/crt_1`, { headers: named ? { [DEFECT_HEADER]: named } : {} });
      await response.arrayBuffer();
      return response;
    };
    try {
      expect((await get()).headers.get('etag')).toBe('"v1"'); // nothing named yet: pass-through
      expect((await get('etag-weak')).headers.get('etag')).toBe('W/"v1"');
      expect((await get()).headers.get('etag')).toBe('W/"v1"');
      expect((await get('etag-missing')).headers.get('etag')).toBeNull();
      expect((await get()).headers.get('etag')).toBeNull();
      expect((await get('no-such-defect')).status).toBe(502);
      // The batch fixture's selection: answered by the proxy itself, never forwarded.
      const select = async (named?: string) => (await fetch(`${proxy.origin}${SELECT_PATH}`, { method: 'POST', headers: named ? { [DEFECT_HEADER]: named } : {} })).status;
      expect(await select('etag-weak')).toBe(204);
      expect((await get()).headers.get('etag')).toBe('W/"v1"');
      expect(await select()).toBe(502);
      expect(await select('no-such-defect')).toBe(502);
      expect(seen.every((s) => s.named === undefined)).toBe(true);
      expect(seen.some((s) => s.url === SELECT_PATH)).toBe(false);
      expect(seen).toHaveLength(6);
      expect([proxy.forwardedFor('etag-weak'), proxy.forwardedFor('etag-missing')]).toEqual([3, 2]);
    } finally {
      await proxy.close();
      await new Promise((resolve) => target.close(resolve));
    }
  });

  it("selects exactly the plan's tests: the batch project, file and title path, then only tags; repeats each test once per defect", () => {
    const plan = { tests: { 'etag.spec.ts › ETAG-005 a stale If-Match (x) answers 412': ['etag-weak', 'etag-missing'], 'a.spec.ts › d › t': ['etag-weak'] } };
    const grep = new RegExp(grepOfPlan(plan), 'gi');
    const matches = (title: string) => ((grep.lastIndex = 0), grep.test(title));
    expect(matches(`${BATCH_PROJECT} etag.spec.ts ETAG-005 a stale If-Match (x) answers 412`)).toBe(true);
    expect(matches(`${BATCH_PROJECT} etag.spec.ts ETAG-005 a stale If-Match (x) answers 412 @assumed @control`)).toBe(true);
    expect(matches(`${BATCH_PROJECT} a.spec.ts d t`)).toBe(true);
    expect(matches(`${BATCH_PROJECT} etag.spec.ts ETAG-005 a stale If-Match (x) answers 412 on deletes`)).toBe(false);
    expect(matches(`${BATCH_PROJECT} etag.spec.ts ETAG-005 a stale If-Match (y) answers 412`)).toBe(false);
    expect(matches('other etag.spec.ts ETAG-005 a stale If-Match (x) answers 412')).toBe(false);
    expect(repeatsOf(plan)).toBe(2);
    expect(repeatsOf({ tests: {} })).toBe(1);
  });

  it('reads each defect\'s tests of a batch from the JSON report by their defect annotation, outcomes from the result (each was expected to fail)', () => {
    const result = (startTime: string, status: string, defect?: string) => ({ status, startTime, duration: 100, ...(defect ? { annotations: [{ type: 'defect', description: defect }] } : {}) });
    const report = {
      suites: [
        {
          title: 'a.spec.ts',
          file: 'a.spec.ts',
          specs: [
            // caught: an expected failure
            { title: 'early', file: 'a.spec.ts', tests: [{ status: 'expected' as const, results: [result('2026-01-01T00:00:01.000Z', 'failed', 'd1')] }] },
            // skipped after d1 was caught; a repeat under no defect (no annotation) is left out
            { title: 'late', file: 'a.spec.ts', tests: [{ status: 'skipped' as const, annotations: [{ type: 'defect', description: 'd1' }], results: [result('2026-01-01T00:00:03.000Z', 'skipped')] }, { status: 'skipped' as const, results: [result('2026-01-01T00:00:04.000Z', 'skipped')] }] },
            // passed under d2: unexpected for Playwright, `passed` for the proof; then timed out under d2
            { title: 'other', file: 'a.spec.ts', tests: [{ status: 'unexpected' as const, results: [result('2026-01-01T00:00:02.000Z', 'passed', 'd2')] }, { status: 'expected' as const, results: [result('2026-01-01T00:00:05.000Z', 'timedOut', 'd2')] }] },
          ],
        },
      ],
    };
    const byDefect = testsByDefect(report);
    expect(byDefect.get('d1')).toEqual([
      { id: 'a.spec.ts › early', grepTitle: 'a.spec.ts early', outcome: 'failed', startedAt: Date.parse('2026-01-01T00:00:01.000Z'), endedAt: Date.parse('2026-01-01T00:00:01.100Z') },
      { id: 'a.spec.ts › late', grepTitle: 'a.spec.ts late', outcome: 'skipped', startedAt: Date.parse('2026-01-01T00:00:03.000Z'), endedAt: Date.parse('2026-01-01T00:00:03.100Z') },
    ]);
    expect(byDefect.get('d2')!.map((t) => t.outcome)).toEqual(['passed', 'failed']);
    expect([...byDefect.keys()].sort()).toEqual(['d1', 'd2']);
  });
});

describe('judging a defect run', () => {
  const report = (status: 'expected' | 'unexpected' | 'skipped', results: { status: string }[]) => ({
    suites: [{ title: 'a.spec.ts', file: 'a.spec.ts', specs: [{ title: 'ETAG-002 reads', file: 'a.spec.ts', tags: ['@assumed'], tests: [{ status, results }] }] }],
  });

  it('reads outcomes and the grep title from the JSON report', () => {
    expect(testsOf(report('expected', [{ status: 'passed' }]))).toEqual([{ id: 'a.spec.ts › ETAG-002 reads', grepTitle: 'a.spec.ts ETAG-002 reads @assumed', outcome: 'passed' }]);
    expect(testsOf(report('unexpected', [{ status: 'failed' }]))[0]!.outcome).toBe('failed');
    expect(testsOf(report('skipped', []))[0]!.outcome).toBe('not-run');
    expect(testsOf(report('skipped', [{ status: 'skipped' }]))[0]!.outcome).toBe('skipped');
  });

  it('counts a defect as detected only when a test that passed without it fails with it', () => {
    const failed = testsOf(report('unexpected', [{ status: 'failed' }]));
    expect(judge(failed, new Map([['a.spec.ts › ETAG-002 reads', 'passed']])).detected).toBe(true);
    expect(judge(failed, new Map([['a.spec.ts › ETAG-002 reads', 'failed']]))).toMatchObject({ detected: false, reason: expect.stringMatching(/did not pass without/) });
    expect(judge(testsOf(report('expected', [{ status: 'passed' }])), new Map())).toMatchObject({ detected: false, reason: 'every selected test passed' });
    expect(judge([], new Map())).toMatchObject({ detected: false, reason: 'its grep selected no test' });
  });
});
