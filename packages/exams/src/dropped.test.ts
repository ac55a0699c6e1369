/**
 * The exam's dropped connection (D170, CLIENT-023) on both adapters: the node server (a real
 * socket, destroyed after the write was applied) and the in-process mock (msw: a network error).
 * One scene for both: the first keyed write (a run's create) meets the drop (D258: a keyed write's
 * drop is served before the write group's 409, 429 and 503; rate 0: nothing drawn); it was applied,
 * so sending it again with its key replays the same run, and the account holds exactly one run
 * more. The example client, whose create meets the drop, sends it again by itself and passes
 * CLIENT-023 (one run more); its `new-key-on-drop` variant makes a second run and fails it.
 */
import type { AddressInfo } from 'node:net';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMock, type Mock } from '../../mock/src/node/app.ts';
import { createMockHandlers } from '../../msw/src/msw.ts';
import { Clock } from '../../mock-core/src/core/clock.ts';
import type { ExamRuleReport } from '../../mock-core/src/exam/judge.ts';
import { Client, type Fault } from '../../../examples/client/client.ts';
import { Control, prepareExam } from './client.ts';

interface Target {
  base: string;
  key: string;
  report(): Promise<ExamRuleReport>;
}

/** A read, sent again at once after the exam's 429 (a repeat never meets adversity; no rule is judged here). */
async function read<T>(target: Target, path: string): Promise<T> {
  for (;;) {
    const response = await fetch(`${target.base}${path}`, { headers: { authorization: `Bearer ${target.key}` } });
    if (response.status === 429) continue;
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as T;
  }
}

async function runBody(target: Target): Promise<string> {
  const products = await read<{ data: { productId: string }[] }>(target, '/products?limit=1');
  const presets = await read<{ data: { presetId: string }[] }>(target, '/presets');
  return JSON.stringify({ productIds: [products.data[0]!.productId], creativesPerProduct: 1, presetId: presets.data[0]!.presetId });
}

const post = (target: Target, key: string, body: string) =>
  fetch(`${target.base}/runs`, { method: 'POST', headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json', 'idempotency-key': key }, body });

/** The raw scene: the drop; the same key again replays the run; one run more on the account; then the 409, 429 and 503. */
async function rawScene(target: Target): Promise<void> {
  const body = await runBody(target);
  const before = (await read<{ data: { runId: string }[] }>(target, '/runs?limit=50')).data.map((r) => r.runId);
  await expect(post(target, 'exam-k4', body)).rejects.toThrow(TypeError);
  const replay = await post(target, 'exam-k4', body);
  expect(replay.status).toBe(202);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  const run = (await replay.json()) as { runId: string };
  const runs = await read<{ data: { runId: string }[] }>(target, '/runs?limit=50');
  expect(runs.data.map((r) => r.runId)).toEqual([run.runId, ...before]);
  const report = await target.report();
  expect(report.rules['CLIENT-023']!.result).toBe('passed');
  expect(report.rules['CLIENT-023']!.findings[0]!.proof[0]).toMatch(/POST \/runs Idempotency-Key=exam-k4 .*→ 202 \(applied; the connection dropped before the answer\)/);
  // the write group's other kinds go to the next keyed writes (not applied: nothing changes)
  for (const [i, status] of [409, 429, 503].entries()) expect((await post(target, `exam-k${i + 5}`, body)).status).toBe(status);
}

/** The example client (or a faulty variant) creating one run that meets the drop: how many runs the account holds, and its verdict. */
async function clientScene(target: Target, fault?: Fault): Promise<{ runs: number; report: ExamRuleReport }> {
  const body = JSON.parse(await runBody(target)) as unknown;
  const before = (await read<{ data: unknown[] }>(target, '/runs?limit=50')).data.length;
  // The client's create is the account's first keyed write: it meets the drop (D258).
  const client = new Client(target.base, target.key, fault);
  await client.request('POST', '/runs', { body, idempotencyKey: client.newKey() });
  const runs = await read<{ data: unknown[] }>(target, '/runs?limit=50');
  return { runs: runs.data.length - before, report: await target.report() };
}

describe('the node server drops the connection of an applied write', () => {
  let mock: Mock;
  let origin: string;
  beforeAll(async () => {
    mock = buildMock({ clock: new Clock({ mode: 'real' }), logError: () => {} });
    await mock.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(mock.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => mock.app.close());

  const target = async (): Promise<Target> => {
    const control = new Control(origin, undefined);
    const { accountId, env } = await prepareExam(control, origin, 3, 0);
    return { base: env.CGS_BASE_URL, key: env.CGS_API_KEY, report: () => control.call<ExamRuleReport>('GET', `/accounts/${accountId}/exam`) };
  };

  it('the socket is destroyed after the run was made; the same key replays it; one run more', async () => rawScene(await target()));

  it('the example client sends it again with its key (CLIENT-023 passed, one run more); with a new key it makes a second (failed)', async () => {
    const good = await clientScene(await target());
    expect(good.report.rules['CLIENT-023']!.result).toBe('passed');
    expect(good.runs).toBe(1);
    const faulty = await clientScene(await target(), 'new-key-on-drop');
    expect(faulty.report.rules['CLIENT-023']!.result).toBe('failed');
    expect(faulty.report.rules['CLIENT-023']!.findings[0]!.proof[1]).toMatch(/a new Idempotency-Key: a second resource/);
    expect(faulty.runs).toBe(2);
  });
});

describe('in-process (msw): the handler answers a network error after applying the write', () => {
  const mocks = ['raw', 'good', 'faulty'].map((name) => createMockHandlers({ baseUrl: `http://${name}.drop.exam.test`, exam: { seed: 3, rate: 0 } }));
  const server = setupServer(...mocks.flatMap((m) => m.handlers));
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => {
    server.close();
    for (const m of mocks) m.dispose();
  });
  const target = async (i: number): Promise<Target> => {
    const m = mocks[i]!;
    await m.ready;
    return { base: `http://${['raw', 'good', 'faulty'][i]}.drop.exam.test/api/public/v1`, key: m.demo!.keys.all!.key, report: () => m.control.examReport() };
  };

  it('fetch rejects after the run was made; the same key replays it; one run more', async () => rawScene(await target(0)));

  it('the example client passes CLIENT-023 with one run more; new-key-on-drop fails it with two', async () => {
    const good = await clientScene(await target(1));
    expect(good.report.rules['CLIENT-023']!.result).toBe('passed');
    const faulty = await clientScene(await target(2), 'new-key-on-drop');
    expect(faulty.report.rules['CLIENT-023']!.result).toBe('failed');
    expect([good.runs, faulty.runs]).toEqual([1, 2]);
  });
});
