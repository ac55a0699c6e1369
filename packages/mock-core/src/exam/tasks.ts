/**
 * The client exam's task list (docs/client-check.md, "The task list"; D259): what the exam asks a
 * program to do, each task with the rules it exercises and its outcome read from the wire (the
 * exam's records): a list read to the end (every page, through empty and sparse ones, until a null
 * `nextCursor`), the edit landed, the run polled to final and its items read. A program tells the
 * exam which tasks it performs (`cgs-client-check --tasks`, default every required one); under
 * `--require exercised` (the default) a declared task left undone fails the exam, and so does a rule
 * a done task exercises when done as asked, left unexercised by a program that exited 0
 * (packages/exams/src/client.ts).
 */
import type { ExamRecord } from './session.ts';

/** One task's outcome: done or not, and the requests that show it. */
export interface TaskOutcome {
  task: string;
  done: boolean;
  proof: string[];
}

interface Page {
  data: unknown[];
  pagination: { nextCursor: string | null };
}

const pageOf = (r: ExamRecord): Page | undefined => {
  const j = r.json as Partial<Page> | undefined;
  return r.method === 'GET' && r.status === 200 && j && Array.isArray(j.data) && typeof j.pagination === 'object' && j.pagination !== null ? (j as Page) : undefined;
};
const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
const ok = (r: ExamRecord) => r.status >= 200 && r.status < 300;
const brief = (r: ExamRecord) => `#${r.seq} ${r.method} ${r.path}${Object.keys(r.query).length ? `?${new URLSearchParams(Object.entries(r.query).map(([k, v]): [string, string] => [k, first(v) ?? ''])).toString()}` : ''} → ${r.status}`;

/**
 * The most complete walk of one list: from a first page (no cursor) along the cursors served, each
 * page answered 200, until a null `nextCursor` (complete) or a cursor never sent.
 */
export function walk(records: readonly ExamRecord[], path: string | RegExp, where: (r: ExamRecord) => boolean = () => true): { complete: boolean; pages: number; rows: number; proof: string } | undefined {
  const matches = (r: ExamRecord) => (typeof path === 'string' ? r.path === path : path.test(r.path)) && where(r);
  let best: { complete: boolean; pages: number; rows: number; proof: string } | undefined;
  for (const start of records.filter((r) => matches(r) && first(r.query.cursor) === undefined && pageOf(r) !== undefined)) {
    let page = start;
    let pages = 1;
    let rows = pageOf(start)!.data.length;
    for (;;) {
      const next = pageOf(page)!.pagination.nextCursor;
      if (next === null) break;
      const following = records.find((r) => r.seq > page.seq && r.path === page.path && first(r.query.cursor) === next && pageOf(r) !== undefined);
      if (!following) break;
      page = following;
      pages += 1;
      rows += pageOf(page)!.data.length;
    }
    const complete = pageOf(page)!.pagination.nextCursor === null;
    const proof = complete ? `${brief(start)} … ${brief(page)}: ${pages} page(s), ${rows} row(s), to a null nextCursor` : `${brief(start)} … ${brief(page)}: stopped after ${pages} page(s), ${rows} row(s); its nextCursor was never sent`;
    const candidate = { complete, pages, rows, proof };
    if (!best || (complete && !best.complete) || (complete === best.complete && pages > best.pages)) best = candidate;
  }
  return best;
}

const walked = (task: string, records: readonly ExamRecord[], path: string | RegExp, where?: (r: ExamRecord) => boolean): TaskOutcome => {
  const w = walk(records, path, where);
  return { task, done: w?.complete ?? false, proof: [w?.proof ?? `no first page of ${String(path)} answered 200`] };
};

const found = (task: string, what: string, r: ExamRecord | undefined): TaskOutcome => ({ task, done: r !== undefined, proof: [r ? brief(r) : `no ${what}`] });

/** A keyed write that was applied: answered 2xx, or dropped after it was applied and replayed. */
const applied = (r: ExamRecord) => ok(r) && !r.plan.dropped;

/** The task list: its number, what it asks, the rules it exercises, whether it is optional, and its outcome from the wire. */
export const EXAM_TASKS: readonly { id: number; task: string; rules: readonly string[]; optional?: true; outcome(records: readonly ExamRecord[]): TaskOutcome }[] = [
  { id: 1, task: 'list every creative to the end, in small pages', rules: ['CLIENT-001', 'CLIENT-005', 'CLIENT-006', 'CLIENT-007'], outcome: (rs) => walked('every creative read to the end', rs, '/creatives') },
  { id: 2, task: 'list every campaign to the end, whatever its status', rules: ['CLIENT-020', 'CLIENT-021'], outcome: (rs) => walked('every campaign read to the end', rs, '/campaigns') },
  {
    id: 3,
    task: 'read products by sku (a list, to its end) and by productId',
    rules: [],
    outcome: (rs) => {
      const bySku = walked('products read by sku and by productId', rs, '/products', (r) => first(r.query.sku) !== undefined);
      const byId = rs.find((r) => r.method === 'GET' && /^\/products\/[^/]+$/.test(r.path) && r.status === 200);
      return { ...bySku, done: bySku.done && byId !== undefined, proof: [...bySku.proof, byId ? brief(byId) : 'no GET /products/{productId} answered 200'] };
    },
  },
  { id: 4, task: 'patch a creative with If-Match (after a 412, read it again and retry)', rules: ['CLIENT-010'], outcome: (rs) => found('the edit landed', 'PATCH /creatives/{creativeId} with If-Match answered 200', rs.find((r) => r.method === 'PATCH' && /^\/creatives\/[^/]+$/.test(r.path) && r.ifMatch !== undefined && r.status === 200)) },
  { id: 5, task: 'send one patch the document allows that the service refuses 422 (sending it again is CLIENT-009)', rules: ['CLIENT-009'], outcome: (rs) => found('a patch refused 422', 'PATCH /creatives/{creativeId} the document allows answered 422', rs.find((r) => r.method === 'PATCH' && /^\/creatives\/[^/]+$/.test(r.path) && r.status === 422 && r.plan.disallowed === undefined)) },
  { id: 6, task: 'approve a pending creative, with an Idempotency-Key', rules: ['CLIENT-017'], outcome: (rs) => found('a creative approved', 'POST /creatives/{creativeId}/approve answered 2xx', rs.find((r) => r.method === 'POST' && /^\/creatives\/[^/]+\/approve$/.test(r.path) && applied(r))) },
  { id: 7, task: 'create a campaign', rules: [], outcome: (rs) => found('a campaign created', 'POST /campaigns answered 2xx', rs.find((r) => r.method === 'POST' && r.path === '/campaigns' && applied(r))) },
  {
    id: 8,
    task: 'create a run, poll it until finalizedAt is set, then read its items to the end',
    rules: ['CLIENT-011'],
    outcome: (rs) => {
      const task = 'a run created, polled to final, its items read';
      for (const created of rs.filter((r) => r.method === 'POST' && r.path === '/runs' && applied(r))) {
        const id = (created.json as { runId?: string } | undefined)?.runId;
        const final = rs.find((r) => r.seq > created.seq && r.method === 'GET' && r.path === `/runs/${id}` && r.status === 200 && (r.json as { finalizedAt?: unknown } | undefined)?.finalizedAt != null);
        const items = walk(rs, `/runs/${id}/items`);
        if (final && items?.complete) return { task, done: true, proof: [brief(created), `${brief(final)} (final)`, items.proof] };
      }
      const created = rs.find((r) => r.method === 'POST' && r.path === '/runs' && applied(r));
      return { task, done: false, proof: [created ? `${brief(created)}: never polled to final with its items read to the end` : 'no POST /runs answered 2xx'] };
    },
  },
  { id: 9, task: 'read once with the expired key and surface its 401', rules: ['CLIENT-019'], outcome: (rs) => found('the expired key surfaced', 'request answered 401', rs.find((r) => r.status === 401)) },
  {
    id: 10,
    task: 'create an upscale, poll it until SUCCEEDED, then read its asset',
    rules: ['CLIENT-012'],
    optional: true,
    outcome: (rs) => found('an upscale polled to SUCCEEDED', 'GET /upscales/{upscaleId} answered SUCCEEDED', rs.find((r) => r.method === 'GET' && /^\/upscales\/[^/]+$/.test(r.path) && (r.json as { status?: string } | undefined)?.status === 'SUCCEEDED')),
  },
];

/**
 * The rules the schedule serves to the writes of tasks 4 to 8 together, in any order (D258: a
 * write's 429 and 503, a keyed write's 409 and dropped connection, a campaign create's lost race):
 * required only when all five were done.
 */
export const WRITE_SCHEDULE_RULES: readonly string[] = ['CLIENT-002', 'CLIENT-003', 'CLIENT-004', 'CLIENT-018', 'CLIENT-023'];

/** The tasks every program is asked for by default (all but the optional ones). */
export const REQUIRED_TASKS: readonly number[] = EXAM_TASKS.filter((t) => !t.optional).map((t) => t.id);

/** The rules these tasks (the declared ones that were done) must have exercised. */
export function rulesOfTasks(declared: readonly number[]): string[] {
  const rules = new Set(EXAM_TASKS.filter((t) => declared.includes(t.id)).flatMap((t) => t.rules));
  if ([4, 5, 6, 7, 8].every((id) => declared.includes(id))) for (const rule of WRITE_SCHEDULE_RULES) rules.add(rule);
  return [...rules].sort();
}

/** Every task's outcome (the report names them all; the command line decides which were declared). */
export function taskOutcomes(records: readonly ExamRecord[]): Record<string, TaskOutcome> {
  return Object.fromEntries(EXAM_TASKS.map((t) => [String(t.id), t.outcome(records)]));
}
