/**
 * The client exam's mock side: the schedule (seeded, a repeat never meets adversity), the judges
 * (table-driven: each check, a client keeping the rule and one breaking it, over recorded
 * requests), and the in-process exam (createMockHandlers({ exam }) and control.examReport()) with
 * the example client and one faulty variant of it.
 */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockHandlers } from '../adapters/msw/msw.ts';
import { matchOperation } from '../../spec/routes.ts';
import { Client } from '../../examples/client/client.ts';
import { judge, line } from './judge.ts';
import { connectionDropped, ExamSession, type ExamRecord } from './session.ts';
import type { RawRequest } from '../pipeline/types.ts';

let seq = 0;
/** A recorded request, `at` in seconds. */
function r(at: number, method: string, path: string, status: number, more: Partial<ExamRecord> = {}): ExamRecord {
  seq += 1;
  return { seq, requestId: `req_${seq}`, at: at * 1000, method, path, query: {}, idempotencyKey: undefined, ifMatch: undefined, keyId: 'key_1', body: '', status, code: undefined, retryAfter: undefined, etag: undefined, json: undefined, plan: {}, ...more };
}
const page = (n: number, next: string | null) => ({ data: Array.from({ length: n }, (_, i) => ({ id: i })), pagination: { nextCursor: next, hasMore: next !== null, pageSize: 5 } });

/** [name, records, rule, held]: the verdict the judges must reach on that rule. */
const CASES: [string, () => ExamRecord[], string, boolean][] = [
  ['a read retried after Retry-After', () => [r(0, 'GET', '/creatives', 429, { retryAfter: 1, code: 'RATE_LIMITED' }), r(1.01, 'GET', '/creatives', 200)], 'CLIENT-001', true],
  ['a read retried at once', () => [r(0, 'GET', '/creatives', 429, { retryAfter: 1, code: 'RATE_LIMITED' }), r(0.2, 'GET', '/creatives', 200)], 'CLIENT-001', false],
  ['a write retried with its key and body', () => [r(0, 'POST', '/campaigns', 429, { retryAfter: 1, idempotencyKey: 'k1', body: '{"a":1}' }), r(1.1, 'POST', '/campaigns', 201, { idempotencyKey: 'k1', body: '{"a":1}' })], 'CLIENT-002', true],
  ['a write retried with a new key', () => [r(0, 'POST', '/campaigns', 429, { retryAfter: 1, idempotencyKey: 'k1', body: '{"a":1}' }), r(1.1, 'POST', '/campaigns', 201, { idempotencyKey: 'k2', body: '{"a":1}' })], 'CLIENT-002', false],
  ['a 503 retried with another body', () => [r(0, 'POST', '/runs', 503, { retryAfter: 1, code: 'WRITES_PAUSED', idempotencyKey: 'k1', body: '{"a":1}' }), r(1.1, 'POST', '/runs', 202, { idempotencyKey: 'k1', body: '{"a": 1}' })], 'CLIENT-003', false],
  ['a 409 in progress retried too soon', () => [r(0, 'POST', '/runs', 409, { retryAfter: 1, code: 'IDEMPOTENCY_IN_PROGRESS', idempotencyKey: 'k1' }), r(0.5, 'POST', '/runs', 202, { idempotencyKey: 'k1' })], 'CLIENT-004', false],
  ['an empty page followed', () => [r(0, 'GET', '/creatives', 200, { json: page(0, 'c1') }), r(0.1, 'GET', '/creatives', 200, { query: { cursor: 'c1' }, json: page(2, null) })], 'CLIENT-005', true],
  ['a walk that stops at an empty page', () => [r(0, 'GET', '/creatives', 200, { json: page(0, 'c1') }), r(0.1, 'GET', '/campaigns', 200, { json: page(1, null) })], 'CLIENT-005', false],
  ['a cursor sent as served', () => [r(0, 'GET', '/creatives', 200, { json: page(5, 'c1') }), r(0.1, 'GET', '/creatives', 200, { query: { cursor: 'c1' }, json: page(2, null) })], 'CLIENT-006', true],
  ['a cursor rebuilt', () => [r(0, 'GET', '/creatives', 200, { json: page(5, 'c1') }), r(0.1, 'GET', '/creatives', 200, { query: { cursor: 'c1=' }, json: page(2, null) })], 'CLIENT-006', false],
  ['a walk that stops at a sparse page', () => [r(0, 'GET', '/creatives', 200, { query: { limit: '5' }, json: page(2, 'c1') })], 'CLIENT-007', false],
  ['a 422 sent again unchanged', () => [r(0, 'PATCH', '/creatives/c', 422, { body: '{"x":1}' }), r(1, 'PATCH', '/creatives/c', 422, { body: '{"x":1}' })], 'CLIENT-009', false],
  ['a 422 corrected', () => [r(0, 'PATCH', '/creatives/c', 422, { body: '{"x":1}' }), r(1, 'PATCH', '/creatives/c', 200, { body: '{"y":1}' })], 'CLIENT-009', true],
  ['a 400 sent again unchanged', () => [r(0, 'POST', '/runs', 400, { body: '{}' }), r(1, 'POST', '/runs', 400, { body: '{}' })], 'CLIENT-008', false],
  ['a 412 re-read and retried with the new ETag', () => [r(0, 'PATCH', '/creatives/c', 412, { ifMatch: '"a"' }), r(0.1, 'GET', '/creatives/c', 200, { etag: '"b"' }), r(0.2, 'PATCH', '/creatives/c', 200, { ifMatch: '"b"' })], 'CLIENT-010', true],
  ['a 412 retried without reading', () => [r(0, 'PATCH', '/creatives/c', 412, { ifMatch: '"a"' }), r(0.2, 'PATCH', '/creatives/c', 200, { ifMatch: '"a"' })], 'CLIENT-010', false],
  ['a run polled until final, then its items', () => [r(0, 'POST', '/runs', 202, { json: { runId: 'run_1' } }), r(1, 'GET', '/runs/run_1', 200, { json: { finalizedAt: null } }), r(2, 'GET', '/runs/run_1', 200, { json: { finalizedAt: 'x' } }), r(3, 'GET', '/runs/run_1/items', 200)], 'CLIENT-011', true],
  ['a run\'s items read before it is final', () => [r(0, 'POST', '/runs', 202, { json: { runId: 'run_1' } }), r(1, 'GET', '/runs/run_1/items', 200), r(2, 'GET', '/runs/run_1', 200, { json: { finalizedAt: 'x' } })], 'CLIENT-011', false],
  ['an approve without a key', () => [r(0, 'POST', '/creatives/c/approve', 400, { code: 'IDEMPOTENCY_KEY_REQUIRED' })], 'CLIENT-017', false],
  ['one key for two requests', () => [r(0, 'POST', '/campaigns', 201, { idempotencyKey: 'k', body: '{"a":1}' }), r(1, 'POST', '/campaigns', 409, { idempotencyKey: 'k', body: '{"a":2}' })], 'CLIENT-018', false],
  ['a 401 sent again with the same key', () => [r(0, 'GET', '/creatives', 401), r(1, 'GET', '/creatives', 401)], 'CLIENT-019', false],
  ['a 401 surfaced, not sent again', () => [r(0, 'GET', '/presets', 401), r(1, 'GET', '/creatives', 200)], 'CLIENT-019', true],
  ['a dropped write sent again with its key and body (the replay)', () => [r(0, 'POST', '/runs', 202, { idempotencyKey: 'k1', body: '{"a":1}', plan: { dropped: true } }), r(0.2, 'POST', '/runs', 202, { idempotencyKey: 'k1', body: '{"a":1}' })], 'CLIENT-023', true],
  ['a dropped write sent again with a new key (a second run)', () => [r(0, 'POST', '/runs', 202, { idempotencyKey: 'k1', body: '{"a":1}', plan: { dropped: true } }), r(0.2, 'POST', '/runs', 202, { idempotencyKey: 'k2', body: '{"a":1}' })], 'CLIENT-023', false],
  ['a dropped write given up', () => [r(0, 'POST', '/runs', 202, { idempotencyKey: 'k1', body: '{"a":1}', plan: { dropped: true } }), r(0.2, 'GET', '/creatives', 200)], 'CLIENT-023', false],
  ['an unknown member, then the page\'s nextCursor followed', () => [r(0, 'GET', '/creatives', 200, { json: page(5, 'c1'), plan: { shaped: 'field' } }), r(0.1, 'GET', '/creatives', 200, { query: { cursor: 'c1' }, json: page(1, null) })], 'CLIENT-020', true],
  ['an unknown campaign status, then the campaign used', () => [r(0, 'GET', '/campaigns/cmp_1', 200, { json: { campaignId: 'cmp_1', status: 'EXAM_UNANNOUNCED_STATUS' }, plan: { shaped: 'status' } }), r(0.1, 'PATCH', '/campaigns/cmp_1', 200, { body: '{"name":"x"}' })], 'CLIENT-021', true],
  ['an unknown member sent back to the service', () => [r(0, 'GET', '/creatives/crv_1', 200, { json: { creativeId: 'crv_1', examUnannouncedField: {} }, plan: { shaped: 'field' } }), r(0.1, 'PATCH', '/creatives/crv_1', 422, { body: '{"examUnannouncedField":{}}' })], 'CLIENT-020', false],
];

describe('the judges', () => {
  it.each(CASES)('%s', (_name, records, rule, held) => {
    const findings = judge(records()).filter((f) => f.rule === rule);
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.every((f) => f.held)).toBe(held);
    if (!held) expect(findings.find((f) => !f.held)!.proof.join('\n')).toMatch(/#\d+ /);
  });

  it('a refused key is named in the proof by its id (the key an SDK team must look at), or said to be absent', () => {
    const again = judge([r(0, 'GET', '/creatives', 401, { keyId: 'key_expired' }), r(1, 'GET', '/creatives', 401, { keyId: 'key_expired' })]).find((f) => f.rule === 'CLIENT-019' && !f.held)!;
    expect(again.proof).toEqual([expect.stringMatching(/^#\d+ GET \/creatives key=key_expired → 401$/), expect.stringMatching(/ GET \/creatives key=key_expired → 401 \(sent again unchanged\)$/)]);
    expect(line(r(0, 'GET', '/creatives', 403, { keyId: 'key_reader', code: 'API_TOKEN_SCOPE_DENIED' }))).toMatch(/ key=key_reader → 403 API_TOKEN_SCOPE_DENIED$/);
    expect(line(r(0, 'GET', '/creatives', 401, { keyId: undefined }))).toMatch(/ key=\(none presented\) → 401$/);
    expect(line(r(0, 'GET', '/creatives', 200))).not.toContain('key=');
  });

  it('a 401 sent again under another refused key is not an unchanged retry', () => {
    const findings = judge([r(0, 'GET', '/creatives', 401, { keyId: 'key_expired' }), r(1, 'GET', '/creatives', 401, { keyId: 'key_revoked' })]).filter((f) => f.rule === 'CLIENT-019');
    expect(findings.map((f) => f.held)).toEqual([true, true]);
  });

  it('a program that failed right after an unknown campaign status broke CLIENT-021, one that exited 0 did not', () => {
    const records = () => [r(0, 'GET', '/campaigns', 200, { plan: { shaped: 'status' } })];
    expect(judge(records(), { exitCode: 1 }).filter((f) => !f.held).map((f) => f.rule)).toEqual(['CLIENT-021']);
    expect(judge(records(), { exitCode: 0 }).filter((f) => !f.held)).toEqual([]);
  });

  it('tolerance is judged passed only on a later use: an answer nobody used exercises nothing', () => {
    const unused = [r(0, 'GET', '/campaigns', 200, { json: page(2, null), plan: { shaped: 'status' } }), r(1, 'GET', '/presets', 200)];
    expect(judge(unused, { exitCode: 0 }).filter((f) => f.rule === 'CLIENT-020' || f.rule === 'CLIENT-021')).toEqual([]);
  });

  it('a program that failed on a sparse page carrying an unknown member broke CLIENT-020, not CLIENT-007 (it did not choose to stop the walk)', () => {
    const records = [r(0, 'GET', '/creatives', 200, { query: { limit: '5' }, json: page(2, 'c1'), plan: { shaped: 'field' } })];
    expect(judge(records, { exitCode: 1 }).filter((f) => !f.held).map((f) => f.rule)).toEqual(['CLIENT-020']);
  });
});

describe('the schedule', () => {
  const raw = (method: string, path: string, headers: Record<string, string> = {}): RawRequest => ({ method, path, fullPath: `/api/public/v1${path}`, query: {}, headers, body: undefined, ip: '127.0.0.1' });
  const plan = (s: ExamSession, id: string, method: string, path: string, headers: Record<string, string> = {}) => s.plan(id, matchOperation(method, path)!.operation, raw(method, path, headers)).adversity;

  it('serves each kind to the first eligible request, never to a repeat', () => {
    const s = new ExamSession('acc', { seed: 1, rate: 0 });
    expect(plan(s, 'a', 'GET', '/creatives')).toBe('rate_limited');
    expect(plan(s, 'b', 'GET', '/creatives')).toBeUndefined();
    expect(plan(s, 'c', 'POST', '/creatives/c1/approve', { 'idempotency-key': 'k1' })).toBe('rate_limited');
    expect(plan(s, 'd', 'POST', '/creatives/c2/approve', { 'idempotency-key': 'k2' })).toBe('writes_paused');
    expect(plan(s, 'e', 'POST', '/creatives/c3/approve', { 'idempotency-key': 'k3' })).toBe('in_progress');
    expect(plan(s, 'f', 'POST', '/creatives/c3/approve', { 'idempotency-key': 'k3' })).toBeUndefined();
    expect(plan(s, 'g', 'PATCH', '/creatives/c4', {})).toBeUndefined();
    expect(plan(s, 'h', 'POST', '/creatives/c4/approve', { 'idempotency-key': 'k4' })).toBe('dropped');
  });

  it('a planned drop drops only an applied (2xx) answer; after an error answer the next eligible write meets it', () => {
    const s = new ExamSession('acc', { seed: 1, rate: 0 });
    for (const [i, kind] of ['rate_limited', 'writes_paused', 'in_progress', 'dropped'].entries()) expect(plan(s, `w${i}`, 'POST', `/creatives/c${i}/approve`, { 'idempotency-key': `k${i}` })).toBe(kind);
    const answer = (status: number) => ({ status, headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(connectionDropped(s.shape('w3', answer(409)))).toBe(false);
    expect(plan(s, 'w4', 'POST', '/creatives/c4/approve', { 'idempotency-key': 'k4' })).toBe('dropped');
    expect(connectionDropped(s.shape('w4', answer(200)))).toBe(true);
    expect(plan(s, 'w5', 'POST', '/creatives/c4/approve', { 'idempotency-key': 'k4' })).toBeUndefined();
  });

  it('the same traffic meets the same draws for one seed, other draws for another', () => {
    const draws = (seed: number) => {
      const s = new ExamSession('acc', { seed, rate: 0.5 });
      return Array.from({ length: 40 }, (_, i) => plan(s, `r${i}`, 'GET', `/creatives/c${i}`) ?? '-').join(',');
    };
    expect(draws(7)).toBe(draws(7));
    expect(draws(7)).not.toBe(draws(8));
  });
});

describe('in-process: createMockHandlers({ exam }) and control.examReport()', () => {
  const BASE = 'http://exam.test';
  const good = createMockHandlers({ baseUrl: BASE, exam: { seed: 5 } });
  const faulty = createMockHandlers({ baseUrl: 'http://faulty.exam.test', exam: { seed: 5 } });
  const server = setupServer(...good.handlers, ...faulty.handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => {
    server.close();
    good.dispose();
    faulty.dispose();
  });

  it('the example client walks every creative through the exam\'s 429, empty and sparse pages and keeps the rules', async () => {
    await good.ready;
    const client = new Client(`${BASE}/api/public/v1`, good.demo!.keys['all']!.key);
    expect((await client.all('/creatives', { limit: 5 })).length).toBeGreaterThan(5);
    const report = await good.control.examReport();
    expect(report.rules['CLIENT-001']!.result).toBe('passed');
    expect(report.rules['CLIENT-005']!.result).toBe('passed');
    expect(report.rules['CLIENT-006']!.result).toBe('passed');
  });

  it('the exam\'s expired key (demo.keys.expired) answers 401; surfaced it passes CLIENT-019, sent again unchanged it fails, the proof and the journal naming the key', async () => {
    await good.ready;
    const expired = good.demo!.keys.expired!;
    const read = (key: string) => fetch(`${BASE}/api/public/v1/presets`, { headers: { authorization: `Bearer ${key}` } });
    expect((await read(expired.key)).status).toBe(401);
    expect((await good.control.examReport()).rules['CLIENT-019']!.result).toBe('passed');
    // the journal names the refused key (spec/mock-control.yaml RequestEntry.keyId: the key the request presented)
    const [entry] = (await good.control.listRequests(good.demo!.accountId, { limit: 1 })).data;
    expect(entry).toMatchObject({ status: 401, keyId: expired.keyId });
    // the same request under another refused key (a revoked one) is not the same request sent again
    const other = await good.control.createKey(good.demo!.accountId, { name: 'exam revoked', scopes: ['read'] });
    await good.control.revokeKey(good.demo!.accountId, other.keyId);
    expect((await read(other.key)).status).toBe(401);
    expect((await good.control.examReport()).rules['CLIENT-019']!.result).toBe('passed');
    expect((await read(expired.key)).status).toBe(401);
    const report = (await good.control.examReport()).rules['CLIENT-019']!;
    expect(report.result).toBe('failed');
    expect(report.findings.find((f) => !f.held)!.proof.join('\n')).toContain(`GET /presets key=${expired.keyId} → 401 UNAUTHORIZED`);
  });

  it('the same client stopping at the first empty page fails CLIENT-005, with the page that proves it', async () => {
    await faulty.ready;
    const client = new Client('http://faulty.exam.test/api/public/v1', faulty.demo!.keys['all']!.key, 'stop-at-empty-page');
    await client.all('/creatives', { limit: 5 });
    await client.all('/campaigns', { limit: 50 });
    const report = await faulty.control.examReport();
    expect(report.rules['CLIENT-005']!.result).toBe('failed');
    expect(report.rules['CLIENT-005']!.findings.find((f) => !f.held)!.proof[0]).toMatch(/GET \/creatives\?limit=5&cursor=.* → 200 \(0 rows/);
    expect(report.rules['CLIENT-001']!.result).toBe('passed');
  });
});
