/** The defect catalogue, ownership (kind `ownership`). */
import { editBody } from '../exchange.ts';
import { restatus } from './helpers.ts';
import { type DefectEntry } from './model.ts';

export const ownershipDefects: readonly DefectEntry[] = [
  {
    name: 'foreign-404-leaks-detail',
    kind: 'ownership',
    description: "another account's resource answers 404 whose detail says it belongs to another account",
    rules: ['GEN-004', 'ERR-020'],
    via: 'proxy',
    response: (r, { request, memory }) =>
      r.status === 404 && memory.isForeign(request) ? editBody(r, (p) => ({ ...p, detail: 'This resource belongs to another account.' })) : r,
  },
  {
    name: 'foreign-403',
    kind: 'ownership',
    description: "another account's resource answers 403 API_TOKEN_SCOPE_DENIED instead of the uniform 404",
    rules: ['GEN-004', 'ERR-020'],
    via: 'proxy',
    response: (r, { request, memory }) =>
      r.status === 404 && memory.isForeign(request)
        ? editBody(restatus(r, 403), (p) => ({ ...p, code: 'API_TOKEN_SCOPE_DENIED', type: '/errors/API_TOKEN_SCOPE_DENIED' }))
        : r,
  },
  {
    name: 'foreign-readable',
    kind: 'ownership',
    description: "another account's resource is readable: a GET answers the owner's representation",
    rules: ['GEN-004'],
    via: 'proxy',
    response: (r, { request, memory }) => {
      if (r.status !== 404 || request.method !== 'GET' || !memory.isForeign(request)) return r;
      const owners = memory.readByOther(request);
      return owners ? { ...owners, headers: { ...owners.headers, ratelimit: r.headers['ratelimit'] ?? '', 'ratelimit-policy': r.headers['ratelimit-policy'] ?? '' } } : r;
    },
  },
];
