/** Control plane, clock: getClock, setClock (mode first, then advance; due tasks run in order). */
import type { Clock, ClockMode } from '../clock.ts';
import type { ControlHandlers } from './http.ts';

function clockState(clock: Clock) {
  return { now: clock.nowIso(), mode: clock.mode, pendingTasks: clock.pending };
}

export const clockHandlers: ControlHandlers = {
  getClock(_request, { services }) {
    return { status: 200, body: clockState(services.clock) };
  },

  setClock(request, { services }) {
    const body = (request.body ?? {}) as { mode?: ClockMode; advanceSeconds?: number };
    if (body.mode !== undefined) services.clock.setMode(body.mode);
    if (body.advanceSeconds !== undefined) services.clock.advance(body.advanceSeconds);
    return { status: 200, body: clockState(services.clock) };
  },
};
