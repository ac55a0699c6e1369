/**
 * Test helpers of the webhook tests: a recording fake transport, a receiver over real HTTP on
 * 127.0.0.1, stepping the manual clock through scheduled retries, and verifying a delivery with
 * the `standardwebhooks` package as a receiver would (at the mock clock's time, since the library
 * reads the wall clock for its five-minute window).
 *
 * `webhookSuite()` sets up each test of a file: a harness, a seeded account and a receiver on
 * loopback; its `service` is the mock's own (`services.webhooks`, created by buildMock; its control
 * operations are served by the control plane, packages/contract/spec/mock-control.yaml).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, vi } from 'vitest';
import type { Clock } from '../core/clock.ts';
import { createHarness, type Harness, type TestAccount } from './harness.ts';
import type { AccountState } from '../domain/store.ts';
import type { DeliveryResult, OutgoingDelivery, Transport } from '../events/transport.ts';
import type { WebhookService } from '../events/webhooks.ts';

export interface Received {
  url: string;
  headers: Record<string, string>;
  body: string;
  payload: any;
}

export interface FakeTransport {
  transport: Transport;
  received: Received[];
  /** How the fake answers each request (default 204); a promise holds the request on the wire. */
  answer: (request: OutgoingDelivery, index: number) => DeliveryResult | Promise<DeliveryResult>;
}

export function fakeTransport(answer: FakeTransport['answer'] = () => ({ status: 204 })): FakeTransport {
  const fake: FakeTransport = {
    received: [],
    answer,
    transport: async (request) => {
      fake.received.push({ url: request.url, headers: { ...request.headers }, body: request.body, payload: JSON.parse(request.body) });
      return fake.answer(request, fake.received.length - 1);
    },
  };
  return fake;
}

/**
 * Waits for the requests on the wire, then advances the manual clock to the next scheduled attempt
 * of the account's deliveries, until none is left (or `untilMs` is reached).
 */
export async function runDeliveries(clock: Clock, service: WebhookService, account: AccountState, untilMs = Number.POSITIVE_INFINITY): Promise<void> {
  for (let guard = 0; guard < 10_000; guard++) {
    await service.idle();
    const upcoming = service
      .deliveries(account)
      .map((row) => row.nextAttemptAt)
      .filter((at): at is number => at !== null && at > clock.now() && at <= untilMs);
    if (upcoming.length === 0) return;
    clock.advance((Math.min(...upcoming) - clock.now()) / 1000);
  }
  throw new Error('deliveries did not settle');
}

/** `new Webhook(secret).verify(body, headers)` with the wall clock set to `nowMs` (the mock's clock). */
export function verifyAt(nowMs: number, secret: string, body: string, headers: Record<string, string>): unknown {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(nowMs);
  try {
    return new Webhook(secret).verify(body, headers);
  } finally {
    vi.useRealTimers();
  }
}

export interface ReceivedOverHttp {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The raw, unparsed body. */
  body: string;
}

export interface Receiver {
  url: string;
  requests: ReceivedOverHttp[];
  /** The status answered to each request (default 204). */
  status: (request: ReceivedOverHttp, index: number) => number;
  /** Resolves once `n` requests arrived; rejects after `timeoutMs` of real time. */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedOverHttp[]>;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 (port 0). */
export async function startReceiver(): Promise<Receiver> {
  const waiters: { n: number; resolve: () => void }[] = [];
  const receiver: Receiver = {
    url: '',
    requests: [],
    status: () => 204,
    waitFor(n, timeoutMs = 10_000) {
      if (receiver.requests.length >= n) return Promise.resolve(receiver.requests);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the receiver got ${receiver.requests.length} of ${n} requests within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(receiver.requests);
          },
        });
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received: ReceivedOverHttp = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      receiver.requests.push(received);
      response.statusCode = receiver.status(received, receiver.requests.length - 1);
      response.end();
      for (const waiter of [...waiters]) {
        if (receiver.requests.length >= waiter.n) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

/** The three signature headers of a request received over HTTP. */
export function signatureHeadersOf(request: ReceivedOverHttp): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = request.headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/**
 * Per test of the calling file: a harness, a seeded account and a receiver on 127.0.0.1; after it,
 * the requests on the wire are awaited and all three closed. Read them through the getters.
 */
export function webhookSuite() {
  let current: { h: Harness; acc: TestAccount; receiver: Receiver } | undefined;
  beforeEach(async () => {
    const h = await createHarness();
    current = { h, acc: await h.account(), receiver: await startReceiver() };
  });
  afterEach(async () => {
    if (!current) return;
    await current.h.mock.services.webhooks.idle();
    await current.h.close();
    await current.receiver.close();
    current = undefined;
  });
  const now = () => {
    if (!current) throw new Error('webhookSuite: the harness exists only inside a test');
    return current;
  };
  return {
    get h(): Harness {
      return now().h;
    },
    get acc(): TestAccount {
      return now().acc;
    },
    get receiver(): Receiver {
      return now().receiver;
    },
    get service(): WebhookService {
      return now().h.mock.services.webhooks;
    },
    /** Move the clock by `seconds`, then wait until the receiver holds `received` requests and none is on the wire. */
    async deliver(seconds: number, received: number): Promise<ReceivedOverHttp[]> {
      const { h, receiver } = now();
      h.advance(seconds);
      const requests = await receiver.waitFor(received);
      await h.mock.services.webhooks.idle();
      return requests;
    },
  };
}
