/** The defect catalogue's types and the --grep builders of its entries (packages/conformance/suite/defects/catalogue.ts). */
import { matchOperation } from '../../../../contract/spec/routes.ts';
import { type OperationInfo } from '../../../../contract/spec/contract.ts';
import { apiPath, type ProxyRequest, type ProxyResponse } from '../exchange.ts';
import { type DefectMemory } from '../memory.ts';

export const DEFECT_KINDS = [
  'headers',
  'envelope',
  'status',
  'error-body',
  'idempotency',
  'precondition',
  'ownership',
  'pagination',
  'rate-limit',
  'runs',
  'webhooks',
] as const;
export type DefectKind = (typeof DEFECT_KINDS)[number];

/** What a defect sees of the exchange besides the message it changes. */
export interface DefectContext {
  /** The request as the client sent it. */
  request: ProxyRequest;
  /** Its path below the API base (`/runs/run_1/items`). */
  path: string;
  /** The operation of the document it addresses, when there is one. */
  operation: OperationInfo | undefined;
  memory: DefectMemory;
}

export interface Defect {
  name: string;
  kind: DefectKind;
  description: string;
  /** Rule ids of packages/contract/spec/rules.yaml the defect breaks. */
  rules: string[];
  /** Playwright --grep (a regular expression's source) selecting the tests that must catch it. */
  grep: string;
  /** Where it is injected: by the proxy, or by the mock started with `--defect NAME`. */
  via: 'proxy' | 'mock';
  request?: (request: ProxyRequest, context: DefectContext) => ProxyRequest;
  response?: (response: ProxyResponse, context: DefectContext) => ProxyResponse;
}

/** A catalogue entry as written: `grep` defaults to the tests naming its `rules` (byRules). */
export type DefectEntry = Omit<Defect, 'grep'> & { grep?: string };

/** A --grep selecting the tests whose title (or describe title) names any of these rule ids. */
export function byRules(...ids: string[]): string {
  return `\\b(?:${ids.map((id) => id.replace(/[-]/g, '\\-')).join('|')})\\b`;
}

/** A --grep selecting, in one spec file only, the tests that `grep` selects. */
export function inFile(file: string, grep: string): string {
  return `\\b${file.replace(/[.]/g, '\\.')}\\b.*${grep}`;
}

/** The context of a request (operation matched against the document). */
export function contextOf(request: ProxyRequest, memory: DefectMemory): DefectContext | undefined {
  const path = apiPath(request);
  if (path === undefined) return undefined;
  return { request, path, operation: matchOperation(request.method, path)?.operation, memory };
}
