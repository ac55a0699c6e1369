import { describe, expect, it } from 'vitest';
import type { ItemOutcome, Run, RunCounts, RunItem, RunStatus } from './model.ts';
import { itemTransition, runTransition, terminalStatus, type ItemEvent, type RunEvent } from './transitions.ts';

const T0 = Date.UTC(2026, 0, 1);
const NOW = T0 + 60_000;

function run(overrides: Omit<Partial<Run>, 'counts'> & { counts?: Partial<RunCounts> } = {}): Run {
  const total = overrides.total ?? 4;
  const { counts, ...rest } = overrides;
  return {
    runId: 'run_1',
    ordinal: 0,
    status: 'RUNNING',
    total,
    productIds: ['p1', 'p2'],
    creativesPerProduct: 2,
    presetId: 'pst_studio_white',
    modality: 'image',
    imageSize: '1K',
    referenceSource: 'PRIMARY',
    credits: { estimated: total, perCreative: 1, rateCardVersion: 'v1' },
    running: 0,
    nextPosition: 0,
    createdAt: T0,
    finalizedAt: null,
    estimatedCompletion: { completesAt: T0 + 20_000, durationSeconds: 20 },
    ...rest,
    counts: { succeeded: 0, failed: 0, refused: 0, stopped: 0, pending: total, ...counts },
  };
}

interface Want {
  status: RunStatus;
  counts?: Partial<RunCounts>;
  running?: number;
  nextPosition?: number;
  final: boolean;
  completed: boolean;
  changed?: boolean;
}

const cases: [string, { given: Run; event: RunEvent; want: Want }][] = [
  ['RUN-026: ACCEPTED → RUNNING when the first item starts', { given: run({ status: 'ACCEPTED' }), event: { type: 'item_started' }, want: { status: 'RUNNING', running: 1, nextPosition: 1, final: false, completed: false } }],
  ['RUN-006: no item starts once STOPPING', { given: run({ status: 'STOPPING', running: 1, nextPosition: 4, counts: { stopped: 2, pending: 2 } }), event: { type: 'item_started' }, want: { status: 'STOPPING', final: false, completed: false, changed: false } }],
  ['no item starts past the last position', { given: run({ running: 2, nextPosition: 4 }), event: { type: 'item_started' }, want: { status: 'RUNNING', nextPosition: 4, final: false, completed: false, changed: false } }],
  ['an item settling with others pending keeps the run RUNNING', { given: run({ running: 2, nextPosition: 2 }), event: { type: 'item_settled', outcome: 'failed' }, want: { status: 'RUNNING', counts: { failed: 1, pending: 3 }, running: 1, final: false, completed: false } }],
  ['RUN-028: every item succeeded → SUCCEEDED', { given: run({ running: 1, nextPosition: 4, counts: { succeeded: 3, pending: 1 } }), event: { type: 'item_settled', outcome: 'succeeded' }, want: { status: 'SUCCEEDED', counts: { succeeded: 4, pending: 0 }, final: true, completed: true } }],
  ['RUN-029: some succeeded → PARTIAL', { given: run({ running: 1, nextPosition: 4, counts: { succeeded: 1, failed: 1, refused: 1, pending: 1 } }), event: { type: 'item_settled', outcome: 'failed' }, want: { status: 'PARTIAL', counts: { succeeded: 1, failed: 2, refused: 1, pending: 0 }, final: true, completed: true } }],
  ['RUN-030: none succeeded and every item refused → REFUSED', { given: run({ running: 1, nextPosition: 4, counts: { refused: 3, pending: 1 } }), event: { type: 'item_settled', outcome: 'refused' }, want: { status: 'REFUSED', counts: { refused: 4, pending: 0 }, final: true, completed: true } }],
  ['RUN-031: none succeeded, not all refused → FAILED', { given: run({ running: 1, nextPosition: 4, counts: { refused: 3, pending: 1 } }), event: { type: 'item_settled', outcome: 'failed' }, want: { status: 'FAILED', counts: { refused: 3, failed: 1, pending: 0 }, final: true, completed: true } }],
  ['RUN-023: stop in the middle: not-started items settle stopped, running ones stay', { given: run({ running: 2, nextPosition: 3, counts: { succeeded: 1, pending: 3 } }), event: { type: 'stop', completesAt: NOW + 5000 }, want: { status: 'STOPPING', counts: { succeeded: 1, stopped: 1, pending: 2 }, running: 2, nextPosition: 4, final: false, completed: false } }],
  ['RUN-024, RUN-027: the last running item of a STOPPING run settles → STOPPED', { given: run({ status: 'STOPPING', running: 1, nextPosition: 4, counts: { succeeded: 1, stopped: 2, pending: 1 } }), event: { type: 'item_settled', outcome: 'succeeded' }, want: { status: 'STOPPED', counts: { succeeded: 2, stopped: 2, pending: 0 }, final: true, completed: true } }],
  ['RUN-027: STOPPING ends STOPPED even when every item succeeded', { given: run({ status: 'STOPPING', running: 1, nextPosition: 4, counts: { succeeded: 3, pending: 1 } }), event: { type: 'item_settled', outcome: 'succeeded' }, want: { status: 'STOPPED', counts: { succeeded: 4, pending: 0 }, final: true, completed: true } }],
  ['stop of an ACCEPTED run: every item stopped, STOPPING until drained', { given: run({ status: 'ACCEPTED' }), event: { type: 'stop', completesAt: NOW }, want: { status: 'STOPPING', counts: { stopped: 4, pending: 0 }, running: 0, final: false, completed: false } }],
  ['drain: a STOPPING run with nothing running → STOPPED', { given: run({ status: 'STOPPING', running: 0, nextPosition: 4, counts: { stopped: 4, pending: 0 } }), event: { type: 'drain' }, want: { status: 'STOPPED', final: true, completed: true } }],
  ['drain does nothing while items run', { given: run({ status: 'STOPPING', running: 1, nextPosition: 4, counts: { stopped: 3, pending: 1 } }), event: { type: 'drain' }, want: { status: 'STOPPING', final: false, completed: false, changed: false } }],
  ['RUN-038: stop of a STOPPING run changes nothing', { given: run({ status: 'STOPPING', running: 1, nextPosition: 4, counts: { stopped: 3, pending: 1 } }), event: { type: 'stop', completesAt: NOW }, want: { status: 'STOPPING', final: false, completed: false, changed: false } }],
  ['RUN-038: stop of a final run changes nothing', { given: run({ status: 'SUCCEEDED', nextPosition: 4, finalizedAt: T0, estimatedCompletion: null, counts: { succeeded: 4, pending: 0 } }), event: { type: 'stop', completesAt: NOW }, want: { status: 'SUCCEEDED', final: true, completed: false, changed: false } }],
  ['RUN-032: expire: unsettled items count as failed → EXPIRED', { given: run({ running: 2, nextPosition: 3, counts: { succeeded: 1, pending: 3 } }), event: { type: 'expire' }, want: { status: 'EXPIRED', counts: { succeeded: 1, failed: 3, pending: 0 }, running: 0, final: true, completed: true } }],
  ['RUN-032: a STOPPING run with a stalled item expires too', { given: run({ status: 'STOPPING', running: 1, nextPosition: 4, counts: { stopped: 3, pending: 1 } }), event: { type: 'expire' }, want: { status: 'EXPIRED', counts: { stopped: 3, failed: 1, pending: 0 }, final: true, completed: true } }],
  ['RUN-021: a final run never changes again (no second run.completed)', { given: run({ status: 'EXPIRED', nextPosition: 4, finalizedAt: T0, estimatedCompletion: null, counts: { failed: 4, pending: 0 } }), event: { type: 'expire' }, want: { status: 'EXPIRED', final: true, completed: false, changed: false } }],
  ['RUN-021: a late settle on a final run changes nothing', { given: run({ status: 'EXPIRED', running: 0, nextPosition: 4, finalizedAt: T0, estimatedCompletion: null, counts: { failed: 4, pending: 0 } }), event: { type: 'item_settled', outcome: 'succeeded' }, want: { status: 'EXPIRED', final: true, completed: false, changed: false } }],
];

describe('runTransition (D9, D10)', () => {
  it.each(cases)('%s', (_name, { given, event, want }) => {
    const t = runTransition(given, event, NOW);
    expect(t.next.status).toBe(want.status);
    if (want.counts) expect(t.next.counts).toEqual({ ...given.counts, ...want.counts });
    if (want.running !== undefined) expect(t.next.running).toBe(want.running);
    if (want.nextPosition !== undefined) expect(t.next.nextPosition).toBe(want.nextPosition);
    if (want.changed !== undefined) expect(t.changed).toBe(want.changed);
    // counts always sum to total
    const c = t.next.counts;
    expect(c.succeeded + c.failed + c.refused + c.stopped + c.pending).toBe(t.next.total);
    // RUN-011, RUN-013, RUN-021: finalizedAt and estimatedCompletion follow finality; run.completed once
    if (want.final) {
      expect(t.next.finalizedAt).not.toBeNull();
      expect(t.next.estimatedCompletion).toBeNull();
    } else expect(t.next.finalizedAt).toBeNull();
    expect(t.events).toEqual(want.completed ? [{ type: 'run.completed' }] : []);
    if (want.completed) expect(t.next.finalizedAt).toBe(NOW);
    else if (given.finalizedAt !== null) expect(t.next.finalizedAt).toBe(given.finalizedAt);
  });

  it('D11: stop moves estimatedCompletion to when the running items end', () => {
    const t = runTransition(run({ running: 1, nextPosition: 1 }), { type: 'stop', completesAt: NOW + 7_000 }, NOW);
    expect(t.next.estimatedCompletion).toEqual({ completesAt: NOW + 7_000, durationSeconds: 67 });
  });

  it('does not mutate its input', () => {
    const given = run({ running: 1, nextPosition: 4, counts: { succeeded: 3, pending: 1 } });
    const copy = structuredClone(given);
    runTransition(given, { type: 'item_settled', outcome: 'succeeded' }, NOW);
    expect(given).toEqual(copy);
  });
});

describe('terminalStatus (D10)', () => {
  const table: [string, { status: RunStatus; counts: Partial<RunCounts>; want: RunStatus }][] = [
    ['all succeeded', { status: 'RUNNING', counts: { succeeded: 4, pending: 0 }, want: 'SUCCEEDED' }],
    ['one succeeded', { status: 'RUNNING', counts: { succeeded: 1, refused: 3, pending: 0 }, want: 'PARTIAL' }],
    ['all refused', { status: 'RUNNING', counts: { refused: 4, pending: 0 }, want: 'REFUSED' }],
    ['all failed', { status: 'RUNNING', counts: { failed: 4, pending: 0 }, want: 'FAILED' }],
    ['stopping', { status: 'STOPPING', counts: { stopped: 4, pending: 0 }, want: 'STOPPED' }],
  ];
  it.each(table)('%s', (_name, { status, counts, want }) => {
    expect(terminalStatus(run({ status, counts }))).toBe(want);
  });
});

function item(overrides: Partial<RunItem> = {}): RunItem {
  return { jobId: 'job_1', runId: 'run_1', productId: 'p1', position: 0, status: 'QUEUED', outcome: null, assetId: null, startedAt: null, settledAt: null, holdId: null, drawn: null, settlesAt: null, ...overrides };
}

describe('itemTransition (D12)', () => {
  const table: [string, { given: RunItem; event: ItemEvent; want: Partial<RunItem> }][] = [
    ['QUEUED → RUNNING on start', { given: item(), event: { type: 'start', holdId: 'hld_1', drawn: 'succeeded', settlesAt: NOW + 1 }, want: { status: 'RUNNING', startedAt: NOW, holdId: 'hld_1' } }],
    ['RUN-015: RUNNING → SETTLED succeeded, with its asset', { given: item({ status: 'RUNNING', startedAt: T0, holdId: 'hld_1' }), event: { type: 'settle', outcome: 'succeeded', assetId: 'ast_1' }, want: { status: 'SETTLED', outcome: 'succeeded', assetId: 'ast_1', settledAt: NOW, holdId: null } }],
    ['RUNNING → SETTLED failed, no asset', { given: item({ status: 'RUNNING', startedAt: T0, holdId: 'hld_1' }), event: { type: 'settle', outcome: 'failed', assetId: 'ast_x' }, want: { status: 'SETTLED', outcome: 'failed', assetId: null, holdId: null } }],
    ['QUEUED → SETTLED stopped, never started', { given: item(), event: { type: 'settle', outcome: 'stopped', assetId: null }, want: { status: 'SETTLED', outcome: 'stopped', startedAt: null, settledAt: NOW } }],
    ['a settled item never changes', { given: item({ status: 'SETTLED', outcome: 'refused', settledAt: T0 }), event: { type: 'settle', outcome: 'succeeded' as ItemOutcome, assetId: 'ast_1' }, want: { status: 'SETTLED', outcome: 'refused', settledAt: T0 } }],
    ['start of a running item changes nothing', { given: item({ status: 'RUNNING', startedAt: T0 }), event: { type: 'start', holdId: 'hld_2', drawn: 'failed', settlesAt: null }, want: { status: 'RUNNING', startedAt: T0 } }],
  ];
  it.each(table)('%s', (_name, { given, event, want }) => {
    const t = itemTransition(given, event, NOW);
    expect(t.next).toMatchObject(want);
    expect(t.events).toEqual([]);
  });
});
