/** The defect catalogue, status codes (kind `status`). */
import { editBody, objectBody, withHeaders, type Json } from '../exchange.ts';
import { restatus, problemCode, rewriteJsonBody, pathOfUrl } from './helpers.ts';
import { byRules, type DefectEntry } from './model.ts';

export const statusDefects: readonly DefectEntry[] = [
  {
    name: 'create-201-as-200',
    kind: 'status',
    description: 'POST /campaigns answers 200 instead of 201',
    rules: ['CAMP-022'],
    grep: byRules('CAMP-022', 'CAMP-019', 'CAMP-001'),
    via: 'proxy',
    response: (r) => (r.status === 201 ? { ...r, status: 200 } : r),
  },
  {
    name: 'accepted-202-as-200',
    kind: 'status',
    description: 'POST /runs, POST /runs/{id}/stop and POST /upscales answer 200 instead of 202',
    rules: ['RUN-002', 'RUN-035', 'RUN-023', 'UPSC-009'],
    via: 'proxy',
    response: (r) => (r.status === 202 ? { ...r, status: 200 } : r),
  },
  {
    name: 'not-found-as-403',
    kind: 'status',
    description: 'a 404 is answered as 403 (problem body consistent with 403)',
    rules: ['ERR-019', 'PROD-010'],
    via: 'proxy',
    response: (r) => (r.status === 404 ? restatus(r, 403) : r),
  },
  {
    name: 'bad-request-as-422',
    kind: 'status',
    description: 'a 400 VALIDATION_ERROR is answered as 422',
    rules: ['ERR-039', 'ERR-013', 'PAGE-013'],
    via: 'proxy',
    response: (r) =>
      r.status === 400 && problemCode(r) === 'VALIDATION_ERROR'
        ? restatus(r, 422, { errors: (objectBody(r)?.['errors'] as Json | undefined) ?? [{ field: 'request', message: 'is invalid' }] })
        : r,
  },
  {
    name: 'upscale-target-unchecked',
    kind: 'status',
    description: 'POST /upscales accepts any target (another one is taken as 4K)',
    rules: ['UPSC-011'],
    via: 'proxy',
    request: (q, { path }) => {
      if (q.method !== 'POST' || path !== '/upscales') return q;
      return rewriteJsonBody(q, (body) => (body['target'] !== '2K' && body['target'] !== '4K' ? { ...body, target: '4K' } : undefined));
    },
  },
  {
    name: 'insufficient-credits-as-403',
    kind: 'status',
    description: '402 INSUFFICIENT_CREDITS on POST /upscales is answered 403',
    rules: ['ERR-015'],
    via: 'proxy',
    response: (r) => (r.status === 402 && problemCode(r) === 'INSUFFICIENT_CREDITS' ? restatus(r, 403) : r),
  },
  {
    name: 'target-not-larger-as-400',
    kind: 'status',
    description: '422 IMAGE_UPSCALE_TARGET_NOT_LARGER is answered 400 VALIDATION_ERROR',
    rules: ['ERR-023'],
    via: 'proxy',
    response: (r) =>
      problemCode(r) === 'IMAGE_UPSCALE_TARGET_NOT_LARGER' ? editBody(restatus(r, 400), (p) => ({ ...p, code: 'VALIDATION_ERROR', type: '/errors/VALIDATION_ERROR' })) : r,
  },
  {
    name: 'creative-ratio-refused-as-400',
    kind: 'status',
    description: 'PATCH of a creative with an aspectRatio outside the delivery ratios answers 400 instead of 422',
    rules: ['ERR-024'],
    via: 'proxy',
    response: (r, { request, path }) => {
      if (request.method !== 'PATCH' || !/^\/creatives\/[^/]+$/.test(path) || r.status !== 422 || !request.body.includes('aspectRatio')) return r;
      return restatus(r, 400);
    },
  },
  {
    name: 'creative-undelete-scope-denied',
    kind: 'status',
    description: 'a creatives:write key is refused the undelete of a creative (403 API_TOKEN_SCOPE_DENIED)',
    rules: ['AUTH-013'],
    via: 'proxy',
    response: (r, { request, path }) =>
      request.method === 'POST' && /^\/creatives\/[^/]+\/undelete$/.test(path) && r.status === 200
        ? {
            status: 403,
            headers: withHeaders(r, { 'content-type': 'application/problem+json', etag: undefined }).headers,
            body: JSON.stringify({ type: '/errors/API_TOKEN_SCOPE_DENIED', title: 'Forbidden', status: 403, code: 'API_TOKEN_SCOPE_DENIED', detail: 'The API key lacks the scope this operation needs.', instance: pathOfUrl(request.url), requestId: 'req_proxy' }),
          }
        : r,
  },
];
