/**
 * The rules of packages/contract/spec/rules.yaml that own a part of an operation's success response, read from their
 * text: a rule that names the operation (`POST /runs`, `POST /runs/{id}/stop`, whatever its
 * parameters are called) and
 * - says it `answers` a 2xx status (RUN-035 "POST /runs answers 202 with the run ..."): a 2xx the
 *   document does not declare for the operation (a create answering 200, a generation start 200
 *   instead of 202) breaks these rules, not the document alone (D160; `successStatusRules`);
 * - names a response header in backticks (CAMP-022 "POST /campaigns ... answers 201 with the
 *   campaign and `Location` = ..."): a declared header missing or malformed breaks these rules
 *   (D267; `headerRulesOf`), so a missing `Location` on createCampaign 201 is CAMP-022's.
 * The response checker names them and the reporters group the failures under them (#23 item 5,
 * #32 item 6).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { OperationInfo } from '../../../contract/spec/contract.ts';
import type { Rule, RuleLedger } from '../../../contract/spec/types.ts';

const LEDGER = new URL('../../../contract/spec/rules.yaml', import.meta.url);

/** `/runs/{runId}/stop` → `/runs/{}/stop`: rules name parameters freely (`{id}`). */
const shape = (path: string) => path.replace(/\{[^}]*\}/g, '{}');

type Operation = Pick<OperationInfo, 'method' | 'path' | 'operationId'>;

let serverRules: Rule[] | undefined;
const cache = new Map<string, string[]>();

/** The service's rules (not a client's or a receiver's) whose text names `METHOD path` of this operation, in ledger order. */
function rulesNaming(operation: Operation): Rule[] {
  serverRules ??= (parse(readFileSync(LEDGER, 'utf8')) as RuleLedger).rules.filter((rule) => (rule.party ?? 'server') === 'server');
  const named = `${operation.method.toUpperCase()} ${shape(operation.path)}`;
  return serverRules.filter((rule) => {
    // The operation itself, not a longer path it starts (POST /runs is not POST /runs/{id}/stop).
    const text = shape(rule.rule);
    for (let at = text.indexOf(named); at >= 0; at = text.indexOf(named, at + 1)) if (!/^[\w/{}-]/.test(text.slice(at + named.length))) return true;
    return false;
  });
}

function cached(key: string, compute: () => string[]): string[] {
  const hit = cache.get(key);
  if (hit) return hit;
  const ids = compute();
  cache.set(key, ids);
  return ids;
}

/** Rule ids, in ledger order, whose text names `METHOD path` of this operation and a 2xx it answers. */
export function successStatusRules(operation: Operation): string[] {
  return cached(`status ${operation.operationId}`, () => rulesNaming(operation).filter((rule) => /\banswers 2\d\d\b/.test(rule.rule)).map((rule) => rule.id));
}

/**
 * Rule ids, in ledger order, whose text names `METHOD path` of this operation, a 2xx it answers and
 * the response header `name` in backticks (`` `Location` ``, case-insensitive): the rules that own
 * that header of the operation's success response.
 */
export function headerRulesOf(operation: Operation, name: string): string[] {
  const header = new RegExp(`\`${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\``, 'i');
  return cached(`header ${operation.operationId} ${name.toLowerCase()}`, () =>
    rulesNaming(operation)
      .filter((rule) => /\banswers 2\d\d\b/.test(rule.rule) && header.test(rule.rule))
      .map((rule) => rule.id),
  );
}
