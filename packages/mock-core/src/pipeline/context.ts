/**
 * The one request-id scheme and the one way to build an operation's RequestContext: the
 * pipeline (index.ts) and the control plane's actions (packages/mock-core/src/control/actions.ts) both build it here.
 */
import { randomHex } from '../../../contract/platform/crypto.ts';
import type { EventLog } from '../events/log.ts';
import type { RequestContext } from '../domain/operation.ts';

// Request ids: a random per-process prefix (48 bits) and a counter (hex, 8 digits until it passes
// 2^32, then longer), so every id stays unique without asking the CSPRNG on each request. The
// control plane's answers say so in their prefix (`req_control_`).
const REQUEST_ID_PREFIX = randomHex(6);
let requestCounter = 0;

export function nextRequestId(plane: 'api' | 'control' = 'api'): string {
  requestCounter += 1;
  return `req_${plane === 'control' ? 'control_' : ''}${REQUEST_ID_PREFIX}${requestCounter.toString(16).padStart(8, '0')}`;
}

/**
 * An operation's context: `now` is read from the account's clock as it is built (after any wait:
 * the change happens now), and `emit` records events as this actor at the clock's time then.
 */
export function requestContext(events: EventLog, parts: Omit<RequestContext, 'now' | 'emit'>): RequestContext {
  const { account, actor, clock } = parts;
  return { ...parts, now: clock.now(), emit: (resource, drafts) => events.record(account, resource, drafts, actor, clock.now()) };
}
