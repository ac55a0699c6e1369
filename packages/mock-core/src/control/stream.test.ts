/** Control plane, the live stream (streamChanges, server-sent events) over a real socket. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type TestAccount } from '../testkit/harness.ts';
import { controlViolations } from '../testkit/control.ts';

let h: Harness;
let acc: TestAccount;
let origin: string;

beforeAll(async () => {
  h = await createHarness();
  acc = await h.account();
  await h.mock.app.listen({ port: 0, host: '127.0.0.1' });
  const address = h.mock.app.server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await h.close();
});

interface Message {
  event: string;
  data: any;
}

/** Opens the stream and collects its messages until `until` holds (or 5 s pass). */
async function watch(query: string, act: () => Promise<void>, until: (messages: Message[]) => boolean): Promise<{ headers: Headers; messages: Message[] }> {
  const controller = new AbortController();
  const res = await fetch(`${origin}/__mock/stream${query}`, { signal: controller.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const messages: Message[] = [];
  let buffer = '';
  const timer = setTimeout(() => controller.abort(), 5000);
  let acted = false;
  try {
    while (!until(messages)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event && data) messages.push({ event, data: JSON.parse(data) });
      }
      if (!acted && messages.some((m) => m.event === 'ready')) {
        acted = true;
        await act();
      }
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return { headers: res.headers, messages };
}

describe('GET /__mock/stream', () => {
  it('sends ready, then the clock, the events, the deliveries and the journaled requests as they happen', async () => {
    const receiver = await import('node:http').then(({ createServer }) => {
      const server = createServer((_req, res) => res.writeHead(204).end());
      return new Promise<{ url: string; close: () => void }>((resolve) => server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        resolve({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`, close: () => server.close() });
      }));
    });
    try {
      await h.control('POST', `/__mock/accounts/${acc.accountId}/webhook-endpoints`, { url: receiver.url, eventTypes: ['asset.archived'] });
      const asset = [...acc.state.assets.values()][0]!;
      const { headers, messages } = await watch(
        `?accountId=${acc.accountId}`,
        async () => {
          const res = await fetch(`${origin}/api/public/v1/assets/${asset.assetId}/archive`, { method: 'POST', headers: { authorization: `Bearer ${acc.key('assets:write')}`, 'idempotency-key': 'stream-1' } });
          expect(res.status).toBe(200);
          await fetch(`${origin}/__mock/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceSeconds: 60 }) });
        },
        (m) => m.some((x) => x.event === 'delivery' && x.data.delivery.status === 'succeeded'),
      );
      expect(headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const names = messages.map((m) => m.event);
      expect(names[0]).toBe('ready');
      expect(messages[0]!.data.clock).toMatchObject({ mode: 'manual' });
      expect(names).toEqual(expect.arrayContaining(['request', 'event', 'clock', 'delivery']));
      const request = messages.find((m) => m.event === 'request')!;
      expect(request.data).toMatchObject({ accountId: acc.accountId, request: { method: 'POST', path: `/api/public/v1/assets/${asset.assetId}/archive`, status: 200 } });
      expect(messages.find((m) => m.event === 'event')!.data).toMatchObject({ accountId: acc.accountId, event: { type: 'asset.archived', resource: { kind: 'asset', id: asset.assetId } } });
      expect(messages.find((m) => m.event === 'clock')!.data).toMatchObject({ now: '2026-01-01T00:01:00.000Z' });
      const deliveries = messages.filter((m) => m.event === 'delivery').map((m) => m.data.delivery.status);
      expect(deliveries).toEqual(['pending', 'succeeded']);
      await expect.poll(() => h.mock.services.feed.watching).toBe(0); // the client went away: unsubscribed
    } finally {
      receiver.close();
    }
  });

  it('sends changed, naming the collections, when a run or an upscale is made outside (and when the clock settles it)', async () => {
    const all = acc.key('all');
    const get = async (path: string): Promise<any> => (await fetch(`${origin}/api/public/v1${path}`, { headers: { authorization: `Bearer ${all}` } })).json();
    const products = (await get('/products?limit=2')).data;
    const preset = (await get('/presets?limit=1')).data[0];
    const post = (path: string, body: unknown, key: string) =>
      fetch(`${origin}/api/public/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${all}`, 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(body) });
    const { messages } = await watch(
      `?accountId=${acc.accountId}`,
      async () => {
        expect((await post('/runs', { productIds: [products[0].productId], creativesPerProduct: 1, presetId: preset.presetId }, 'stream-run')).status).toBe(202);
        expect((await post('/upscales', { source: { productId: products[1].productId, image: 'primary' }, target: '4K' }, 'stream-upscale')).status).toBe(202);
      },
      (m) => {
        const named = m.filter((x) => x.event === 'changed').flatMap((x) => x.data.collections);
        return named.includes('runs') && named.includes('upscales');
      },
    );
    const changed = messages.filter((m) => m.event === 'changed');
    expect(changed[0]!.data).toEqual({ accountId: acc.accountId, collections: expect.arrayContaining(['runs']) });
    expect(changed.flatMap((m) => m.data.collections)).toEqual(expect.arrayContaining(['runs', 'upscales']));
    // Reads change nothing: no changed between two reads.
    const read = () => fetch(`${origin}/api/public/v1/runs`, { headers: { authorization: `Bearer ${all}` } }).then((r) => r.text());
    const quiet = await watch(`?accountId=${acc.accountId}`, async () => void (await read(), await read()), (m) => m.filter((x) => x.event === 'request').length === 2);
    expect(quiet.messages.map((m) => m.event)).toEqual(['ready', 'request', 'request']);
    // The clock settles the upscale: changed again.
    const settled = await watch(
      `?accountId=${acc.accountId}`,
      async () => void (await fetch(`${origin}/__mock/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceSeconds: 3600 }) })),
      (m) => m.some((x) => x.event === 'changed' && x.data.collections.includes('upscales')),
    );
    expect(settled.messages.map((m) => m.event)).toContain('changed');
  });

  it("with accountId, another account's changes are not sent", async () => {
    const other = await h.account();
    const { messages } = await watch(
      `?accountId=${acc.accountId}`,
      async () => {
        await fetch(`${origin}/api/public/v1/products`, { headers: { authorization: `Bearer ${other.key('read')}` } });
        await fetch(`${origin}/api/public/v1/products`, { headers: { authorization: `Bearer ${acc.key('read')}` } });
      },
      (m) => m.some((x) => x.event === 'request'),
    );
    expect(messages.filter((m) => m.event === 'request').map((m) => m.data.accountId)).toEqual([acc.accountId]);
  });

  it('answers 404 for an unknown account, in the document', async () => {
    const res = await h.control('GET', '/__mock/stream?accountId=acc_missing');
    expect(res.status).toBe(404);
    expect(controlViolations('streamChanges', res)).toEqual([]);
  });
});
