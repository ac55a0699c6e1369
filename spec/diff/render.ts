/** The diff's two outputs: a Markdown changelog entry and one JSON object for tools. */
import type { Change, Severity } from './classify.ts';
import type { Verdict } from './policy.ts';

export interface Report {
  base: string;
  head: string;
  allowed: boolean;
  changes: { severity: Severity; location: string; message: string }[];
}

export function toJson(base: string, head: string, changes: readonly Change[], verdict: Verdict): Report {
  return { base, head, allowed: verdict.allowed, changes: changes.map(({ severity, location, message }) => ({ severity, location, message })) };
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

/** A changelog entry: breaking first, each severity grouped by operation. */
export function toMarkdown(base: string, head: string, changes: readonly Change[], verdict: Verdict): string {
  const lines = [`## ${head}`, '', `Changes from ${base}: ${changes.length === 0 ? 'none' : HEADINGS.map(([s, h]) => `${changes.filter((c) => c.severity === s).length} ${h.toLowerCase()}`).join(', ')}.`, ''];
  if (!verdict.allowed) {
    lines.push('**Not allowed by the versioning policy:**', '', ...verdict.problems.map((p) => `- ${p}`), '');
  }
  for (const [severity, heading] of HEADINGS) {
    const some = changes.filter((c) => c.severity === severity);
    if (some.length === 0) continue;
    lines.push(`### ${heading}`, '');
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
  return `${lines.join('\n').trimEnd()}\n`;
}
