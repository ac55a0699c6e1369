/** Control plane, requests: listRequests (the account's request journal, packages/mock-core/src/pipeline/journal.ts). */
import { iso } from '../domain/shared.ts';
import { JOURNAL_CAPACITY, presentRecord } from '../pipeline/journal.ts';
import type { ControlHandlers } from './types.ts';

export const requestHandlers: ControlHandlers = {
  listRequests(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const journal = ctx.services.journal;
    const limit = (request.query.limit as number | undefined) ?? 50;
    const before = request.query.before as number | undefined;
    const data = journal.list(account, limit, before).map((record) => presentRecord(record, iso));
    return { status: 200, body: { data, capacity: JOURNAL_CAPACITY, total: journal.total(account) } };
  },
};
