/**
 * A frontend test on a scenario (examples/scenarios/campaign-review.yaml, loaded in-process with
 * `createMockHandlers({ scenario })`) and one operation overridden for one test on top of the
 * stateful handlers (docs/frontend.md "Override one operation"): `server.use(...)` puts a handler
 * in front of the mock's own; `server.resetHandlers()` after each test takes it away again, so the
 * next test sees the stateful mock.
 */
import { readFileSync } from 'node:fs';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMockHandlers } from '../../packages/msw/src/msw.ts';

const BASE_URL = 'http://api.example.test';
const API = `${BASE_URL}/api/public/v1`;
// In Vite: `import story from '../scenarios/campaign-review.yaml?raw'`.
const story = readFileSync(new URL('../scenarios/campaign-review.yaml', import.meta.url), 'utf8');
const mock = createMockHandlers({ baseUrl: BASE_URL, seed: false, scenario: story, webhooks: { deliver: async () => ({ status: 204 }) } });
const server = setupServer(...mock.handlers);

beforeAll(async () => {
  server.listen({ onUnhandledRequest: 'error' });
  await mock.ready;
});
afterEach(() => server.resetHandlers());
afterAll(() => {
  server.close();
  mock.dispose();
});

function auth(): { authorization: string } {
  const shop = mock.scenario!.accounts[0]!;
  return { authorization: `Bearer ${shop.keys.all!.key}` };
}

describe('a scenario in-process, and one operation overridden for one test', () => {
  it('the scenario is there: three creatives of the campaign pending review, and the run half done', async () => {
    const made = mock.scenario!.made as { pending: { creativeIds: string[] }; halfRun: { runId: string } };
    for (const id of made.pending.creativeIds) {
      const creative = (await (await fetch(`${API}/creatives/${id}`, { headers: auth() })).json()) as { status: string };
      expect(creative.status).toBe('PENDING');
    }
    const run = (await (await fetch(`${API}/runs/${made.halfRun.runId}`, { headers: auth() })).json()) as { finalizedAt: string | null };
    expect(run.finalizedAt).toBeNull();
  });

  it('server.use: approving answers 503 for this test only (what the UI shows on an outage)', async () => {
    server.use(
      http.post(`${API}/creatives/:id/approve`, () =>
        HttpResponse.json({ type: '/errors/SERVICE_UNAVAILABLE', title: 'Service Unavailable', status: 503, code: 'SERVICE_UNAVAILABLE', detail: 'Try again later.' }, { status: 503, headers: { 'content-type': 'application/problem+json', 'retry-after': '5' } }),
      ),
    );
    const [id] = (mock.scenario!.made as { pending: { creativeIds: string[] } }).pending.creativeIds;
    const response = await fetch(`${API}/creatives/${id}/approve`, { method: 'POST', headers: { ...auth(), 'idempotency-key': 'outage-1' } });
    expect(response.status).toBe(503);
    // Every other operation is still the stateful mock's.
    expect((await fetch(`${API}/creatives/${id}`, { headers: auth() })).status).toBe(200);
  });

  it('after resetHandlers the mock answers again, and the approval changes its state', async () => {
    const [id] = (mock.scenario!.made as { pending: { creativeIds: string[] } }).pending.creativeIds;
    const response = await fetch(`${API}/creatives/${id}/approve`, { method: 'POST', headers: { ...auth(), 'idempotency-key': 'after-outage-1' } });
    expect(response.status).toBe(200);
    const creative = (await (await fetch(`${API}/creatives/${id}`, { headers: auth() })).json()) as { status: string };
    expect(creative.status).toBe('APPROVED');
  });

  it('a scenario with a mistake rejects `ready` with the line and field', async () => {
    const broken = createMockHandlers({ baseUrl: 'http://broken.test', seed: false, scenario: 'scenario: 1\naccounts:\n  - account: { plan: pro }\n' });
    await expect(broken.ready).rejects.toMatchObject({ errors: [{ field: 'accounts[0].account.plan', line: 3 }] });
    broken.dispose();
  });
});
