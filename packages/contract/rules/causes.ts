/**
 * Why a run failed, and what would judge what it did not: pure functions over the tests' records
 * (rules-reporter.ts TestRecord), shared by the rules reporter (one run), the merge of shards
 * (merge.ts) and cgs-conformance's verdict (packages/conformance/bin/lib/conformance.ts).
 *
 * - `causesOf`: the failed tests grouped by their first violated rule ("ETAG-002: violated in 57
 *   responses of 31 tests, first at ..."), with the rule's text and section of the interface, the
 *   most widespread first: the one to fix first.
 * - `judgeWith`: for a test that did not judge its rules (skipped, or blocked by another rule's
 *   violation), the hook, key profile or flag that would judge them, from the skip annotation the
 *   suite writes (`needs hook <name>: ...`, `needs capability <label>: ...` for an entry of a hook's
 *   limits or a capability flag, `needs key profile <p>`, `needs --real-time`, `needs --allow-spend`,
 *   `skipped because <data absent>`), else from the test's tags (@spend, @hook:<name>, @control).
 */
import { areaOfReason } from './areas.ts';
import type { Rule } from '../spec/types.ts';
import { RULE_ID } from './ledger.ts';

/** What a failed test's record says of its failure (set by the rules reporter from its errors). */
export interface FailureRecord {
  /** The rules of the first violation, in the order its message names them (checker), or the test's own rules it failed on. */
  rules: string[];
  /** Where: the first refused response (`GET /api/public/v1/creatives/crt_1 → 200`) or the assertion's location. */
  at: string;
  /** Responses the response checker refused in this test (0: the test's own assertion failed). */
  responses: number;
  /** A cause that is no rule, named by the checker (`serve /campaigns`: an operation the target does not serve). */
  cause?: string;
}

/** The parts of a test record these functions read. */
export interface CauseInput {
  title: string;
  file: string;
  line?: number;
  tags: string[];
  outcome: 'passed' | 'failed' | 'blocked' | 'skipped';
  reason?: string;
  named: string[];
  violated: string[];
  checkerStop: boolean;
  failure?: FailureRecord;
}

export interface Cause {
  /** The rule id (or `(unattributed)` for a failed test that names no rule and broke none). */
  rule: string;
  section: string;
  text: string;
  tests: number;
  responses: number;
  /** The first failure, in test order: `<at> (<file>:<line> <title>)`. */
  first: string;
  /** Rules the tests of this cause name but could not judge because of it. */
  blocked: string[];
}

export const UNATTRIBUTED = '(unattributed)';

/** The rule ids a failure message names, in order (`  - etag [ETAG-002, ETAG-003]: ...`). */
export function rulesInMessage(message: string): string[] {
  const ids: string[] = [];
  for (const match of message.matchAll(RULE_ID)) if (!ids.includes(match[0])) ids.push(match[0]);
  return ids;
}

/**
 * The rules a failed assertion checks when its message names none: among the test's own rules
 * (`named`, in its order), those whose text states what the assertion expected: the problem code
 * (`expected a 412 problem with code PRECONDITION_FAILED`: ETAG-005 and ERR-034 name it, ETAG-001
 * does not), else the status (`expected status 202`). Empty when none does (D161).
 */
export function rulesOfAssertion(message: string, named: readonly string[], rules: ReadonlyMap<string, Pick<Rule, 'rule'>>): string[] {
  const problem = /expected (?:not )?a (\d{3}) problem with code ([A-Z][A-Z0-9_]+)/.exec(message);
  const status = problem?.[1] ?? /expected (?:not )?status (\d{3})/.exec(message)?.[1];
  const stating = (pattern: RegExp) => named.filter((id) => pattern.test(rules.get(id)?.rule ?? ''));
  if (problem) {
    const byCode = stating(new RegExp(`\\b${problem[2]}\\b`));
    if (byCode.length > 0) return byCode;
  }
  return status ? stating(new RegExp(`\\b${status}\\b`)) : [];
}

/** What a cause that is no rule says (`serve /campaigns`). */
export const UNSERVED_TEXT = 'the target does not serve this path: an operation of the document answered 404 without a problem body (a route the server does not know); serve it, or leave its tests out (--area, a file filter or --grep)';

/** The rule a failed test is grouped under: its first violated rule, or the endpoint it found unserved. */
export function firstRuleOf(record: CauseInput): string {
  if (record.failure?.cause) return record.failure.cause;
  const fromFailure = record.failure?.rules.find((id) => record.violated.includes(id) || record.named.includes(id));
  if (fromFailure) return fromFailure;
  if (record.violated.length > 0) return record.violated[0]!;
  return record.named[0] ?? UNATTRIBUTED;
}

/** The failed tests grouped by their first violated rule, the most widespread first. */
export function causesOf(records: readonly CauseInput[], rules: ReadonlyMap<string, Pick<Rule, 'section' | 'rule'>>): Cause[] {
  const causes = new Map<string, Cause>();
  for (const record of records) {
    if (record.outcome !== 'failed') continue;
    const id = firstRuleOf(record);
    const rule = rules.get(id);
    const text = rule?.rule ?? (id === UNATTRIBUTED ? 'failed tests that name no rule and broke no rule of the ledger' : id === record.failure?.cause ? UNSERVED_TEXT : 'not in packages/contract/spec/rules.yaml');
    const cause = causes.get(id) ?? { rule: id, section: rule?.section ?? '', text, tests: 0, responses: 0, first: '', blocked: [] };
    cause.tests += 1;
    cause.responses += Math.max(record.failure?.responses ?? 0, record.checkerStop ? 1 : 0);
    if (cause.first === '') cause.first = `${record.failure?.at ?? 'failed'} (${record.file}${record.line ? `:${record.line}` : ''} ${record.title})`;
    const stopped = record.checkerStop || record.failure?.cause !== undefined;
    for (const named of record.named) if (stopped && !record.violated.includes(named) && !cause.blocked.includes(named)) cause.blocked.push(named);
    causes.set(id, cause);
  }
  const last = (c: Cause) => (c.rule === UNATTRIBUTED ? 1 : 0);
  return [...causes.values()].sort((a, b) => last(a) - last(b) || b.tests - a.tests || b.responses - a.responses || a.rule.localeCompare(b.rule));
}

/** One line per cause, as the console and the verdict print it. */
export function causeLines(causes: readonly Cause[], limit = 10): string[] {
  const lines = causes.slice(0, limit).flatMap((c) => {
    const responses = c.responses > 0 ? `violated in ${c.responses} response(s) of ${c.tests} test(s)` : `failed in ${c.tests} test(s)`;
    const head = `${c.rule}${c.section ? ` (${c.section})` : ''}: ${responses}, first at ${c.first}`;
    const blocked = c.blocked.length > 0 ? [`      blocked, not judged: ${c.blocked.join(' ')}`] : [];
    return [`    ${head}`, `      rule: ${c.text}`, ...blocked];
  });
  if (causes.length > limit) lines.push(`    ... and ${causes.length - limit} more cause(s) in rules.md`);
  return lines;
}

/**
 * What would judge the rules of a test that did not judge them, or undefined when nothing the run
 * is given would (a --grep, a fixme...). `blockedBy`: the rules whose violation stopped it.
 */
export function judgeWith(record: Pick<CauseInput, 'outcome' | 'reason' | 'tags' | 'violated'>): string | undefined {
  if (record.outcome === 'blocked') return `fixing ${record.violated.join(', ') || 'the document violation'} (blocked by it)`;
  if (record.outcome !== 'skipped') return undefined;
  const reason = record.reason ?? '';
  if (/^not run: the run stopped after/.test(reason)) return '--max-failures 0 (the run stopped at its first failures)';
  // A test of another area than --area chose (packages/contract/rules/areas.ts): not the target's lack, the run's choice.
  const area = areaOfReason(reason);
  if (area !== undefined) return `outside --area ${area}`;
  // An entry of a hook's limits or a flag (`actors.actions revokeKey`, `accounts.rateCard`): exactly that.
  const capability = /needs capability ([a-z][A-Za-z0-9.-]*(?: [A-Za-z0-9_-]+)?):/.exec(reason)?.[1];
  if (capability) return `capability ${capability} (--hooks-url)`;
  const hook = /needs hook ([a-z][a-z0-9-]*)/.exec(reason)?.[1];
  // The hook the skip names first, then every other hook the test is tagged with (it needs them all).
  if (hook) return `hook ${[hook, ...record.tags.filter((t) => t.startsWith('@hook:')).map((t) => t.slice('@hook:'.length))].filter((h, i, all) => all.indexOf(h) === i).join(', hook ')} (--hooks-url)`;
  const profile = /needs key profile "?([^\s"]+?)"?(?::\s|\s|$)/.exec(reason)?.[1] ?? /has no "([^"]+)" key profile/.exec(reason)?.[1];
  if (profile) return `key profile ${profile} (--keys)`;
  if (/needs --real-time\b/.test(reason)) return '--real-time';
  if (/needs --allow-spend\b|@spend\b|CONFORMANCE_ALLOW_SPEND/.test(reason)) return '--allow-spend';
  if (/CONFORMANCE_KEYS_B|second account|--keys-b/.test(reason)) return '--keys-b (a second account)';
  // Data the account lacks (skipWhenAbsent): the data, never the hooks the test is tagged with.
  const data = /^skipped because (.+)$/s.exec(reason)?.[1];
  if (data) return `data: ${data}`;
  const taggedHooks = record.tags.filter((t) => t.startsWith('@hook:')).map((t) => t.slice('@hook:'.length));
  if (taggedHooks.length > 0) return `hook ${taggedHooks.join(', hook ')} (--hooks-url)`;
  if (record.tags.includes('@spend')) return '--allow-spend';
  if (/@exclusive|leases/.test(reason)) return 'a target of its own (the leases of /__mock, or one worker per target)';
  if (record.tags.includes('@control') || /\/__mock|control plane/.test(reason)) return 'the accounts hook or a /__mock control plane (--hooks-url)';
  return reason ? `(${reason})` : undefined;
}
