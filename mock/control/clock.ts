/** Control plane, clock: getClock, setClock (mode first, then advance, then to the next task; due tasks run in order, webhook retries included). */
import type { ClockMode } from '../core/clock.ts';
import { clockState } from './present.ts';
import type { ControlHandlers } from './http.ts';

export const clockHandlers: ControlHandlers = {
  getClock(_request, { services }) {
    return { status: 200, body: clockState(services.clock) };
  },

  async setClock(request, { services }) {
    const body = (request.body ?? {}) as { mode?: ClockMode; advanceSeconds?: number; toNextTask?: boolean };
    if (body.mode !== undefined) services.clock.setMode(body.mode);
    // Webhook attempts go out over real HTTP: the advance waits for each answer, so a retry due
    // inside it runs inside it, at its own due time (a 24-hour drill is one advance).
    const webhooks = services.webhooks;
    const settled = { busy: () => webhooks.busy, settle: () => webhooks.idle() };
    if (body.advanceSeconds !== undefined) await services.clock.advanceSettled(body.advanceSeconds, settled);
    if (body.toNextTask === true) {
      const due = services.clock.nextDue();
      if (due !== undefined) await services.clock.advanceSettled(Math.max(0, due - services.clock.now()) / 1000, settled);
    }
    if (body.mode !== undefined || body.advanceSeconds !== undefined || body.toNextTask === true) services.feed.clockMoved();
    return { status: 200, body: clockState(services.clock) };
  },
};
