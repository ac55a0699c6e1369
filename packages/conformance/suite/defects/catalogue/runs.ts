/** The defect catalogue, runs (kind `runs`). */
import { isEnvelope, isObject, withBody, bodyOf } from '../exchange.ts';
import { ok, eachTagged, rewriteJsonBody, TERMINAL_RUN } from './helpers.ts';
import { byRules, inFile, type DefectEntry } from './model.ts';

export const runsDefects: readonly DefectEntry[] = [
  {
    name: 'run-estimated-completion-dropped',
    kind: 'runs',
    description: 'a run carries no estimatedCompletion (completesAt, durationSeconds)',
    rules: ['RUN-012'],
    via: 'proxy',
    response: (r) =>
      eachTagged(r, 'run', (run) => {
        delete run['estimatedCompletion'];
      }),
  },
  {
    name: 'run-item-object-wrong',
    kind: 'runs',
    description: 'a run item carries `object` = `item` instead of `run_item`',
    rules: ['RUN-015'],
    via: 'proxy',
    response: (r) => eachTagged(r, 'run_item', (item) => (item['object'] = 'item')),
  },
  {
    name: 'run-price-not-the-quote',
    kind: 'runs',
    description: "a run's credits.estimated is one credit more than the estimate quoted",
    rules: ['RUN-043'],
    via: 'proxy',
    response: (r, { path }) =>
      path.startsWith('/runs/estimate')
        ? r
        : eachTagged(r, 'run', (run) => {
            const credits = run['credits'];
            if (isObject(credits) && typeof credits['estimated'] === 'number') credits['estimated'] += 1;
          }),
  },
  {
    name: 'preset-unlisted-accepted',
    kind: 'runs',
    description: 'a presetId GET /presets does not list is accepted on POST /runs and the estimate (run with a listed one)',
    rules: ['RUN-040'],
    via: 'proxy',
    request: (q, { path, memory }) => {
      if (q.method !== 'POST' || (path !== '/runs' && path !== '/runs/estimate')) return q;
      const listed = [...memory.presets];
      return rewriteJsonBody(q, (body) => (typeof body['presetId'] !== 'string' || listed.length === 0 || memory.presets.has(body['presetId']) ? undefined : { ...body, presetId: listed[0]! }));
    },
  },
  {
    name: 'image-size-unchecked',
    kind: 'runs',
    description: 'any imageSize is accepted, also on a video run (it is dropped before the run is planned)',
    rules: ['RUN-041'],
    via: 'proxy',
    request: (q, { path }) => {
      if (q.method !== 'POST' || (path !== '/runs' && path !== '/runs/estimate')) return q;
      return rewriteJsonBody(q, (body) => {
        if (!('imageSize' in body) || (body['modality'] !== 'video' && ['1K', '2K', '4K'].includes(String(body['imageSize'])))) return undefined;
        const { imageSize: _dropped, ...rest } = body;
        return rest;
      });
    },
  },
  {
    name: 'run-counts-off',
    kind: 'runs',
    description: "a run's counts add one pending item that does not exist (they no longer sum to total)",
    rules: ['RUN-009', 'RUN-036'],
    via: 'proxy',
    response: (r) =>
      eachTagged(r, 'run', (run) => {
        const counts = run['counts'];
        if (isObject(counts) && typeof counts['pending'] === 'number') counts['pending'] += 1;
      }),
  },
  {
    name: 'run-total-off',
    kind: 'runs',
    description: "a run's total is one more than products × creativesPerProduct",
    rules: ['RUN-001'],
    grep: byRules('RUN-001', 'RUN-014'),
    via: 'proxy',
    response: (r) =>
      eachTagged(r, 'run', (run) => {
        if (typeof run['total'] === 'number') run['total'] += 1;
      }),
  },
  {
    name: 'run-items-reversed',
    kind: 'runs',
    description: "a run's items are listed in reverse request order",
    rules: ['RUN-014'],
    via: 'proxy',
    response: (r, { path }) => {
      const body = ok(r) && /^\/runs\/[^/]+\/items$/.test(path) ? bodyOf(r) : undefined;
      if (!isEnvelope(body)) return r;
      body.data.reverse();
      return withBody(r, body);
    },
  },
  {
    name: 'run-finalized-at-moving',
    kind: 'runs',
    description: "a final run's finalizedAt moves forward on every poll",
    // It also breaks what compares a final run with a read of it (D162): run.completed's data is the
    // run as GET returns it (EVT-008), a stop of a final run answers it unchanged (RUN-038).
    rules: ['RUN-011', 'RUN-021', 'EVT-008', 'RUN-038'],
    via: 'proxy',
    response: (r, { memory }) =>
      eachTagged(r, 'run', (run) => {
        const at = run['finalizedAt'];
        if (typeof at === 'string') run['finalizedAt'] = new Date(Date.parse(at) + memory.next() * 1000).toISOString();
      }),
  },
  {
    name: 'run-final-without-finalized-at',
    kind: 'runs',
    description: 'a run in a terminal status still has finalizedAt null',
    rules: ['RUN-011', 'RUN-021'],
    via: 'proxy',
    response: (r) =>
      eachTagged(r, 'run', (run) => {
        if (typeof run['status'] === 'string' && TERMINAL_RUN.has(run['status'])) run['finalizedAt'] = null;
      }),
  },
  // injected by the mock: the proxy cannot see what a settling item is charged
  {
    name: 'run-charges-unproduced',
    kind: 'runs',
    description: 'a run item that settles failed or refused is charged like a produced creative (every started item is charged)',
    rules: ['RUN-003'],
    grep: inFile('runs.spec.ts', byRules('RUN-003')),
    via: 'mock',
  },
  // injected by the mock: the proxy cannot make a run beside the estimate it answers
  {
    name: 'estimate-creates-run',
    kind: 'runs',
    description: 'POST /runs/estimate answers the quote and also creates the run it priced',
    rules: ['RUN-004'],
    grep: inFile('estimate.spec.ts', byRules('RUN-004')),
    via: 'mock',
  },
  // injected by the mock: the proxy cannot see a second event recorded for one run (D273)
  {
    name: 'run-completed-twice',
    kind: 'runs',
    description: 'a run that reaches a final status records run.completed twice (two events with ids of their own, each delivered)',
    rules: ['EVT-008'],
    grep: inFile('webhooks.spec.ts', byRules('EVT-008')),
    via: 'mock',
  },
];
