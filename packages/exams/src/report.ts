/**
 * The exams' reports (cgs-client-check, cgs-webhooks-check): the same four outputs as the
 * conformance suite (a console summary, rules.json, rules.md, junit.xml), written from one small
 * shape of their own (the suite's reporters are Playwright reporters over test results; an exam
 * has no tests, only checks judged from what it saw).
 *
 * A rule's result: `passed` (exercised, every check held), `failed` (a check saw it broken; the
 * proof names what was seen), `not exercised` (observable, but nothing of the run put it to the
 * test) or `not judged` (not observable from outside: the ledger's `judge` says how to check it).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Rule } from '../../contract/spec/types.ts';
import type { Finding } from '../../mock-core/src/exam/judge.ts';

export type ExamResult = 'passed' | 'failed' | 'not exercised' | 'not judged';

export type { Finding };

export interface RuleVerdict {
  id: string;
  section: string;
  rule: string;
  quote?: string;
  status: Rule['status'];
  decision?: string;
  observable: boolean;
  party: string;
  result: ExamResult;
  /** For a rule not judged or not exercised: how a team checks it (the ledger's `judge`). */
  how?: string;
  findings: Finding[];
}

/** A task of the client exam's task list (packages/mock-core/src/exam/tasks.ts): declared or not, done or not. */
export interface TaskVerdict {
  id: number;
  task: string;
  result: 'done' | 'undone' | 'not declared';
  proof: string[];
}

export interface ExamReport {
  tool: string;
  seed?: number;
  /** What the exam could not do, when it could not run (exit 2). */
  error?: string;
  /** The examined program's own failure (a non-zero exit after answers the contract allows): exit 1. */
  programFailed?: string;
  /** The last lines of the program's stderr, when it exited before its first request. */
  programStderr?: string[];
  /** The client exam's tasks; a declared one undone fails the exam under `--require exercised` (`strict`). */
  tasks?: TaskVerdict[];
  /** `--require exercised`: declared tasks undone and their rules not exercised fail (D259). */
  strict?: boolean;
  /** Lines of context (the command and its exit status, the receiver's URL). */
  notes: string[];
  rules: RuleVerdict[];
  summary: Record<ExamResult, number>;
}

/** The verdict of every rule of `party` from the findings: a rule with no finding is not exercised (or not judged). */
export function verdicts(rules: readonly Rule[], party: string, findings: readonly Finding[]): RuleVerdict[] {
  return rules
    .filter((r) => r.party === party)
    .map((r) => {
      const mine = findings.filter((f) => f.rule === r.id);
      const result: ExamResult = !r.observable ? 'not judged' : mine.length === 0 ? 'not exercised' : mine.every((f) => f.held) ? 'passed' : 'failed';
      const how = result === 'not judged' || result === 'not exercised' ? r.judge : undefined;
      return {
        id: r.id,
        section: r.section,
        rule: r.rule,
        ...(r.quote !== undefined ? { quote: r.quote } : {}),
        status: r.status,
        ...(r.decision !== undefined ? { decision: r.decision } : {}),
        observable: r.observable,
        party,
        result,
        ...(how !== undefined ? { how } : {}),
        findings: mine,
      };
    });
}

export function report(tool: string, rules: RuleVerdict[], notes: string[], extra: { seed?: number; error?: string; programFailed?: string; programStderr?: string[]; tasks?: TaskVerdict[]; strict?: boolean } = {}): ExamReport {
  const summary: Record<ExamResult, number> = { passed: 0, failed: 0, 'not exercised': 0, 'not judged': 0 };
  for (const r of rules) summary[r.result] += 1;
  return { tool, ...extra, notes, rules, summary };
}

/** The declared tasks the exam counts as failed: undone, under `--require exercised`. */
export const undoneTasks = (result: ExamReport): TaskVerdict[] => (result.strict ? (result.tasks ?? []).filter((t) => t.result === 'undone') : []);

/**
 * 0: every exercised rule held (and, strict, every declared task done); 1: the program's fault: a
 * rule failed, a declared task was left undone, or the program failed; 2: the exam could not run.
 */
export function exitCode(result: ExamReport): 0 | 1 | 2 {
  if (result.error !== undefined) return 2;
  return result.summary.failed > 0 || result.programFailed !== undefined || undoneTasks(result).length > 0 ? 1 : 0;
}

const xml = (text: string): string => text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

export function junit(result: ExamReport): string {
  const cases = result.rules.map((r) => {
    const name = `${r.id} ${r.rule}`;
    let inner = '';
    if (r.result === 'failed') {
      const proof = r.findings.filter((f) => !f.held).flatMap((f) => [`[${f.check}]`, ...f.proof]).join('\n');
      inner = `<failure message="${xml(`${r.id} violated`)}">${xml(proof)}</failure>`;
    } else if (r.result !== 'passed') inner = `<skipped message="${xml(`${r.result}: ${r.how ?? ''}`)}"/>`;
    return `    <testcase classname="${xml(result.tool)}" name="${xml(name)}">${inner}</testcase>`;
  });
  const errors = result.error !== undefined ? 1 : 0;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(result.tool)}" tests="${result.rules.length}" failures="${result.summary.failed}" errors="${errors}">`,
    `  <testsuite name="${xml(result.tool)}" tests="${result.rules.length}" failures="${result.summary.failed}" errors="${errors}" skipped="${result.summary['not exercised'] + result.summary['not judged']}">`,
    ...(result.error !== undefined ? [`    <testcase classname="${xml(result.tool)}" name="the exam runs"><error message="${xml(result.error)}"/></testcase>`] : []),
    ...(result.programFailed !== undefined ? [`    <testcase classname="${xml(result.tool)}" name="the program exits 0"><failure message="${xml(result.programFailed)}"/></testcase>`] : []),
    ...(result.tasks ?? []).map((t) => `    <testcase classname="${xml(result.tool)}" name="${xml(`task ${t.id}: ${t.task}`)}">${t.result === 'done' ? '' : t.result === 'undone' && result.strict ? `<failure message="${xml('undone')}">${xml(t.proof.join('\n'))}</failure>` : `<skipped message="${xml(t.result)}"/>`}</testcase>`),
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

export function markdown(result: ExamReport): string {
  const lines = [`# ${result.tool}: rules`, ''];
  if (result.seed !== undefined) lines.push(`Seed: ${result.seed}`, '');
  for (const note of result.notes) lines.push(`- ${note}`);
  if (result.notes.length) lines.push('');
  if (result.error !== undefined) lines.push(`**The exam could not run:** ${result.error}`, '');
  if (result.programFailed !== undefined) lines.push(`**The program failed:** ${result.programFailed}`, ...(result.programStderr?.length ? ['', '```', ...result.programStderr, '```'] : []), '');
  if (result.tasks?.length) {
    lines.push(`Tasks (${result.strict ? 'required: --require exercised' : 'reported only: --require none'}):`, '');
    for (const t of result.tasks) lines.push(`- ${t.id}. ${t.task}: **${t.result}** (${t.proof.join('; ').replaceAll('`', "'")})`);
    lines.push('');
  }
  const s = result.summary;
  lines.push(`${s.passed} passed, ${s.failed} failed, ${s['not exercised']} not exercised, ${s['not judged']} not judged.`, '');
  lines.push('| Rule | Status | Result | Rule text |', '|---|---|---|---|');
  for (const r of result.rules) lines.push(`| ${r.id} | ${r.status}${r.decision ? ` (${r.decision})` : ''} | ${r.result} | ${r.rule.replaceAll('|', '\\|')} |`);
  const failed = result.rules.filter((r) => r.result === 'failed');
  if (failed.length) {
    lines.push('', '## Violations', '');
    for (const r of failed) {
      lines.push(`### ${r.id}`, '', `> ${r.quote ?? r.rule}`, '');
      for (const f of r.findings.filter((x) => !x.held)) lines.push(`- ${f.check}:`, ...f.proof.map((p) => `  - \`${p.replaceAll('`', "'")}\``));
      lines.push('');
    }
  }
  const open = result.rules.filter((r) => r.result === 'not judged' || r.result === 'not exercised');
  if (open.length) {
    lines.push('', '## Not judged or not exercised, and how to check them', '');
    for (const r of open) lines.push(`- **${r.id}** (${r.result}): ${r.how ?? ''}`);
  }
  return `${lines.join('\n')}\n`;
}

export function consoleSummary(result: ExamReport): string {
  const lines = [`${result.tool}${result.seed !== undefined ? ` (seed ${result.seed})` : ''}`];
  // The program's own failure leads: what follows (every task undone) is its consequence.
  if (result.programFailed !== undefined) {
    lines.push(`  FAIL the program: ${result.programFailed}${result.programStderr?.length ? '; its stderr ended:' : ''}`);
    for (const line of result.programStderr ?? []) lines.push(`    | ${line}`);
  }
  for (const note of result.notes) lines.push(`  ${note}`);
  if (result.error !== undefined) lines.push(`  could not run: ${result.error}`);
  for (const t of result.tasks ?? []) {
    const mark = t.result === 'done' ? 'ok  ' : t.result === 'undone' && result.strict ? 'FAIL' : '-   ';
    lines.push(`  ${mark} task ${t.id}: ${t.task}${t.result === 'done' ? '' : ` (${t.result})`}`);
    if (t.result === 'undone') for (const p of t.proof) lines.push(`         ${p}`);
  }
  for (const r of result.rules) {
    const mark = { passed: 'ok  ', failed: 'FAIL', 'not exercised': '-   ', 'not judged': '?   ' }[r.result];
    lines.push(`  ${mark} ${r.id} ${r.rule}${r.result === 'passed' || r.result === 'failed' ? '' : ` (${r.result})`}`);
    for (const f of r.findings.filter((x) => !x.held)) for (const p of [`[${f.check}]`, ...f.proof]) lines.push(`         ${p}`);
  }
  const s = result.summary;
  lines.push(`  ${s.passed} passed, ${s.failed} failed, ${s['not exercised']} not exercised, ${s['not judged']} not judged`);
  return lines.join('\n');
}

/** rules.json, rules.md and junit.xml into `dir` (made if missing). */
export function writeReports(result: ExamReport, dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'rules.json'), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(dir, 'rules.md'), markdown(result));
  writeFileSync(join(dir, 'junit.xml'), junit(result));
}
