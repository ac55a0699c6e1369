/**
 * The one writer of problem+json (RFC 9457 with the interface's `code` and `requestId`): the API's
 * respond stage, the control plane and the hooks, the node server's edge and its 500s all answer
 * through it.
 */
import type { components } from '../../../contract/spec/generated/openapi.ts';
import { reasonPhrase, type ApiError } from './errors.ts';

export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** What a problem says; `extensions` are the members the interface or the control plane adds (`errors`, ...). */
export interface Problem {
  status: number;
  code: string;
  detail: string;
  extensions?: object;
}

/** The document's Problem (the control plane's has the same members and its own `errors`). */
export type ProblemBody = components['schemas']['Problem'];

/** The body: `title` is the status's reason phrase (ERR-003), the same as the status line's. */
export function problemFields(problem: Problem, instance: string, requestId: string): ProblemBody {
  return {
    type: `/errors/${problem.code}`,
    title: reasonPhrase(problem.status),
    status: problem.status,
    code: problem.code,
    detail: problem.detail,
    instance,
    requestId,
    ...problem.extensions,
  };
}

/** An ApiError's body. */
export function problemBody(error: ApiError, instance: string, requestId: string): ProblemBody {
  return problemFields({ status: error.status, code: error.code, detail: error.message, extensions: error.extensions }, instance, requestId);
}

/** A whole answer: status, headers (with the problem's content type) and the body as sent. */
export function problemResponse(problem: Problem, instance: string, requestId: string, headers: Record<string, string> = {}): { status: number; headers: Record<string, string>; body: string } {
  return { status: problem.status, headers: { ...headers, 'content-type': PROBLEM_TYPE }, body: JSON.stringify(problemFields(problem, instance, requestId)) };
}

/** The 500 of a bug in the mock (never of anything a client sends). */
export function internalErrorResponse(instance: string, requestId: string): { status: number; headers: Record<string, string>; body: string } {
  return problemResponse({ status: 500, code: 'INTERNAL_ERROR', detail: 'The mock failed unexpectedly; this is a bug in the mock.' }, instance, requestId);
}
