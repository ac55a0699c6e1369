/**
 * The in-process mock in a Node test runner, as a frontend team would use it: `msw/node`'s
 * setupServer with createMockHandlers' handlers, the app's own typed client (client.ts) calling
 * the API with fetch, and the typed control API for accounts, the clock, limits and webhook
 * endpoints. No server, no port: every request is answered in this process by the same pipeline
 * the server runs (packages/msw/src/msw.equivalence.test.ts proves the answers are the server's).
 */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockHandlers, type WebhookDelivery } from '../../packages/msw/src/msw.ts';
import { newSession, preconditionFlow, rateLimitFlow, reviewFlow, runFlow, type FlowContext, type ReceivedWebhook } from './flows.ts';

const BASE_URL = 'http://api.example.test';
const received: ReceivedWebhook[] = [];
// Webhooks are handed to this callback, signed as the server signs them; 2xx: delivered.
const mock = createMockHandlers({
  baseUrl: BASE_URL,
  seed: false,
  webhooks: {
    deliver: async (delivery: WebhookDelivery) => {
      received.push({ headers: delivery.headers, body: delivery.body });
      return { status: 204 };
    },
  },
});
const server = setupServer(...mock.handlers);
const context: FlowContext = { api: `${BASE_URL}/api/public/v1`, control: mock.control, received: () => received };

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => {
  server.close();
  mock.dispose();
});

describe('a frontend client against the in-process mock (msw/node)', () => {
  it('review: approving a creative delivers a signed creative.approved webhook once the clock passes the processing delay', async () => {
    const outcome = await reviewFlow(context, await newSession(context));
    expect(outcome.approveStatus).toBe(200);
    expect(outcome.approvedAt).toEqual(expect.any(String));
    expect(outcome.receivedBeforeAdvance).toBe(0);
    expect(outcome.delivered).toEqual([{ type: 'creative.approved', creativeId: outcome.creativeId, verified: true }]);
  });

  it('a run progresses only when the clock moves, until it is final', async () => {
    const outcome = await runFlow(context, await newSession(context));
    expect(outcome.createStatus).toBe(202);
    expect(outcome.statuses[0]).toBe('ACCEPTED');
    expect(outcome.statuses).toContain('RUNNING');
    expect(outcome.statuses.at(-1)).toBe('SUCCEEDED');
    expect(outcome.finalizedAt).toEqual(expect.any(String));
  });

  it('429 with Retry-After (plain text) on the second review of a one-per-window limit; passes after waiting', async () => {
    const outcome = await rateLimitFlow(context, await newSession(context));
    expect(outcome.statuses).toEqual([200, 429]);
    expect(outcome.retryAfter).toMatch(/^\d+$/);
    expect(outcome.contentType).toMatch(/^text\/plain/);
    expect(outcome.afterWaiting).toBe(200);
  });

  it('412 PRECONDITION_FAILED on a stale If-Match, after a PATCH with the current ETag passed', async () => {
    const outcome = await preconditionFlow(context, await newSession(context));
    expect(outcome.etag).toMatch(/^"[^"]+"$/);
    expect(outcome.updateStatus).toBe(200);
    expect(outcome.newEtag).not.toBe(outcome.etag);
    expect(outcome.staleStatus).toBe(412);
    expect(outcome.staleCode).toBe('PRECONDITION_FAILED');
    expect(outcome.staleContentType).toMatch(/^application\/problem\+json/);
  });
});
