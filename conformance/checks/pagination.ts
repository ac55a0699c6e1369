/**
 * Pagination on every list (Endpoints / Conventions 4): wherever a 2xx body is a list envelope
 * `{ data: [...], pagination: {...} }`, `hasMore` mirrors `nextCursor !== null` (PAGE-007) and
 * `data` never holds more rows than the `pageSize` applied (PAGE-008). The envelope's shape itself
 * is the document's (schema check); this checks what a schema cannot say.
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

export function checkPagination(body: Envelope): Violation[] {
  const out: Violation[] = [];
  const { nextCursor, hasMore, pageSize } = body.pagination;
  if (typeof hasMore === 'boolean' && (nextCursor === null || typeof nextCursor === 'string') && hasMore !== (nextCursor !== null)) {
    out.push({ check: 'pagination', rules: ['PAGE-007'], message: `pagination.hasMore is ${hasMore} while nextCursor is ${JSON.stringify(nextCursor)}; hasMore mirrors nextCursor !== null` });
  }
  if (typeof pageSize === 'number' && body.data.length > pageSize) {
    out.push({ check: 'pagination', rules: ['PAGE-008'], message: `the page holds ${body.data.length} rows, more than pagination.pageSize ${pageSize} (the size actually applied)` });
  }
  return out;
}
