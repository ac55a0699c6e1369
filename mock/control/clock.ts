/**
 * Control plane, clock: getClock, setClock (mode first, then advance, then to the next task; due
 * tasks run in order, webhook retries included), and one account's test clock: getAccountClock,
 * advanceAccountClock (D91: only that account's schedule moves).
 */
import type { AccountClock, ClockMode, OutsideWork } from '../core/clock.ts';
import { isoOrNull } from '../domain/shared.ts';
import type { MockServices } from '../services/services.ts';
import { clockState } from './present.ts';
import type { ControlHandlers } from './types.ts';

export function accountClockState(clock: AccountClock) {
  return { accountId: clock.accountId, now: clock.nowIso(), advancedSeconds: clock.offsetMs / 1000, mode: clock.mode, pendingTasks: clock.pending, nextTaskAt: isoOrNull(clock.nextDue() ?? null) };
}

/**
 * Webhook attempts go out over real HTTP: an advance waits for each answer, so a retry due inside
 * it runs inside it, at its own due time (a 24-hour drill is one advance).
 */
function settledWebhooks(services: MockServices): OutsideWork {
  const webhooks = services.webhooks;
  return { busy: () => webhooks.busy, settle: () => webhooks.idle() };
}

/** Advance one account's clock (advanceSeconds, then to its next task): the hooks' clock uses it too. */
export async function advanceAccount(services: MockServices, accountId: string, change: { advanceSeconds?: number; toNextTask?: boolean }): Promise<AccountClock> {
  const clock = services.clock.forAccount(accountId);
  const settled = settledWebhooks(services);
  if (change.advanceSeconds !== undefined) await clock.advanceSettled(change.advanceSeconds, settled);
  if (change.toNextTask === true) {
    const due = clock.nextDue();
    if (due !== undefined) await clock.advanceSettled(Math.max(0, due - clock.now()) / 1000, settled);
  }
  if (change.advanceSeconds !== undefined || change.toNextTask === true) services.feed.clockMoved();
  return clock;
}

export const clockHandlers: ControlHandlers = {
  getClock(_request, { services }) {
    return { status: 200, body: clockState(services.clock) };
  },

  async setClock(request, { services }) {
    const body = (request.body ?? {}) as { mode?: ClockMode; advanceSeconds?: number; toNextTask?: boolean };
    if (body.mode !== undefined) services.clock.setMode(body.mode);
    const settled = settledWebhooks(services);
    if (body.advanceSeconds !== undefined) await services.clock.advanceSettled(body.advanceSeconds, settled);
    if (body.toNextTask === true) {
      const due = services.clock.nextDue();
      if (due !== undefined) await services.clock.advanceSettled(Math.max(0, due - services.clock.now()) / 1000, settled);
    }
    if (body.mode !== undefined || body.advanceSeconds !== undefined || body.toNextTask === true) services.feed.clockMoved();
    return { status: 200, body: clockState(services.clock) };
  },

  getAccountClock(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    return { status: 200, body: accountClockState(ctx.services.clock.forAccount(account.accountId)) };
  },

  async advanceAccountClock(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const clock = await advanceAccount(ctx.services, account.accountId, (request.body ?? {}) as { advanceSeconds?: number; toNextTask?: boolean });
    return { status: 200, body: accountClockState(clock) };
  },
};
