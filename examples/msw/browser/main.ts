/**
 * The example page's script (bundled by build.ts with esbuild): the in-process mock behind msw's
 * service worker (`msw/browser`), on the page's own origin, and the same flows as the Node example
 * (../flows.ts) through the app's typed client. What they saw is published on `globalThis.cgsFlows`
 * (the Playwright spec reads it) and shown on the page.
 */
import { setupWorker } from 'msw/browser';
import { createMockHandlers, type WebhookDelivery } from '../../../packages/msw/src/msw.ts';
import { allFlows, type AllOutcomes, type ReceivedWebhook } from '../flows.ts';

interface Published {
  done: boolean;
  outcomes?: AllOutcomes;
  error?: string;
}

const page = globalThis as unknown as { cgsFlows: Published; location: { origin: string }; document: { getElementById(id: string): { textContent: string } | null } };
page.cgsFlows = { done: false };

async function main(): Promise<AllOutcomes> {
  const received: ReceivedWebhook[] = [];
  const mock = createMockHandlers({
    baseUrl: page.location.origin,
    seed: false,
    webhooks: {
      deliver: async (delivery: WebhookDelivery) => {
        received.push({ headers: delivery.headers, body: delivery.body });
        return { status: 204 };
      },
    },
  });
  const worker = setupWorker(...mock.handlers);
  await worker.start({ serviceWorker: { url: '/mockServiceWorker.js' }, onUnhandledRequest: 'bypass', quiet: true });
  return allFlows({ api: `${page.location.origin}/api/public/v1`, control: mock.control, received: () => received });
}

main().then(
  (outcomes) => {
    page.cgsFlows = { done: true, outcomes };
    const out = page.document.getElementById('out');
    if (out) out.textContent = JSON.stringify(outcomes, null, 2);
  },
  (error: unknown) => {
    page.cgsFlows = { done: true, error: error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error) };
    const out = page.document.getElementById('out');
    if (out) out.textContent = `failed: ${String(error)}`;
  },
);
