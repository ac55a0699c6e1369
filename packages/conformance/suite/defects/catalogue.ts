/**
 * The defect catalogue: named contract violations, each injected into an otherwise correct mock,
 * that the conformance suite must notice (packages/conformance/proofs/prove-defects.ts runs it against each one).
 *
 * Most are injected by the fault-injecting proxy (proxy.ts) as pure functions over one exchange:
 * `request` changes what the mock receives, `response` changes what the client receives. Only
 * defects the proxy cannot see (webhook deliveries go from the mock straight to the receiver) are
 * injected by the mock itself (`via: 'mock'`, started with `--defect NAME`; packages/mock-core/src/events/defects.ts).
 *
 * `grep` selects the tests that must catch the defect (a Playwright --grep over "file title
 * tags"): by default the tests naming the rules it breaks (an entry writes `grep` only where it
 * differs), so each defect runs only those. The entries are in catalogue/<kind>.ts, one file per
 * kind of DEFECT_KINDS; the types and grep builders in catalogue/model.ts.
 */
import { byRules, type Defect, type DefectEntry } from './catalogue/model.ts';
import { headersDefects } from './catalogue/headers.ts';
import { envelopeDefects } from './catalogue/envelope.ts';
import { statusDefects } from './catalogue/status.ts';
import { errorBodyDefects } from './catalogue/error-body.ts';
import { idempotencyDefects } from './catalogue/idempotency.ts';
import { preconditionDefects } from './catalogue/precondition.ts';
import { ownershipDefects } from './catalogue/ownership.ts';
import { paginationDefects } from './catalogue/pagination.ts';
import { rateLimitDefects } from './catalogue/rate-limit.ts';
import { runsDefects } from './catalogue/runs.ts';
import { webhooksDefects } from './catalogue/webhooks.ts';

export { byRules, contextOf, DEFECT_KINDS, inFile, type Defect, type DefectContext, type DefectEntry, type DefectKind } from './catalogue/model.ts';

const withGrep = (entry: DefectEntry): Defect => ({ ...entry, grep: entry.grep ?? byRules(...entry.rules) });

/** Every defect, kind by kind (DEFECT_KINDS' order). */
export const DEFECTS: readonly Defect[] = [...headersDefects, ...envelopeDefects, ...statusDefects, ...errorBodyDefects, ...idempotencyDefects, ...preconditionDefects, ...ownershipDefects, ...paginationDefects, ...rateLimitDefects, ...runsDefects, ...webhooksDefects].map(withGrep);

export function defectNamed(name: string): Defect | undefined {
  return DEFECTS.find((d) => d.name === name);
}
