/**
 * Control plane, webhooks: what the dashboard does with webhook endpoints (the public API has no
 * endpoint resource, EVT-004), the delivery log and the processing delay. The contract is
 * packages/contract/spec/mock-control.yaml (tag `webhooks`); the scheduler is packages/mock-core/src/events/webhooks.ts
 * (`services.webhooks`).
 *
 *   createWebhookEndpoint, listWebhookEndpoints, getWebhookEndpoint, updateWebhookEndpoint,
 *   deleteWebhookEndpoint, listWebhookDeliveries, resendWebhookDelivery, getAccountWebhookSettings,
 *   updateAccountWebhookSettings, getWebhookSettings, updateWebhookSettings
 *
 * `webhookHandlers` (by operationId) are part of routes.ts's `controlHandlers`: the control
 * document's dispatcher validates every request and serves them like any other control operation.
 */
import type { MockServices } from '../services/services.ts';
import { presentEndpoint, WebhookInputError, type EndpointInput, type EndpointPatch, type WebhookEndpoint } from '../events/endpoints.ts';
import type { WebhookService } from '../events/webhooks.ts';
import { newest } from './events.ts';
import { isoOrNull } from '../domain/shared.ts';
import type { AccountState } from '../domain/store.ts';
import { ControlError, type ControlHandlers } from './types.ts';
import { presentDelivery } from './present.ts';

/** The webhook service of the mock (buildMock creates it as `services.webhooks`). */
function webhooksOf(services: MockServices): WebhookService {
  const service = (services as MockServices & { webhooks?: WebhookService }).webhooks;
  if (!service) throw new Error('services.webhooks is missing: buildMock must create the WebhookService (packages/mock-core/src/events/webhooks.ts)');
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

function accountSettings(service: WebhookService, account: AccountState) {
  return { ...service.settings(account), planIncludesWebhooks: account.plan.webhooks };
}

function globalSettings(service: WebhookService) {
  return { processingDelaySeconds: service.processingDelaySeconds, retry: { ...service.retryPolicy }, requestTimeoutMs: service.requestTimeoutMs };
}

export const webhookHandlers: ControlHandlers = {
  listPendingDeliveries(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const data = webhooksOf(ctx.services).pendingDeliveries(account).map((d) => ({ ...d, dueAt: isoOrNull(d.dueAt) }));
    return { status: 200, body: { data } };
  },

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
    const service = webhooksOf(ctx.services);
    const rows = service.deliveries(account, { ...(endpointId !== undefined ? { endpointId } : {}), ...(eventId !== undefined ? { eventId } : {}), ...(type !== undefined ? { type } : {}) });
    return { status: 200, body: { data: newest(rows, request.query.limit as number | undefined).map((row) => presentDelivery(row, service.sentRequest(row))) } };
  },

  resendWebhookDelivery(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const deliveryId = request.params.deliveryId!;
    const delivery = webhooksOf(ctx.services).resend(account, deliveryId);
    if (!delivery) throw new ControlError(404, 'NOT_FOUND', `There is no delivery ${deliveryId} in the delivery log of account ${account.accountId}, or its event is no longer kept.`);
    return { status: 202, body: { deliveryId: delivery.deliveryId, eventId: delivery.event.eventId, endpointId: delivery.endpointId, resentFrom: deliveryId } };
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
