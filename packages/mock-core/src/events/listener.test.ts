/**
 * packages/mock/src/webhooks-listen.ts: the developer's receiver verifies signature and replay window with
 * the standardwebhooks package, answers 204 to a valid delivery and 400 to an invalid one, and
 * prints the event readably. (Beside the webhook tests so that `vitest run packages/mock-core/src/events` covers it.)
 */
import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startListener, type Listener } from '../../../mock/src/webhooks-listen.ts';
import { signatureHeaders } from './signing.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const NOW = Date.UTC(2026, 0, 1, 0, 1, 0);

let listener: Listener;
let lines: string[];

async function start() {
  listener = await startListener({ port: 0, secret: SECRET, print: (line) => lines.push(line) });
}

beforeEach(() => {
  lines = [];
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
});
afterEach(async () => {
  vi.useRealTimers();
  await listener?.close();
});

function post(body: string, headers: Record<string, string>, method = 'POST'): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(listener.url, { method, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const updated = JSON.stringify({
  type: 'creative.updated',
  timestamp: '2026-01-01T00:00:00.000Z',
  data: { object: 'creative', creativeId: 'crt_1', status: 'PENDING', deletedAt: null },
  previousAttributes: { aspectRatio: null },
  actor: { kind: 'api_key', apiKeyId: 'key_1' },
});

describe('webhooks:listen', () => {
  it('answers 204 to a valid delivery and prints type, webhook-id, times, actor, resource and previousAttributes', async () => {
    await start();
    const res = await post(updated, { ...signatureHeaders(SECRET, 'msg_abc', NOW, updated) });
    expect(res.status).toBe(204);
    await vi.waitFor(() => expect(lines).toHaveLength(5));
    expect(lines).toEqual([
      '✓ creative.updated  msg_abc',
      '    changed   2026-01-01T00:00:00.000Z   sent 2026-01-01T00:01:00.000Z (webhook-timestamp 1767225660)',
      '    actor     api_key key_1',
      '    resource  creative crt_1  status PENDING  deletedAt null',
      '    previous  {"aspectRatio":null}',
    ]);
  });

  it('flags a webhook-id received before as a duplicate', async () => {
    await start();
    const headers = { ...signatureHeaders(SECRET, 'msg_dup', NOW, updated) };
    await post(updated, headers);
    expect((await post(updated, headers)).status).toBe(204);
    await vi.waitFor(() => expect(lines.filter((l) => l.startsWith('✓'))).toHaveLength(2));
    expect(lines.filter((l) => l.startsWith('✓'))[1]).toContain('duplicate');
  });

  it('answers 400 to a bad signature, a tampered body, missing headers and an old timestamp', async () => {
    await start();
    const good = { ...signatureHeaders(SECRET, 'msg_x', NOW, updated) };
    expect((await post(updated, { ...good, 'webhook-signature': 'v1,AAAA' })).status).toBe(400);
    expect((await post(updated.replace('crt_1', 'crt_2'), good)).status).toBe(400);
    expect((await post(updated, {})).status).toBe(400);
    const old = { ...signatureHeaders(SECRET, 'msg_old', NOW - 301_000, updated) };
    const res = await post(updated, old);
    expect(res).toEqual({ status: 400, text: 'Rejected: Message timestamp too old\n' });
    expect(lines.filter((l) => l.startsWith('✗'))).toHaveLength(4);
    expect(lines.some((l) => l.includes('more than five minutes'))).toBe(true);
  });

  it('run.completed has no actor; only POST is accepted', async () => {
    await start();
    const body = JSON.stringify({ type: 'run.completed', timestamp: '2026-01-01T00:00:00.000Z', data: { object: 'run', runId: 'run_1', status: 'SUCCEEDED' } });
    expect((await post(body, { ...signatureHeaders(SECRET, 'msg_run', NOW, body) })).status).toBe(204);
    await vi.waitFor(() => expect(lines.length).toBeGreaterThanOrEqual(4));
    expect(lines).toContain('    actor     (none)');
    expect(lines).toContain('    resource  run run_1  status SUCCEEDED');
    expect((await post('', {}, 'GET')).status).toBe(405);
  });
});
