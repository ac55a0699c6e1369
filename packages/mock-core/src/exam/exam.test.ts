/**
 * The client exam's mock side: the schedule (seeded, a repeat never meets adversity), the judges
 * (table-driven: each check, a client keeping the rule and one breaking it, over recorded
 * requests), and the in-process exam (createMockHandlers({ exam }) and control.examReport()) with
 * the example client and one faulty variant of it.
 */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockHandlers } from '../../../msw/src/msw.ts';
import { matchOperation } from '../../../contract/spec/routes.ts';
import { Client } from '../../../../examples/client/client.ts';
import { judge, line } from './judge.ts';
import { connectionDropped, ExamSession, type ExamRecord } from './session.ts';
import { REQUIRED_TASKS, rulesOfTasks, taskOutcomes } from './tasks.ts';
import type { RawRequest } from '../pipeline/types.ts';

let seq = 0;
/** A recorded request, `at` in seconds. */
function r(at: number, method: string, path: string, status: number, more: Partial<ExamRecord> = {}): ExamRecord {
  seq += 1;
  return { seq, requestId: `req_${seq}`, at: at * 1000, answeredAt: at * 1000, method, path, query: {}, idempotencyKey: undefined, ifMatch: undefined, keyId: 'key_1', body: '', status, code: undefined, retryAfter: undefined, etag: undefined, json: undefined, plan: {}, ...more };
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
  // D259: a retry is the request that repeats another (method, path, query, key, body), under any interleaving
  ['parallel reads: another sku in the same millisecond is not the retry; the real one 2 s later is', () => [r(0, 'GET', '/products', 429, { query: { sku: 'A' }, retryAfter: 2, code: 'RATE_LIMITED' }), r(0, 'GET', '/products', 200, { query: { sku: 'B' } }), r(2.05, 'GET', '/products', 200, { query: { sku: 'A' } })], 'CLIENT-001', true],
  ['parallel creates: another create with another key and body is not the 503\'s retry', () => [r(0, 'POST', '/campaigns', 503, { retryAfter: 1, code: 'SERVICE_UNAVAILABLE', idempotencyKey: 'k1', body: '{"n":1}' }), r(0.01, 'POST', '/campaigns', 201, { idempotencyKey: 'k2', body: '{"n":2}' }), r(1.1, 'POST', '/campaigns', 201, { idempotencyKey: 'k1', body: '{"n":1}' })], 'CLIENT-003', true],
  ['the same create sent in parallel before the 503 was answered is not its retry', () => [r(0, 'POST', '/campaigns', 503, { retryAfter: 1, code: 'WRITES_PAUSED', idempotencyKey: 'k1', body: '{"n":1}', answeredAt: 300 }), r(0.1, 'POST', '/campaigns', 201, { idempotencyKey: 'k2', body: '{"n":1}' }), r(1.4, 'POST', '/campaigns', 201, { idempotencyKey: 'k1', body: '{"n":1}' })], 'CLIENT-003', true],
  ['Retry-After counts from the answer, not the arrival', () => [r(0, 'GET', '/creatives', 429, { retryAfter: 1, answeredAt: 300 }), r(1.1, 'GET', '/creatives', 200)], 'CLIENT-001', false],
  // CLIENT-002 by its own text: no sooner than Retry-After
  ['a write retried 2 ms after its 429 (CLIENT-002: no sooner than Retry-After)', () => [r(0, 'PATCH', '/creatives/c', 429, { retryAfter: 1, body: '{"a":1}' }), r(0.002, 'PATCH', '/creatives/c', 200, { body: '{"a":1}' })], 'CLIENT-002', false],
  ['a write retried after its 429\'s Retry-After (CLIENT-002)', () => [r(0, 'PATCH', '/creatives/c', 429, { retryAfter: 3, body: '{"a":1}' }), r(3.01, 'PATCH', '/creatives/c', 200, { body: '{"a":1}' })], 'CLIENT-002', true],
  ['a keyless write retried with another body is another request (a read 429 or PATCH 429 is retried only as itself)', () => [r(0, 'PATCH', '/creatives/c', 429, { retryAfter: 1, body: '{"a":1}' }), r(0.01, 'PATCH', '/creatives/c', 200, { body: '{"b":1}' }), r(1.02, 'PATCH', '/creatives/c', 200, { body: '{"a":1}' })], 'CLIENT-001', true],
  // a list is its path and query but the cursor: parallel walks of six skus are six lists
  ['a sparse page of one sku followed, while another sku\'s list starts', () => [r(0, 'GET', '/products', 200, { query: { sku: 'A', limit: '5' }, json: page(2, 'c1') }), r(0.01, 'GET', '/products', 200, { query: { sku: 'B', limit: '5' }, json: page(1, null) }), r(0.02, 'GET', '/products', 200, { query: { sku: 'A', limit: '5', cursor: 'c1' }, json: page(1, null) })], 'CLIENT-007', true],
  // CLIENT-024 (D257): a request the document does not allow fails, sent again or not
  ['an unquoted If-Match, refused 400 and not sent again', () => [r(0, 'PATCH', '/creatives/c', 400, { ifMatch: 'abc', code: 'VALIDATION_ERROR', plan: { disallowed: 'VALIDATION_ERROR: If-Match must be * or a list of quoted entity tags' } }), r(1, 'GET', '/creatives', 200)], 'CLIENT-024', false],
  ['every request allowed by the document', () => [r(0, 'PATCH', '/creatives/c', 200, { ifMatch: '"abc"' }), r(1, 'GET', '/creatives', 200)], 'CLIENT-024', true],
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

  it('a program that died on a 429 it never retried broke CLIENT-001 (CLIENT-014: the plain text parsed), named with that answer; one that exited 0 broke nothing', () => {
    const records = () => [r(0, 'GET', '/creatives', 429, { retryAfter: 2, code: 'RATE_LIMITED' })];
    const died = judge(records(), { exitCode: 1 }).filter((f) => !f.held);
    expect(died.map((f) => [f.rule, f.check])).toEqual([['CLIENT-001', 'stopped-after-answer']]);
    expect(died[0]!.proof).toEqual([expect.stringMatching(/GET \/creatives → 429 RATE_LIMITED Retry-After: 2$/), expect.stringContaining('not sent again: the command then exited 1 (a 429 asks for the same request after Retry-After; its plain-text body must not be parsed, CLIENT-014)')]);
    expect(judge(records(), { exitCode: 0 }).filter((f) => !f.held)).toEqual([]);
    // a write's 429 never retried: CLIENT-002
    expect(judge([r(0, 'POST', '/runs', 429, { retryAfter: 2, idempotencyKey: 'k' })], { exitCode: 1 }).filter((f) => !f.held).map((f) => f.rule)).toEqual(['CLIENT-002']);
  });

  it('a generation-plane 429 (problem+json) never retried is not said to be plain text; a read-plane one is', () => {
    const generation = judge([r(0, 'GET', '/presets', 429, { retryAfter: 2, code: 'RATE_LIMITED', json: { code: 'RATE_LIMITED' } })], { exitCode: 1 }).find((f) => !f.held)!;
    expect(generation.proof.join('\n')).not.toContain('plain-text');
    const read = judge([r(0, 'GET', '/creatives', 429, { retryAfter: 2, code: 'RATE_LIMITED' })], { exitCode: 1 }).find((f) => !f.held)!;
    expect(read.proof.join('\n')).toContain('plain-text body must not be parsed');
  });

  it('a program that used answers carrying the unknown member and exited 1 later is not blamed on CLIENT-020 (its exit has another cause)', () => {
    const used = [r(0, 'GET', '/creatives', 200, { json: page(5, 'c1'), plan: { shaped: 'field' } }), r(0.1, 'GET', '/creatives', 200, { query: { cursor: 'c1' }, json: page(1, null), plan: { shaped: 'field' } })];
    const findings = judge(used, { exitCode: 1 }).filter((f) => f.rule === 'CLIENT-020');
    expect(findings.map((f) => f.held)).toEqual([true]);
    // the same exit right after the first such answer, nothing used: CLIENT-020 broken
    expect(judge([used[0]!], { exitCode: 1 }).filter((f) => f.rule === 'CLIENT-020').map((f) => f.held)).toEqual([false]);
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

describe('the tasks, from the wire (D259)', () => {
  const walkOf = (pages: [number, string | null][], path = '/creatives') =>
    pages.map(([n, next], i) => r(i * 0.1, 'GET', path, 200, { query: { limit: '5', ...(i ? { cursor: `c${i}` } : {}) }, json: page(n, next) }));

  it('a list read to its null nextCursor is done; a first page only is undone, saying where it stopped', () => {
    expect(taskOutcomes(walkOf([[5, 'c1'], [0, 'c2'], [1, null]]))['1']).toMatchObject({ done: true, proof: [expect.stringContaining('3 page(s), 6 row(s), to a null nextCursor')] });
    expect(taskOutcomes(walkOf([[5, 'c1']]))['1']).toMatchObject({ done: false, proof: [expect.stringContaining('stopped after 1 page(s), 5 row(s); its nextCursor was never sent')] });
    // a retried page (429, then the same request) is still one walk
    const retried = [r(0, 'GET', '/campaigns', 429, { retryAfter: 1 }), r(1.1, 'GET', '/campaigns', 200, { json: page(5, 'c1') }), r(1.2, 'GET', '/campaigns', 200, { query: { cursor: 'c1' }, json: page(0, null) })];
    expect(taskOutcomes(retried)['2']!.done).toBe(true);
  });

  it('the edit landed only when a PATCH with If-Match answered 200; a 400 for an unquoted one is undone', () => {
    expect(taskOutcomes([r(0, 'PATCH', '/creatives/c', 200, { ifMatch: '"e"' })])['4']!.done).toBe(true);
    expect(taskOutcomes([r(0, 'PATCH', '/creatives/c', 400, { ifMatch: 'e' })])['4']!.done).toBe(false);
  });

  it('a run counts when created, polled to final and its items read to the end', () => {
    const run = [r(0, 'POST', '/runs', 202, { json: { runId: 'run_1' } }), r(1, 'GET', '/runs/run_1', 200, { json: { finalizedAt: 'x' } }), r(2, 'GET', '/runs/run_1/items', 200, { json: page(1, 'i1') })];
    expect(taskOutcomes(run)['8']!.done).toBe(false);
    expect(taskOutcomes([...run, r(3, 'GET', '/runs/run_1/items', 200, { query: { cursor: 'i1' }, json: page(1, null) })])['8']!.done).toBe(true);
  });

  it('the rules the declared tasks exercise: the write schedule\'s rules only with every write task (4-8) declared', () => {
    expect(rulesOfTasks(REQUIRED_TASKS)).toEqual(['CLIENT-001', 'CLIENT-002', 'CLIENT-003', 'CLIENT-004', 'CLIENT-005', 'CLIENT-006', 'CLIENT-007', 'CLIENT-009', 'CLIENT-010', 'CLIENT-011', 'CLIENT-017', 'CLIENT-018', 'CLIENT-019', 'CLIENT-020', 'CLIENT-021', 'CLIENT-023']);
    expect(rulesOfTasks([1, 7])).toEqual(['CLIENT-001', 'CLIENT-005', 'CLIENT-006', 'CLIENT-007']);
    expect(rulesOfTasks([])).toEqual([]);
  });
});

describe('the schedule', () => {
  const raw = (method: string, path: string, headers: Record<string, string> = {}): RawRequest => ({ method, path, fullPath: `/api/public/v1${path}`, query: {}, headers, body: undefined, ip: '127.0.0.1' });
  /** A campaign create carries the body the document requires (a request it does not allow meets no adversity). */
  const CAMPAIGN = new TextEncoder().encode('{"name":"x","brandId":"brd_1","productIds":["prd_1"]}');
  const plan = (s: ExamSession, id: string, method: string, path: string, headers: Record<string, string> = {}) =>
    s.plan(id, matchOperation(method, path)!.operation, method === 'GET' ? raw(method, path, headers) : { ...raw(method, path, { ...headers, 'content-type': 'application/json' }), body: path === '/campaigns' ? CAMPAIGN : new TextEncoder().encode('{}') }).adversity;

  it('serves each kind to the first eligible request, the kinds few requests are eligible for first (D258), never to a repeat', () => {
    const s = new ExamSession('acc', { seed: 1, rate: 0 });
    expect(plan(s, 'a', 'GET', '/creatives')).toBe('rate_limited');
    expect(plan(s, 'b', 'GET', '/creatives')).toBeUndefined();
    // a campaign create's lost race, then a keyed write's drop and 409, then any write's 429 and 503
    expect(plan(s, 'c', 'POST', '/campaigns', { 'idempotency-key': 'k0' })).toBe('lost_race');
    expect(plan(s, 'd', 'POST', '/creatives/c1/approve', { 'idempotency-key': 'k1' })).toBe('dropped');
    expect(plan(s, 'e', 'POST', '/creatives/c2/approve', { 'idempotency-key': 'k2' })).toBe('in_progress');
    expect(plan(s, 'f', 'POST', '/creatives/c3/approve', { 'idempotency-key': 'k3' })).toBe('rate_limited');
    expect(plan(s, 'g', 'POST', '/creatives/c3/approve', { 'idempotency-key': 'k3' })).toBeUndefined();
    expect(plan(s, 'h', 'PATCH', '/creatives/c4', {})).toBe('writes_paused');
    expect(plan(s, 'i', 'POST', '/creatives/c5/approve', { 'idempotency-key': 'k5' })).toBeUndefined();
  });

  it('a parallel program meets every kind too: three campaign creates at once, then keyless patches', () => {
    const s = new ExamSession('acc', { seed: 2, rate: 0 });
    const kinds = [0, 1, 2].map((i) => plan(s, `c${i}`, 'POST', '/campaigns', { 'idempotency-key': `k${i}` }));
    kinds.push(plan(s, 'p1', 'PATCH', '/creatives/c1'), plan(s, 'p2', 'PATCH', '/creatives/c2'));
    expect(kinds).toEqual(['lost_race', 'dropped', 'in_progress', 'rate_limited', 'writes_paused']);
  });

  it('Retry-After is 2 or 3 s on a kind\'s first serving, 1 to 3 on a draw, seconds only (D258)', () => {
    const first = new ExamSession('acc', { seed: 3, rate: 0 });
    const r = (s: ExamSession, id: string, path: string) => s.plan(id, matchOperation('GET', path)!.operation, raw('GET', path));
    const served = r(first, 'a', '/creatives');
    expect(served.adversity).toBe('rate_limited');
    expect(served.retryAfter).toBeGreaterThanOrEqual(2);
    expect(served.retryAfter).toBeLessThanOrEqual(3);
    expect(ExamSession.rateLimited(served)!.retryAfter).toBe(served.retryAfter);
    const drawn = new ExamSession('acc', { seed: 3, rate: 1 });
    r(drawn, 'x', '/creatives');
    const values = new Set(Array.from({ length: 60 }, (_, i) => r(drawn, `d${i}`, `/creatives/c${i}`)).filter((p) => p.adversity === 'rate_limited').map((p) => p.retryAfter));
    expect([...values].sort()).toEqual([1, 2, 3]);
  });

  it('a request the document does not allow meets no adversity and is marked (D257); an allowed one is not', () => {
    const s = new ExamSession('acc', { seed: 1, rate: 0 });
    const unquoted = s.plan('u', matchOperation('PATCH', '/creatives/c1')!.operation, { ...raw('PATCH', '/creatives/c1', { 'if-match': 'abc', 'content-type': 'application/json' }), body: new TextEncoder().encode('{}') }, { creativeId: 'c1' });
    expect(unquoted).toEqual({ disallowed: expect.stringMatching(/^VALIDATION_ERROR: If-Match /) });
    const unknown = s.plan('q', matchOperation('GET', '/creatives')!.operation, { ...raw('GET', '/creatives'), query: { limt: '5' } });
    expect(unknown.disallowed).toMatch(/query parameter "limt" not in the document's listCreatives/);
    expect(unknown.adversity).toBeUndefined();
    const cursor = s.plan('c', matchOperation('GET', '/creatives')!.operation, { ...raw('GET', '/creatives'), query: { cursor: '' } });
    expect(cursor.disallowed).toMatch(/^VALIDATION_ERROR: cursor /);
    const body = s.plan('b', matchOperation('PATCH', '/creatives/c1')!.operation, { ...raw('PATCH', '/creatives/c1', { 'content-type': 'application/json' }), body: new TextEncoder().encode('{"aspectRatio":"7:5"}') }, { creativeId: 'c1' });
    expect(body.disallowed).toMatch(/aspectRatio/);
    const fine = s.plan('f', matchOperation('GET', '/creatives')!.operation, { ...raw('GET', '/creatives'), query: { limit: '5' } });
    expect(fine).toEqual({ adversity: 'rate_limited', retryAfter: expect.any(Number) });
  });

  it('a planned drop drops only an applied (2xx) answer; after an error answer the next eligible write meets it', () => {
    const s = new ExamSession('acc', { seed: 1, rate: 0 });
    const answer = (status: number) => ({ status, headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(plan(s, 'w0', 'POST', '/creatives/c0/approve', { 'idempotency-key': 'k0' })).toBe('dropped');
    expect(connectionDropped(s.shape('w0', answer(409)))).toBe(false);
    expect(plan(s, 'w1', 'POST', '/creatives/c1/approve', { 'idempotency-key': 'k1' })).toBe('dropped');
    expect(connectionDropped(s.shape('w1', answer(200)))).toBe(true);
    expect(plan(s, 'w2', 'POST', '/creatives/c1/approve', { 'idempotency-key': 'k1' })).toBeUndefined();
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
    // the journal names the refused key (packages/contract/spec/mock-control.yaml RequestEntry.keyId: the key the request presented)
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
