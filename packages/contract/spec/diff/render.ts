/** The diff's two outputs: a Markdown changelog entry and one JSON object for tools. */
import type { Change, Severity } from './change.ts';
import type { Verdict } from './policy.ts';

export interface Report {
  base: string;
  head: string;
  allowed: boolean;
  changes: { severity: Severity; location: string; message: string }[];
  /** The changes since the working document's own base (present when the diff leads with them). */
  since?: { label: string; changes: { severity: Severity; location: string; message: string }[] };
}

const plain = (changes: readonly Change[]) => changes.map(({ severity, location, message }) => ({ severity, location, message }));

export function toJson(base: string, head: string, changes: readonly Change[], verdict: Verdict, lead?: Lead): Report {
  return { base, head, allowed: verdict.allowed, changes: plain(changes), ...(lead === undefined ? {} : { since: { label: lead.label, changes: plain(lead.changes) } }) };
}

const HEADINGS: [Severity, string][] = [
  ['breaking', 'Breaking'],
  ['non-breaking', 'Non-breaking'],
  ['documentation', 'Documentation only'],
];

/** The operation (or table, rule, webhook) a location belongs to: its part before the first ` › `. */
export function subjectOf(location: string): string {
  return location.split(' › ')[0]!;
}

/**
 * What changed since the working document's own base (git HEAD by default, `--since`), shown
 * before the whole diff against the last release, so a two-line edit is not buried under the
 * unreleased version's earlier changes (V11).
 */
export interface Lead {
  label: string;
  changes: readonly Change[];
}

const counts = (changes: readonly Change[]): string => (changes.length === 0 ? 'none' : HEADINGS.map(([s, h]) => `${changes.filter((c) => c.severity === s).length} ${h.toLowerCase()}`).join(', '));

/** A changelog entry: breaking first, each severity grouped by operation; `lead` first when given. */
export function toMarkdown(base: string, head: string, changes: readonly Change[], verdict: Verdict, lead?: Lead): string {
  const lines = [`## ${head}`, ''];
  if (lead !== undefined) {
    lines.push(`### Since ${lead.label}: ${counts(lead.changes)}`, '');
    grouped(lines, lead.changes, '####');
    lines.push(`### Since ${base} (the last release; what the versioning policy judges)`, '');
  }
  lines.push(`Changes from ${base}: ${counts(changes)}.`, '');
  if (!verdict.allowed) {
    lines.push('**Not allowed by the versioning policy:**', '', ...verdict.problems.map((p) => `- ${p}`), '');
  }
  grouped(lines, changes, lead === undefined ? '###' : '####');
  return `${lines.join('\n').trimEnd()}\n`;
}

function grouped(lines: string[], changes: readonly Change[], level: string): void {
  for (const [severity, heading] of HEADINGS) {
    const some = changes.filter((c) => c.severity === severity);
    if (some.length === 0) continue;
    lines.push(`${level} ${heading}`, '');
    const bySubject = new Map<string, Change[]>();
    for (const c of some) bySubject.set(subjectOf(c.location), [...(bySubject.get(subjectOf(c.location)) ?? []), c]);
    for (const [subject, list] of bySubject) {
      lines.push(`- **${subject}**`);
      for (const c of list) {
        const rest = c.location.slice(subject.length).replace(/^ › /, '');
        lines.push(`  - ${rest === '' ? '' : `${rest}: `}${c.message}`);
      }
    }
    lines.push('');
  }
}
