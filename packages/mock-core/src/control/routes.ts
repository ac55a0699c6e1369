/**
 * The control plane under /__mock. Its contract is packages/contract/spec/mock-control.yaml, and this file registers
 * exactly the operations of that document (packages/mock-core/src/control/document.ts reads it), each with the
 * handler of the same operationId from the group files beside this one.
 * How it works and what it decides: docs/internals.md, "packages/mock-core/src/control/routes.ts".
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MockServices } from '../services/services.ts';
import { equalBytes, sha256 } from '../../../contract/platform/crypto.ts';
import type { FieldError } from '../core/errors.ts';
import { internalErrorResponse, problemResponse as writeProblem } from '../core/problem.ts';
import { fieldErrors } from '../pipeline/validate.ts';
import { nextRequestId } from '../pipeline/context.ts';
import { toQuery } from '../pipeline/query.ts';
import { accountHandlers } from './accounts.ts';
import { actionHandlers } from './actions.ts';
import { clockHandlers } from './clock.ts';
import { creditHandlers } from './credits.ts';
import { controlOperations, controlValidator, parameterValidator, type ControlOperation, type DocumentReader } from './document.ts';
import { eventHandlers } from './events.ts';
import { faultHandlers } from './faults.ts';
import { generationHandlers } from './generation.ts';
import { ControlError, type ControlContext, type ControlHandler, type ControlHandlers, type ControlOptions, type ControlRequest, type ControlResult, type ControlStreamSink } from './types.ts';
import { lifecycleHandlers } from './lifecycle.ts';
import { limitHandlers } from './limits.ts';
import { keyHandlers } from './keys.ts';
import { leaseHandlers } from './leases.ts';
import { webhookHandlers } from './webhooks.ts';
import { requestHandlers } from './requests.ts';
import { campaignHandlers } from './campaigns.ts';
import { browseHandlers } from './browse.ts';
import { streamHandlers } from './stream.ts';
import { examHandlers } from './exam.ts';
import { scenarioHandlers } from './scenario.ts';

/** Every control handler by operationId. */
export const controlHandlers: ControlHandlers = {
  ...accountHandlers,
  ...creditHandlers,
  ...keyHandlers,
  ...clockHandlers,
  ...faultHandlers,
  ...limitHandlers,
  ...eventHandlers,
  ...actionHandlers,
  ...lifecycleHandlers,
  ...webhookHandlers,
  ...generationHandlers,
  ...leaseHandlers,
  ...requestHandlers,
  ...streamHandlers,
  ...campaignHandlers,
  ...browseHandlers,
  ...examHandlers,
  ...scenarioHandlers,
};

const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

function validationError(status: 400 | 422, detail: string, errors: FieldError[]): ControlError {
  return new ControlError(status, 'VALIDATION_ERROR', detail, errors.length > 0 ? errors : [{ field: 'body', message: 'is invalid' }]);
}

function prefixed(errors: FieldError[], name: string): FieldError[] {
  return errors.map((e) => ({ field: e.field === 'body' || e.field === 'value' ? name : e.field.replace(/^value\b/, name), message: e.message }));
}

/** Path and query parameters, checked against their schemas (query values coerced). */
function readParameters(validators: Validators, operation: ControlOperation, rawParams: Record<string, string>, rawQuery: Record<string, unknown>): { params: Record<string, string>; query: Record<string, unknown> } {
  const params: Record<string, string> = {};
  const query: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const p of operation.parameters) {
    const value = p.in === 'path' ? rawParams[p.name] : rawQuery[p.name];
    if (value === undefined) {
      if (p.required) errors.push({ field: p.name, message: 'is required' });
      continue;
    }
    const holder = { value };
    const validate = validators.parameterValidator(p.schemaPointer);
    if (!validate(holder)) {
      errors.push(...prefixed(fieldErrors(validate.errors ?? []), p.name));
      continue;
    }
    if (p.in === 'path') params[p.name] = String(holder.value);
    else query[p.name] = holder.value;
  }
  if (errors.length > 0) throw validationError(400, 'A path or query parameter is invalid.', errors);
  return { params, query };
}

/** The JSON body, checked against the operation's schema; undefined when none was sent. */
function readBody(validators: Validators, operation: ControlOperation, raw: Uint8Array | string | undefined): unknown {
  const spec = operation.requestBody;
  if (!spec) return undefined; // operations without a body ignore one
  // UTF-8 as Buffer#toString decodes it: bad sequences replaced, a byte-order mark kept.
  const text = typeof raw === 'string' ? raw : raw === undefined ? undefined : UTF8.decode(raw);
  if (text === undefined || text.trim() === '') {
    if (spec.required) throw validationError(422, 'A JSON body is required.', [{ field: 'body', message: 'is required' }]);
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw validationError(400, `The body is not valid JSON: ${(error as Error).message}`, [{ field: 'body', message: 'malformed JSON' }]);
  }
  const validate = validators.bodyValidator(spec.schemaPointer);
  if (!validate(parsed)) throw validationError(422, 'The body does not match the operation\'s schema.', fieldErrors(validate.errors ?? []));
  return parsed;
}

type Validators = Pick<DocumentReader, 'bodyValidator' | 'parameterValidator'>;

/**
 * A plane served from its own OpenAPI document behind its own prefix: the control plane (/__mock,
 * packages/contract/spec/mock-control.yaml) or the conformance hooks (/__hooks, packages/contract/spec/conformance-hooks.yaml, packages/mock-core/src/hooks/).
 * Both are served by `dispatchPlane`: the same routing, token check, validation and problem+json.
 */
export interface Plane {
  /** Stripped from the path before matching the document's templates ('' when they include it). */
  prefix: string;
  /** The document, for messages (`packages/contract/spec/mock-control.yaml`). */
  documentName: string;
  routes(): ControlRoute[];
  validators: Validators;
  /** The realm of `WWW-Authenticate` on a 401, and its detail. */
  realm: string;
  unauthorized: string;
}

export interface ControlRoute {
  operation: ControlOperation;
  handler: ControlHandler;
  /** A literal segment, or null for a `{param}` segment (its name in `param`). */
  segments: { literal: string | null; param: string | null }[];
}

export function routeOf(operation: ControlOperation, handler: ControlHandler): ControlRoute {
  const segments = operation.path
    .split('/')
    .slice(1)
    .map((segment) => {
      const param = /^\{([^{}]+)\}$/.exec(segment)?.[1];
      return param === undefined ? { literal: segment, param: null } : { literal: null, param };
    });
  return { operation, handler, segments };
}

/** Path parameters when the route's template matches the path's segments (undecoded on a bad escape). */
function matchRoute(route: ControlRoute, parts: readonly string[]): Record<string, string> | undefined {
  if (route.segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, segment] of route.segments.entries()) {
    const part = parts[index] ?? '';
    if (segment.literal !== null) {
      if (segment.literal !== part) return undefined;
    } else {
      if (part === '') return undefined;
      let value = part;
      try {
        value = decodeURIComponent(part);
      } catch {
        // kept as sent; the parameter's schema decides
      }
      params[segment.param ?? ''] = value;
    }
  }
  return params;
}

/**
 * Registers the control plane. Routing is done here, from the document's path templates, behind
 * one fastify route: fastify's own router would answer an over-long path parameter with its own
 * 414 JSON, outside the problem+json contract.
 */
let routeTable: ControlRoute[] | undefined;

/**
 * The routes of the control document, each with its handler; checks both ways that the document
 * and the handlers agree (a mismatch is a bug of the mock, thrown on first use).
 */
export function controlRoutes(): ControlRoute[] {
  if (routeTable) return routeTable;
  const operations = controlOperations();
  const documented = new Set(operations.map((op) => op.operationId));
  const undocumented = Object.keys(controlHandlers).filter((id) => !documented.has(id));
  if (undocumented.length > 0) throw new Error(`control handlers not in packages/contract/spec/mock-control.yaml: ${undocumented.join(', ')}`);
  routeTable = operations.map((operation) => {
    const handler = controlHandlers[operation.operationId];
    if (!handler) throw new Error(`packages/contract/spec/mock-control.yaml: ${operation.operationId} has no handler in packages/mock-core/src/control/`);
    return routeOf(operation, handler);
  });
  return routeTable;
}

/** A control request as any way in receives it (the node:http server, the MSW handlers, `control`). */
export interface ControlHttpRequest {
  method: string;
  /** The request target: path and query (`/__mock/accounts?x=1`). */
  url: string;
  /** Lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  /** The raw body (parsed as JSON whatever its Content-Type), or none. */
  body?: Uint8Array | string | undefined;
  /** Aborted when the client went away before the answer (a handler that waits stops waiting). */
  signal?: AbortSignal;
}

/** The answer: a status, its headers (content-type with its charset), and a body or an event stream. */
export interface ControlHttpResponse {
  status: number;
  headers: Record<string, string>;
  /** The body's text; undefined for an empty answer (204) or a stream. */
  body?: string;
  /**
   * A server-sent event stream (streamChanges): the way in starts it with a sink once the headers
   * are sent; it returns what to do when the client goes away.
   */
  stream?: (sink: ControlStreamSink) => () => void;
}

const JSON_TYPE = 'application/json; charset=utf-8';
/** The headers of an event stream (streamChanges). */
export const STREAM_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' };

function problemResponse(error: ControlError, instance: string, requestId: string, headers: Record<string, string> = {}): ControlHttpResponse {
  return writeProblem({ status: error.status, code: error.code, detail: error.message, extensions: error.errors && error.errors.length > 0 ? { errors: error.errors } : {} }, instance, requestId, headers);
}

function controlRequestId(): string {
  return nextRequestId('control');
}

/** The query of a request target, as fastify's parser gives it (a repeated name: an array). */
function queryOf(url: string): Record<string, string | string[]> {
  const mark = url.indexOf('?');
  return mark === -1 ? {} : toQuery(new URLSearchParams(url.slice(mark + 1)));
}

/**
 * The control plane, with no way in: routes a request by the document's path templates, checks the
 * control token, validates, calls the handler of the operationId and serialises its answer. The
 * node:http server (registerControlRoutes) and the in-process MSW handlers (packages/msw/src/msw.ts)
 * are thin adapters over it. Never throws: a bug of the mock answers 500 (reported).
 */
export async function dispatchControl(services: MockServices, options: ControlOptions, request: ControlHttpRequest): Promise<ControlHttpResponse> {
  return dispatchPlane(controlPlane, services, options, request);
}

const controlPlane: Plane = {
  prefix: '',
  documentName: 'packages/contract/spec/mock-control.yaml',
  routes: () => controlRoutes(),
  validators: { bodyValidator: controlValidator, parameterValidator },
  realm: 'mock-control',
  unauthorized: 'This mock was started with a control token: send it as `Authorization: Bearer <token>` on every request under /__mock (the public API is not affected).',
};

/** dispatchControl for any plane (the control plane, the conformance hooks). Never throws. */
export async function dispatchPlane(plane: Plane, services: MockServices, options: ControlOptions, request: ControlHttpRequest): Promise<ControlHttpResponse> {
  const pathname = request.url.split('?')[0] ?? request.url;
  const authorization = request.headers['authorization'];
  if (!controlTokenCheck(options.controlToken)(Array.isArray(authorization) ? authorization.join(', ') : authorization)) {
    const error = new ControlError(401, 'UNAUTHORIZED', plane.unauthorized);
    return problemResponse(error, pathname, controlRequestId(), { 'www-authenticate': `Bearer realm="${plane.realm}"` });
  }
  const relative = plane.prefix !== '' && pathname.startsWith(plane.prefix) ? pathname.slice(plane.prefix.length) : pathname;
  const parts = relative.split('/').slice(1);
  const method = request.method.toLowerCase();
  const matching = plane.routes().map((route) => ({ route, params: matchRoute(route, parts) })).filter((m) => m.params !== undefined);
  // A literal segment beats a parameter (none overlap today; this keeps it so if one is added).
  matching.sort((a, b) => b.route.segments.filter((s) => s.literal !== null).length - a.route.segments.filter((s) => s.literal !== null).length);
  const hit = matching.find((m) => m.route.operation.method === method);
  if (!hit) {
    const error =
      matching.length > 0
        ? new ControlError(405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${pathname}; see ${plane.documentName}.`)
        : new ControlError(404, 'NOT_FOUND', `No operation at ${pathname}; see ${plane.documentName}.`);
    // A 405 names the methods the path has (RFC 9110 15.5.6), HEAD wherever GET is.
    const headers: Record<string, string> = {};
    if (matching.length > 0) {
      const methods = new Set(matching.map((m) => m.route.operation.method.toUpperCase()));
      if (methods.has('GET')) methods.add('HEAD');
      headers['allow'] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => methods.has(m)).join(', ');
    }
    return problemResponse(error, pathname, controlRequestId(), headers);
  }
  return serve(plane, hit.route.operation, hit.route.handler, hit.params ?? {}, request, pathname, services, options);
}

/**
 * Registers the control plane on the server: one fastify route in front of dispatchControl. Routing
 * is done there, from the document's path templates: fastify's own router would answer an over-long
 * path parameter with its own 414 JSON, outside the problem+json contract. The document is read on
 * the first control request (see controlDocument); main.ts calls controlRoutes() right after listening.
 */
export function registerControlRoutes(app: FastifyInstance, services: MockServices, options: ControlOptions = {}): void {
  registerPlaneRoutes(app, '/__mock', (request) => dispatchControl(services, options, request));
}

/** One fastify route per prefix in front of a plane's dispatch (the control plane, the conformance hooks). */
export function registerPlaneRoutes(app: FastifyInstance, prefix: string, dispatch: (request: ControlHttpRequest) => Promise<ControlHttpResponse>): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const gone = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) gone.abort();
    });
    const body = request.body;
    const response = await dispatch({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: body instanceof Uint8Array || typeof body === 'string' ? body : undefined,
      signal: gone.signal,
    });
    if (response.stream) return openStream(reply, response.status, response.stream);
    reply.status(response.status).headers(response.headers);
    return response.body === undefined ? reply.send() : reply.send(response.body);
  };
  app.route({ method: ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'], url: `${prefix}/*`, handler });
  app.route({ method: ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'], url: prefix, handler });
}

/**
 * Whether an Authorization header carries the control token (always true without one). Compared
 * as SHA-256 digests in constant time, so neither the token's length nor its prefix leaks.
 */
const tokenChecks = new Map<string, (authorization: string | undefined) => boolean>();

export function controlTokenCheck(token: string | undefined): (authorization: string | undefined) => boolean {
  if (token === undefined || token === '') return () => true;
  const known = tokenChecks.get(token);
  if (known) return known;
  const expected = sha256(token);
  const check = (authorization: string | undefined): boolean => {
    const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization ?? '');
    if (!match) return false;
    return equalBytes(sha256(match[1]!), expected);
  };
  tokenChecks.set(token, check);
  return check;
}

/** Serves a server-sent event stream on the raw response until the client or the mock ends it. */
function openStream(reply: FastifyReply, status: number, start: NonNullable<ControlResult['stream']>): FastifyReply {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(status, STREAM_HEADERS);
  res.flushHeaders();
  let stop: (() => void) | undefined;
  let closed = false;
  const end = () => {
    if (closed) return;
    closed = true;
    stop?.();
    res.end();
  };
  const sink: ControlStreamSink = {
    write: (chunk) => {
      if (!closed) res.write(chunk);
    },
    backlog: () => res.writableLength,
    close: end,
  };
  res.on('close', end);
  stop = start(sink);
  if (closed) stop();
  return reply;
}

async function serve(
  plane: Plane,
  operation: ControlOperation,
  handler: ControlHandler,
  pathParams: Record<string, string>,
  request: ControlHttpRequest,
  instance: string,
  services: MockServices,
  options: ControlOptions,
): Promise<ControlHttpResponse> {
  const requestId = controlRequestId();
  const ctx: ControlContext = {
    services,
    options,
    requestId,
    instance,
    ...(request.signal ? { signal: request.signal } : {}),
    dispatch: (inner) => dispatchControl(services, options, { ...inner, headers: { authorization: request.headers['authorization'] } }),
    account(accountId) {
      const account = services.store.accounts.get(accountId);
      if (!account) throw new ControlError(404, 'ACCOUNT_NOT_FOUND', `There is no account ${accountId}.`);
      return account;
    },
  };
  try {
    const { params, query } = readParameters(plane.validators, operation, pathParams, queryOf(request.url));
    const input: ControlRequest = { params, query, body: readBody(plane.validators, operation, request.body) };
    const result = await handler(input, ctx);
    if (result.stream) return { status: result.status, headers: { ...STREAM_HEADERS }, stream: result.stream };
    if (result.body === undefined) return { status: result.status, headers: {} };
    return { status: result.status, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(result.body) };
  } catch (error) {
    if (!(error instanceof ControlError)) {
      services.logError(error, `${request.method} ${instance}`);
      return internalErrorResponse(instance, requestId);
    }
    return problemResponse(error, instance, requestId);
  }
}
