/** Control plane, the live stream: streamChanges (the feed: packages/mock-core/src/services/feed.ts). */
import type { ControlHandlers } from './types.ts';

export const streamHandlers: ControlHandlers = {
  streamChanges(request, ctx) {
    const accountId = request.query.accountId as string | undefined;
    if (accountId !== undefined) ctx.account(accountId); // 404 for an unknown account
    return { status: 200, stream: (sink) => ctx.services.feed.watch(accountId, sink) };
  },
};
