/** Run operations: estimateRun, createRun, listRuns, getRun, listRunItems, stopRun. */
import { basePath } from '../../../../contract/spec/contract.ts';
import { ApiError } from '../../core/errors.ts';
import type { HandlerTable, RequestContext } from '../operation.ts';
import { nextId, type AccountState } from '../store.ts';
import { Collection } from '../../core/collection.ts';
import { budgetStatus, creditsOf, spendRefusal } from '../credits/ledger.ts';
import { assertSpendReachable } from '../credits/spend.ts';
import { iso, listPage } from '../shared.ts';
import type { Run, RunItem } from './model.ts';
import { presentItem, presentRun } from './present.ts';
import { assertRunEntitled, quoteRun, type RunRequest } from './quote.ts';
import { envOf, expectedDurationSeconds, itemBaseMs, itemsOf, launchRun, stopRun } from './scheduler.ts';

function findRun(account: AccountState, runId: string): Run {
  const run = account.runs.get(runId);
  // Another account's run is simply absent: the uniform 404.
  if (!run) throw new ApiError('RUN_NOT_FOUND', 'No such run.');
  return run;
}

function createRun(ctx: RequestContext) {
  const { account, now } = ctx;
  const body = ctx.body as RunRequest;
  const quote = quoteRun(account, body);

  // D19, ERR-036: the client priced against another rate card.
  if (body.expectedRateCardVersion !== undefined && body.expectedRateCardVersion !== quote.rateCardVersion) {
    throw new ApiError('PRICE_CHANGED', `The rate card is now ${quote.rateCardVersion}, not ${body.expectedRateCardVersion}; estimate again.`);
  }
  // D19, ERR-035: the price is above the client's ceiling.
  if (body.maxCredits !== undefined && quote.estimated > body.maxCredits) {
    throw new ApiError('PRICE_EXCEEDS_MAX', `The run costs ${quote.estimated} credits, more than maxCredits ${body.maxCredits}.`);
  }
  // ERR-033: balance and budget live behind the spend dependency.
  assertSpendReachable(account, ctx.headers.prefer);
  // D19, ERR-037: the estimate exceeds the remaining daily API budget or the available balance.
  const refusal = spendRefusal(creditsOf(account), quote.estimated, now);
  if (refusal) {
    throw new ApiError(
      'ACCOUNT_SPEND_CAP_EXCEEDED',
      refusal === 'budget' ? `The run's ${quote.estimated} credits exceed what remains of the daily API credit budget.` : `The run's ${quote.estimated} credits exceed the available balance.`,
    );
  }

  // Everything above is decided before anything is written (ERR-021).
  const runId = nextId(account, 'run');
  const items = new Collection<RunItem>();
  let position = 0;
  // RUN-001, RUN-014: creativesPerProduct items per product, in request order.
  for (const productId of body.productIds) {
    for (let k = 0; k < body.creativesPerProduct; k++) {
      const jobId = nextId(account, 'job');
      items.set(jobId, { jobId, runId, productId, position: position++, status: 'QUEUED', outcome: null, assetId: null, startedAt: null, settledAt: null, holdId: null, drawn: null, settlesAt: null });
    }
  }
  const durationSeconds = expectedDurationSeconds(quote.total, itemBaseMs({ store: ctx.store, account }));
  const run: Run = {
    runId,
    ordinal: account.runs.size,
    status: 'ACCEPTED', // RUN-025
    total: quote.total,
    productIds: [...body.productIds],
    creativesPerProduct: body.creativesPerProduct,
    presetId: quote.preset.presetId,
    modality: quote.modality,
    imageSize: quote.imageSize,
    referenceSource: quote.referenceSource,
    // RUN-043: the quoted price and rate card version, pinned at create time.
    credits: { estimated: quote.estimated, perCreative: quote.perCreative, rateCardVersion: quote.rateCardVersion },
    counts: { succeeded: 0, failed: 0, refused: 0, stopped: 0, pending: quote.total },
    running: 0,
    nextPosition: 0,
    createdAt: now,
    finalizedAt: null,
    estimatedCompletion: { completesAt: now + durationSeconds * 1000, durationSeconds },
  };
  account.runs.set(runId, run);
  account.runItems.set(runId, items);
  // RUN-002: answered at once; items are generated afterwards, on the clock.
  launchRun(envOf(ctx), run);
  // RUN-035: 202 with Location.
  return { status: 202, headers: { location: `${basePath}/runs/${runId}` }, body: presentRun(run), resource: { kind: 'run', id: runId } };
}

export const runHandlers: HandlerTable = {
  estimateRun: {
    run(ctx) {
      const { account, now } = ctx;
      // RUN-004, RUN-034: same body as POST /runs; nothing is written or charged.
      const quote = quoteRun(account, ctx.body as RunRequest);
      assertSpendReachable(account, ctx.headers.prefer);
      const budget = budgetStatus(creditsOf(account), now);
      // The injected defect `estimate-creates-run` (packages/mock-core/src/events/defects.ts): the run is made too, when it could be.
      if (ctx.store.defects.has('estimate-creates-run')) {
        try {
          createRun(ctx);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
        }
      }
      return {
        status: 200,
        body: {
          object: 'run_estimate',
          total: quote.total,
          ...(quote.imageSize !== null ? { imageSize: quote.imageSize } : {}),
          credits: { estimated: quote.estimated, perCreative: quote.perCreative, rateCardVersion: quote.rateCardVersion },
          // RUN-005: reported whenever the account has a budget, even one already too small.
          ...(budget
            ? { budget: { dailyLimit: budget.dailyLimit, usedToday: budget.usedToday, remaining: budget.remaining, resetsAt: iso(budget.resetsAt), sufficient: quote.estimated <= budget.remaining } }
            : {}),
        },
      };
    },
  },
  createRun: { entitle: (account, body) => assertRunEntitled(account, body as RunRequest), run: createRun }, // IDEM-013, D72
  listRuns: {
    run(ctx) {
      // RUN-033: newest first; RUN-010: a non-final row omits counts.
      const page = listPage(ctx.account, ctx.account.runs, ctx.query, { listKey: 'runs', direction: 'desc', filter: () => true, present: (r) => presentRun(r, { listRow: true }) });
      return { status: 200, body: { object: 'list', ...page } };
    },
  },
  getRun: {
    run(ctx) {
      // RUN-036: status and counts.
      return { status: 200, body: presentRun(findRun(ctx.account, ctx.pathParams.runId!)) };
    },
  },
  listRunItems: {
    run(ctx) {
      const run = findRun(ctx.account, ctx.pathParams.runId!);
      // RUN-014: one row per planned creative, in request order.
      const page = listPage(ctx.account, itemsOf(ctx.account, run.runId), ctx.query, {
        listKey: `runItems:${run.runId}`,
        direction: 'asc',
        filter: () => true,
        present: (item) => presentItem(ctx.account, item, ctx.store.publicOrigin),
      });
      return { status: 200, body: { object: 'list', ...page } };
    },
  },
  stopRun: {
    run(ctx) {
      const run = findRun(ctx.account, ctx.pathParams.runId!);
      // RUN-023, RUN-038: 202 with the run (STOPPING, or unchanged when already STOPPING or final).
      const next = stopRun(envOf(ctx), run.runId);
      return { status: 202, body: presentRun(next), resource: { kind: 'run', id: run.runId } };
    },
  },
};
