/** Control plane, events: listEvents (the account's event log, oldest first, optionally filtered). */
import type { ControlHandlers } from './types.ts';
import { presentEvent } from './present.ts';

/** The last `limit` items (all of them without one), in their order. */
export function newest<T>(items: T[], limit: number | undefined): T[] {
  return limit === undefined || items.length <= limit ? items : items.slice(items.length - limit);
}

export const eventHandlers: ControlHandlers = {
  listEvents(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const type = request.query.type as string | undefined;
    const resourceId = request.query.resourceId as string | undefined;
    const limit = request.query.limit as number | undefined;
    const data = newest(
      account.events.filter((e) => (type === undefined || e.type === type) && (resourceId === undefined || e.resource.id === resourceId)),
      limit,
    ).map(presentEvent);
    return { status: 200, body: { data } };
  },
};
