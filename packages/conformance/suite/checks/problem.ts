/**
 * Problem details (RFC 9457 with the interface's members) on every problem+json body:
 * `type` = `/errors/{code}` (ERR-002), `status` = the HTTP status and `title` its reason phrase
 * (ERR-003: one of RFC 9110's names for the status, the older 413/422 names accepted), `code` present (ERR-004), `instance` the request path when present (ERR-006),
 * `requestId` present (ERR-007), `errors[]` on a 422 (ERR-008).
 */
import { REASON_PHRASES } from './reason-phrases.ts';
import type { Violation } from './types.ts';

export const PROBLEM_RULES = ['ERR-002', 'ERR-003', 'ERR-004', 'ERR-006', 'ERR-007', 'ERR-008'] as const;

/**
 * The status LINE's reason phrase is never read: a proxy, a gateway or Node's own http server writes
 * its own (`Unprocessable Entity` for a 422), and HTTP/2 has none, so comparing the title with it
 * failed correct targets behind a network (#23); the title is judged against the status code alone.
 */
export function checkProblem(status: number, requestUrl: string, body: unknown): Violation[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return [{ check: 'problem-code', rules: ['ERR-004'], message: 'the problem body is not a JSON object' }];
  }
  const problem = body as Record<string, unknown>;
  const out: Violation[] = [];
  const code = problem['code'];
  if (typeof code !== 'string' || code === '') {
    out.push({ check: 'problem-code', rules: ['ERR-004'], message: `problem.code is ${JSON.stringify(code)}; a problem always carries a code` });
  }
  const type = problem['type'];
  if (typeof code === 'string' && type !== `/errors/${code}`) {
    out.push({ check: 'problem-type', rules: ['ERR-002'], message: `problem.type is ${JSON.stringify(type)}, expected "/errors/${code}"` });
  } else if (typeof code !== 'string' && (typeof type !== 'string' || !type.startsWith('/errors/'))) {
    out.push({ check: 'problem-type', rules: ['ERR-002'], message: `problem.type is ${JSON.stringify(type)}, expected /errors/{code}` });
  }
  if (problem['status'] !== status) {
    out.push({ check: 'problem-status', rules: ['ERR-003'], message: `problem.status is ${JSON.stringify(problem['status'])} on an HTTP ${status}` });
  }
  const phrases = REASON_PHRASES[status];
  const title = problem['title'];
  if (phrases === undefined) {
    if (typeof title !== 'string' || title === '') out.push({ check: 'problem-title', rules: ['ERR-003'], message: `problem.title is ${JSON.stringify(title)}` });
  } else if (typeof title !== 'string' || !phrases.includes(title)) {
    out.push({ check: 'problem-title', rules: ['ERR-003'], message: `problem.title is ${JSON.stringify(title)}, expected the reason phrase ${phrases.map((p) => JSON.stringify(p)).join(' or ')}` });
  }
  const requestId = problem['requestId'];
  if (typeof requestId !== 'string' || requestId === '') {
    out.push({ check: 'problem-request-id', rules: ['ERR-007'], message: `problem.requestId is ${JSON.stringify(requestId)}; a problem always carries one` });
  }
  const instance = problem['instance'];
  if (instance !== undefined) {
    const path = new URL(requestUrl).pathname;
    if (instance !== path) out.push({ check: 'problem-instance', rules: ['ERR-006'], message: `problem.instance is ${JSON.stringify(instance)}, expected the request path ${JSON.stringify(path)}` });
  }
  if (status === 422) {
    const errors = problem['errors'];
    const wellFormed =
      Array.isArray(errors) &&
      errors.length > 0 &&
      errors.every((e) => typeof e === 'object' && e !== null && typeof (e as Record<string, unknown>)['field'] === 'string' && typeof (e as Record<string, unknown>)['message'] === 'string');
    if (!wellFormed) out.push({ check: 'problem-errors', rules: ['ERR-008'], message: `a 422 problem carries errors ${JSON.stringify(errors)}; expected entries { field, message }, one per offending field` });
  }
  return out;
}
