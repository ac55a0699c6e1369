/** How the mock stores an API key: its sha256 (the store never holds a key itself). */
import { sha256Hex } from '../../../../contract/platform/crypto.ts';

// sha256 of a presented token, memoized per process: a bounded map (cleared when full) from the
// token to its hash. It lives only in memory, never in the store, which still holds only hashes.
const HASH_MEMO_MAX = 1000;
const HASH_MEMO_MAX_KEY_LENGTH = 256; // longer tokens (never valid) are hashed, not remembered
const hashMemo = new Map<string, string>();

export function hashKey(key: string): string {
  let hash = hashMemo.get(key);
  if (hash === undefined) {
    hash = sha256Hex(key);
    if (key.length <= HASH_MEMO_MAX_KEY_LENGTH) {
      if (hashMemo.size >= HASH_MEMO_MAX) hashMemo.clear();
      hashMemo.set(key, hash);
    }
  }
  return hash;
}
