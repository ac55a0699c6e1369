/**
 * The checker must fail a broken response: each case starts from a response that conforms (and is
 * shown to pass) and breaks one thing, and the named check must report it, with its rule ids.
 */
import { describe, expect, it } from 'vitest';
import { checkResponse, formatViolations, type Exchange } from './index.ts';

const BASE = 'http://127.0.0.1:4010/api/public/v1';
const OPTIONS = { basePath: '/api/public/v1' };

const RATE_HEADERS = { ratelimit: ['limit=200, remaining=199, reset=60'], 'ratelimit-policy': ['200;w=60, 1000;w=60, 2000;w=60'] };

const product = { object: 'product', productId: 'prd_1', sku: null, title: 'Lamp', brandId: 'brd_1', createdAt: '2026-01-01T00:00:00.000Z' };

const creative = {
  object: 'creative',
  creativeId: 'crv_1',
  productId: 'prd_1',
  campaignId: 'cmp_1',
  brandId: 'brd_1',
  sku: 'MPN-1',
  mediaType: 'image',
  url: 'https://media.invalid/crv_1.png',
  thumbnailUrl: null,
  aspectRatio: '1:1',
  approvedAt: null,
  playerUrl: null,
  embedCode: null,
};

const campaign = {
  object: 'campaign',
  campaignId: 'cmp_9',
  name: 'Spring',
  status: 'IN_PROGRESS',
  brandId: 'brd_1',
  creativeCount: 2,
  createdAt: '2026-01-01T00:00:00.000Z',
  deletedAt: null,
};

function problem(status: number, code: string, title: string, path: string, extra: Record<string, unknown> = {}) {
  return { type: `/errors/${code}`, title, status, code, detail: 'x', instance: `/api/public/v1${path}`, requestId: 'req_1', ...extra };
}

type Headers = Record<string, string[]>;

function exchange(method: string, path: string, status: number, headers: Headers, body: unknown): Exchange {
  return {
    request: { method, url: `${BASE}${path}` },
    response: { status, headers: { ...RATE_HEADERS, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) },
  };
}

const JSON_TYPE = { 'content-type': ['application/json; charset=utf-8'] };
const PROBLEM_TYPE = { 'content-type': ['application/problem+json'] };
const TEXT_TYPE = { 'content-type': ['text/plain; charset=utf-8'] };

const good0 = { product: () => exchange('GET', '/products/prd_1', 200, JSON_TYPE, product) };

/** Responses that conform, one per kind the checker treats differently. */
const good = {
  product: () => exchange('GET', '/products/prd_1', 200, JSON_TYPE, product),
  creative: () => exchange('GET', '/creatives/crv_1', 200, { ...JSON_TYPE, etag: ['"abc123"'] }, creative),
  created: () => exchange('POST', '/campaigns', 201, { ...JSON_TYPE, etag: ['"c1"'], location: ['/api/public/v1/campaigns/cmp_9'] }, campaign),
  notFound: () => exchange('GET', '/products/nope', 404, PROBLEM_TYPE, problem(404, 'PRODUCT_NOT_FOUND', 'Not Found', '/products/nope')),
  readLimited: () =>
    exchange('GET', '/products', 429, { ...TEXT_TYPE, 'retry-after': ['12'], ratelimit: ['limit=3, remaining=0, reset=12'], 'ratelimit-policy': ['3;w=60, 1000;w=60'] }, 'Too Many Requests'),
  generationLimited: () =>
    exchange(
      'GET',
      '/presets',
      429,
      { ...PROBLEM_TYPE, 'retry-after': ['5'], ratelimit: ['limit=120, remaining=0, reset=5'], 'ratelimit-policy': ['120;w=60, 360;w=60'] },
      problem(429, 'RATE_LIMITED', 'Too Many Requests', '/presets'),
    ),
  campaigns: () => exchange('GET', '/campaigns', 200, JSON_TYPE, { data: [campaign, { ...campaign, campaignId: 'cmp_10' }], pagination: { nextCursor: 'c2', hasMore: true, pageSize: 2 } }),
  lastPage: () => exchange('GET', '/campaigns', 200, JSON_TYPE, { data: [], pagination: { nextCursor: null, hasMore: false, pageSize: 25 } }),
  inProgress: () =>
    exchange('POST', '/campaigns', 409, { ...PROBLEM_TYPE, 'retry-after': ['1'] }, problem(409, 'IDEMPOTENCY_IN_PROGRESS', 'Conflict', '/campaigns')),
  cascadePending: () =>
    exchange('DELETE', '/campaigns/cmp_9', 409, { ...PROBLEM_TYPE, 'retry-after': ['2'] }, problem(409, 'CAMPAIGN_CASCADE_PENDING', 'Conflict', '/campaigns/cmp_9')),
  keyCapClosest: () =>
    withHeaders(exchange('GET', '/products', 200, JSON_TYPE, { data: [], pagination: { nextCursor: null, hasMore: false, pageSize: 25 } }), {
      ratelimit: ['limit=1000, remaining=3, reset=20'],
      'ratelimit-policy': ['1000;w=60, 200;w=60, 2000;w=60'],
    }),
  tieToTheSmaller: () =>
    withHeaders(good0.product(), { ratelimit: ['limit=200, remaining=150, reset=20'], 'ratelimit-policy': ['1000;w=60, 200;w=60, 2000;w=60'] }),
  unprocessable: () =>
    exchange('PATCH', '/creatives/crv_1', 422, PROBLEM_TYPE, problem(422, 'VALIDATION_ERROR', 'Unprocessable Content', '/creatives/crv_1', { errors: [{ field: 'aspectRatio', message: 'bad' }] })),
};

function checksOf(x: Exchange): string[] {
  return checkResponse(x, OPTIONS).violations.map((v) => v.check);
}

/** The rules an undeclared status breaks (undefined: the status is declared). */
function statusRulesOf(x: Exchange): readonly string[] | undefined {
  return checkResponse(x, OPTIONS).violations.find((v) => v.check === 'status-declared')?.rules;
}

function rulesOf(x: Exchange): string[] {
  return checkResponse(x, OPTIONS).violations.flatMap((v) => v.rules);
}

function withHeaders(x: Exchange, headers: Headers): Exchange {
  return { ...x, response: { ...x.response, headers: { ...x.response.headers, ...headers } } };
}

function without(x: Exchange, name: string): Exchange {
  const headers = { ...x.response.headers };
  delete headers[name];
  return { ...x, response: { ...x.response, headers } };
}

function withBody(x: Exchange, body: unknown): Exchange {
  return { ...x, response: { ...x.response, body: JSON.stringify(body) } };
}

describe('conforming responses pass', () => {
  for (const [name, make] of Object.entries(good)) {
    it(name, () => {
      const report = checkResponse(make(), OPTIONS);
      expect(report.violations).toEqual([]);
      expect(report.operationId).toBeDefined();
    });
  }

  it('reports the rules it checked', () => {
    expect(checkResponse(good.notFound(), OPTIONS).checked).toEqual(expect.arrayContaining(['ERR-001', 'ERR-002', 'ERR-003', 'ERR-004', 'ERR-006', 'ERR-007', 'RATE-020']));
    expect(checkResponse(good.readLimited(), OPTIONS).checked).toEqual(expect.arrayContaining(['RATE-003', 'RATE-023', 'RATE-026']));
    expect(checkResponse(good.creative(), OPTIONS).checked).toContain('ETAG-002');
    expect(checkResponse(good.created(), OPTIONS).checked).toEqual(expect.arrayContaining(['CAMP-022', 'ETAG-003']));
  });

  it('accepts the older reason phrases of 413 and 422', () => {
    const x = withBody(good.unprocessable(), problem(422, 'VALIDATION_ERROR', 'Unprocessable Entity', '/creatives/crv_1', { errors: [{ field: 'a', message: 'b' }] }));
    expect(checksOf(x)).toEqual([]);
  });

  it('does not read a body into a HEAD response', () => {
    const x = exchange('HEAD', '/products', 405, { ...PROBLEM_TYPE, allow: ['POST'] }, '');
    expect(checksOf(x)).toEqual([]);
  });

  it('accepts RateLimit fields with other spacing, and unknown parameters on policy items', () => {
    const x = withHeaders(good.product(), { ratelimit: ['limit=200,remaining=199,reset=60'], 'ratelimit-policy': ['200;w=60;comment=x,1000;w=60'] });
    expect(checksOf(x).filter((c) => c.startsWith('ratelimit'))).toEqual([]);
  });
});

describe('broken responses fail', () => {
  it('a weak ETag', () => {
    const x = withHeaders(good.creative(), { etag: ['W/"abc123"'] });
    expect(checksOf(x)).toContain('etag');
    expect(rulesOf(x)).toContain('ETAG-002');
  });

  it('an ETag that is not a quoted string', () => {
    expect(checksOf(withHeaders(good.creative(), { etag: ['abc123'] }))).toContain('etag');
  });

  it('a missing required ETag', () => {
    expect(checksOf(without(good.creative(), 'etag'))).toContain('header-schema');
    // Named by its rule (a read's ETAG-002, a write's ETAG-003), so the reports group the tests it stops under it.
    expect(rulesOf(without(good.creative(), 'etag'))).toEqual(['ETAG-002']);
    expect(rulesOf(without(good.created(), 'etag'))).toEqual(['ETAG-003']);
  });

  it('RateLimit remaining above limit', () => {
    const x = withHeaders(good.product(), { ratelimit: ['limit=200, remaining=201, reset=60'] });
    expect(checksOf(x)).toContain('ratelimit-arithmetic');
    expect(rulesOf(x)).toContain('RATE-021');
  });

  it('a RateLimit limit the policy does not list', () => {
    expect(checksOf(withHeaders(good.product(), { ratelimit: ['limit=50, remaining=10, reset=60'] }))).toContain('ratelimit-policy-arithmetic');
  });

  it('a reset that is a timestamp', () => {
    expect(checksOf(withHeaders(good.product(), { ratelimit: ['limit=200, remaining=199, reset=1767225600'] }))).toContain('ratelimit-arithmetic');
  });

  it('RateLimit in draft-8 syntax', () => {
    const x = withHeaders(good.product(), { ratelimit: ['"default";r=199;t=60'], 'ratelimit-policy': ['"default";q=200;w=60'] });
    expect(checksOf(x)).toEqual(expect.arrayContaining(['ratelimit-grammar', 'ratelimit-policy-grammar']));
  });

  it('RateLimit without remaining', () => {
    expect(checksOf(withHeaders(good.product(), { ratelimit: ['limit=200, reset=60'] }))).toContain('ratelimit-grammar');
  });

  it('uppercase RateLimit keys', () => {
    expect(checksOf(withHeaders(good.product(), { ratelimit: ['Limit=200, Remaining=199, Reset=60'] }))).toContain('ratelimit-grammar');
  });

  it('a policy listing one quota twice', () => {
    const x = withHeaders(good.product(), { 'ratelimit-policy': ['200;w=60, 200;w=60, 2000;w=60'] });
    expect(checksOf(x)).toContain('ratelimit-policy-arithmetic');
    expect(rulesOf(x)).toContain('RATE-024');
  });

  it('a policy item without a window, or with a window other than 60 seconds', () => {
    expect(checksOf(withHeaders(good.product(), { 'ratelimit-policy': ['200, 1000;w=60'] }))).toContain('ratelimit-policy-grammar');
    const x = withHeaders(good.product(), { 'ratelimit-policy': ['200;w=3600'] });
    expect(rulesOf(x)).toContain('RATE-019');
  });

  it('missing RateLimit headers, also on an error', () => {
    expect(checksOf(without(good.product(), 'ratelimit'))).toContain('ratelimit-present');
    expect(checksOf(without(good.notFound(), 'ratelimit-policy'))).toContain('ratelimit-present');
    expect(rulesOf(without(good.notFound(), 'ratelimit'))).toContain('RATE-020');
  });

  it('a 429 whose RateLimit remaining is not 0', () => {
    const x = withHeaders(good.readLimited(), { ratelimit: ['limit=3, remaining=1, reset=12'] });
    expect(checksOf(x)).toContain('ratelimit-429');
    expect(rulesOf(x)).toContain('RATE-023');
  });

  it('a 429 without Retry-After', () => {
    const x = without(good.readLimited(), 'retry-after');
    expect(checksOf(x)).toContain('retry-after');
    expect(rulesOf(x)).toContain('RATE-026');
  });

  it('a Retry-After as an HTTP-date', () => {
    expect(checksOf(withHeaders(good.readLimited(), { 'retry-after': ['Wed, 21 Oct 2026 07:28:00 GMT'] }))).toContain('retry-after');
  });

  it('a 503 without Retry-After', () => {
    const x = exchange('POST', '/creatives/crv_1/approve', 503, PROBLEM_TYPE, problem(503, 'WRITES_PAUSED', 'Service Unavailable', '/creatives/crv_1/approve'));
    expect(rulesOf(x)).toContain('ERR-025');
  });

  it('a problem type that does not match its code', () => {
    const x = withBody(good.notFound(), { ...problem(404, 'PRODUCT_NOT_FOUND', 'Not Found', '/products/nope'), type: '/errors/NOT_FOUND' });
    expect(checksOf(x)).toContain('problem-type');
    expect(rulesOf(x)).toContain('ERR-002');
  });

  it('an absolute problem type', () => {
    const x = withBody(good.notFound(), { ...problem(404, 'PRODUCT_NOT_FOUND', 'Not Found', '/products/nope'), type: 'https://errors.invalid/PRODUCT_NOT_FOUND' });
    expect(checksOf(x)).toContain('problem-type');
  });

  it('a problem status other than the HTTP status', () => {
    const x = withBody(good.notFound(), problem(400, 'PRODUCT_NOT_FOUND', 'Not Found', '/products/nope'));
    expect(checksOf(x)).toContain('problem-status');
    expect(rulesOf(x)).toContain('ERR-003');
  });

  it('a problem title that is not the reason phrase', () => {
    const x = withBody(good.notFound(), problem(404, 'PRODUCT_NOT_FOUND', 'PRODUCT_NOT_FOUND', '/products/nope'));
    expect(checksOf(x)).toContain('problem-title');
  });

  it('the status line is never read: a reason phrase a proxy rewrote, or none (HTTP/2), is no violation (ERR-003 judges the title by the status code)', () => {
    const onLine = (x: Exchange, statusText: string): Exchange => ({ ...x, response: { ...x.response, statusText } });
    for (const line of ['Unprocessable Content', 'Unprocessable Entity', 'Whatever The Gateway Says', '']) {
      expect(checksOf(onLine(good.unprocessable(), line)), line).toEqual([]);
      expect(checksOf(onLine(good.notFound(), line)), line).toEqual([]);
    }
    // The title is still judged, whatever the status line says.
    const wrong = onLine(withBody(good.unprocessable(), problem(422, 'VALIDATION_ERROR', 'Bad Request', '/creatives/crv_1', { errors: [{ field: 'a', message: 'b' }] })), 'Bad Request');
    expect(checksOf(wrong)).toContain('problem-title');
    expect(rulesOf(wrong)).toContain('ERR-003');
  });

  it('a 401 without the Bearer challenge (AUTH-040, assumed)', () => {
    const unauthorized = (headers: Headers) => exchange('GET', '/products', 401, { ...PROBLEM_TYPE, ...headers }, problem(401, 'UNAUTHORIZED', 'Unauthorized', '/products'));
    expect(checksOf(unauthorized({ 'www-authenticate': ['Bearer'] }))).toEqual([]);
    expect(checksOf(unauthorized({ 'www-authenticate': ['Bearer realm="api"'] }))).toEqual([]);
    for (const x of [unauthorized({}), unauthorized({ 'www-authenticate': ['Basic realm="api"'] })]) {
      const found = checkResponse(x, OPTIONS).violations.filter((v) => v.check === 'auth-challenge');
      expect(found.map((v) => [v.rules, v.assumption])).toEqual([[['AUTH-040'], '#/components/headers/WWW-Authenticate']]);
    }
    expect(checkResponse(unauthorized({ 'www-authenticate': ['Bearer'] }), OPTIONS).checked).toContain('AUTH-040');
  });

  it('a 405 without Allow, or whose Allow names the refused method (ERR-043, assumed)', () => {
    const refused = (headers: Headers) => exchange('PUT', '/products', 405, { ...PROBLEM_TYPE, ...headers }, problem(405, 'METHOD_NOT_ALLOWED', 'Method Not Allowed', '/products'));
    expect(checksOf(refused({ allow: ['GET, HEAD'] }))).toEqual([]);
    expect(checksOf(refused({}))).toEqual(['allow']);
    expect(checksOf(refused({ allow: ['GET, PUT'] }))).toEqual(['allow']);
    expect(rulesOf(refused({}))).toEqual(['ERR-043']);
  });

  it('a problem without requestId or code', () => {
    const { requestId: _r, ...noRequestId } = problem(404, 'PRODUCT_NOT_FOUND', 'Not Found', '/products/nope');
    expect(rulesOf(withBody(good.notFound(), noRequestId))).toContain('ERR-007');
    const { code: _c, ...noCode } = problem(404, 'PRODUCT_NOT_FOUND', 'Not Found', '/products/nope');
    expect(rulesOf(withBody(good.notFound(), noCode))).toContain('ERR-004');
  });

  it('a problem instance other than the request path', () => {
    const x = withBody(good.notFound(), problem(404, 'PRODUCT_NOT_FOUND', 'Not Found', '/products/other'));
    expect(rulesOf(x)).toContain('ERR-006');
  });

  it('a 422 without errors[]', () => {
    const x = withBody(good.unprocessable(), problem(422, 'VALIDATION_ERROR', 'Unprocessable Content', '/creatives/crv_1'));
    expect(checksOf(x)).toContain('problem-errors');
    expect(rulesOf(x)).toContain('ERR-008');
  });

  it('an undeclared status', () => {
    const x = exchange('GET', '/products/prd_1', 418, PROBLEM_TYPE, problem(418, 'TEAPOT', 'I\'m a teapot', '/products/prd_1'));
    expect(checksOf(x)).toContain('status-declared');
  });

  it('a 2xx other than the declared one breaks the rules that pin the operation\'s success status (D160); another status, the document alone', () => {
    const start = exchange('POST', '/runs', 200, JSON_TYPE, {});
    expect(statusRulesOf(start)).toEqual(['RUN-002', 'RUN-035']);
    const create = exchange('POST', '/campaigns', 200, JSON_TYPE, campaign);
    expect(statusRulesOf(create)).toEqual(['CAMP-022']);
    const stop = exchange('POST', '/runs/run_1/stop', 200, JSON_TYPE, {});
    expect(statusRulesOf(stop)).toEqual(['RUN-023']);
    const teapot = exchange('GET', '/products/prd_1', 418, PROBLEM_TYPE, problem(418, 'TEAPOT', 'I\'m a teapot', '/products/prd_1'));
    expect(statusRulesOf(teapot)).toEqual([]);
  });

  it('a 500 (no operation declares one)', () => {
    const x = exchange('GET', '/products', 500, PROBLEM_TYPE, problem(500, 'INTERNAL_ERROR', 'Internal Server Error', '/products'));
    expect(checksOf(x)).toContain('status-declared');
  });

  it('a body that breaks the schema', () => {
    const { title: _t, ...noTitle } = product;
    const x = withBody(good.product(), noTitle);
    expect(checksOf(x)).toContain('body-schema');
    const schemaViolation = checkResponse(x, OPTIONS).violations.find((v) => v.check === 'body-schema');
    expect(schemaViolation?.assumption).toBeUndefined();
  });

  it('a list envelope without pagination', () => {
    const x = exchange('GET', '/products', 200, JSON_TYPE, { data: [product] });
    expect(checksOf(x)).toContain('body-schema');
  });

  it('a body that is not JSON although labelled JSON', () => {
    const x = { ...good.product(), response: { ...good.product().response, body: '{"productId":' } };
    expect(checksOf(x)).toContain('body-json');
  });

  it('a problem sent as application/json', () => {
    const x = withHeaders(good.notFound(), { 'content-type': ['application/json'] });
    expect(checksOf(x)).toContain('content-type');
    expect(rulesOf(x)).toContain('ERR-001');
  });

  it('a read-plane 429 sent as problem+json', () => {
    const x = exchange(
      'GET',
      '/products',
      429,
      { ...PROBLEM_TYPE, 'retry-after': ['3'], ratelimit: ['limit=3, remaining=0, reset=3'], 'ratelimit-policy': ['3;w=60'] },
      problem(429, 'RATE_LIMITED', 'Too Many Requests', '/products'),
    );
    expect(checksOf(x)).toContain('content-type');
    expect(rulesOf(x)).toContain('RATE-003');
  });

  it('a generation-plane 429 sent as text/plain', () => {
    const x = withHeaders(good.generationLimited(), { 'content-type': ['text/plain'] });
    const violations = checkResponse({ ...x, response: { ...x.response, body: 'slow down' } }, OPTIONS).violations;
    expect(violations.map((v) => v.check)).toContain('content-type');
    expect(violations.flatMap((v) => v.rules)).toContain('RATE-001');
  });

  it('a Location that does not point at the created resource', () => {
    const x = withHeaders(good.created(), { location: ['/api/public/v1/campaigns/cmp_other'] });
    expect(checksOf(x)).toContain('location');
    expect(rulesOf(x)).toContain('CAMP-022');
  });

  it('a Location under another collection or another origin', () => {
    expect(checksOf(withHeaders(good.created(), { location: ['/api/public/v1/runs/cmp_9'] }))).toContain('location');
    expect(checksOf(withHeaders(good.created(), { location: ['https://elsewhere.invalid/api/public/v1/campaigns/cmp_9'] }))).toContain('location');
  });

  it('a missing Location on a create', () => {
    expect(checksOf(without(good.created(), 'location'))).toContain('header-schema');
    // The rule of the ledger that owns the header of that response, read from its text (D267):
    // the tests it stops are grouped under it, not under each test's first rule (#32 item 6).
    expect(rulesOf(without(good.created(), 'location'))).toEqual(['CAMP-022']);
    expect([...new Set(rulesOf(withHeaders(good.created(), { location: ['/api/public/v1/runs/cmp_9'] })))]).toEqual(['CAMP-022']);
  });

  it('a header sent twice', () => {
    expect(checksOf(withHeaders(good.creative(), { etag: ['"a"', '"b"'] }))).toContain('header-duplicate');
  });
});

describe('closest to exhaustion, Retry-After on 409s, pagination on every list', () => {
  it('reports the rules it checked', () => {
    expect(checkResponse(good.campaigns(), OPTIONS).checked).toEqual(expect.arrayContaining(['PAGE-007', 'PAGE-008', 'RATE-021', 'RATE-024']));
    expect(checkResponse(good.inProgress(), OPTIONS).checked).toContain('IDEM-009');
    expect(checkResponse(good.cascadePending(), OPTIONS).checked).toEqual(expect.arrayContaining(['CAMP-017', 'ERR-028']));
  });

  it('a RateLimit reporting a farther limit: more remaining than another listed quota', () => {
    const x = withHeaders(good.product(), { ratelimit: ['limit=2000, remaining=1500, reset=60'], 'ratelimit-policy': ['2000;w=60, 200;w=60, 1000;w=60'] });
    expect(checksOf(x)).toContain('ratelimit-closest');
    expect(rulesOf(x)).toContain('RATE-021');
  });

  it('a tie reported as the larger limit', () => {
    const x = withHeaders(good.product(), { ratelimit: ['limit=1000, remaining=200, reset=60'], 'ratelimit-policy': ['1000;w=60, 200;w=60, 2000;w=60'] });
    expect(rulesOf(x)).toContain('RATE-021');
  });

  it('a policy listing a smaller limit before the reported one', () => {
    // Larger quotas before the reported one may tie with it (same remaining): not decidable, accepted.
    const x = withHeaders(good.product(), { 'ratelimit-policy': ['1000;w=60, 2000;w=60, 200;w=60'] });
    expect(checksOf(x)).toEqual([]);
    const y = withHeaders(good.product(), { ratelimit: ['limit=1000, remaining=3, reset=60'], 'ratelimit-policy': ['200;w=60, 1000;w=60, 2000;w=60'] });
    expect(rulesOf(y)).toEqual(['RATE-024']);
  });

  it('a 429 reports the limit that rejected, wherever the policy lists it', () => {
    const x = withHeaders(good.readLimited(), { ratelimit: ['limit=1000, remaining=0, reset=12'], 'ratelimit-policy': ['3;w=60, 1000;w=60'] });
    expect(checksOf(x)).toEqual([]);
  });

  it('a 409 IDEMPOTENCY_IN_PROGRESS or CAMPAIGN_CASCADE_PENDING without Retry-After', () => {
    expect(rulesOf(without(good.inProgress(), 'retry-after'))).toEqual(['IDEM-009']);
    expect(rulesOf(without(good.cascadePending(), 'retry-after'))).toEqual(['CAMP-017', 'ERR-028']);
    const reused = exchange('POST', '/campaigns', 409, PROBLEM_TYPE, problem(409, 'IDEMPOTENCY_KEY_REUSED', 'Conflict', '/campaigns'));
    expect(checksOf(reused)).toEqual([]);
  });

  it('hasMore that does not mirror nextCursor, on a list other than /products', () => {
    const x = withBody(good.campaigns(), { data: [campaign], pagination: { nextCursor: 'c2', hasMore: false, pageSize: 2 } });
    expect(rulesOf(x)).toEqual(['PAGE-007']);
    const y = withBody(good.lastPage(), { data: [], pagination: { nextCursor: null, hasMore: true, pageSize: 25 } });
    expect(rulesOf(y)).toEqual(['PAGE-007']);
  });

  it('a pageSize larger than the limit asked is not the size applied (PAGE-008, D268), even with fewer rows than it', () => {
    const asked = (limit: string, pageSize: number) => {
      const x = withBody(good.campaigns(), { data: [campaign, { ...campaign, campaignId: 'cmp_10' }], pagination: { nextCursor: 'c2', hasMore: true, pageSize } });
      return { ...x, request: { ...x.request, url: `${x.request.url}?limit=${limit}` } };
    };
    expect(rulesOf(asked('2', 3))).toEqual(['PAGE-008']);
    expect(rulesOf(asked('2', 2))).toEqual([]);
    expect(rulesOf(asked('5', 2))).toEqual([]);
    // A limit that is not a whole number asks for nothing (it is refused elsewhere, PAGE-013).
    expect(rulesOf(asked('seven', 3))).toEqual([]);
  });

  it('more rows than pageSize', () => {
    const x = withBody(good.campaigns(), { data: [campaign, campaign, campaign], pagination: { nextCursor: 'c2', hasMore: true, pageSize: 2 } });
    expect(rulesOf(x)).toEqual(['PAGE-008']);
  });
});

describe('assumed or pinned', () => {
  it('a violation of a decided field is classified as assumed', () => {
    const x = withBody(good.product(), { ...product, createdAt: 'yesterday' });
    const violation = checkResponse(x, OPTIONS).violations.find((v) => v.check === 'body-schema');
    expect(violation?.assumption).toBe('#/components/schemas/Product/properties/createdAt');
  });

  it('a 401 code other than the decided UNAUTHORIZED is assumed; its pinned problem members are not', () => {
    const body = { ...problem(401, 'AUTH_FAILED', 'Unauthorized', '/products'), type: '/errors/AUTH_FAILED' };
    const challenged = { ...PROBLEM_TYPE, 'www-authenticate': ['Bearer'] };
    const violations = checkResponse(exchange('GET', '/products', 401, challenged, body), OPTIONS).violations;
    expect(violations.map((v) => v.check)).toEqual(['body-schema']);
    // the mark sits on the decided `code` node of the Unauthorized response
    expect(violations[0]?.assumption).toMatch(/^#\/components\/responses\/Unauthorized\/.*\/code$/);

    const broken = checkResponse(exchange('GET', '/products', 401, challenged, { ...body, type: '/errors/OTHER' }), OPTIONS).violations;
    const typeViolation = broken.find((v) => v.check === 'problem-type');
    expect(typeViolation?.assumption).toBeUndefined();
  });

  it('a missing pinned field is pinned even where other fields are decided', () => {
    const { productId: _p, ...noId } = product;
    const violation = checkResponse(withBody(good.product(), noId), OPTIONS).violations.find((v) => v.check === 'body-schema');
    expect(violation).toBeDefined();
    expect(violation?.assumption).toBeUndefined();
  });
});

describe('an operation the target does not serve (#32 item 12)', () => {
  it('a 404 without a problem body on a collection, or a non-JSON 404 anywhere, names the path to serve', () => {
    const fastify = exchange('POST', '/campaigns', 404, JSON_TYPE, { message: 'Route POST:/api/public/v1/campaigns not found', error: 'Not Found', statusCode: 404 });
    const report = checkResponse(fastify, OPTIONS);
    expect(report.violations.find((v) => v.check === 'unserved')?.cause).toBe('serve /campaigns');
    expect(formatViolations(fastify, report.violations)).toContain('  - unserved (cause: serve /campaigns): the target does not serve POST /campaigns (createCampaign)');
    const express = exchange('GET', '/campaigns/cmp_1', 404, { 'content-type': ['text/html; charset=utf-8'] }, '<pre>Cannot GET /api/public/v1/campaigns/cmp_1</pre>');
    expect(checkResponse(express, OPTIONS).violations.find((v) => v.check === 'unserved')?.cause).toBe('serve /campaigns/{campaignId}');
    // A resource not found: the uniform problem (or a bare JSON 404 on a resource, ERR-001's) is no unserved path.
    expect(checkResponse(good.notFound(), OPTIONS).violations).toEqual([]);
    const bare = exchange('GET', '/campaigns/cmp_1', 404, JSON_TYPE, { error: 'not found' });
    expect(checkResponse(bare, OPTIONS).violations.map((v) => v.check)).not.toContain('unserved');
  });

  it('judges no rule of the operation on that answer, not ERR-001, only what every response carries (D288)', () => {
    const plain = exchange('POST', '/upscales', 404, { 'content-type': ['text/plain'] }, 'Not served');
    const report = checkResponse(plain, OPTIONS);
    expect(report.violations.map((v) => v.check).filter((c) => !c.startsWith('ratelimit'))).toEqual(['unserved']);
    expect(report.checked).not.toContain('ERR-001');
    expect(report.violations.flatMap((v) => v.rules)).not.toContain('ERR-001');
    // A plain-text 404 of a resource on a JSON-speaking target stays ERR-001's (not unserved).
    const served = exchange('GET', '/campaigns/cmp_1', 404, { 'content-type': ['application/json'] }, { error: 'not found' });
    expect(checkResponse(served, OPTIONS).violations.flatMap((v) => v.rules)).toContain('ERR-001');
  });
});
