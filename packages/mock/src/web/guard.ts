/**
 * The guard of the mock's own planes (issue #34, D245, D246): the control plane (/__mock), the
 * conformance hooks (/__hooks) and the console (/console) answer only requests that
 *
 * 1. were sent to an allowed Host (D245): a loopback name (`localhost`, `*.localhost`), an IP
 *    address (127.0.0.0/8, [::1], or any other literal: an address cannot be rebound by DNS), the
 *    host of `--public-url`, or a name given with `--allowed-host` (`.example.test` allows the name
 *    and its subdomains). A page of a foreign site that rebinds its own name to 127.0.0.1 sends its
 *    own name as Host, and is refused: 403 `HOST_NOT_ALLOWED`.
 * 2. come from no other origin (D246): a request whose `Origin` is present and is neither the
 *    mock's own (the Host it was sent to) nor one of `--cors-origin` (or `--public-url`'s) is
 *    refused, 403 `ORIGIN_NOT_ALLOWED`, before anything runs: a no-cors "simple" POST of another
 *    page included (browsers send Origin on every POST).
 * 3. carry a JSON body, if any (D246): a body whose Content-Type is not `application/json` or
 *    `application/*+json` (a form, text/plain, none) is refused, 415 `UNSUPPORTED_MEDIA_TYPE`,
 *    before anything runs (its bytes are read and discarded first, then the connection closes).
 *    A request without a body (`curl -X POST .../reset`) is accepted.
 *
 * The public API is not guarded: a browser app on any origin may call it (it needs an API key).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { Clock } from '../../../mock-core/src/core/clock.ts';
import { reasonPhrase } from '../../../mock-core/src/core/errors.ts';
import { problemResponse } from '../../../mock-core/src/core/problem.ts';
import { isLoopback } from '../../../mock-core/src/control/binding.ts';
import type { ControlErrorCode } from '../../../mock-core/src/control/types.ts';
import { nextRequestId } from '../../../mock-core/src/pipeline/context.ts';
import { discardRest } from '../node/front.ts';

export interface GuardOptions {
  /** `--allowed-host`: further names the Host header may carry (`.example.test`: it and its subdomains). */
  allowedHosts?: readonly string[];
  /** `--cors-origin`: origins whose pages may drive the control plane, the hooks and the console. */
  origins?: readonly string[];
  /** `--public-url`: its host is allowed as Host, its origin as Origin. */
  publicUrl?: string;
}

/** The paths the guard covers: the mock's own planes, not the API, /docs/ or /media/. */
export const GUARDED_PREFIXES: readonly string[] = ['/__mock', '/__hooks', '/console'];

/**
 * Whether a request target (path and query) is under one of GUARDED_PREFIXES, as sent or with its
 * percent-escapes decoded (the router decodes `/%63onsole/` to `/console/`).
 */
export function isGuarded(url: string): boolean {
  const path = url.split('?')[0] ?? url;
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // a broken escape: the raw path decides (and the router refuses it)
  }
  return [path, decoded].some((form) => GUARDED_PREFIXES.some((prefix) => form === prefix || form.startsWith(`${prefix}/`)));
}

/** The host (name or address, lower case, no port, IPv6 in brackets) of a Host header, or undefined when it does not parse. */
export function hostName(host: string): string | undefined {
  try {
    const url = new URL(`http://${host}`);
    if (url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '') return undefined;
    return url.hostname.replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

/** `host:port` of a Host header as an origin's `host` is written (default port dropped), or undefined. */
function hostOf(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).host;
  } catch {
    return undefined;
  }
}

/** Whether a Host header names this mock (see the module's comment, 1). */
export function hostAllowed(host: string | undefined, allowed: readonly string[]): boolean {
  // HTTP/1.0 without Host: no browser sends that, and there is no name to rebind.
  if (host === undefined) return true;
  const name = hostName(host);
  if (name === undefined || name === '') return false;
  if (isLoopback(name) || isIP(name.replace(/^\[|\]$/g, '')) !== 0) return true;
  return allowed.some((entry) => (entry.startsWith('.') ? name === entry.slice(1) || name.endsWith(entry) : name === entry));
}

/** Whether a Content-Type is JSON: `application/json` or `application/<x>+json`, any parameters. */
export function isJsonType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9!#$&^_.-]+\+json$/.test(type);
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length.trim() !== '0');
}

/** The names the guard allows besides loopback and addresses, lower case: `--allowed-host` and `--public-url`'s host. */
export function allowedHostNames(options: GuardOptions): string[] {
  const names = (options.allowedHosts ?? []).map((name) => name.toLowerCase().replace(/\.$/, ''));
  if (options.publicUrl !== undefined) names.push(new URL(options.publicUrl).hostname.toLowerCase());
  return names;
}

/** The origins allowed besides the mock's own: `--cors-origin` and `--public-url`'s. */
export function allowedOrigins(options: GuardOptions): Set<string> {
  const origins = new Set(options.origins ?? []);
  if (options.publicUrl !== undefined) origins.add(new URL(options.publicUrl).origin);
  return origins;
}

type Stage = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The guard's two stages in the mock's listener, each answering a refused request (problem+json)
 * and returning true, or returning false for a request it lets through or does not cover: `caller`
 * (Host and Origin, 403) runs before CORS, so a foreign page gets no CORS headers; `body` (the
 * content type, 415) after it, so a listed page can read its refusal.
 */
export function guardHandler(options: GuardOptions, clock: Clock): { caller: Stage; body: Stage } {
  const hosts = allowedHostNames(options);
  const origins = allowedOrigins(options);
  const refuse = (req: IncomingMessage, res: ServerResponse, status: 403 | 415, code: ControlErrorCode & ('HOST_NOT_ALLOWED' | 'ORIGIN_NOT_ALLOWED' | 'UNSUPPORTED_MEDIA_TYPE'), detail: string): true => {
    const instance = (req.url ?? '/').split('?')[0] ?? '/';
    const answer = problemResponse({ status, code, detail }, instance, nextRequestId('control'));
    const body = Buffer.from(answer.body);
    const write = () => {
      if (res.headersSent || res.destroyed) return;
      res.writeHead(status, reasonPhrase(status), { ...answer.headers, 'content-length': String(body.length), ...(hasBody(req) ? { connection: 'close' } : {}) });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    // A refused body is read and discarded first (bounded), so that the client reads the answer.
    if (hasBody(req)) discardRest(req, clock, write);
    else write();
    return true;
  };
  const caller: Stage = (req, res) => {
    if (!isGuarded(req.url ?? '/')) return false;
    const host = req.headers.host;
    if (!hostAllowed(host, hosts)) {
      return refuse(
        req,
        res,
        403,
        'HOST_NOT_ALLOWED',
        `This mock does not answer /__mock, /__hooks or /console/ for the host ${JSON.stringify(host)}: only loopback names, IP addresses, --public-url's host and names given with --allowed-host (a guard against DNS rebinding).`,
      );
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.has(origin)) {
      let sameOrigin = false;
      try {
        sameOrigin = origin !== 'null' && host !== undefined && new URL(origin).host === hostOf(host);
      } catch {
        sameOrigin = false;
      }
      if (!sameOrigin) {
        return refuse(req, res, 403, 'ORIGIN_NOT_ALLOWED', `A page of ${origin} may not use /__mock, /__hooks or /console/ of this mock: start it with --cors-origin ${origin} to allow it.`);
      }
    }
    return false;
  };
  const body: Stage = (req, res) => {
    if (!isGuarded(req.url ?? '/')) return false;
    if (hasBody(req) && !isJsonType(req.headers['content-type'])) {
      const type = req.headers['content-type'];
      return refuse(req, res, 415, 'UNSUPPORTED_MEDIA_TYPE', `Bodies sent to /__mock and /__hooks are application/json${type === undefined ? ', and this one has no Content-Type' : `, not ${type}`}.`);
    }
    return false;
  };
  return { caller, body };
}
