/** The defect catalogue, preconditions (kind `precondition`). */
import { editBody, withRequestHeaders } from '../exchange.ts';
import { restatus } from './helpers.ts';
import { type DefectEntry } from './model.ts';

export const preconditionDefects: readonly DefectEntry[] = [
  {
    name: 'if-match-ignored',
    kind: 'precondition',
    description: 'If-Match is ignored: a stale ETag does not answer 412',
    rules: ['ETAG-005', 'ERR-034'],
    via: 'proxy',
    request: (q) => withRequestHeaders(q, { 'if-match': undefined }),
  },
  {
    name: 'precondition-as-409',
    kind: 'precondition',
    description: 'a failed precondition answers 409 instead of 412',
    rules: ['ETAG-005', 'ERR-034'],
    via: 'proxy',
    response: (r) => (r.status === 412 ? restatus(r, 409) : r),
  },
  {
    name: 'precondition-before-existence',
    kind: 'precondition',
    description: "If-Match is judged before ownership and deletion: a write with If-Match on another account's or a deleted item answers 412 (revealing that it exists), not the uniform 404",
    rules: ['ERR-020', 'GEN-004', 'ETAG-005'],
    via: 'proxy',
    response: (r, { request, memory }) =>
      r.status === 404 && request.method !== 'GET' && request.headers['if-match'] !== undefined && request.headers['if-match'] !== '*' && memory.exists(request)
        ? editBody(restatus(r, 412), (p) => ({ ...p, code: 'PRECONDITION_FAILED', type: '/errors/PRECONDITION_FAILED', detail: 'The If-Match value does not match the current ETag.' }))
        : r,
  },
];
