/**
 * Control plane, clock: getClock, setClock (mode first, then advance, then to the next task; due
 * tasks run in order, webhook retries included), and one account's test clock: getAccountClock,
 * advanceAccountClock (D91: only that account's schedule moves).
 */
import { ClockRangeError, type AccountClock, type ClockMode, type OutsideWork } from '../core/clock.ts';
import { isoOrNull } from '../domain/shared.ts';
import type { MockServices } from '../services/services.ts';
import { clockState } from './present.ts';
import { invalidField, type ControlHandlers } from './types.ts';

export function accountClockState(clock: AccountClock) {
  return { accountId: clock.accountId, now: clock.nowIso(), advancedSeconds: clock.offsetMs / 1000, mode: clock.mode, pendingTasks: clock.pending, nextTaskAt: isoOrNull(clock.nextDue() ?? null) };
}

/**
 * Webhook attempts go out over real HTTP: an advance waits for each answer, so a retry due inside
 * it runs inside it, at its own due time (a 24-hour drill is one advance). An account's advance
 * waits for that account's attempts only; the mock's for every account's (D252). Each attempt is
 * bounded by its timeout (packages/mock-core/src/events/webhooks.ts).
 */
function settledWebhooks(services: MockServices, accountId?: string): OutsideWork {
  const webhooks = services.webhooks;
  if (accountId !== undefined) return { busy: () => webhooks.busyFor(accountId), settle: () => webhooks.idleFor(accountId) };
  return { busy: () => webhooks.busy, settle: () => webhooks.idle() };
}

/** An advance refused before anything moved (D251) is the caller's 422 on `field`. */
async function bounded(field: string, advance: () => Promise<void>): Promise<void> {
  try {
    await advance();
  } catch (error) {
    if (error instanceof ClockRangeError) throw invalidField(field, error.message);
    throw error;
  }
}

/**
 * Advance one account's clock (advanceSeconds, then to its next task): the hooks' clock uses it too
 * (`field` names the seconds in the caller's body). An advance past LATEST_TIME_MS is a 422 before
 * anything moves (D251).
 */
export async function advanceAccount(services: MockServices, accountId: string, change: { advanceSeconds?: number; toNextTask?: boolean }, field = 'advanceSeconds'): Promise<AccountClock> {
  const clock = services.clock.forAccount(accountId);
  const settled = settledWebhooks(services, accountId);
  if (change.advanceSeconds !== undefined) await bounded(field, () => clock.advanceSettled(change.advanceSeconds!, settled));
  if (change.toNextTask === true) {
    const due = clock.nextDue();
    if (due !== undefined) await bounded('toNextTask', () => clock.advanceSettled(Math.max(0, due - clock.now()) / 1000, settled));
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
    // The bound is checked before the mode changes, so a refused change moves nothing (D251).
    if (body.advanceSeconds !== undefined) await bounded('advanceSeconds', async () => services.clock.checkRoom(Math.round(body.advanceSeconds! * 1000)));
    if (body.mode !== undefined) services.clock.setMode(body.mode);
    const settled = settledWebhooks(services);
    if (body.advanceSeconds !== undefined) await bounded('advanceSeconds', () => services.clock.advanceSettled(body.advanceSeconds!, settled));
    if (body.toNextTask === true) {
      const due = services.clock.nextDue();
      if (due !== undefined) await bounded('toNextTask', () => services.clock.advanceSettled(Math.max(0, due - services.clock.now()) / 1000, settled));
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
