/**
 * An example webhook receiver that keeps the receiver rules of the interface (packages/contract/spec/rules.yaml,
 * RECV-), on the `standardwebhooks` package and node:http, no framework:
 *
 * - every delivery is verified against the raw, unparsed body bytes (RECV-001), with its
 *   `webhook-id`, `webhook-timestamp` and every `v1,` entry of `webhook-signature` (RECV-003, -004);
 *   a timestamp more than five minutes old or ahead is refused (RECV-002, -005): the package does it;
 * - a valid delivery is answered 204 at once, before any work (RECV-007), the work queued;
 * - a `webhook-id` already seen is answered 204 and not processed again (RECV-006, RECV-008);
 * - events are applied in the order of their `timestamp`, not of arrival (RECV-009): per resource,
 *   an older event than the last applied is skipped.
 *
 *   WEBHOOK_SECRET=whsec_... PORT=4020 node node_modules/@creative-generation/exams/examples/receiver/receiver.js   (installed)
 *   WEBHOOK_SECRET=whsec_... PORT=4020 node --import tsx examples/receiver/receiver.ts   (the repository)
 *   npx cgs-webhooks-check --url http://127.0.0.1:4020/ --secret whsec_...
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Receiver {
  url: string;
  /** What was applied, in order: `type resourceId`, one line per event processed. */
  applied: string[];
  close(): Promise<void>;
}

interface Event {
  type?: string;
  timestamp?: string;
  data?: Record<string, unknown>;
}

const resourceOf = (event: Event): string => {
  for (const [name, value] of Object.entries(event.data ?? {})) if (/Id$/.test(name) && typeof value === 'string') return value;
  return '';
};

export async function startReceiver(options: { secret: string; port?: number; host?: string }): Promise<Receiver> {
  const webhook = new Webhook(options.secret);
  const seen = new Set<string>();
  const latest = new Map<string, string>();
  const applied: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      // The raw bytes as received: never a re-serialised body.
      const raw = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
        const value = request.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      let event: Event;
      try {
        event = webhook.verify(raw, headers) as Event;
      } catch {
        response.writeHead(400).end();
        return;
      }
      // Answer first, work afterwards.
      response.writeHead(204).end();
      const id = headers['webhook-id']!;
      if (seen.has(id)) return;
      seen.add(id);
      setImmediate(() => {
        const resource = resourceOf(event);
        const at = event.timestamp ?? '';
        if (resource && (latest.get(resource) ?? '') > at) return;
        if (resource) latest.set(resource, at);
        applied.push(`${event.type ?? '?'} ${resource}`);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}/`,
    applied,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error('WEBHOOK_SECRET must be set (whsec_...)');
    process.exit(2);
  }
  startReceiver({ secret, port: Number(process.env.PORT ?? 0) }).then((receiver) => {
    console.log(`[receiver] listening on ${receiver.url}`);
    const stop = () => void receiver.close().then(() => process.exit(0));
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
