/** The defect catalogue, error bodies (kind `error-body`). */
import { editBody, isProblem, withHeaders } from '../exchange.ts';
import { problemCode } from './helpers.ts';
import { byRules, type DefectEntry } from './model.ts';

export const errorBodyDefects: readonly DefectEntry[] = [
  {
    name: 'problem-as-json',
    kind: 'error-body',
    description: 'problem bodies are labelled application/json instead of application/problem+json',
    rules: ['ERR-001'],
    via: 'proxy',
    response: (r) => (isProblem(r) ? withHeaders(r, { 'content-type': 'application/json' }) : r),
  },
  {
    name: 'problem-type-mismatch',
    kind: 'error-body',
    description: 'a problem `type` does not match its `code` (`/errors/not-found` style)',
    rules: ['ERR-002'],
    via: 'proxy',
    response: (r) => (isProblem(r) ? editBody(r, (p) => ({ ...p, type: `/errors/${String(p['code']).toLowerCase().replace(/_/g, '-')}` })) : r),
  },
  {
    name: 'problem-request-id-missing',
    kind: 'error-body',
    description: 'problem bodies carry no requestId',
    rules: ['ERR-007'],
    via: 'proxy',
    response: (r) =>
      isProblem(r)
        ? editBody(r, (p) => {
            delete p['requestId'];
          })
        : r,
  },
  {
    name: 'problem-422-without-errors',
    kind: 'error-body',
    description: 'a 422 problem carries no errors[]',
    rules: ['ERR-008', 'ERR-040'],
    grep: byRules('ERR-008', 'ERR-040', 'ERR-024'),
    via: 'proxy',
    response: (r) =>
      r.status === 422 && isProblem(r)
        ? editBody(r, (p) => {
            delete p['errors'];
          })
        : r,
  },
  {
    name: 'problem-instance-wrong',
    kind: 'error-body',
    description: 'a problem `instance` is its type URI instead of the request path',
    rules: ['ERR-006'],
    via: 'proxy',
    response: (r) => (isProblem(r) ? editBody(r, (p) => ({ ...p, instance: `/errors/${String(p['code'])}` })) : r),
  },
  {
    name: 'upscale-not-entitled-as-tier-required',
    kind: 'error-body',
    description: '403 IMAGE_UPSCALE_NOT_ENTITLED is sent with the code TIER_REQUIRED',
    rules: ['ERR-017'],
    via: 'proxy',
    response: (r) => (problemCode(r) === 'IMAGE_UPSCALE_NOT_ENTITLED' ? editBody(r, (p) => ({ ...p, code: 'TIER_REQUIRED', type: '/errors/TIER_REQUIRED' })) : r),
  },
  {
    name: 'lapsed-plan-told-apart',
    kind: 'error-body',
    description: 'the 401 of a key that works but whose plan lapsed says so in its detail (a bad key\'s does not)',
    rules: ['AUTH-035'],
    via: 'proxy',
    response: (r, { request, memory }) =>
      r.status === 401 && isProblem(r) && memory.workingKeys.has(request.headers['authorization'] ?? '') ? editBody(r, (p) => ({ ...p, detail: 'Your plan no longer includes this feature.' })) : r,
  },
];
