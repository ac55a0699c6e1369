/** Control plane, clock: getClock, setClock (mode first, then advance; due tasks run in order, webhook retries included). */
import type { Clock, ClockMode } from '../clock.ts';
import type { ControlHandlers } from './http.ts';

function clockState(clock: Clock) {
  return { now: clock.nowIso(), mode: clock.mode, pendingTasks: clock.pending };
}

export const clockHandlers: ControlHandlers = {
  getClock(_request, { services }) {
    return { status: 200, body: clockState(services.clock) };
  },

  async setClock(request, { services }) {
    const body = (request.body ?? {}) as { mode?: ClockMode; advanceSeconds?: number };
    if (body.mode !== undefined) services.clock.setMode(body.mode);
    // Webhook attempts go out over real HTTP: the advance waits for each answer, so a retry due
    // inside it runs inside it, at its own due time (a 24-hour drill is one advance).
    const webhooks = services.webhooks;
    if (body.advanceSeconds !== undefined) await services.clock.advanceSettled(body.advanceSeconds, { busy: () => webhooks.busy, settle: () => webhooks.idle() });
    return { status: 200, body: clockState(services.clock) };
  },
};
