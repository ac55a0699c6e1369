/**
 * Stage: faults on demand, before idempotency so that a fault never consumes a key.
 * Switched per account or globally from the control plane, or per request with
 * `Prefer: scenario=<name>` (settable from a browser). The scenarios (packages/contract/spec/mock-control.yaml):
 * - writes_paused: 503 WRITES_PAUSED on a write;
 * - lost_race: 503 SERVICE_UNAVAILABLE on campaign create or restore (other changes in flight);
 * - cascade_pending: 409 CAMPAIGN_CASCADE_PENDING with Retry-After on campaign delete or restore;
 * - in_progress: 409 IDEMPOTENCY_IN_PROGRESS with Retry-After on a write sent with a key;
 * - rate_limited: a 429 (the rate-limit stage), slow: a write held 5 s on the clock (index.ts),
 *   spend_unavailable: 503 ACCOUNT_SPEND_UNAVAILABLE on the spending operations (packages/mock-core/src/domain/credits/spend.ts).
 */
import type { OperationInfo } from '../../../contract/spec/contract.ts';
import { ApiError } from '../core/errors.ts';
import type { AccountState, Store } from '../domain/store.ts';

export const WRITES_PAUSED_RETRY_AFTER = 30;

/** A write is any operation that changes state (POST /runs/estimate only prices). */
export function isWrite(operation: OperationInfo): boolean {
  return operation.method !== 'get' && operation.operationId !== 'estimateRun';
}

const RACING_OPERATIONS = new Set(['createCampaign', 'undeleteCampaign']);
const CASCADING_OPERATIONS = new Set(['deleteCampaign', 'undeleteCampaign']);

export function applyFaults(store: Store, account: AccountState, operation: OperationInfo, scenarios: ReadonlySet<string>, idempotencyKey?: string): void {
  if (!isWrite(operation)) return;
  if (scenarios.has('lost_race') && RACING_OPERATIONS.has(operation.operationId)) {
    throw new ApiError('SERVICE_UNAVAILABLE', 'Other changes on the account were in flight and this one lost the race. Nothing changed; retry with the same Idempotency-Key.', { retryAfter: 1 });
  }
  if (scenarios.has('cascade_pending') && CASCADING_OPERATIONS.has(operation.operationId)) {
    throw new ApiError('CAMPAIGN_CASCADE_PENDING', 'A previous delete or restore is still finishing its creatives; retry the same request after Retry-After.', { retryAfter: 2 });
  }
  if (scenarios.has('in_progress') && idempotencyKey !== undefined) {
    throw new ApiError('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still running.', { retryAfter: 1 });
  }
  if (store.global.writesPaused || account.faults.writesPaused || scenarios.has('writes_paused')) {
    throw new ApiError('WRITES_PAUSED', 'API writes are paused. Nothing changed and the Idempotency-Key was not consumed; retry the identical request after Retry-After.', {
      retryAfter: WRITES_PAUSED_RETRY_AFTER,
    });
  }
}
