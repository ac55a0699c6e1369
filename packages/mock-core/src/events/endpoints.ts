/**
 * Webhook endpoints (Events / Enabling; EVT-004, EVT-005): what the dashboard configures and the
 * mock's control plane stands in for. Each endpoint has a loopback URL, at least one selected event
 * type, a signing secret shown once, an enabled switch and, for client drills, chaos settings.
 * How it works and what it decides: docs/internals.md, "packages/mock-core/src/events/endpoints.ts".
 */
import { eventTypes as documentEventTypes } from '../../../contract/spec/tables.ts';
import { iso } from '../domain/shared.ts';
import type { FieldError } from '../core/errors.ts';
import type { EventType } from './model.ts';

export interface Chaos {
  duplicate: number;
  outOfOrder: boolean;
  failFirst: number;
}

export interface WebhookEndpoint {
  endpointId: string;
  url: string;
  description: string | null;
  eventTypes: EventType[];
  enabled: boolean;
  chaos: Chaos;
  /** Never shown again after creation. */
  secret: string;
  createdAt: number;
  updatedAt: number;
}

export interface EndpointInput {
  url: string;
  eventTypes: readonly string[];
  description?: string | null;
  enabled?: boolean;
  chaos?: Partial<Chaos>;
}

export type EndpointPatch = Partial<EndpointInput>;

export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 500;
export const MAX_DUPLICATE_COPIES = 10;
export const MAX_FAIL_FIRST = 1000;

export const NO_CHAOS: Readonly<Chaos> = Object.freeze({ duplicate: 0, outOfOrder: false, failFirst: 0 });

/** A refusal of an endpoint input, one entry per offending field (the control plane's 422). */
export class WebhookInputError extends Error {
  constructor(readonly errors: FieldError[]) {
    super(errors.map((e) => `${e.field} ${e.message}`).join('; '));
  }
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(documentEventTypes);

export function isEventType(value: string): value is EventType {
  return KNOWN_TYPES.has(value);
}

/** A hostname as WHATWG URL normalises it (`127.1` → `127.0.0.1`, `[0::1]` → `[::1]`). */
export function isLoopbackHostname(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** A resolved address (from DNS or a literal): 127.0.0.0/8 or ::1 (also IPv4-mapped). */
export function isLoopbackAddress(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4.startsWith('127.') || address === '::1';
}

/**
 * Ports of system services (below 1024) a webhook may not be sent to (D256), but for the web's own
 * (80, 443) and discard (9, RFC 863: where nothing listens, the examples' "no receiver").
 */
export const ALLOWED_LOW_PORTS: ReadonlySet<number> = new Set([9, 80, 443]);

/** The host of an http(s) URL exactly as written (lower case), or undefined when the authority is not plainly `scheme://host[:port]`. */
function hostAsWritten(raw: string): string | undefined {
  const m = /^https?:\/\/(\[[0-9A-Fa-f:.]*\]|[^/?#\\:@[\]]*)(?::\d*)?(?:[/?#]|$)/i.exec(raw);
  return m ? m[1]!.toLowerCase() : undefined;
}

/**
 * Why `raw` is not an acceptable endpoint URL, or undefined when it is: the one check of every
 * webhook URL the mock accepts (/__mock, /__hooks, scenarios, and again before each delivery).
 * D256: http or https without credentials; the host, as WHATWG parses it, a loopback name or
 * address (127.0.0.0/8, `localhost`, `[::1]`) and written the way it is parsed (`2130706433`,
 * `0x7f.1`, `127.1`, `[0::1]`, percent-escapes are refused as given); a port of 1024 or more, or 80,
 * 443 or 9.
 */
export function urlProblem(raw: string): string | undefined {
  if (raw.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (!isLoopbackHostname(url.hostname)) return 'must point to a loopback host (127.0.0.0/8, localhost or [::1]); the mock sends nothing elsewhere';
  const written = hostAsWritten(raw);
  if (written === undefined) return 'must be written plainly as http(s)://host[:port]/path';
  if (written !== url.hostname) return `must write its host the way it is read (${url.hostname}), not ${JSON.stringify(written)}: numeric forms other than dotted 127.a.b.c and [::1] are refused`;
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (port < 1024 && !ALLOWED_LOW_PORTS.has(port)) return `must not use port ${port}: ports below 1024 are system services (80, 443 and 9 are allowed)`;
  return undefined;
}

function checkUrl(value: unknown, errors: FieldError[]): void {
  if (typeof value !== 'string') return void errors.push({ field: 'url', message: 'must be a string' });
  const problem = urlProblem(value);
  if (problem) errors.push({ field: 'url', message: problem });
}

function checkEventTypes(value: unknown, errors: FieldError[]): void {
  if (!Array.isArray(value)) return void errors.push({ field: 'eventTypes', message: 'must be an array of event types' });
  if (value.length === 0) return void errors.push({ field: 'eventTypes', message: 'must select at least one event type' });
  const seen = new Set<unknown>();
  value.forEach((type, index) => {
    if (typeof type !== 'string' || !isEventType(type)) errors.push({ field: `eventTypes[${index}]`, message: `must be one of ${[...KNOWN_TYPES].join(', ')}` });
    else if (seen.has(type)) errors.push({ field: `eventTypes[${index}]`, message: 'is listed twice' });
    seen.add(type);
  });
}

function checkDescription(value: unknown, errors: FieldError[]): void {
  if (value === null) return;
  if (typeof value !== 'string' || value.length > MAX_DESCRIPTION_LENGTH) errors.push({ field: 'description', message: `must be a string of at most ${MAX_DESCRIPTION_LENGTH} characters, or null` });
}

function checkChaos(value: unknown, errors: FieldError[]): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return void errors.push({ field: 'chaos', message: 'must be an object' });
  const chaos = value as Record<string, unknown>;
  for (const name of Object.keys(chaos)) {
    if (!['duplicate', 'outOfOrder', 'failFirst'].includes(name)) errors.push({ field: `chaos.${name}`, message: 'is not a known field' });
  }
  const { duplicate, outOfOrder, failFirst } = chaos;
  if (duplicate !== undefined) {
    const ok = typeof duplicate === 'number' && Number.isFinite(duplicate) && duplicate >= 0 && (duplicate <= 1 || (Number.isInteger(duplicate) && duplicate <= MAX_DUPLICATE_COPIES));
    if (!ok) errors.push({ field: 'chaos.duplicate', message: `must be a probability 0..1 or a whole number of copies 1..${MAX_DUPLICATE_COPIES}` });
  }
  if (outOfOrder !== undefined && typeof outOfOrder !== 'boolean') errors.push({ field: 'chaos.outOfOrder', message: 'must be a boolean' });
  if (failFirst !== undefined && !(typeof failFirst === 'number' && Number.isInteger(failFirst) && failFirst >= 0 && failFirst <= MAX_FAIL_FIRST)) {
    errors.push({ field: 'chaos.failFirst', message: `must be a whole number 0..${MAX_FAIL_FIRST}` });
  }
}

function checkFields(input: Record<string, unknown>, required: boolean, errors: FieldError[]): void {
  for (const name of Object.keys(input)) {
    if (!['url', 'eventTypes', 'description', 'enabled', 'chaos'].includes(name)) errors.push({ field: name, message: 'is not a known field' });
  }
  if (input.url !== undefined || required) checkUrl(input.url, errors);
  if (input.eventTypes !== undefined || required) checkEventTypes(input.eventTypes, errors);
  if (input.description !== undefined) checkDescription(input.description, errors);
  if (input.enabled !== undefined && typeof input.enabled !== 'boolean') errors.push({ field: 'enabled', message: 'must be a boolean' });
  if (input.chaos !== undefined) checkChaos(input.chaos, errors);
}

function asObject(input: unknown): Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new WebhookInputError([{ field: 'body', message: 'must be an object' }]);
  return input as Record<string, unknown>;
}

/** Checks a new endpoint (throws WebhookInputError listing every offending field). */
export function checkEndpointInput(input: unknown): EndpointInput {
  const object = asObject(input);
  const errors: FieldError[] = [];
  checkFields(object, true, errors);
  if (errors.length > 0) throw new WebhookInputError(errors);
  return object as unknown as EndpointInput;
}

/** Checks a change to an endpoint (absent fields stay). */
export function checkEndpointPatch(input: unknown): EndpointPatch {
  const object = asObject(input);
  const errors: FieldError[] = [];
  checkFields(object, false, errors);
  if (errors.length > 0) throw new WebhookInputError(errors);
  return object as EndpointPatch;
}

/** Extra copies of a delivered event: a whole `duplicate` is a count, a fraction a probability (`draw` in [0, 1)). */
export function duplicateCopies(duplicate: number, draw: number): number {
  if (duplicate >= 1) return Math.floor(duplicate);
  return draw < duplicate ? 1 : 0;
}

/** The endpoint as the control plane shows it: everything but the secret. */
export function presentEndpoint(endpoint: WebhookEndpoint) {
  return {
    endpointId: endpoint.endpointId,
    url: endpoint.url,
    description: endpoint.description,
    eventTypes: [...endpoint.eventTypes],
    enabled: endpoint.enabled,
    chaos: { ...endpoint.chaos },
    createdAt: iso(endpoint.createdAt),
    updatedAt: iso(endpoint.updatedAt),
  };
}
