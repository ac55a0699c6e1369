/**
 * The rule ledger (packages/contract/spec/rules.yaml) and the convention by which a test names the rules it checks:
 * rule ids in its title or the titles of its describe blocks (`AUTH-032 a revoked key answers 401`).
 * Shared by the rules reporter (what ran) and scripts/rules-coverage.ts (what exists, statically).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Rule, RuleLedger } from '../spec/types.ts';

export const LEDGER_PATH = new URL('../spec/rules.yaml', import.meta.url);

/** A rule id as packages/contract/spec/schemas/rules.schema.json defines it. */
export const RULE_ID = /\b(?:AUTH|IDEM|ETAG|PAGE|PROD|CRTV|CAMP|ASST|RUN|UPSC|EVT|ERR|RATE|VER|META|GEN|MEDIA)-\d{3}\b/g;

export function loadLedger(url: URL = LEDGER_PATH): RuleLedger {
  const ledger = parse(readFileSync(url, 'utf8')) as RuleLedger;
  if (!ledger || !Array.isArray(ledger.rules)) throw new Error(`${url.pathname}: no rules`);
  return ledger;
}

export function rulesById(ledger: RuleLedger): Map<string, Rule> {
  return new Map(ledger.rules.map((r) => [r.id, r]));
}

/** Every rule id named in these titles, in order of first appearance. */
export function ruleIdsIn(titles: readonly string[]): string[] {
  const ids: string[] = [];
  for (const title of titles) for (const match of title.matchAll(RULE_ID)) if (!ids.includes(match[0])) ids.push(match[0]);
  return ids;
}

/**
 * Problems with a test's naming: unknown ids, and an assumed rule named without the @assumed tag
 * (a real implementation's CI leaves @assumed tests out, and must not run this one either).
 */
export function namingProblems(ids: readonly string[], tags: readonly string[], rules: ReadonlyMap<string, Rule>): string[] {
  const problems: string[] = [];
  const unknown = ids.filter((id) => !rules.has(id));
  if (unknown.length) problems.push(`names unknown rule id(s) ${unknown.join(', ')}`);
  const assumed = ids.filter((id) => rules.get(id)?.status === 'assumed');
  if (assumed.length && !tags.includes('@assumed')) problems.push(`names assumed rule(s) ${assumed.join(', ')} without the @assumed tag`);
  return problems;
}
