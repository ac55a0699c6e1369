/**
 * The one place the mock opens outgoing connections: a webhook delivery, POSTed over real HTTP(S)
 * with node:http / node:https.
 *
 * - Loopback only. The URL was checked when the endpoint was registered; it is checked again here,
 *   and a host name is resolved through a lookup that refuses any address outside 127.0.0.0/8 and
 *   ::1, so `localhost` mapped elsewhere cannot leak traffic.
 * - The answer is the status code alone: the body is drained, never read.
 * - A socket timeout (the request's `timeout` option, real time) bounds a silent receiver. This is
 *   the only wall-clock timer of the webhook code: schedules are the injected clock's.
 * - HTTPS to a loopback receiver accepts a self-signed certificate (a developer's local listener).
 * - No connection pooling (`agent: false`): nothing stays open after a delivery.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isLoopbackAddress, urlProblem } from './endpoints.ts';

export interface OutgoingDelivery {
  url: string;
  /** Every header to send (the service sets content-type and the webhook-* headers). */
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** The receiver's status code, or why no answer came (refused, reset, timed out). */
export type DeliveryResult = { status: number } | { error: string };

export type Transport = (delivery: OutgoingDelivery) => Promise<DeliveryResult>;

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup that refuses a non-loopback answer. */
function loopbackLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options }, (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => {
    if (error) return callback(error, address, family);
    const addresses = Array.isArray(address) ? address.map((a) => a.address) : [address];
    const outside = addresses.find((a) => !isLoopbackAddress(a));
    if (outside !== undefined) return callback(Object.assign(new Error(`${hostname} resolves to ${outside}, not a loopback address; refused`), { code: 'ENOTLOOPBACK' }), address, family);
    callback(null, address, family);
  });
}

export const httpTransport: Transport = (delivery) =>
  new Promise<DeliveryResult>((resolve) => {
    const problem = urlProblem(delivery.url);
    if (problem !== undefined) return resolve({ error: `refused: the url ${problem}` });
    const url = new URL(delivery.url);
    const secure = url.protocol === 'https:';
    let settled = false;
    const finish = (result: DeliveryResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const onResponse = (response: IncomingMessage) => {
      response.on('error', () => undefined); // a reset after the status line changes nothing
      response.resume();
      finish({ status: response.statusCode ?? 0 });
    };
    const options = {
      method: 'POST',
      headers: { ...delivery.headers, 'content-length': String(Buffer.byteLength(delivery.body)), 'user-agent': 'cgs-mock-webhooks/1' },
      timeout: delivery.timeoutMs,
      agent: false as const,
      lookup: loopbackLookup,
    };
    const request = secure ? httpsRequest(url, { ...options, rejectUnauthorized: false }, onResponse) : httpRequest(url, options, onResponse);
    request.on('timeout', () => request.destroy(new Error(`no answer within ${delivery.timeoutMs} ms`)));
    request.on('error', (error: NodeJS.ErrnoException) => finish({ error: error.code ? `${error.code}: ${error.message}` : error.message }));
    request.end(delivery.body);
  });
