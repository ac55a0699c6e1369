/**
 * The plain data a defect works on: one request as the proxy received it, one response as the mock
 * answered it. Defects are pure functions over these (plus a per-proxy memory for the few that
 * must remember an earlier exchange), so proxy.test.ts checks each one without a socket.
 */
import { basePath } from '../../../contract/spec/contract.ts';

/** Header names are lower-case; a header sent several times is joined with ", " (as node does). */
export type Headers = Record<string, string>;

export interface ProxyRequest {
  method: string;
  /** Path and query as sent, e.g. `/api/public/v1/products?limit=7`. */
  url: string;
  headers: Headers;
  body: string;
}

export interface ProxyResponse {
  status: number;
  headers: Headers;
  body: string;
  /** The reason phrase the target sent with `status` (the proxy passes it on while the status is unchanged). */
  reason?: { status: number; text: string };
}

export const API_BASE = basePath;

/** The request's path without the query. */
export function pathOf(request: Pick<ProxyRequest, 'url'>): string {
  return request.url.split('?')[0] ?? request.url;
}

/** The request's path below the API base (`/products/p1`), or undefined outside the public API. */
export function apiPath(request: Pick<ProxyRequest, 'url'>): string | undefined {
  const path = pathOf(request);
  if (path !== API_BASE && !path.startsWith(`${API_BASE}/`)) return undefined;
  return path.slice(API_BASE.length) || '/';
}

export function query(request: Pick<ProxyRequest, 'url'>): URLSearchParams {
  const at = request.url.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : request.url.slice(at + 1));
}

/** The media type of the content type, lower-case, without parameters. */
export function mediaTypeOf(headers: Headers): string {
  return (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

export function isJson(response: ProxyResponse): boolean {
  const type = mediaTypeOf(response.headers);
  return type === 'application/json' || type === 'application/problem+json';
}

export function isProblem(response: ProxyResponse): boolean {
  return mediaTypeOf(response.headers) === 'application/problem+json';
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The parsed JSON body, or undefined when the response is not JSON (or does not parse). */
export function bodyOf(response: ProxyResponse): Json | undefined {
  if (!isJson(response) || response.body === '') return undefined;
  try {
    return JSON.parse(response.body) as Json;
  } catch {
    return undefined;
  }
}

/** The JSON object body, or undefined. */
export function objectBody(response: ProxyResponse): JsonObject | undefined {
  const body = bodyOf(response);
  return isObject(body) ? body : undefined;
}

/** The response with this JSON body (the content type is kept). */
export function withBody(response: ProxyResponse, body: Json): ProxyResponse {
  return { ...response, body: JSON.stringify(body) };
}

/** The response with a JSON object body changed by `edit` (a copy); unchanged when it has none. */
export function editBody(response: ProxyResponse, edit: (body: JsonObject) => Json | void): ProxyResponse {
  const body = objectBody(response);
  if (!body) return response;
  const edited = edit(body);
  return withBody(response, edited === undefined ? body : edited);
}

/** The response with some headers set (a value of undefined removes the header). */
export function withHeaders(response: ProxyResponse, headers: Record<string, string | undefined>): ProxyResponse {
  const out: Headers = { ...response.headers };
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) delete out[name.toLowerCase()];
    else out[name.toLowerCase()] = value;
  }
  return { ...response, headers: out };
}

export function withRequestHeaders(request: ProxyRequest, headers: Record<string, string | undefined>): ProxyRequest {
  const out: Headers = { ...request.headers };
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) delete out[name.toLowerCase()];
    else out[name.toLowerCase()] = value;
  }
  return { ...request, headers: out };
}

/** A list envelope `{ data: [...], pagination: {...} }`. */
export interface Envelope extends JsonObject {
  data: Json[];
  pagination: { nextCursor: string | null; hasMore: boolean; pageSize: number } & JsonObject;
}

export function isEnvelope(body: Json | undefined): body is Envelope {
  return isObject(body) && Array.isArray(body['data']) && isObject(body['pagination']);
}

/** Resource objects of a body: the body itself, or the rows of a list envelope. */
export function resourcesOf(body: Json | undefined): JsonObject[] {
  if (isEnvelope(body)) return body.data.filter(isObject);
  return isObject(body) ? [body] : [];
}

/** Every value of `body` whose key ends in `Id` (string values), at any depth. */
export function idsIn(body: Json | undefined, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(body)) body.forEach((item) => idsIn(item, into));
  else if (isObject(body)) {
    for (const [key, value] of Object.entries(body)) {
      if (typeof value === 'string' && /Id$/.test(key)) into.add(value);
      else idsIn(value, into);
    }
  }
  return into;
}

/** The read plane: catalog, creatives, assets, campaigns, deliveries (not presets, runs, upscales). */
export function isReadPlane(path: string): boolean {
  return /^\/(products|creatives|assets|campaigns|deliveries)(\/|$)/.test(path);
}

export function isGenerationPlane(path: string): boolean {
  return /^\/(presets|runs|upscales)(\/|$)/.test(path);
}

/** The RFC 9110 reason phrase the problem bodies use as `title`. */
export const REASON: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  412: 'Precondition Failed',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};
