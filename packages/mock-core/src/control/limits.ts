/**
 * Control plane, rate limits: getLimits, updateLimits (every account), updateAccountLimits. The
 * names are the rate-limit stage's (packages/mock-core/src/pipeline/rate-limit.ts): `group:<group>`,
 * `account:<traffic>`, `ip:<traffic>`; an account's override wins over a global one.
 */
import { rateLimits } from '../../../contract/spec/tables.ts';
import type { ControlHandlers } from './types.ts';
import { putOwn } from '../core/own.ts';

/** Every limit name with the document's default quota. */
export function defaultLimits(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [group, spec] of Object.entries(rateLimits.groups)) out[`group:${group}`] = spec.limit;
  for (const [traffic, caps] of Object.entries(rateLimits.caps)) out[`account:${traffic}`] = caps.account;
  for (const [traffic, caps] of Object.entries(rateLimits.caps)) out[`ip:${traffic}`] = caps.ip;
  return out;
}

/** Merge a validated patch: a number sets the override, null removes it. */
function mergeOverrides(target: Record<string, number>, patch: Record<string, number | null>): void {
  for (const [name, quota] of Object.entries(patch)) {
    if (quota === null) delete target[name];
    else putOwn(target, name, quota);
  }
}

export const limitHandlers: ControlHandlers = {
  getLimits(_request, { services }) {
    return { status: 200, body: { defaults: defaultLimits(), overrides: { ...services.store.limitOverrides } } };
  },

  updateLimits(request, { services }) {
    mergeOverrides(services.store.limitOverrides, request.body as Record<string, number | null>);
    return { status: 200, body: { defaults: defaultLimits(), overrides: { ...services.store.limitOverrides } } };
  },

  updateAccountLimits(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    mergeOverrides(account.limitOverrides, request.body as Record<string, number | null>);
    return { status: 200, body: { overrides: { ...account.limitOverrides } } };
  },
};
