/**
 * Control plane, faults: updateAccountFaults (per account), getGlobalFaults and
 * updateGlobalFaults (every account). The pipeline's faults stage reads them on every request.
 */
import type { AccountFaults, GlobalFaults } from '../domain/store.ts';
import type { ControlHandlers } from './types.ts';

export const faultHandlers: ControlHandlers = {
  updateAccountFaults(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    Object.assign(account.faults, request.body as Partial<AccountFaults>);
    return { status: 200, body: { ...account.faults } };
  },

  getGlobalFaults(_request, { services }) {
    return { status: 200, body: { ...services.store.global } };
  },

  updateGlobalFaults(request, { services }) {
    Object.assign(services.store.global, request.body as Partial<GlobalFaults>);
    return { status: 200, body: { ...services.store.global } };
  },
};
