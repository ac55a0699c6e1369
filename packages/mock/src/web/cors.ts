/**
 * CORS, so that a browser app on another origin can use the mock as its development backend: the
 * API and /docs/ for any origin (or the `--cors-origin` list); the mock's own planes (/__mock,
 * /__hooks, /console, guard.ts) only for the origins `--cors-origin` names (D246). `Origin: null`
 * (a sandboxed frame, a file: page) is answered `null` without credentials or Private Network
 * Access, on the API only.
 * How it works and what it decides: docs/internals.md, "packages/mock/src/web/cors.ts".
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { document, operationsList } from '../../../contract/spec/contract.ts';
import { controlHeaders, controlOperations } from '../../../mock-core/src/control/document.ts';
import { isGuarded } from './guard.ts';

export interface CorsOptions {
  /** Default true: `--cors off` answers as a server without CORS (browsers refuse its answers). */
  enabled?: boolean;
  /** Origins allowed (`--cors-origin`, exact `scheme://host:port`); default: any origin (reflected). */
  origins?: readonly string[];
}

/** How long a browser may keep a preflight's answer (seconds; Chromium caps it at 7,200). */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

export interface CorsLists {
  methods: string[];
  requestHeaders: string[];
  responseHeaders: string[];
}

type JsonObject = { readonly [key: string]: unknown };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sorted, de-duplicated without regard to case (header names are case-insensitive), lower-case. */
function headerList(names: Iterable<string>): string[] {
  return [...new Set([...names].map((name) => name.toLowerCase()))].sort();
}

/**
 * The request headers a credential scheme of the public document puts on a request: an http
 * scheme (bearer, basic) uses Authorization, an apiKey scheme in a header its own name.
 */
function credentialHeaders(): string[] {
  const schemes = document.components['securitySchemes'];
  const out: string[] = [];
  for (const scheme of Object.values(isObject(schemes) ? schemes : {})) {
    if (!isObject(scheme)) continue;
    if (scheme['type'] === 'http') out.push('Authorization');
    if (scheme['type'] === 'apiKey' && scheme['in'] === 'header' && typeof scheme['name'] === 'string') out.push(scheme['name']);
  }
  return out;
}

/** The methods, request headers and response headers of packages/contract/spec/openapi.yaml and packages/contract/spec/mock-control.yaml. */
export function corsLists(): CorsLists {
  const methods = new Set<string>();
  const request = new Set<string>(credentialHeaders());
  const response = new Set<string>();
  for (const operation of operationsList) {
    methods.add(operation.method.toUpperCase());
    for (const parameter of operation.parameters) if (parameter.in === 'header') request.add(parameter.name);
    if (operation.requestBody) request.add('Content-Type');
    for (const answer of Object.values(operation.responses)) for (const name of Object.keys(answer.headers)) response.add(name);
  }
  // The answers outside every operation (a 405's Allow, D50/D51) are answers a page may read too.
  const unmatched = (document as { 'x-unmatched-request'?: { headers?: Record<string, Record<string, unknown>> } })['x-unmatched-request'];
  for (const byStatus of Object.values(unmatched?.headers ?? {})) for (const name of Object.keys(byStatus)) response.add(name);
  for (const operation of controlOperations()) methods.add(operation.method.toUpperCase());
  const control = controlHeaders();
  for (const name of control.request) request.add(name);
  for (const name of control.response) response.add(name);
  return { methods: [...methods].sort(), requestHeaders: headerList(request), responseHeaders: headerList(response) };
}

/**
 * The CORS stage of the mock's listener: returns true when it answered the request (a preflight),
 * false when the request goes on (with the CORS response headers already set on `res`).
 */
export function corsHandler(options: CorsOptions = {}): (req: IncomingMessage, res: ServerResponse) => boolean {
  if (options.enabled === false) return () => false;
  const allowed = options.origins && options.origins.length > 0 ? new Set(options.origins) : undefined;
  // Derived once, on the first request (the control document is parsed after the port opens).
  let lists: { methods: string; requestHeaders: string; exposed: string } | undefined;
  const derived = () => {
    if (!lists) {
      const { methods, requestHeaders, responseHeaders } = corsLists();
      lists = { methods: methods.join(', '), requestHeaders: requestHeaders.join(', '), exposed: responseHeaders.join(', ') };
    }
    return lists;
  };

  return (req, res) => {
    const origin = req.headers.origin;
    const preflight = req.method === 'OPTIONS' && origin !== undefined && req.headers['access-control-request-method'] !== undefined;
    // The answer depends on the Origin (reflected, or refused by the list): caches must key on it.
    res.setHeader('vary', 'Origin');
    // The mock's own planes: listed origins only (D246); the API and /docs/: any, or the list.
    const permitted = origin !== undefined && (isGuarded(req.url ?? '/') ? allowed?.has(origin) === true : allowed === undefined || allowed.has(origin));
    // An opaque origin is reflected without credentials (it can send its API key, not cookies).
    const credentials = origin !== 'null';
    if (preflight) {
      const headers: Record<string, string> = { vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers', 'content-length': '0' };
      if (permitted) {
        const { methods, requestHeaders } = derived();
        headers['access-control-allow-origin'] = origin;
        if (credentials) headers['access-control-allow-credentials'] = 'true';
        headers['access-control-allow-methods'] = methods;
        headers['access-control-allow-headers'] = requestHeaders;
        headers['access-control-max-age'] = String(PREFLIGHT_MAX_AGE_SECONDS);
        // Chromium's Private Network Access: a public page may call a mock on a private address.
        if (credentials && req.headers['access-control-request-private-network'] === 'true') headers['access-control-allow-private-network'] = 'true';
      }
      res.writeHead(204, headers);
      res.end();
      return true;
    }
    if (permitted) {
      res.setHeader('access-control-allow-origin', origin);
      if (credentials) res.setHeader('access-control-allow-credentials', 'true');
      res.setHeader('access-control-expose-headers', derived().exposed);
    }
    return false;
  };
}
