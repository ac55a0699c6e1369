/**
 * Control plane, webhooks: what the dashboard does with webhook endpoints (the public API has no
 * endpoint resource, EVT-004), the delivery log and the processing delay. The contract is
 * mock/events/control-fragment.yaml (to be merged into spec/mock-control.yaml); the scheduler is
 * mock/events/webhooks.ts (`services.webhooks`).
 *
 *   createWebhookEndpoint, listWebhookEndpoints, getWebhookEndpoint, updateWebhookEndpoint,
 *   deleteWebhookEndpoint, listWebhookDeliveries, getAccountWebhookSettings,
 *   updateAccountWebhookSettings, getWebhookSettings, updateWebhookSettings
 *
 * Two ways in:
 * - `webhookHandlers` (by operationId), for routes.ts's `controlHandlers` once the fragment is part
 *   of spec/mock-control.yaml: the document's dispatcher then validates and serves them;
 * - `registerWebhookRoutes(app, services)`, which serves the same handlers on their own fastify
 *   routes, validated against the fragment merged with the control document, so the routes work
 *   before the merge. Once the fragment is merged, do not call it: routes.ts serves them.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MockServices } from '../app.ts';
import { iso, isoOrNull } from '../domain/shared.ts';
import { REASON_PHRASES, type FieldError } from '../errors.ts';
import { fragmentOperations, fragmentRoutes, fragmentValidator, type FragmentOperation } from '../events/control-fragment.ts';
import { presentEndpoint, WebhookInputError, type EndpointInput, type EndpointPatch, type WebhookEndpoint } from '../events/endpoints.ts';
import type { AttemptRecord, WebhookService } from '../events/webhooks.ts';
import { fieldErrors } from '../pipeline/validate.ts';
import type { AccountState } from '../store.ts';
import { ControlError, type ControlContext, type ControlHandlers, type ControlOptions, type ControlRequest } from './http.ts';

export type WebhookServices = MockServices & { webhooks: WebhookService };

/** The webhook service of the mock (buildMock creates it as `services.webhooks`). */
function webhooksOf(services: MockServices): WebhookService {
  const service = (services as MockServices & { webhooks?: WebhookService }).webhooks;
  if (!service) throw new Error('services.webhooks is missing: buildMock must create the WebhookService (mock/events/webhooks.ts)');
  return service;
}

function endpointOf(service: WebhookService, account: AccountState, endpointId: string): WebhookEndpoint {
  const endpoint = service.getEndpoint(account, endpointId);
  if (!endpoint) throw new ControlError(404, 'NOT_FOUND', `There is no webhook endpoint ${endpointId} in account ${account.accountId}.`);
  return endpoint;
}

/** A refusal of the service as the control plane's 422. */
function refused<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof WebhookInputError) throw new ControlError(422, 'VALIDATION_ERROR', `Refused: ${error.message}.`, error.errors);
    throw error;
  }
}

export function presentDelivery(row: AttemptRecord) {
  return {
    deliveryId: row.deliveryId,
    eventId: row.eventId,
    endpointId: row.endpointId,
    type: row.type,
    attempt: row.attempt,
    duplicate: row.duplicate,
    scheduledAt: iso(row.scheduledAt),
    attemptedAt: isoOrNull(row.attemptedAt),
    status: row.status,
    responseStatus: row.responseStatus,
    error: row.error,
    nextAttemptAt: isoOrNull(row.nextAttemptAt),
    givenUp: row.givenUp,
  };
}

function accountSettings(service: WebhookService, account: AccountState) {
  return { ...service.settings(account), planIncludesWebhooks: account.plan.webhooks };
}

function globalSettings(service: WebhookService) {
  return { processingDelaySeconds: service.processingDelaySeconds, retry: { ...service.retryPolicy }, requestTimeoutMs: service.requestTimeoutMs };
}

export const webhookHandlers: ControlHandlers = {
  createWebhookEndpoint(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const { endpoint, secret } = refused(() => webhooksOf(ctx.services).createEndpoint(account, request.body as EndpointInput));
    return { status: 201, body: { ...presentEndpoint(endpoint), secret } };
  },

  listWebhookEndpoints(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    return { status: 200, body: { data: webhooksOf(ctx.services).listEndpoints(account).map(presentEndpoint) } };
  },

  getWebhookEndpoint(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    return { status: 200, body: presentEndpoint(endpointOf(webhooksOf(ctx.services), account, request.params.endpointId!)) };
  },

  updateWebhookEndpoint(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const service = webhooksOf(ctx.services);
    const endpoint = endpointOf(service, account, request.params.endpointId!);
    refused(() => service.updateEndpoint(account, endpoint.endpointId, request.body as EndpointPatch));
    return { status: 200, body: presentEndpoint(endpoint) };
  },

  deleteWebhookEndpoint(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const service = webhooksOf(ctx.services);
    service.deleteEndpoint(account, endpointOf(service, account, request.params.endpointId!).endpointId);
    return { status: 204 };
  },

  listWebhookDeliveries(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const { endpointId, eventId, type } = request.query as { endpointId?: string; eventId?: string; type?: string };
    const rows = webhooksOf(ctx.services).deliveries(account, { ...(endpointId !== undefined ? { endpointId } : {}), ...(eventId !== undefined ? { eventId } : {}), ...(type !== undefined ? { type } : {}) });
    return { status: 200, body: { data: rows.map(presentDelivery) } };
  },

  getAccountWebhookSettings(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    return { status: 200, body: accountSettings(webhooksOf(ctx.services), account) };
  },

  updateAccountWebhookSettings(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const service = webhooksOf(ctx.services);
    const { processingDelaySeconds } = (request.body ?? {}) as { processingDelaySeconds?: number | null };
    if (processingDelaySeconds !== undefined) refused(() => service.setAccountProcessingDelay(account, processingDelaySeconds));
    return { status: 200, body: accountSettings(service, account) };
  },

  getWebhookSettings(_request, ctx) {
    return { status: 200, body: globalSettings(webhooksOf(ctx.services)) };
  },

  updateWebhookSettings(request, ctx) {
    const service = webhooksOf(ctx.services);
    const { processingDelaySeconds } = (request.body ?? {}) as { processingDelaySeconds?: number };
    if (processingDelaySeconds !== undefined) refused(() => service.setGlobalProcessingDelay(processingDelaySeconds));
    return { status: 200, body: globalSettings(service) };
  },
};

// ---------------------------------------------------------------------------------------------
// Serving the operations that spec/mock-control.yaml does not hold yet

function problem(error: ControlError, instance: string, requestId: string) {
  return {
    type: `/errors/${error.code}`,
    title: REASON_PHRASES[error.status] ?? 'Error',
    status: error.status,
    code: error.code,
    detail: error.message,
    instance,
    requestId,
    ...(error.errors && error.errors.length > 0 ? { errors: error.errors } : {}),
  };
}

function validationError(status: 400 | 422, detail: string, errors: FieldError[]): ControlError {
  return new ControlError(status, 'VALIDATION_ERROR', detail, errors.length > 0 ? errors : [{ field: 'body', message: 'is invalid' }]);
}

function readInput(operation: FragmentOperation, request: FastifyRequest): ControlRequest {
  const rawParams = (request.params ?? {}) as Record<string, string>;
  const rawQuery = (request.query ?? {}) as Record<string, unknown>;
  const params: Record<string, string> = {};
  const query: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const p of operation.parameters) {
    const value = p.in === 'path' ? rawParams[p.name] : rawQuery[p.name];
    if (value === undefined) {
      if (p.required) errors.push({ field: p.name, message: 'is required' });
      continue;
    }
    const validate = fragmentValidator(p.schemaPointer);
    if (!validate(value)) errors.push({ field: p.name, message: validate.errors?.[0]?.message ?? 'is invalid' });
    else if (p.in === 'path') params[p.name] = String(value);
    else query[p.name] = value;
  }
  if (errors.length > 0) throw validationError(400, 'A path or query parameter is invalid.', errors);

  let body: unknown;
  const spec = operation.requestBody;
  const raw = request.body;
  const text = Buffer.isBuffer(raw) ? raw.toString('utf8') : typeof raw === 'string' ? raw : '';
  if (spec) {
    if (text.trim() === '') {
      if (spec.required) throw validationError(422, 'A JSON body is required.', [{ field: 'body', message: 'is required' }]);
    } else {
      try {
        body = JSON.parse(text);
      } catch (error) {
        throw validationError(400, `The body is not valid JSON: ${(error as Error).message}`, [{ field: 'body', message: 'malformed JSON' }]);
      }
      const validate = fragmentValidator(spec.schemaPointer);
      if (!validate(body)) throw validationError(422, "The body does not match the operation's schema.", fieldErrors(validate.errors ?? []));
    }
  }
  return { params, query, body };
}

function operationOf(operationId: string): FragmentOperation {
  const operation = fragmentOperations().find((op) => op.operationId === operationId);
  if (!operation) throw new Error(`no operation ${operationId} in mock/events/control-fragment.yaml`);
  return operation;
}

/**
 * Serves the webhook operations of mock/events/control-fragment.yaml (see the header). Call before
 * `app.ready()`; fastify prefers these routes to the control plane's catch-all `/__mock/*`. Only the
 * small fragment is read here: the schemas are resolved on the first request.
 */
export function registerWebhookRoutes(app: FastifyInstance, services: WebhookServices, options: ControlOptions = {}): void {
  for (const route of fragmentRoutes()) {
    const handler = webhookHandlers[route.operationId];
    if (!handler) throw new Error(`mock/events/control-fragment.yaml: ${route.operationId} has no handler in mock/control/webhooks.ts`);
    app.route({
      method: route.method.toUpperCase() as 'GET',
      url: route.path.replace(/\{([^{}]+)\}/g, ':$1'),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const requestId = `req_control_${randomBytes(8).toString('hex')}`;
        const instance = request.url.split('?')[0] ?? request.url;
        const ctx: ControlContext = {
          services,
          options,
          requestId,
          instance,
          account(accountId) {
            const account = services.store.accounts.get(accountId);
            if (!account) throw new ControlError(404, 'ACCOUNT_NOT_FOUND', `There is no account ${accountId}.`);
            return account;
          },
        };
        try {
          const result = await handler(readInput(operationOf(route.operationId), request), ctx);
          reply.status(result.status);
          if (result.body === undefined) return reply.send();
          return reply.type('application/json').send(JSON.stringify(result.body));
        } catch (error) {
          if (!(error instanceof ControlError)) {
            services.logError(error, `${request.method} ${instance}`);
            return reply
              .status(500)
              .type('application/problem+json')
              .send(JSON.stringify({ type: '/errors/INTERNAL_ERROR', title: 'Internal Server Error', status: 500, code: 'INTERNAL_ERROR', detail: 'The mock failed unexpectedly; this is a bug in the mock.', instance, requestId }));
          }
          return reply.status(error.status).type('application/problem+json').send(JSON.stringify(problem(error, instance, requestId)));
        }
      },
    });
  }
}
