/** The defect catalogue, rate limits (kind `rate-limit`). */
import { rateLimits } from '../../../../contract/spec/tables.ts';
import { isGenerationPlane, isProblem, isReadPlane, withHeaders } from '../exchange.ts';
import { ok, problemCode, rateLimitFields, pathOfUrl, isRetryable } from './helpers.ts';
import { byRules, type DefectEntry } from './model.ts';

export const rateLimitDefects: readonly DefectEntry[] = [
  {
    name: 'ratelimit-remaining-above-limit',
    kind: 'rate-limit',
    description: 'RateLimit reports remaining = limit + 1',
    rules: ['RATE-021'],
    via: 'proxy',
    response: (r) => {
      const value = rateLimitFields(r.headers['ratelimit']);
      return value ? withHeaders(r, { ratelimit: `limit=${value.limit}, remaining=${value.limit + 1}, reset=${value.reset}` }) : r;
    },
  },
  {
    name: 'ratelimit-draft-8',
    kind: 'rate-limit',
    description: 'RateLimit and RateLimit-Policy use the draft-8 named-policy syntax',
    rules: ['RATE-020', 'RATE-021', 'RATE-024'],
    via: 'proxy',
    response: (r) => {
      const value = rateLimitFields(r.headers['ratelimit']);
      return value
        ? withHeaders(r, { ratelimit: `"default";r=${value.remaining};t=${value.reset}`, 'ratelimit-policy': `"default";q=${value.limit};w=60` })
        : r;
    },
  },
  {
    name: 'ratelimit-reset-timestamp',
    kind: 'rate-limit',
    description: 'RateLimit `reset` is a Unix timestamp instead of delay-seconds',
    rules: ['RATE-021'],
    via: 'proxy',
    response: (r) => {
      const value = rateLimitFields(r.headers['ratelimit']);
      return value ? withHeaders(r, { ratelimit: `limit=${value.limit}, remaining=${value.remaining}, reset=${1_767_225_600 + value.reset}` }) : r;
    },
  },
  {
    name: 'ratelimit-policy-duplicate',
    kind: 'rate-limit',
    description: 'RateLimit-Policy lists its first quota twice',
    rules: ['RATE-024'],
    via: 'proxy',
    response: (r) => {
      const policy = r.headers['ratelimit-policy'];
      const first = policy?.split(',')[0]?.trim();
      return policy && first ? withHeaders(r, { 'ratelimit-policy': `${policy}, ${first}` }) : r;
    },
  },
  {
    name: 'ratelimit-429-remaining',
    kind: 'rate-limit',
    description: 'a 429 reports the rejecting limit with remaining=1 instead of 0',
    rules: ['RATE-023'],
    via: 'proxy',
    response: (r) => {
      const value = r.status === 429 ? rateLimitFields(r.headers['ratelimit']) : undefined;
      return value ? withHeaders(r, { ratelimit: `limit=${value.limit}, remaining=1, reset=${value.reset}` }) : r;
    },
  },
  {
    name: 'retry-after-missing',
    kind: 'rate-limit',
    description: 'a 429 or 503 carries no Retry-After',
    rules: ['RATE-026', 'ERR-025'],
    via: 'proxy',
    response: (r) => (isRetryable(r) ? withHeaders(r, { 'retry-after': undefined }) : r),
  },
  {
    name: 'retry-after-http-date',
    kind: 'rate-limit',
    description: 'Retry-After is an HTTP-date instead of delay-seconds',
    rules: ['RATE-026', 'ERR-025'],
    via: 'proxy',
    response: (r) => {
      const seconds = Number(r.headers['retry-after']);
      return r.headers['retry-after'] !== undefined && Number.isInteger(seconds)
        ? withHeaders(r, { 'retry-after': new Date(Date.UTC(2026, 0, 1) + seconds * 1000).toUTCString() })
        : r;
    },
  },
  {
    name: 'read-429-as-problem',
    kind: 'rate-limit',
    description: 'a read-plane 429 is problem+json instead of plain text',
    rules: ['RATE-003'],
    via: 'proxy',
    response: (r, { path }) =>
      r.status === 429 && !isGenerationPlane(path) && !isProblem(r)
        ? {
            ...withHeaders(r, { 'content-type': 'application/problem+json' }),
            body: JSON.stringify({ type: '/errors/RATE_LIMITED', title: 'Too Many Requests', status: 429, code: 'RATE_LIMITED', instance: path, requestId: 'req_proxy' }),
          }
        : r,
  },
  {
    name: 'generation-429-as-text',
    kind: 'rate-limit',
    description: 'a generation-plane 429 is plain text instead of problem+json RATE_LIMITED',
    rules: ['RATE-001', 'RATE-002'],
    via: 'proxy',
    response: (r, { path }) =>
      r.status === 429 && isGenerationPlane(path) && isProblem(r)
        ? { ...withHeaders(r, { 'content-type': 'text/plain; charset=utf-8' }), body: 'Too Many Requests\n' }
        : r,
  },
  {
    name: 'rate-limited-far-too-early',
    kind: 'rate-limit',
    description: 'a read-plane GET is refused with 429 (plain text, RateLimit limit=200 remaining=0, Retry-After) while the key has used only a few of its 200 requests',
    rules: ['RATE-007'],
    // Caught by the paced client in any test that reads a few pages with one key (QuotaWitness).
    grep: byRules('PAGE-005', 'RATE-007'),
    via: 'proxy',
    response: (r, { request, path }) => {
      const value = request.method === 'GET' && isReadPlane(path) && r.status === 200 ? rateLimitFields(r.headers['ratelimit']) : undefined;
      if (!value || value.limit !== 200 || value.remaining > 195 || value.remaining < 100) return r;
      return {
        status: 429,
        headers: { ...withHeaders(r, { 'content-type': 'text/plain; charset=utf-8', etag: undefined, 'retry-after': String(value.reset), ratelimit: `limit=200, remaining=0, reset=${value.reset}` }).headers },
        body: 'Too Many Requests\n',
      };
    },
  },
  {
    name: 'ratelimit-farther-limit',
    kind: 'rate-limit',
    description: 'RateLimit reports the farthest limit of the policy (the per-IP cap) instead of the one closest to exhaustion',
    rules: ['RATE-021'],
    via: 'proxy',
    response: (r) => {
      const value = r.status === 429 ? undefined : rateLimitFields(r.headers['ratelimit']);
      const quotas = (r.headers['ratelimit-policy'] ?? '').split(',').map((item) => Number(item.trim().split(';')[0]));
      const farthest = Math.max(...quotas.filter(Number.isInteger));
      if (!value || !Number.isInteger(farthest) || farthest <= value.limit) return r;
      return withHeaders(r, { ratelimit: `limit=${farthest}, remaining=${farthest - (value.limit - value.remaining)}, reset=${value.reset}` });
    },
  },
  {
    name: 'retry-after-missing-on-409',
    kind: 'rate-limit',
    description: 'a 409 IDEMPOTENCY_IN_PROGRESS or CAMPAIGN_CASCADE_PENDING carries no Retry-After',
    rules: ['IDEM-009', 'CAMP-017', 'ERR-028'],
    via: 'proxy',
    response: (r) => (r.status === 409 && ['IDEMPOTENCY_IN_PROGRESS', 'CAMPAIGN_CASCADE_PENDING'].includes(problemCode(r) ?? '') ? withHeaders(r, { 'retry-after': undefined }) : r),
  },
  {
    name: 'upscales-own-counter',
    kind: 'rate-limit',
    description: 'POST /upscales and GET /upscales/{id} count on counters of their own, not on those of runs (RateLimit shows a fresh counter)',
    rules: ['RATE-014'],
    via: 'proxy',
    response: (r, { path }) => {
      const value = /^\/upscales(\/|$)/.test(path) && r.status !== 429 ? rateLimitFields(r.headers['ratelimit']) : undefined;
      return value && value.limit > 0 ? withHeaders(r, { ratelimit: `limit=${value.limit}, remaining=${value.limit - 1}, reset=${value.reset}` }) : r;
    },
  },
  {
    name: 'write-counted-in-read-cap',
    kind: 'rate-limit',
    description: 'read-plane writes are counted against the read-plane account cap: once a read-plane GET is refused with a limit other than the read quota (the account cap), writes are refused with that cap too, until a read succeeds again',
    rules: ['RATE-018'],
    via: 'proxy',
    response: (r, { request, path, memory }) => {
      if (!isReadPlane(path)) return r;
      if (request.method === 'GET') {
        const value = r.status === 429 ? rateLimitFields(r.headers['ratelimit']) : undefined;
        if (value && value.limit !== rateLimits.groups['read']?.limit) memory.readCapExhausted = { limit: value.limit, reset: value.reset };
        else if (ok(r)) memory.readCapExhausted = undefined;
        return r;
      }
      const cap = memory.readCapExhausted;
      if (!cap || r.status === 429) return r;
      const policy = [`${cap.limit};w=60`, ...(r.headers['ratelimit-policy'] ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '' && item !== `${cap.limit};w=60`)].join(', ');
      return {
        status: 429,
        headers: withHeaders(r, { 'content-type': 'text/plain; charset=utf-8', etag: undefined, location: undefined, 'retry-after': String(cap.reset), ratelimit: `limit=${cap.limit}, remaining=0, reset=${cap.reset}`, 'ratelimit-policy': policy }).headers,
        body: 'Too Many Requests. Retry after the number of seconds in the Retry-After header.',
      };
    },
  },
  {
    name: 'generation-counted-in-read-cap',
    kind: 'rate-limit',
    description: 'generation traffic is counted against the read-plane account cap: once a read-plane 429 reports a limit other than the read quota (the account cap) exhausted, generation requests are refused with that cap too, until a read succeeds again',
    rules: ['RATE-018'],
    via: 'proxy',
    response: (r, { request, path, memory }) => {
      if (isReadPlane(path)) {
        const value = r.status === 429 ? rateLimitFields(r.headers['ratelimit']) : undefined;
        if (value && value.limit !== rateLimits.groups['read']?.limit) memory.readCapExhausted = { limit: value.limit, reset: value.reset };
        else if (ok(r)) memory.readCapExhausted = undefined;
        return r;
      }
      const cap = memory.readCapExhausted;
      if (!cap || !isGenerationPlane(path) || r.status === 429) return r;
      const policy = [`${cap.limit};w=60`, ...(r.headers['ratelimit-policy'] ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '' && item !== `${cap.limit};w=60`)].join(', ');
      return {
        status: 429,
        headers: withHeaders(r, { 'content-type': 'application/problem+json', etag: undefined, location: undefined, 'retry-after': String(cap.reset), ratelimit: `limit=${cap.limit}, remaining=0, reset=${cap.reset}`, 'ratelimit-policy': policy }).headers,
        body: JSON.stringify({ type: '/errors/RATE_LIMITED', title: 'Too Many Requests', status: 429, code: 'RATE_LIMITED', instance: pathOfUrl(request.url), requestId: 'req_proxy' }),
      };
    },
  },
  {
    name: 'write-429-as-problem',
    kind: 'rate-limit',
    description: 'a 429 on a review, creative, asset or campaign write is problem+json instead of plain text',
    rules: ['RATE-003'],
    via: 'proxy',
    response: (r, { request, path }) =>
      r.status === 429 && request.method !== 'GET' && !isGenerationPlane(path) && !isProblem(r)
        ? {
            ...withHeaders(r, { 'content-type': 'application/problem+json' }),
            body: JSON.stringify({ type: '/errors/RATE_LIMITED', title: 'Too Many Requests', status: 429, code: 'RATE_LIMITED', instance: pathOfUrl(request.url), requestId: 'req_proxy' }),
          }
        : r,
  },
  {
    name: 'creative-undelete-own-counter',
    kind: 'rate-limit',
    description: 'the undelete of a creative counts on a counter of its own, not on the creative write counter (RateLimit shows a fresh counter)',
    rules: ['RATE-011'],
    via: 'proxy',
    response: (r, { request, path }) => {
      const value = request.method === 'POST' && /^\/creatives\/[^/]+\/undelete$/.test(path) && r.status === 200 ? rateLimitFields(r.headers['ratelimit']) : undefined;
      return value ? withHeaders(r, { ratelimit: `limit=${value.limit}, remaining=${value.limit - 1}, reset=${value.reset}` }) : r;
    },
  },
  {
    name: 'bad-key-401-lists-account-cap',
    kind: 'rate-limit',
    description: 'a 401 for a bad key lists the key limit and the account-wide cap instead of the per-IP cap',
    rules: ['RATE-025'],
    via: 'proxy',
    response: (r, { request, memory }) => {
      if (r.status !== 401 || memory.workingKeys.has(request.headers['authorization'] ?? '')) return r;
      const [first] = (r.headers['ratelimit-policy'] ?? '').split(',');
      return first ? withHeaders(r, { 'ratelimit-policy': `${first.trim()}, 1000;w=60` }) : r;
    },
  },
];
