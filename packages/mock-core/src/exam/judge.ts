/**
 * The client exam's judges (#24): what an API client did, read from the exam account's requests
 * (packages/mock-core/src/exam/session.ts records them where the request journal does), judged against the CLIENT-
 * rules of packages/contract/spec/rules.yaml. Each check names the rules it judges on the line that decides;
 * scripts/rules-coverage.ts requires every observable client rule to be judged by one of them.
 *
 * "The retry" of an answered request (D259) is the request that repeats it: the client's next
 * request, sent after that answer, with the same method, path, query, Idempotency-Key and body (the
 * exam's own identity of a request, D125), or, for a keyed write, the same method, path, query and
 * body under another key or the same key with another body (a retry that changed what it must not).
 * Other requests in between, sent in parallel or not, are not retries: timing rules are judged per
 * request under any interleaving. A rule is exercised when the traffic put it to the test (an answer
 * that asks something of the client, and the client acting on it); a client that gives up after an
 * error breaks no retry rule, unless the program then failed (it stopped on an answer the contract
 * allows: CLIENT-014's plain-text 429 among them).
 */
import { UNKNOWN_FIELD, UNKNOWN_STATUS, type ExamRecord } from './session.ts';
import { taskOutcomes, type TaskOutcome } from './tasks.ts';

/** One judgement of one rule by one check, with the requests that prove it. */
export interface Finding {
  rule: string;
  check: string;
  held: boolean;
  proof: string[];
}

/** What the exam knows of the program besides its requests (the command line exam only). */
export interface ProgramOutcome {
  /** The command's exit status (null: killed). */
  exitCode: number | null;
}

/** The checks of the client exam, by the rules each judges (scripts/rules-coverage.ts reads this). */
export const CLIENT_CHECKS: readonly { id: string; rules: readonly string[] }[] = [
  { id: 'retry-after-honoured', rules: ['CLIENT-001', 'CLIENT-002', 'CLIENT-003', 'CLIENT-004'] },
  { id: 'stopped-after-answer', rules: ['CLIENT-001', 'CLIENT-002', 'CLIENT-003', 'CLIENT-004'] },
  { id: 'request-allowed', rules: ['CLIENT-024'] },
  { id: 'retry-same-key-and-body', rules: ['CLIENT-002', 'CLIENT-003', 'CLIENT-004'] },
  { id: 'paginates-to-the-end', rules: ['CLIENT-005', 'CLIENT-007'] },
  { id: 'cursor-verbatim', rules: ['CLIENT-006'] },
  { id: 'no-unchanged-retry', rules: ['CLIENT-008', 'CLIENT-009', 'CLIENT-019'] },
  { id: 'reread-after-412', rules: ['CLIENT-010'] },
  { id: 'polls-until-final', rules: ['CLIENT-011', 'CLIENT-012'] },
  { id: 'idempotency-key-sent', rules: ['CLIENT-017'] },
  { id: 'key-not-reused', rules: ['CLIENT-018'] },
  { id: 'tolerates-unknown', rules: ['CLIENT-020', 'CLIENT-021'] },
  { id: 'dropped-write-retried', rules: ['CLIENT-023'] },
];

/** Clock slack for "no sooner than Retry-After": the mock clock's and the client's timers' granularity. */
export const RETRY_AFTER_SLACK_MS = 20;

const queryText = (q: ExamRecord['query']) => new URLSearchParams(Object.entries(q).flatMap(([k, v]): [string, string][] => (Array.isArray(v) ? v.map((x): [string, string] => [k, x]) : [[k, v]]))).toString();

/**
 * One line of proof for a request: `#12 +1.204s POST /runs Idempotency-Key=abc → 429`. An answer
 * refusing the key (401, 403) names the key presented, by its id (`key=key_…`), or says none was.
 */
export function line(r: ExamRecord, first: ExamRecord | undefined = undefined): string {
  const q = queryText(r.query);
  const t = first ? ` +${((r.at - first.at) / 1000).toFixed(3)}s` : '';
  const key = r.idempotencyKey !== undefined ? ` Idempotency-Key=${r.idempotencyKey}` : '';
  const ifMatch = r.ifMatch !== undefined ? ` If-Match=${r.ifMatch}` : '';
  const body = r.body ? ` body=${r.body.length > 80 ? `${r.body.slice(0, 80)}…` : r.body}` : '';
  const ra = r.retryAfter !== undefined ? ` Retry-After: ${r.retryAfter}` : '';
  const presented = r.status === 401 || r.status === 403 ? ` key=${r.keyId ?? '(none presented)'}` : '';
  return `#${r.seq}${t} ${r.method} ${r.path}${q ? `?${q}` : ''}${presented}${key}${ifMatch}${body} → ${r.status}${r.code ? ` ${r.code}` : ''}${ra}`;
}

const isWrite = (r: ExamRecord) => r.method !== 'GET' && !(r.method === 'POST' && r.path === '/runs/estimate');

/** A request's identity (D125): method, path, query, Idempotency-Key and body. */
const identity = (r: ExamRecord) => `${r.method} ${r.path}?${queryText(r.query)} ${r.idempotencyKey ?? ''} ${r.body}`;

/**
 * The request that repeats `records[i]` (D259): the first later one sent after its answer with its
 * identity, or, for a keyed write, its method, path, query and body under another key, or its key
 * with another body (`exact` false: a retry that changed what it must keep).
 */
function retryOf(records: readonly ExamRecord[], i: number): { retry: ExamRecord; exact: boolean } | undefined {
  const r = records[i]!;
  const own = identity(r);
  const keyed = isWrite(r) && r.idempotencyKey !== undefined;
  for (const n of records.slice(i + 1)) {
    if (n.at < r.answeredAt) continue;
    if (identity(n) === own) return { retry: n, exact: true };
    if (!keyed || n.method !== r.method || n.path !== r.path || queryText(n.query) !== queryText(r.query)) continue;
    if (n.body === r.body || n.idempotencyKey === r.idempotencyKey) return { retry: n, exact: false };
  }
  return undefined;
}

/** The rules a retryable answer asks about: a read's 429 → CLIENT-001, a write's → CLIENT-001 and -002, 503 → CLIENT-003, 409 in progress → CLIENT-004. */
function retryRules(r: ExamRecord): { timing: string[]; same: string | undefined } {
  if (r.status === 429) return isWrite(r) ? { timing: ['CLIENT-001', 'CLIENT-002'], same: 'CLIENT-002' } : { timing: ['CLIENT-001'], same: undefined };
  if (r.status === 503) return { timing: ['CLIENT-003'], same: isWrite(r) ? 'CLIENT-003' : undefined };
  if (r.status === 409 && r.code === 'IDEMPOTENCY_IN_PROGRESS') return { timing: ['CLIENT-004'], same: 'CLIENT-004' };
  return { timing: [], same: undefined };
}

function retries(records: readonly ExamRecord[], outcome: ProgramOutcome | undefined): Finding[] {
  const out: Finding[] = [];
  const failed = outcome !== undefined && outcome.exitCode !== 0;
  records.forEach((r, i) => {
    if (r.retryAfter === undefined) return;
    const { timing, same } = retryRules(r);
    if (timing.length === 0) return;
    const found = retryOf(records, i);
    if (!found) {
      // CLIENT-001 / 002 / 003 / 004: the program failed with this answer never retried: it stopped on
      // an answer the contract allows (a plain-text 429 parsed as JSON is one: CLIENT-014).
      if (failed) out.push({ rule: same ?? timing[0]!, check: 'stopped-after-answer', held: false, proof: [line(r), `not sent again: the command then exited ${String(outcome!.exitCode)}${r.status === 429 ? ` (a 429 asks for the same request after Retry-After${r.json === undefined ? '; its plain-text body must not be parsed, CLIENT-014' : ''})` : ' (the answer asks for the same request after Retry-After)'}`] });
      return;
    }
    const { retry: next, exact } = found;
    const due = r.answeredAt + r.retryAfter * 1000;
    // CLIENT-001 / 002 / 003 / 004: the retry comes no sooner than Retry-After after the answer, on the mock's clock.
    const held = next.at >= due - RETRY_AFTER_SLACK_MS;
    for (const rule of timing) out.push({ rule, check: 'retry-after-honoured', held, proof: [line(r), `${line(next, r)}${held ? '' : ` (${((due - next.at) / 1000).toFixed(3)} s too soon)`}`] });
    // CLIENT-002 / 003 / 004: the retried write is the identical request: same key (or none), same body.
    if (same && isWrite(r)) out.push({ rule: same, check: 'retry-same-key-and-body', held: exact, proof: [line(r), `${line(next, r)}${exact ? '' : next.idempotencyKey !== r.idempotencyKey ? ' (a new Idempotency-Key)' : ' (another body)'}`] });
  });
  return out;
}

/** CLIENT-024 (D257): every request is one the document allows, sent again or not. */
function allowed(records: readonly ExamRecord[]): Finding[] {
  const bad = records.filter((r) => r.plan.disallowed !== undefined);
  const out: Finding[] = bad.map((r) => ({ rule: 'CLIENT-024', check: 'request-allowed', held: false, proof: [line(r), `(the document does not allow it: ${r.plan.disallowed!})`] }));
  const good = records.length - bad.length;
  if (good > 0) out.push({ rule: 'CLIENT-024', check: 'request-allowed', held: true, proof: [`${good} of ${records.length} requests allowed by the document (parameters, headers and body against their operation)`] });
  return out;
}

interface Page {
  data: unknown[];
  pagination: { nextCursor: string | null; pageSize?: number };
}
const pageOf = (r: ExamRecord): Page | undefined => {
  const j = r.json as Partial<Page> | undefined;
  return r.status === 200 && j && Array.isArray(j.data) && typeof j.pagination === 'object' && j.pagination !== null ? (j as Page) : undefined;
};
const cursorOf = (r: ExamRecord): string | undefined => {
  const c = r.query.cursor;
  return Array.isArray(c) ? c[0] : c;
};

/** A list, as a walk asks for it: its path and query but the cursor (six walks of /products by six skus are six lists). */
const listOf = (r: ExamRecord) => `${r.path}?${queryText(Object.fromEntries(Object.entries(r.query).filter(([k]) => k !== 'cursor')))}`;

function pagination(records: readonly ExamRecord[], outcome: ProgramOutcome | undefined): Finding[] {
  const died = outcome !== undefined && outcome.exitCode !== 0 ? records.at(-1) : undefined;
  const out: Finding[] = [];
  const served = new Map<string, Set<string>>();
  records.forEach((r, i) => {
    const cursor = cursorOf(r);
    if (r.method === 'GET' && cursor !== undefined) {
      // CLIENT-006: every cursor sent is one the mock served for this list, character for character.
      const held = served.get(r.path)?.has(cursor) ?? false;
      out.push({ rule: 'CLIENT-006', check: 'cursor-verbatim', held, proof: [line(r), ...(held ? [] : [`cursor "${cursor}" was never served as nextCursor of ${r.path}`])] });
    }
    const page = pageOf(r);
    if (!page || page.pagination.nextCursor === null) return;
    const next = page.pagination.nextCursor;
    if (!served.has(r.path)) served.set(r.path, new Set());
    served.get(r.path)!.add(next);
    const asked = Number(Array.isArray(r.query.limit) ? r.query.limit[0] : r.query.limit ?? page.pagination.pageSize ?? NaN);
    const rule = page.data.length === 0 ? 'CLIENT-005' : page.data.length < asked ? 'CLIENT-007' : undefined;
    if (!rule) return;
    // CLIENT-005 (empty page) / CLIENT-007 (sparse page): the client's next request of this list
    // continues it (carries a cursor; whether the one served is CLIENT-006's question).
    const following = records.slice(i + 1).find((n) => n.method === 'GET' && listOf(n) === listOf(r) && n.at >= r.answeredAt);
    // A program that failed right after this page did not choose to stop the walk: CLIENT-020/-021 judge that.
    if (following === undefined && r === died) return;
    const held = following !== undefined && cursorOf(following) !== undefined;
    out.push({ rule, check: 'paginates-to-the-end', held, proof: [`${line(r)} (${page.data.length} rows, nextCursor "${next}")`, following ? `${line(following, r)}${held ? '' : ' (starts the list again)'}` : `no later request of ${r.path}: the walk stopped here`] });
  });
  return out;
}

function unchangedRetries(records: readonly ExamRecord[]): Finding[] {
  const out: Finding[] = [];
  const rules: Record<number, string> = { 400: 'CLIENT-008', 422: 'CLIENT-009', 401: 'CLIENT-019' };
  records.forEach((r, i) => {
    const rule = rules[r.status];
    if (!rule) return;
    const same = (n: ExamRecord) => n.method === r.method && n.path === r.path && queryText(n.query) === queryText(r.query) && n.body === r.body && (r.status !== 401 || n.keyId === r.keyId);
    // CLIENT-008 / 009 / 019: no later request is the same one unchanged.
    const again = records.slice(i + 1).find(same);
    out.push({ rule, check: 'no-unchanged-retry', held: again === undefined, proof: [line(r), ...(again ? [`${line(again, r)} (sent again unchanged)`] : [])] });
  });
  return out;
}

function rereads(records: readonly ExamRecord[]): Finding[] {
  const out: Finding[] = [];
  records.forEach((r, i) => {
    if (r.status !== 412) return;
    const after = records.slice(i + 1);
    const retryAt = after.findIndex((n) => n.path === r.path && isWrite(n));
    if (retryAt < 0) return;
    const retry = after[retryAt]!;
    const read = after.slice(0, retryAt).filter((n) => n.method === 'GET' && n.path === r.path && n.status === 200).at(-1);
    // CLIENT-010: a GET of the resource between the 412 and the retry, whose ETag the retry sends.
    const held = read !== undefined && (retry.ifMatch === undefined || retry.ifMatch === read.etag);
    out.push({ rule: 'CLIENT-010', check: 'reread-after-412', held, proof: [line(r), ...(read ? [`${line(read, r)} ETag ${read.etag ?? '(none)'}`] : ['no GET of the resource in between']), line(retry, r)] });
  });
  return out;
}

function polling(records: readonly ExamRecord[]): Finding[] {
  const out: Finding[] = [];
  // (an answer the exam dropped was never heard: the client owes that run nothing but a retry, CLIENT-023)
  for (const created of records.filter((r) => r.method === 'POST' && (r.path === '/runs' || r.path === '/upscales') && r.status === 202 && !r.plan.dropped)) {
    const run = created.path === '/runs';
    const id = (created.json as { runId?: string; upscaleId?: string } | undefined)?.[run ? 'runId' : 'upscaleId'];
    if (!id) continue;
    const later = records.filter((r) => r.seq > created.seq);
    const self = run ? `/runs/${id}` : `/upscales/${id}`;
    const isFinal = (r: ExamRecord) => {
      const j = r.json as { finalizedAt?: unknown; status?: unknown } | undefined;
      return r.method === 'GET' && r.path === self && r.status === 200 && (run ? j?.finalizedAt != null : j?.status === 'SUCCEEDED' || j?.status === 'FAILED');
    };
    const final = later.find(isFinal);
    const resultAsset = run ? undefined : ((final?.json as { assetId?: string; result?: { assetId?: string } } | undefined)?.result?.assetId ?? (final?.json as { assetId?: string } | undefined)?.assetId);
    const early = later.find((r) => r.method === 'GET' && (run ? r.path === `${self}/items` : resultAsset !== undefined && r.path === `/assets/${resultAsset}`) && (!final || r.seq < final.seq));
    // CLIENT-011 / CLIENT-012: polled until final, and read the results only then.
    const held = final !== undefined && early === undefined;
    out.push({ rule: run ? 'CLIENT-011' : 'CLIENT-012', check: 'polls-until-final', held, proof: [line(created), ...(final ? [`${line(final, created)} (final)`] : [`no GET ${self} answered final`]), ...(early ? [`${line(early, created)} (read before final)`] : [])] });
  }
  return out;
}

const KEY_REQUIRED = /^\/(runs|upscales|campaigns)$|^\/creatives\/[^/]+\/(approve|reject|undelete)$|^\/(assets|campaigns)\/[^/]+\/(undelete|archive|unarchive)$/;

function keys(records: readonly ExamRecord[]): Finding[] {
  const out: Finding[] = [];
  for (const r of records.filter((x) => x.method === 'POST' && KEY_REQUIRED.test(x.path))) {
    // CLIENT-017: a key on every operation that requires one.
    out.push({ rule: 'CLIENT-017', check: 'idempotency-key-sent', held: r.idempotencyKey !== undefined, proof: [line(r)] });
  }
  const byKey = new Map<string, ExamRecord>();
  for (const r of records) {
    if (r.idempotencyKey === undefined) continue;
    const first = byKey.get(r.idempotencyKey);
    if (!first) {
      byKey.set(r.idempotencyKey, r);
      continue;
    }
    // CLIENT-018: one key, one request (method, path, body).
    const held = first.method === r.method && first.path === r.path && first.body === r.body;
    out.push({ rule: 'CLIENT-018', check: 'key-not-reused', held, proof: [line(first), line(r, first)] });
  }
  return out;
}

/** The ids the objects of an answer name (their own and their links: `campaignId`, `brandId`, `productId`...). */
function idsOf(r: ExamRecord): Set<string> {
  const out = new Set<string>();
  const top = r.json as { data?: unknown } | undefined;
  const objects = Array.isArray(top?.data) ? top.data : [top];
  for (const object of objects) {
    if (typeof object !== 'object' || object === null) continue;
    for (const [name, value] of Object.entries(object)) if (/Id$/.test(name) && typeof value === 'string' && value.length >= 4) out.add(value);
  }
  return out;
}

/**
 * How a later request used an answer that carried what the client cannot know: it went on past
 * that page (the page's `nextCursor`), or it named one of the answer's objects (an id in its path,
 * query or body). Undefined: it did neither.
 */
function useOf(answer: ExamRecord, later: ExamRecord): string | undefined {
  const next = pageOf(answer)?.pagination.nextCursor;
  if (next != null && later.method === 'GET' && later.path === answer.path && cursorOf(later) === next) return 'went on past the page with its nextCursor';
  const text = `${later.path}?${queryText(later.query)} ${later.body}`;
  for (const id of idsOf(answer)) if (later.path.split('/').includes(id) || text.includes(id)) return `used ${id} from it`;
  return undefined;
}

function tolerance(records: readonly ExamRecord[], outcome: ProgramOutcome | undefined): Finding[] {
  const out: Finding[] = [];
  const last = records.at(-1);
  const failed = outcome !== undefined && outcome.exitCode !== 0;
  const carried = (r: ExamRecord) => `${line(r)} (carried ${r.plan.shaped === 'status' ? `campaign status "${UNKNOWN_STATUS}" and ` : ''}unknown member "${UNKNOWN_FIELD}")`;
  const rules: [string, (r: ExamRecord) => boolean, string][] = [
    ['CLIENT-020', (r) => r.plan.shaped !== undefined, UNKNOWN_FIELD],
    ['CLIENT-021', (r) => r.plan.shaped === 'status', UNKNOWN_STATUS],
  ];
  for (const [rule, carries, unknown] of rules) {
    const shaped = records.filter(carries);
    if (shaped.length === 0) continue;
    // CLIENT-020 / CLIENT-021 held: an answer carried the unknown, and a later request used what it
    // answered correctly (went on past the page or named one of its objects, and was answered < 400).
    const positive = shaped
      .map((r) => ({ r, use: records.find((n) => n.seq > r.seq && n.status < 400 && useOf(r, n) !== undefined) }))
      .find((x) => x.use !== undefined);
    if (positive) out.push({ rule, check: 'tolerates-unknown', held: true, proof: [carried(positive.r), `${line(positive.use!, positive.r)} (${useOf(positive.r, positive.use!)!})`] });
    // CLIENT-020 / CLIENT-021 broken: the program failed right after such an answer (after an unknown
    // campaign status, CLIENT-021 is blamed: the member came with it), unless it had already shown that
    // it tolerates the unknown (a later request used such an answer): then its exit has another cause...
    if (failed && !positive && last?.plan.shaped !== undefined && (rule === 'CLIENT-021') === (last.plan.shaped === 'status')) out.push({ rule, check: 'tolerates-unknown', held: false, proof: [carried(last), `the command then exited ${String(outcome!.exitCode)}`] });
    // ...or sent what it could not know back to the service.
    const echo = records.find((n) => n.seq > shaped[0]!.seq && `${queryText(n.query)} ${n.body}`.includes(unknown));
    if (echo) out.push({ rule, check: 'tolerates-unknown', held: false, proof: [carried(shaped[0]!), `${line(echo, shaped[0]!)} (sent "${unknown}" back)`] });
  }
  return out;
}

function droppedWrites(records: readonly ExamRecord[]): Finding[] {
  const out: Finding[] = [];
  records.forEach((r, i) => {
    if (!r.plan.dropped) return;
    const retry = retryOf(records, i)?.retry;
    // CLIENT-023: the write whose answer was lost is sent again with its key and body (a replay, no second resource).
    const held = retry !== undefined && retry.idempotencyKey === r.idempotencyKey && retry.body === r.body;
    const why = retry === undefined ? `no later ${r.method} ${r.path}: the client gave up on a write the service had applied` : held ? ' (the replay)' : retry.idempotencyKey !== r.idempotencyKey ? ' (a new Idempotency-Key: a second resource)' : ' (another body)';
    out.push({ rule: 'CLIENT-023', check: 'dropped-write-retried', held, proof: [`${line(r)} (applied; the connection dropped before the answer)`, retry ? `${line(retry, r)}${why}` : why] });
  });
  return out;
}

/** Every finding of the traffic (and the program's outcome, when known). */
export function judge(records: readonly ExamRecord[], outcome?: ProgramOutcome): Finding[] {
  return [...retries(records, outcome), ...allowed(records), ...pagination(records, outcome), ...unchangedRetries(records), ...rereads(records), ...polling(records), ...keys(records), ...tolerance(records, outcome), ...droppedWrites(records)];
}

export type RuleResult = 'passed' | 'failed' | 'not exercised';

/** The exam's verdict per client rule its checks judge (the in-process `control.examReport()`). */
export interface ExamRuleReport {
  seed: number;
  requests: number;
  rules: Record<string, { result: RuleResult; findings: Finding[] }>;
  /** Every task of the exam's task list (packages/mock-core/src/exam/tasks.ts), by its number: done or not, from the wire. */
  tasks: Record<string, TaskOutcome>;
  /** The last request judged, as a proof line (what a program that then failed last heard). */
  last?: string;
}

export function ruleReport(seed: number, records: readonly ExamRecord[], outcome?: ProgramOutcome): ExamRuleReport {
  const findings = judge(records, outcome);
  const ids = [...new Set(CLIENT_CHECKS.flatMap((c) => c.rules))].sort();
  const rules: ExamRuleReport['rules'] = {};
  for (const id of ids) {
    const mine = findings.filter((f) => f.rule === id);
    rules[id] = { result: mine.length === 0 ? 'not exercised' : mine.every((f) => f.held) ? 'passed' : 'failed', findings: mine };
  }
  const last = records.at(-1);
  return { seed, requests: records.length, rules, tasks: taskOutcomes(records), ...(last ? { last: line(last, records[0]) } : {}) };
}
