/**
 * The scenario of `--scenario FILE` at start (packages/mock/src/node/serve.ts reads the file): loaded
 * like any other (apply.ts), but made only once into a state (D255): with `--state`, the state
 * records each scenario it was made from by the sha256 of its text (Store.scenarios, saved with it),
 * and a start with a file already recorded makes nothing and says so in one line. A file of other
 * content is made as well, beside what the state holds (the accounts of an earlier scenario stay:
 * they may have been changed since, and only a reset removes accounts). A refusal is one paragraph
 * for the console: what went wrong, then each problem at `file:line:column`, never a stack trace.
 */
import type { AppliedScenario } from '../domain/store.ts';
import { loadScenario, scenarioHash, ScenarioError, type ScenarioLoaded, type ScenarioTarget } from './apply.ts';

export type ScenarioAtStart = { made: ScenarioLoaded; hash: string } | { already: AppliedScenario; hash: string };

/** The most problems a refusal lists (the rest are counted). */
const LISTED = 20;

/** Loads the text of `file`, or finds it already made into the state when `once` (a `--state` start). */
export async function scenarioAtStart(target: ScenarioTarget, text: string, file: string, once: boolean): Promise<ScenarioAtStart> {
  const hash = scenarioHash(text);
  const already = once ? target.services.store.scenarios.get(hash) : undefined;
  if (already) return { already, hash };
  return { made: await loadScenario(target, text, file), hash };
}

/** The line printed when the state already holds the scenario. */
export function alreadyMadeLine(file: string, outcome: { already: AppliedScenario; hash: string }): string {
  const { already, hash } = outcome;
  return `Scenario ${file} (sha256 ${hash.slice(0, 12)}) was made into this state at ${already.appliedAt} (${already.accountIds.length} account(s): ${already.accountIds.join(', ') || 'none'}); not made again.`;
}

/** What the console says of a refused `--scenario` (no stack trace): the error, then each problem with its place in the file. */
export function scenarioRefusal(file: string, error: unknown): string {
  if (!(error instanceof ScenarioError)) return `--scenario ${file} was not loaded: ${error instanceof Error ? error.message : String(error)}`;
  const lines = error.errors.slice(0, LISTED).map((e) => `  ${file}${e.line !== undefined ? `:${e.line}:${e.column ?? 1}` : ''} ${e.field}: ${e.message}`);
  if (error.errors.length > LISTED) lines.push(`  … and ${error.errors.length - LISTED} more`);
  return [`--scenario ${file} was not loaded: ${error.message}`, ...lines].join('\n');
}
