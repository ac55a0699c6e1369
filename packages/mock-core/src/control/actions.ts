/**
 * Control plane, actions: changes made by actors other than an API key (a dashboard user, a review
 * link, staff, a partner operator), or by a given key without the HTTP pipeline.
 *
 * - `{ actor, operationId, pathParams, body }` runs the public API's own handler of that write
 *   (services.handlers[operationId]) with a RequestContext built like the pipeline builds it, but
 *   without authentication, rate limits, faults, idempotency or If-Match. The body is validated
 *   against the operation's request body schema of packages/contract/spec/openapi.yaml (validatorFor), the path
 *   parameters against theirs. Events carry the given actor (EVT: "the same event whoever acts").
 * - `{ actor, action, input }` runs a dashboard-only action (packages/mock-core/src/domain/campaigns/dashboard.ts).
 *
 * Either answers 200 `{ status, headers, body }` with the handler's outcome; a refusal (ApiError)
 * is its problem body and status inside the 200. Anything else thrown is a bug of the mock (500).
 */
import { basePath, operations, validatorFor, type OperationInfo } from '../../../contract/spec/contract.ts';
import { dashboardActions } from '../domain/campaigns/dashboard.ts';
import { SCOPES, type Actor, type ActorKind, type ApiKeyRecord } from '../domain/accounts/model.ts';
import { ApiError, type FieldError } from '../core/errors.ts';
import { problemBody } from '../core/problem.ts';
import { isWrite } from '../pipeline/faults.ts';
import { jsonResponse } from '../pipeline/respond.ts';
import { nextRequestId, requestContext } from '../pipeline/context.ts';
import { fieldErrors } from '../pipeline/validate.ts';
import type { AccountState } from '../domain/store.ts';
import { ControlError, type ControlContext, type ControlHandlers } from './types.ts';

interface ActorInput {
  kind: ActorKind;
  apiKeyId?: string;
}

interface OperationActionBody {
  actor: ActorInput;
  operationId: string;
  pathParams?: Record<string, string>;
  body?: unknown;
}

interface DashboardActionBody {
  actor: ActorInput;
  action: string;
  input?: Record<string, unknown>;
}

interface ActionOutcome {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

function unprocessable(errors: FieldError[], detail: string): ControlError {
  return new ControlError(422, 'VALIDATION_ERROR', detail, errors);
}

/** The actor of the events, and the key record the handler sees as `ctx.key`. */
function resolveActor(account: AccountState, input: ActorInput): { actor: Actor; key: ApiKeyRecord } {
  if (input.kind === 'api_key') {
    const key = account.keys.get(input.apiKeyId ?? '');
    if (!key) throw unprocessable([{ field: 'actor.apiKeyId', message: 'is not a key of this account' }], 'The actor\'s key is not one of the account\'s keys.');
    return { actor: { kind: 'api_key', apiKeyId: key.keyId }, key };
  }
  // Not an API key: handlers still get a key record (RequestContext.key), a synthetic one that is
  // never stored, holds every scope and names the actor. Events carry no apiKeyId (EVT actor rules).
  const key: ApiKeyRecord = {
    keyId: `actor_${input.kind}`,
    accountId: account.accountId,
    name: `${input.kind} (control plane)`,
    hash: '',
    last4: '',
    scopes: [...SCOPES],
    createdAt: account.createdAt,
    expiresAt: null,
    revokedAt: null,
  };
  return { actor: { kind: input.kind } as Actor, key };
}

/** A public write operation by id, or 422. */
function writeOperation(operationId: string): OperationInfo {
  const operation = operations.get(operationId);
  if (!operation || !isWrite(operation)) {
    throw unprocessable([{ field: 'operationId', message: 'is not a write operation of packages/contract/spec/openapi.yaml' }], `${operationId} is not a public write operation.`);
  }
  return operation;
}

function checkPathParams(operation: OperationInfo, given: Record<string, string>): Record<string, string> {
  const declared = operation.parameters.filter((p) => p.in === 'path');
  const errors: FieldError[] = [];
  for (const name of Object.keys(given)) {
    if (!declared.some((p) => p.name === name)) errors.push({ field: `pathParams.${name}`, message: `is not a path parameter of ${operation.operationId}` });
  }
  for (const p of declared) {
    const value = given[p.name];
    if (value === undefined) errors.push({ field: `pathParams.${p.name}`, message: 'is required' });
    else if (!validatorFor(p.schemaPointer)(value)) errors.push({ field: `pathParams.${p.name}`, message: 'does not match the parameter\'s schema' });
  }
  if (errors.length > 0) throw unprocessable(errors, `The path parameters do not fit ${operation.operationId} (${operation.path}).`);
  return { ...given };
}

function checkBody(operation: OperationInfo, body: unknown): unknown {
  const spec = operation.requestBody;
  if (body === undefined) {
    if (spec?.required) throw unprocessable([{ field: 'body', message: 'is required' }], `${operation.operationId} requires a body.`);
    return undefined;
  }
  if (!spec) throw unprocessable([{ field: 'body', message: `${operation.operationId} takes no body` }], `${operation.operationId} takes no body.`);
  const validate = validatorFor(spec.schemaPointer);
  if (!validate(body)) {
    const errors = fieldErrors(validate.errors ?? []).map((e) => ({ field: e.field === 'body' ? 'body' : `body.${e.field}`, message: e.message }));
    throw unprocessable(errors, `The body does not match ${operation.operationId}'s schema.`);
  }
  return body;
}

/** A handler's refusal as the public API would answer it. */
function refusal(error: ApiError, instance: string, requestId: string): ActionOutcome {
  const headers: Record<string, string> = {};
  if (error.retryAfter !== undefined) headers['retry-after'] = String(Math.max(0, Math.ceil(error.retryAfter)));
  return { status: error.status, headers, body: problemBody(error, instance, requestId) };
}

async function runOperation(account: AccountState, request: OperationActionBody, ctx: ControlContext): Promise<ActionOutcome> {
  const { services } = ctx;
  const operation = writeOperation(request.operationId);
  const pathParams = checkPathParams(operation, request.pathParams ?? {});
  const body = checkBody(operation, request.body);
  const { actor, key } = resolveActor(account, request.actor);
  const handler = services.handlers[operation.operationId];
  if (!handler) throw new ControlError(501, 'ACTION_UNKNOWN', `This build of the mock has no handler for ${operation.operationId} yet.`);
  const requestId = nextRequestId();
  const instance = basePath + operation.path.replace(/\{([^{}]+)\}/g, (_m, name: string) => encodeURIComponent(pathParams[name] ?? ''));
  const { store } = services;
  const clock = services.clock.forAccount(account.accountId); // the account's own clock (D91)
  const context = requestContext(services.events, { requestId, operation, pathParams, query: {}, headers: {}, body, account, key, actor, clock, store });
  try {
    const result = await handler.run(context);
    const response = jsonResponse(result);
    const { 'content-type': _type, ...headers } = response.headers;
    // The body as the API would send it (through JSON), so that it compares equal to an HTTP answer.
    const sent: unknown = result.body === undefined ? null : JSON.parse(response.body);
    return { status: response.status, headers, body: sent };
  } catch (error) {
    if (error instanceof ApiError) return refusal(error, instance, requestId);
    throw error;
  }
}

function runDashboardAction(account: AccountState, request: DashboardActionBody, ctx: ControlContext): ActionOutcome {
  const action = Object.hasOwn(dashboardActions, request.action) ? dashboardActions[request.action] : undefined;
  if (!action) throw new ControlError(501, 'ACTION_UNKNOWN', `This build of the mock does not implement the dashboard action ${request.action}.`);
  const { actor } = resolveActor(account, request.actor);
  const { services } = ctx;
  const requestId = nextRequestId();
  try {
    const now = services.clock.forAccount(account.accountId).now();
    const result = action(account, request.input ?? {}, now);
    const eventIds: string[] = [];
    for (const e of result.events) {
      for (const recorded of services.events.record(account, e.resource, e.drafts, actor, now)) eventIds.push(recorded.eventId);
    }
    return { status: 200, headers: {}, body: { action: request.action, creativeIds: [...result.creativeIds], eventIds } };
  } catch (error) {
    if (error instanceof ApiError) return refusal(error, ctx.instance, requestId);
    throw error;
  }
}

export const actionHandlers: ControlHandlers = {
  async runAction(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const body = request.body as OperationActionBody | DashboardActionBody;
    const outcome = 'operationId' in body ? await runOperation(account, body, ctx) : runDashboardAction(account, body, ctx);
    return { status: 200, body: outcome };
  },
};
