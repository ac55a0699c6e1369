/** The defect catalogue, headers (kind `headers`). */
import { mediaTypeOf, withHeaders } from '../exchange.ts';
import { ok } from './helpers.ts';
import { byRules, type DefectEntry } from './model.ts';

export const headersDefects: readonly DefectEntry[] = [
  {
    name: 'etag-weak',
    kind: 'headers',
    description: 'every ETag is sent weak (W/"…") instead of strong',
    rules: ['ETAG-002', 'ETAG-003'],
    via: 'proxy',
    response: (r) => (r.headers['etag'] && !r.headers['etag'].startsWith('W/') ? withHeaders(r, { etag: `W/${r.headers['etag']}` }) : r),
  },
  {
    name: 'etag-missing',
    kind: 'headers',
    description: 'no response carries an ETag',
    rules: ['ETAG-002', 'ETAG-003', 'ETAG-004'],
    via: 'proxy',
    response: (r) => withHeaders(r, { etag: undefined }),
  },
  {
    name: 'location-elsewhere',
    kind: 'headers',
    description: 'Location of a create points at the collection, not at the created resource',
    rules: ['CAMP-022', 'RUN-035', 'UPSC-009'],
    via: 'proxy',
    response: (r) => (r.headers['location'] ? withHeaders(r, { location: r.headers['location'].replace(/\/[^/]+$/, '') }) : r),
  },
  {
    name: 'json-as-text',
    kind: 'headers',
    description: 'successful JSON answers are labelled text/plain',
    rules: ['GEN-001'],
    grep: byRules('GEN-001', 'PROD-005', 'PROD-008'),
    via: 'proxy',
    response: (r) => (ok(r) && mediaTypeOf(r.headers) === 'application/json' ? withHeaders(r, { 'content-type': 'text/plain; charset=utf-8' }) : r),
  },
];
