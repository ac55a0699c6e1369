/**
 * The generated client's SDK layer (sdk.ts) on its own, over a fake `fetch` (no server, no
 * waiting beyond a Retry-After of 0): Retry-After in both forms, which answers are sent again and
 * which are the caller's, and the dropped connection: a read or a keyed write is resent, a keyless
 * write is not. Its exam over a real mock is exam.test.ts (vitest's `package` project).
 *
 * Broken on purpose: `retryAfterMs` reading only delay-seconds fails the HTTP-date rows; resending
 * every dropped request fails "a keyless write".
 */
import createClient from 'openapi-fetch';
import { describe, expect, it } from 'vitest';
import type { paths } from '../../packages/contract/spec/types.ts';
import { pages, collect, retries, retryAfterMs } from './sdk.ts';

const BASE = 'http://api.test/api/public/v1';
const NOW = Date.parse('2026-11-28T10:00:00.000Z');

describe('retryAfterMs', () => {
  it.each([
    ['1', 1000],
    ['7', 7000],
    ['0', 0],
    [' 3 ', 3000],
    ['Sat, 28 Nov 2026 10:00:05 GMT', 5000],
    ['Sat, 28 Nov 2026 09:59:00 GMT', 0],
    ['1.5', undefined],
    ['-1', undefined],
    ['soon', undefined],
    [null, undefined],
  ])('%j waits %j ms', (value, ms) => {
    expect(retryAfterMs(value, NOW)).toBe(ms);
  });
});

type Answer = Response | 'drop';

/** A client with the retries middleware over a fetch that answers from a script and records what it was sent. */
function scripted(answers: Answer[]) {
  const sent: { method: string; key: string | null; body: string }[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    sent.push({ method: request.method, key: request.headers.get('idempotency-key'), body: await request.text() });
    const next = answers.shift();
    if (next === undefined) throw new Error('no answer scripted');
    if (next === 'drop') throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
    return next;
  };
  const client = createClient<paths>({ baseUrl: BASE, fetch });
  client.use(retries());
  return { client, sent };
}

const text = (status: number, headers: Record<string, string> = {}) => new Response('Too Many Requests', { status, headers: { 'content-type': 'text/plain', ...headers } });
const json = (status: number, body: unknown, headers: Record<string, string> = {}) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const page = (ids: string[], nextCursor: string | null) => json(200, { data: ids.map((presetId) => ({ presetId })), pagination: { nextCursor, hasMore: nextCursor !== null, pageSize: 2 } });
const runBody = { productIds: ['prd_1'], creativesPerProduct: 1, presetId: 'pst_1', modality: 'image' as const };

describe('the retries middleware', () => {
  it('sends the identical write again after a 429, a 503 and a 409 IDEMPOTENCY_IN_PROGRESS (same key, same body), then hands over the answer', async () => {
    const { client, sent } = scripted([text(429, { 'retry-after': '0' }), json(503, { code: 'WRITES_PAUSED' }, { 'retry-after': '0' }), json(409, { code: 'IDEMPOTENCY_IN_PROGRESS' }, { 'retry-after': '0' }), json(202, { runId: 'run_1' })]);
    const { data, response } = await client.POST('/runs', { params: { header: { 'Idempotency-Key': 'k-1' } }, body: runBody });
    expect(response.status).toBe(202);
    expect(data).toMatchObject({ runId: 'run_1' });
    expect(sent.map((s) => s.key)).toEqual(['k-1', 'k-1', 'k-1', 'k-1']);
    expect(new Set(sent.map((s) => s.body)).size).toBe(1);
  });

  it('an HTTP-date Retry-After in the past is a retry now', async () => {
    const { client, sent } = scripted([text(429, { 'retry-after': new Date(Date.now() - 60_000).toUTCString() }), json(200, { data: [], pagination: { nextCursor: null, hasMore: false, pageSize: 25 } })]);
    expect((await client.GET('/presets')).response.status).toBe(200);
    expect(sent).toHaveLength(2);
  });

  it.each([
    ['a 409 of another code', json(409, { code: 'CREATIVE_NOT_PENDING' }, { 'retry-after': '0' })],
    ['a 502 (a gateway\'s answer)', text(502)],
    ['a 429 without Retry-After', text(429)],
    ['a 422', json(422, { code: 'VALIDATION_ERROR' })],
  ])('%s is the caller\'s: sent once', async (_name, answer) => {
    const { client, sent } = scripted([answer]);
    const { response } = await client.POST('/runs', { params: { header: { 'Idempotency-Key': 'k-2' } }, body: runBody });
    expect(response.status).toBe(answer.status);
    expect(sent).toHaveLength(1);
  });

  it('a dropped connection: a keyed write is sent again with its key and body, and gets the replay', async () => {
    const { client, sent } = scripted(['drop', json(202, { runId: 'run_1' }, { 'idempotent-replayed': 'true' })]);
    const { response } = await client.POST('/runs', { params: { header: { 'Idempotency-Key': 'k-3' } }, body: runBody });
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(sent.map((s) => s.key)).toEqual(['k-3', 'k-3']);
    expect(sent[1]!.body).toBe(sent[0]!.body);
  });

  it('a dropped connection: a read is sent again; a keyless write is not (the caller sees the network error)', async () => {
    const read = scripted(['drop', json(200, { data: [], pagination: { nextCursor: null, hasMore: false, pageSize: 25 } })]);
    expect((await read.client.GET('/presets')).response.status).toBe(200);
    expect(read.sent).toHaveLength(2);
    const write = scripted(['drop', json(200, {})]);
    await expect(write.client.PATCH('/creatives/{creativeId}', { params: { path: { creativeId: 'crv_1' } }, body: { metadata: { a: 'b' } } })).rejects.toThrow(/fetch failed/);
    expect(write.sent).toHaveLength(1);
  });
});

describe('pages', () => {
  it('follows nextCursor verbatim through an empty page to null', async () => {
    const cursors: (string | undefined)[] = [];
    const script = [page(['a', 'b'], 'c1=='), page([], 'c2+/'), page(['c'], null)];
    const rows = await collect(
      pages(async (cursor) => {
        cursors.push(cursor);
        return (await script.shift()!.json()) as { data: { presetId: string }[]; pagination: { nextCursor: string | null; hasMore: boolean; pageSize: number } };
      }),
    );
    expect(rows.map((r) => r.presetId)).toEqual(['a', 'b', 'c']);
    expect(cursors).toEqual([undefined, 'c1==', 'c2+/']);
  });
});
