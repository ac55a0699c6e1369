/**
 * The spend dependency: balance and daily budget are read from it before anything spends. When it
 * cannot be reached (the account fault `spendUnavailable`, or `Prefer: scenario=spend_unavailable`
 * on the request) runs, estimates and upscales answer 503 ACCOUNT_SPEND_UNAVAILABLE with
 * Retry-After (ERR-025, ERR-033). It says nothing about the balance.
 */
import { ApiError } from '../../core/errors.ts';
import { scenariosOf } from '../shared.ts';
import type { AccountState } from '../store.ts';

export const SPEND_UNAVAILABLE_RETRY_AFTER = 5;

export function assertSpendReachable(account: AccountState, prefer: string | undefined): void {
  if (account.faults.spendUnavailable || scenariosOf(prefer).has('spend_unavailable')) {
    throw new ApiError('ACCOUNT_SPEND_UNAVAILABLE', 'The account spend service could not be reached. This says nothing about the balance; retry with the same Idempotency-Key after Retry-After.', {
      retryAfter: SPEND_UNAVAILABLE_RETRY_AFTER,
    });
  }
}
