/**
 * A local webhook receiver for developers (Events / Signature headers; EVT-043..047):
 * How it works and what it decides: docs/internals.md, "packages/mock/src/webhooks-listen.ts".
 */
import { realpathSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

export interface ListenerOptions {
  port: number;
  secret: string;
  /** Print the whole payload as well. */
  verbose?: boolean;
  /** Where lines go (default console.log). */
  print?: (line: string) => void;
}

export interface Listener {
  url: string;
  port: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
/** webhook-ids remembered to flag duplicates (de-duplicate on webhook-id, EVT-039). */
const REMEMBERED_IDS = 10_000;

type Headers = Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>;

function signatureHeaders(request: IncomingMessage): Headers {
  const one = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(' ') : (value ?? '');
  };
  return { 'webhook-id': one('webhook-id'), 'webhook-timestamp': one('webhook-timestamp'), 'webhook-signature': one('webhook-signature') };
}

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function answer(response: ServerResponse, status: number, text?: string): void {
  response.statusCode = status;
  if (text !== undefined) response.setHeader('content-type', 'text/plain; charset=utf-8');
  response.end(text);
}

/** The readable lines of one verified delivery. */
export function describeDelivery(headers: Headers, payload: any, duplicate: boolean): string[] {
  const type = String(payload?.type ?? '(no type)');
  const kind = type.split('.')[0] ?? '';
  const data = payload?.data ?? {};
  const resourceId = data[`${kind}Id`] ?? '(unknown)';
  const sentAt = Number(headers['webhook-timestamp']);
  const actor = payload?.actor;
  const lines = [
    `✓ ${type}  ${headers['webhook-id']}${duplicate ? '  (duplicate: this webhook-id was received before)' : ''}`,
    `    changed   ${String(payload?.timestamp)}   sent ${Number.isFinite(sentAt) ? new Date(sentAt * 1000).toISOString() : '?'} (webhook-timestamp ${headers['webhook-timestamp']})`,
    `    actor     ${actor === undefined ? '(none)' : actor.kind === 'api_key' ? `api_key ${actor.apiKeyId}` : String(actor.kind)}`,
    `    resource  ${kind} ${resourceId}${data.status !== undefined ? `  status ${data.status}` : ''}${'deletedAt' in data ? `  deletedAt ${data.deletedAt}` : ''}`,
  ];
  if (payload?.previousAttributes !== undefined) lines.push(`    previous  ${JSON.stringify(payload.previousAttributes)}`);
  return lines;
}

export async function startListener(options: ListenerOptions): Promise<Listener> {
  const webhook = new Webhook(options.secret); // throws on a secret that is not base64
  const print = options.print ?? ((line: string) => console.log(line));
  const seen = new Set<string>();

  const server = createServer((request, response) => {
    void (async () => {
      if (request.method !== 'POST') {
        response.setHeader('allow', 'POST');
        return answer(response, 405, 'POST deliveries here.\n');
      }
      const body = await readBody(request);
      if (body === undefined) return answer(response, 413, `Bodies are limited to ${MAX_BODY_BYTES} bytes.\n`);
      const headers = signatureHeaders(request);
      let payload: any;
      try {
        payload = webhook.verify(body, headers);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        answer(response, 400, `Rejected: ${reason}\n`);
        print(`✗ rejected ${headers['webhook-id'] || '(no webhook-id)'}: ${reason}`);
        if (/timestamp too (old|new)/.test(reason)) {
          print('    the webhook-timestamp is more than five minutes from this machine\'s clock: a replayed or long-delayed delivery (the mock signs with the wall clock)');
        } else if (/signature/i.test(reason)) {
          print('    check --secret: it is the secret the mock answered when this endpoint was registered');
        }
        return;
      }
      answer(response, 204);
      const id = headers['webhook-id'];
      const duplicate = seen.has(id);
      if (!duplicate) {
        seen.add(id);
        if (seen.size > REMEMBERED_IDS) seen.delete(seen.values().next().value as string);
      }
      for (const line of describeDelivery(headers, payload, duplicate)) print(line);
      if (options.verbose) print(`    payload   ${JSON.stringify(payload, null, 2).replaceAll('\n', '\n              ')}`);
    })().catch((error: unknown) => {
      if (!response.headersSent) answer(response, 500, 'The listener failed.\n');
      print(`! ${error instanceof Error ? error.message : String(error)}`);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The command line (`npm run webhooks:listen`, and `cgs-webhooks-listen` of the package: bin/). */
export async function main(argv: string[] = process.argv.slice(2), command = 'npm run webhooks:listen --'): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '4020' },
      secret: { type: 'string' },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const usage = `usage: ${command} --secret whsec_... [--port 4020] [--verbose]

A local webhook receiver on 127.0.0.1: verifies each delivery's signature and five-minute replay
window (standardwebhooks), answers 204 or 400, and prints it.

  --secret whsec_...   the endpoint's signing secret, as the mock answered when it was registered (required)
  --port N             port to listen on; 0 picks a free one (default 4020)
  --verbose            print each delivery's whole payload too (default: one line each)
  --help               print this help and exit`;
  if (values.help) return void console.log(usage);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535\n${usage}`);
  if (!values.secret?.startsWith('whsec_')) throw new Error(`--secret whsec_... is required: the secret the mock answered when the endpoint was registered\n${usage}`);
  const listener = await startListener({ port, secret: values.secret, verbose: values.verbose });
  console.log(`Listening for webhooks on ${listener.url} (signature and the five-minute replay window checked). Ctrl-C stops.`);
  const stop = () => void listener.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function isMain(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
