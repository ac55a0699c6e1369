/**
 * Control plane, credits: getCredits and updateCredits on /__mock/accounts/{accountId}/credits, so
 * tests can assert exactly what was held, charged and released, and set the scene (balance, daily
 * API budget, rate card). The views and the setter are the credits ledger's own
 * (packages/mock-core/src/domain/credits/settings.ts); the body is validated against packages/contract/spec/mock-control.yaml first
 * (CreditSettings), and the setter checks it as a whole again before anything changes.
 */
import type { FastifyInstance } from 'fastify';
import { creditsOf } from '../domain/credits/ledger.ts';
import { applyCreditSettings, creditsView } from '../domain/credits/settings.ts';
import { ControlError, type ControlHandlers } from './types.ts';

export const creditHandlers: ControlHandlers = {
  getCredits(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const filter = { refId: request.query.refId as string | undefined, limit: request.query.limit as number | undefined };
    return { status: 200, body: { accountId: account.accountId, ...creditsView(creditsOf(account), ctx.services.clock.forAccount(account.accountId).now(), filter) } };
  },

  updateCredits(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const result = applyCreditSettings(creditsOf(account), request.body ?? {});
    if (!result.ok) throw new ControlError(422, 'VALIDATION_ERROR', 'The credit settings are invalid; nothing changed.', result.errors);
    return { status: 200, body: { accountId: account.accountId, ...creditsView(creditsOf(account), ctx.services.clock.forAccount(account.accountId).now()) } };
  },
};

/**
 * @deprecated The credits routes are registered with the rest of the control plane by
 * registerControlRoutes (packages/mock/src/node/app.ts); this does nothing. Kept only so that
 * packages/mock-core/src/domain/credits/control-routes.test.ts, written before the wiring, still compiles: drop the
 * call there and then this function.
 */
export function registerCreditRoutes(_app: FastifyInstance, _services: unknown): void {}
