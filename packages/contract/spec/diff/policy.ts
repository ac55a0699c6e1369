/**
 * The versioning policy (interface, "Versioning"; issue #13 §3), applied to a classified diff:
 *
 * - any change needs a version bump and a version-history entry: `info.version` must increase and
 *   `info.x-version-history` must hold an entry for it;
 * - a breaking change is allowed only with a major bump, or when an entry of a version after the
 *   base names it (`breaking[].matches`, globs over the change's location) with `announced` and
 *   `sunset` dates at least 90 days apart, or with a named `waiver`;
 * - an operation marked `deprecated` with an `x-sunset` date names its `x-deprecated-at` date, at
 *   least 90 days before (the mock sends them as `Deprecation` and `Sunset`, RFC 9745 and RFC 8594);
 * - the rule ledger carries the document's version.
 *
 * Every problem says what to do.
 */
import type { Change } from './change.ts';
import type { RuleLedger } from './classify.ts';
import { compareSemver, parseSemver } from '../versions.ts';

export const NOTICE_DAYS = 90;
const DAY_MS = 86_400_000;

export interface BreakingNotice {
  change: string;
  /** Globs (`*` = any text) over a breaking change's location; one match names the change. */
  matches: string[];
  announced?: string;
  sunset?: string;
  /** A named waiver instead of the notice (the interface's zero-traffic waiver is the precedent). */
  waiver?: string;
}

export interface HistoryEntry {
  version: string;
  summary: string;
  breaking?: BreakingNotice[];
}

export interface Verdict {
  allowed: boolean;
  problems: string[];
}

interface Doc {
  info?: { version?: unknown; description?: unknown; 'x-version-history'?: unknown };
  paths?: unknown;
}

export function historyOf(document: unknown): HistoryEntry[] {
  const history = (document as Doc).info?.['x-version-history'];
  return Array.isArray(history) ? (history as HistoryEntry[]) : [];
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

function date(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

function noticeProblem(what: string, announced: unknown, sunset: unknown): string | undefined {
  const a = date(announced);
  const s = date(sunset);
  if (a === undefined || s === undefined) {
    return `${what}: needs \`announced\` and \`sunset\` dates (YYYY-MM-DD, at least ${NOTICE_DAYS} days apart) or a named \`waiver\`; has announced ${JSON.stringify(announced ?? null)}, sunset ${JSON.stringify(sunset ?? null)}`;
  }
  const days = Math.round((s - a) / DAY_MS);
  if (days < NOTICE_DAYS) return `${what}: announced ${String(announced)} and sunset ${String(sunset)} are ${days} days apart; the notice is at least ${NOTICE_DAYS} days (sunset on or after ${new Date(a + NOTICE_DAYS * DAY_MS).toISOString().slice(0, 10)})`;
  return undefined;
}

function bumpAdvice(changes: readonly Change[], base: string): string {
  const [major, minor, patch] = parseSemver(base) ?? [0, 0, 0];
  if (changes.some((c) => c.severity === 'breaking')) return `${major}.${minor + 1}.0 with a notice for each breaking change (or ${major + 1}.0.0)`;
  if (changes.some((c) => c.severity === 'non-breaking')) return `${major}.${minor + 1}.0 (additive; ${major}.${minor}.${patch + 1} when it corrects the description of an unchanged API)`;
  return `${major}.${minor}.${patch + 1} (documentation only)`;
}

/** The policy's verdict on going from `base` to `head` with these classified `changes`. */
export function evaluate(base: unknown, head: unknown, changes: readonly Change[], headRules?: RuleLedger): Verdict {
  const problems: string[] = [];
  const baseVersion = String((base as Doc).info?.version ?? '');
  const headVersion = String((head as Doc).info?.version ?? '');
  const order = compareSemver(headVersion, baseVersion);
  const history = historyOf(head);
  if (order === undefined) problems.push(`info.version must be MAJOR.MINOR.PATCH: base ${JSON.stringify(baseVersion)}, head ${JSON.stringify(headVersion)}`);
  else if (order < 0) problems.push(`info.version ${headVersion} is lower than ${baseVersion}: versions only increase`);
  else if (order === 0 && changes.length > 0) {
    problems.push(`${changes.length} change(s) since ${baseVersion} but info.version is still ${baseVersion}: set info.version to ${bumpAdvice(changes, baseVersion)} and add an entry for it to info.x-version-history (and set \`version\` in packages/contract/spec/rules.yaml to it)`);
  }
  if (order !== undefined && order > 0) {
    const entry = history.find((e) => e.version === headVersion);
    if (entry === undefined || typeof entry.summary !== 'string' || entry.summary.trim() === '') {
      problems.push(`info.x-version-history has no entry for ${headVersion}: add \`- { version: ${headVersion}, summary: <what changed> }\` (breaking changes listed under \`breaking\`)`);
    }
  }
  const breaking = changes.filter((c) => c.severity === 'breaking');
  const majorBump = order !== undefined && order > 0 && parseSemver(headVersion)![0] > parseSemver(baseVersion)![0];
  if (breaking.length > 0 && !majorBump) {
    const notices = history
      .filter((e) => compareSemver(e.version, baseVersion) !== undefined && compareSemver(e.version, baseVersion)! > 0 && compareSemver(e.version, headVersion)! <= 0)
      .flatMap((e) => (e.breaking ?? []).map((n) => ({ entry: e.version, notice: n, patterns: (n.matches ?? []).map(globToRegExp) })));
    const unnamed: Change[] = [];
    const used = new Set<(typeof notices)[number]>();
    for (const change of breaking) {
      const named = notices.find((n) => n.patterns.some((p) => p.test(change.location)));
      if (named === undefined) unnamed.push(change);
      else used.add(named);
    }
    for (const n of used) {
      if (typeof n.notice.waiver === 'string' && n.notice.waiver.trim() !== '') continue;
      const problem = noticeProblem(`the ${n.entry} notice "${n.notice.change}"`, n.notice.announced, n.notice.sunset);
      if (problem !== undefined) problems.push(problem);
    }
    if (unnamed.length > 0) {
      const target = order !== undefined && order > 0 ? headVersion : bumpAdvice(changes, baseVersion).split(' ')[0]!;
      problems.push(
        `${unnamed.length} breaking change(s) not named in the version history: add to the ${target} entry of info.x-version-history \`breaking: [{ change: <one line>, matches: [<location glob>], announced: YYYY-MM-DD, sunset: <at least ${NOTICE_DAYS} days later> }]\` (or \`waiver: <name>\` instead of the dates), or bump the major version. Unnamed:\n${unnamed.map((c) => `  - ${c.location}: ${c.message}`).join('\n')}`,
      );
    }
  }
  // Deprecated operations carry their dates (the mock turns them into Deprecation and Sunset headers).
  const paths = (head as Doc).paths;
  if (typeof paths === 'object' && paths !== null) {
    for (const [path, item] of Object.entries(paths as Record<string, Record<string, unknown>>)) {
      for (const [method, op] of Object.entries(item)) {
        if (typeof op !== 'object' || op === null || (op as { deprecated?: unknown }).deprecated !== true) continue;
        const o = op as Record<string, unknown>;
        if (o['x-sunset'] === undefined && o['x-deprecated-at'] === undefined) continue;
        const problem = noticeProblem(`${method.toUpperCase()} ${path} (deprecated): x-deprecated-at/x-sunset`, o['x-deprecated-at'], o['x-sunset']);
        if (problem !== undefined) problems.push(problem);
      }
    }
  }
  if (headRules !== undefined && headRules.version !== undefined && headRules.version !== headVersion) {
    problems.push(`packages/contract/spec/rules.yaml says version ${headRules.version}, the document ${headVersion}: set the ledger's \`version\` to ${headVersion}`);
  }
  return { allowed: problems.length === 0, problems };
}
