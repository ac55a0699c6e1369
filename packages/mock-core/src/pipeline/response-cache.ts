/**
 * Stage: operate, for cacheable reads. A read whose handler declares `cacheable` answers from the
 * same function of the same inputs every time: the request (path and validated query), the
 * account's resource collections and its sparse-pages drill. So its bytes are kept and sent again
 * until one of those inputs changes, instead of presenting and serialising the same page on every
 * request. Nothing before this stage is skipped: every request is still authenticated, counted
 * against its rate limits, authorized, validated and offered to the fault stage.
 * How it works and what it decides: docs/internals.md, "packages/mock-core/src/pipeline/response-cache.ts".
 */
import { equalBytes } from '../../../contract/platform/crypto.ts';
import type { AccountState } from '../domain/store.ts';
import { bodyBytes } from './respond.ts';
import type { RawResponse } from './types.ts';

export interface ResponseCacheOptions {
  /** Off: every read is computed (the O(page) benchmark measures the computation). Default on. */
  enabled?: boolean;
  /** Recompute every hit and compare (tests, fuzz). Default off. */
  verify?: boolean;
  /** Entries kept over all accounts, the oldest dropped first (default 256). */
  maxEntries?: number;
}

interface Entry {
  account: AccountState;
  stamp: number;
  status: number;
  headers: Readonly<Record<string, string>>;
  body: Uint8Array;
}

/** The highest version among the collections a cacheable read may present. */
export function accountStamp(account: AccountState): number {
  return Math.max(
    account.brands.version,
    account.products.version,
    account.creatives.version,
    account.campaigns.version,
    account.assets.version,
    account.deliveries.version,
  );
}

export class ResponseCache {
  readonly enabled: boolean;
  readonly verify: boolean;
  private readonly maxEntries: number;
  private readonly entries = new Map<string, Entry>();

  constructor(options: ResponseCacheOptions = {}) {
    this.enabled = options.enabled ?? true;
    this.verify = options.verify ?? false;
    this.maxEntries = Math.max(1, options.maxEntries ?? 256);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cache key of a read: account, operation, path, validated query and the drill setting. */
  static keyOf(account: AccountState, operationId: string, path: string, query: Record<string, unknown>): string {
    return `${account.accountId}\n${operationId}\n${path}\n${JSON.stringify(query)}\n${account.settings.sparsePages ? 's' : ''}`;
  }

  /** A fresh copy of the kept response (its headers are extended per request), or undefined. */
  get(key: string, account: AccountState): RawResponse | undefined {
    if (!this.enabled) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.account !== account || entry.stamp !== accountStamp(account)) {
      this.entries.delete(key);
      return undefined;
    }
    return { status: entry.status, headers: { ...entry.headers }, body: entry.body };
  }

  /**
   * Keep a computed response (as bytes) and answer it: the first answer and every later one send the
   * same bytes. `stamp` is the account's stamp read before the handler ran.
   */
  put(key: string, account: AccountState, stamp: number, response: RawResponse): RawResponse {
    const body = bodyBytes(response.body);
    if (!this.enabled || accountStamp(account) !== stamp) return { ...response, body };
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.delete(key); // re-insert: the newest entry goes last
    this.entries.set(key, { account, stamp, status: response.status, headers: { ...response.headers }, body });
    return { status: response.status, headers: { ...response.headers }, body };
  }

  /** `verify`: the kept response must equal the one computed now, byte for byte. */
  check(key: string, kept: RawResponse, fresh: RawResponse): void {
    const sameHeaders = JSON.stringify(kept.headers) === JSON.stringify(fresh.headers);
    if (kept.status !== fresh.status || !sameHeaders || !equalBytes(bodyBytes(kept.body), bodyBytes(fresh.body))) {
      throw new Error(`stale cached response for ${JSON.stringify(key)}: a cacheable handler read something outside the request and the account's collections`);
    }
  }

  /** Forget everything (control-plane reset). */
  clear(): void {
    this.entries.clear();
  }
}
