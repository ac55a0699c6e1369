/**
 * Pagination on every list (Endpoints / Conventions 4): wherever a 2xx body is a list envelope
 * `{ data: [...], pagination: {...} }`, `hasMore` mirrors `nextCursor !== null` (PAGE-007) and
 * `data` never holds more rows than the `pageSize` applied (PAGE-008), and the size applied is never
 * larger than the `?limit=` the request asked for (PAGE-005 "`?limit=` requests a page size"; a
 * pageSize above it is not the size applied, D268). The envelope's shape itself is the document's
 * (schema check); this checks what a schema cannot say.
 */
import type { Violation } from './types.ts';

export const PAGINATION_RULES = ['PAGE-007', 'PAGE-008'] as const;

interface Envelope {
  data: unknown[];
  pagination: Record<string, unknown>;
}

export function isListEnvelope(body: unknown): body is Envelope {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { data, pagination } = body as Record<string, unknown>;
  return Array.isArray(data) && typeof pagination === 'object' && pagination !== null && !Array.isArray(pagination);
}

/** The page size a request asked for: its `limit` query parameter when it is a whole number, else undefined. */
export function requestedLimit(url: string): number | undefined {
  let raw: string | null;
  try {
    raw = new URL(url).searchParams.get('limit');
  } catch {
    return undefined;
  }
  return raw !== null && /^[1-9]\d*$/.test(raw) ? Number(raw) : undefined;
}

export function checkPagination(body: Envelope, limit?: number): Violation[] {
  const out: Violation[] = [];
  const { nextCursor, hasMore, pageSize } = body.pagination;
  if (typeof hasMore === 'boolean' && (nextCursor === null || typeof nextCursor === 'string') && hasMore !== (nextCursor !== null)) {
    out.push({ check: 'pagination', rules: ['PAGE-007'], message: `pagination.hasMore is ${hasMore} while nextCursor is ${JSON.stringify(nextCursor)}; hasMore mirrors nextCursor !== null` });
  }
  if (typeof pageSize === 'number' && body.data.length > pageSize) {
    out.push({ check: 'pagination', rules: ['PAGE-008'], message: `the page holds ${body.data.length} rows, more than pagination.pageSize ${pageSize} (the size actually applied)` });
  }
  if (typeof pageSize === 'number' && limit !== undefined && pageSize > limit) {
    out.push({ check: 'pagination', rules: ['PAGE-008'], message: `pagination.pageSize is ${pageSize} where limit=${limit} was asked (and the page holds ${body.data.length} rows): a size larger than the one asked is not the size applied` });
  }
  return out;
}
