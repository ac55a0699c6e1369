/** Control plane, the client exam (packages/mock-core/src/exam/): startExam, getExamReport, stopExam. */
import { ruleReport } from '../exam/judge.ts';
import { ControlError, type ControlHandlers } from './types.ts';

export const examHandlers: ControlHandlers = {
  startExam(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const body = request.body as { seed: number; rate?: number };
    const session = ctx.services.exams.start(account.accountId, { seed: body.seed, ...(body.rate !== undefined ? { rate: body.rate } : {}) });
    // Sparse and empty pages before the last of every list (the existing drill, packages/mock-core/src/domain/shared.ts).
    account.settings.sparsePages = true;
    return { status: 200, body: { seed: session.options.seed, rate: session.options.rate ?? 0.3, requests: 0 } };
  },

  getExamReport(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const session = ctx.services.exams.get(account.accountId);
    if (!session) throw new ControlError(404, 'NOT_FOUND', `Account ${account.accountId} sits no exam: start one with PUT /__mock/accounts/${account.accountId}/exam.`);
    const exitCode = request.query.exitCode as number | undefined;
    return { status: 200, body: ruleReport(session.options.seed, session.records, exitCode === undefined ? undefined : { exitCode }) };
  },

  stopExam(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    ctx.services.exams.stop(account.accountId);
    return { status: 204 };
  },
};
