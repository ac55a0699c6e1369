/**
 * Stage: faults on demand, before idempotency so that a 503 never consumes a key.
 * Switched per account or globally from the control plane, or per request with
 * `Prefer: scenario=<name>` (settable from a browser). Scenarios: writes_paused,
 * spend_unavailable, lost_race.
 */
import type { OperationInfo } from '../../spec/contract.ts';
import { ApiError } from '../errors.ts';
import type { AccountState, Store } from '../store.ts';

export const WRITES_PAUSED_RETRY_AFTER = 30;

/** A write is any operation that changes state (POST /runs/estimate only prices). */
export function isWrite(operation: OperationInfo): boolean {
  return operation.method !== 'get' && operation.operationId !== 'estimateRun';
}

export function scenariosOf(prefer: string | undefined): Set<string> {
  const out = new Set<string>();
  if (!prefer) return out;
  for (const part of prefer.split(',')) {
    const match = /^\s*scenario\s*=\s*"?([a-z0-9_]+)"?\s*$/i.exec(part);
    if (match) out.add(match[1]!.toLowerCase());
  }
  return out;
}

export function applyFaults(store: Store, account: AccountState, operation: OperationInfo, scenarios: Set<string>): void {
  if (!isWrite(operation)) return;
  if (store.global.writesPaused || account.faults.writesPaused || scenarios.has('writes_paused')) {
    throw new ApiError('WRITES_PAUSED', 'API writes are paused. Nothing changed and the Idempotency-Key was not consumed; retry the identical request after Retry-After.', {
      retryAfter: WRITES_PAUSED_RETRY_AFTER,
    });
  }
}
