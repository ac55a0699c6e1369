/**
 * The rules of spec/rules.yaml that pin an operation's success status, read from their text: a rule
 * that names the operation (`POST /runs`, `POST /runs/{id}/stop`, whatever its parameters are
 * called) and says it `answers` a 2xx status (RUN-035 "POST /runs answers 202 with the run ...").
 * A 2xx the document does not declare for the operation (a create answering 200, a generation start
 * 200 instead of 202) breaks these rules, not the document alone (D160), so the response checker
 * names them and the reporters group the failures under them (#23 item 5).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { OperationInfo } from '../../spec/contract.ts';
import type { RuleLedger } from '../../spec/types.ts';

const LEDGER = new URL('../../spec/rules.yaml', import.meta.url);

/** `/runs/{runId}/stop` → `/runs/{}/stop`: rules name parameters freely (`{id}`). */
const shape = (path: string) => path.replace(/\{[^}]*\}/g, '{}');

let byOperation: Map<string, string[]> | undefined;

/** Rule ids, in ledger order, whose text names `METHOD path` of this operation and a 2xx it answers. */
export function successStatusRules(operation: Pick<OperationInfo, 'method' | 'path' | 'operationId'>): string[] {
  byOperation ??= new Map();
  const cached = byOperation.get(operation.operationId);
  if (cached) return cached;
  const ledger = parse(readFileSync(LEDGER, 'utf8')) as RuleLedger;
  const named = `${operation.method.toUpperCase()} ${shape(operation.path)}`;
  const ids = ledger.rules
    .filter((rule) => {
      if ((rule.party ?? 'server') !== 'server' || !/\banswers 2\d\d\b/.test(rule.rule)) return false;
      // The operation itself, not a longer path it starts (POST /runs is not POST /runs/{id}/stop).
      const text = shape(rule.rule);
      for (let at = text.indexOf(named); at >= 0; at = text.indexOf(named, at + 1)) if (!/^[\w/{}-]/.test(text.slice(at + named.length))) return true;
      return false;
    })
    .map((rule) => rule.id);
  byOperation.set(operation.operationId, ids);
  return ids;
}
