/** The defect catalogue, envelopes and fields (kind `envelope`). */
import { isEnvelope, isReadPlane, query, withBody, bodyOf } from '../exchange.ts';
import { ok, eachResource, offsetTimestamps, dropNulls } from './helpers.ts';
import { byRules, type DefectEntry } from './model.ts';

export const envelopeDefects: readonly DefectEntry[] = [
  {
    name: 'object-tag-dropped',
    kind: 'envelope',
    description: 'resource objects lose their `object` tag',
    rules: ['GEN-005', 'RUN-008', 'CAMP-003', 'RUN-015'],
    via: 'proxy',
    response: (r) =>
      eachResource(r, (resource) => {
        if (typeof resource['object'] === 'string' && resource['object'] !== 'list') delete resource['object'];
      }),
  },
  {
    name: 'null-fields-omitted',
    kind: 'envelope',
    description: 'members whose value is null are left out (sku, approvedAt, finalizedAt, deletedAt …)',
    rules: ['PROD-002', 'PROD-001', 'PAGE-011', 'RUN-011'],
    via: 'proxy',
    response: (r) => {
      const body = ok(r) ? bodyOf(r) : undefined;
      return body === undefined ? r : withBody(r, dropNulls(body));
    },
  },
  {
    name: 'media-url-relative',
    kind: 'envelope',
    description: 'media locations (`url`, `thumbnailUrl`, `playerUrl`) are sent as paths without scheme and host',
    rules: ['MEDIA-001'],
    via: 'proxy',
    response: (r) =>
      eachResource(r, (resource) => {
        if (!['creative', 'asset', 'delivery'].includes(String(resource['object']))) return;
        for (const field of ['url', 'thumbnailUrl', 'playerUrl']) {
          const value = resource[field];
          if (typeof value === 'string' && /^https?:\/\//.test(value)) resource[field] = new URL(value).pathname;
        }
      }),
  },
  {
    name: 'embed-code-wrong-ratio',
    kind: 'envelope',
    description: "a video's embedCode iframe is twice as wide as the creative's ratio (#17 item 10: a 4:5 video embedded as 9:16)",
    rules: ['MEDIA-003'],
    via: 'proxy',
    response: (r) =>
      eachResource(r, (resource) => {
        const code = resource['embedCode'];
        if (typeof code === 'string') resource['embedCode'] = code.replace(/\bwidth="(\d+)"/, (_m, w: string) => `width="${Number(w) * 2}"`);
      }),
  },
  {
    name: 'list-envelope-object',
    kind: 'envelope',
    description: 'read-plane list envelopes carry `object: "list"`',
    rules: ['GEN-006'],
    via: 'proxy',
    response: (r, { path }) => {
      const body = ok(r) && isReadPlane(path) ? bodyOf(r) : undefined;
      return isEnvelope(body) ? withBody(r, { object: 'list', ...body }) : r;
    },
  },
  {
    name: 'timestamp-offset',
    kind: 'envelope',
    description: 'timestamps are sent with a +01:00 offset instead of in UTC (same instant)',
    rules: ['GEN-007'],
    grep: byRules('GEN-007', 'CAMP-003', 'RUN-008'),
    via: 'proxy',
    response: (r) => {
      const body = ok(r) ? bodyOf(r) : undefined;
      return body === undefined ? r : withBody(r, offsetTimestamps(body));
    },
  },
  {
    name: 'expand-product-ignored',
    kind: 'envelope',
    description: '`?expand=product` is ignored: creatives come without their product',
    rules: ['PAGE-001'],
    via: 'proxy',
    request: (q) => (query(q).get('expand') === 'product' ? { ...q, url: q.url.replace(/([?&])expand=product(&|$)/, (_, pre: string, post: string) => (post ? pre : '')) } : q),
  },
];
