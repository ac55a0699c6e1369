/**
 * The pipeline over HTTP (in-process), with probe handlers standing in for the resources, so
 * that each stage is tested on its own: auth, rate limits, validation, faults, idempotency.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../core/errors.ts';
import { catalogHandlers } from '../domain/catalog/operations.ts';
import { createHarness, violations, type Harness, type TestAccount } from '../testkit/harness.ts';
import type { HandlerTable, OperationHandler } from '../domain/operation.ts';

let calls: string[] = [];
const probe = (name: string, status = 200): OperationHandler => ({
  run: () => {
    calls.push(name);
    return { status, body: { object: 'campaign', campaignId: `cmp_${calls.length}`, name, status: 'IN_PROGRESS', brandId: 'b', creativeCount: 0, createdAt: '2026-01-01T00:00:00.000Z', deletedAt: null }, etagOf: { n: calls.length }, headers: status === 201 ? { location: `/api/public/v1/campaigns/cmp_${calls.length}` } : ({} as Record<string, string>) };
  },
});
const handlers: HandlerTable = {
  ...catalogHandlers,
  createCampaign: probe('create', 201),
  updateCampaign: { target: () => ({ fixed: true }), ...probe('update') },
  listRuns: { run: () => ({ status: 200, body: { object: 'list', data: [], pagination: { nextCursor: null, hasMore: false, pageSize: 25 } } }) },
  deleteCampaign: {
    run: () => {
      throw new ApiError('CAMPAIGN_CASCADE_PENDING', 'still finishing', { retryAfter: 5 });
    },
  },
  approveCreative: {
    run: () => {
      calls.push('approve');
      throw new ApiError('CREATIVE_NOT_PENDING', 'already rejected', { extensions: { currentStatus: 'REJECTED' } });
    },
  },
};

let h: Harness;
let acct: TestAccount;
beforeEach(async () => {
  calls = [];
  h = await createHarness({ handlers });
  acct = await h.account({ empty: true });
});
afterEach(() => h.close());

const createBody = { name: 'Spring', brandId: 'brd_1', productIds: ['prd_1'] };

describe('authenticate and authorize', () => {
  it('AUTH: missing, malformed, unknown, revoked and expired keys answer the same uniform 401', async () => {
    const unknown = `cgs_${'a'.repeat(64)}`;
    const readKey = acct.keys.read!;
    await h.control('POST', `/__mock/accounts/${acct.accountId}/keys/${acct.keys['creatives:write']!.keyId}/revoke`);
    await h.control('POST', `/__mock/accounts/${acct.accountId}/keys/${acct.keys['assets:write']!.keyId}/expire`);
    const responses = [
      await h.request('GET', '/products'),
      await h.request('GET', '/products', { headers: { authorization: 'Basic abc' } }),
      await h.request('GET', '/products', { key: 'cgs_SHORT' }),
      await h.request('GET', '/products', { key: unknown }),
      await h.request('GET', '/products', { key: acct.key('creatives:write') }),
      await h.request('GET', '/products', { key: acct.key('assets:write') }),
    ];
    for (const res of responses) {
      expect(res.status, res.text).toBe(401);
      expect(violations('listProducts', res)).toEqual([]);
      const { requestId: _r, ...rest } = res.body;
      expect(rest).toEqual({ type: '/errors/UNAUTHORIZED', title: 'Unauthorized', status: 401, code: 'UNAUTHORIZED', detail: expect.any(String), instance: '/api/public/v1/products' });
    }
    expect(new Set(responses.map((r) => r.body.detail)).size).toBe(1);
    const ok = await h.request('GET', '/products', { key: readKey.key });
    expect(ok.status).toBe(200);
  });

  it('D2: a 401 on a campaign write carries ENTITLEMENT_LOST', async () => {
    const res = await h.request('POST', '/campaigns', { key: `cgs_${'b'.repeat(64)}`, body: createBody, headers: { 'idempotency-key': 'k' } });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('ENTITLEMENT_LOST');
    expect(violations('createCampaign', res)).toEqual([]);
  });

  it('AUTH: a missing scope is 403 API_TOKEN_SCOPE_DENIED with the same detail text as a 401', async () => {
    const denied = await h.request('GET', '/runs', { key: acct.key('read') });
    const unauth = await h.request('GET', '/runs');
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('API_TOKEN_SCOPE_DENIED');
    expect(denied.body.detail).toBe(unauth.body.detail);
    expect(violations('listRuns', denied)).toEqual([]);
  });

  it('AUTH: runs:write implies runs:read, which implies read', async () => {
    expect((await h.request('GET', '/runs', { key: acct.key('runs:write') })).status).toBe(200);
    expect((await h.request('GET', '/products', { key: acct.key('runs:write') })).status).toBe(200);
  });

  it('AUTH: entitlement is re-checked on every request (a runs:write key on a lapsed plan is 401)', async () => {
    expect((await h.request('GET', '/runs', { key: acct.key('runs:write') })).status).toBe(200);
    acct.state.plan.runsWrite = false;
    const res = await h.request('GET', '/runs', { key: acct.key('runs:write') });
    expect(res.status).toBe(200); // GET /runs needs runs:read only: a read-only use works on any plan
    acct.state.suspended = true;
    expect((await h.request('GET', '/runs', { key: acct.key('runs:write') })).status).toBe(401);
  });
});

describe('rate limits', () => {
  it('RATE: headers on every response, errors included; a 401 lists the key limit and the per-IP cap only', async () => {
    const ok = await h.request('GET', '/products', { key: acct.key('read') });
    expect(ok.headers['ratelimit']).toBe('limit=200, remaining=199, reset=60');
    expect(ok.headers['ratelimit-policy']).toBe('200;w=60, 1000;w=60, 2000;w=60');
    const bad = await h.request('GET', '/products', { key: `cgs_${'c'.repeat(64)}` });
    expect(bad.headers['ratelimit-policy']).toBe('200;w=60, 2000;w=60');
  });

  it('RATE: a read-plane 429 is plain text with Retry-After; a generation-plane 429 is problem+json RATE_LIMITED', async () => {
    acct.state.limitOverrides['group:read'] = 2;
    acct.state.limitOverrides['group:generation_read'] = 1;
    await h.request('GET', '/products', { key: acct.key('all') });
    await h.request('GET', '/products', { key: acct.key('all') });
    h.advance(20);
    const text = await h.request('GET', '/products', { key: acct.key('all') });
    expect(text.status).toBe(429);
    expect(text.headers['content-type']).toMatch(/^text\/plain/);
    expect(text.headers['retry-after']).toBe('40');
    expect(text.headers['ratelimit']).toBe('limit=2, remaining=0, reset=40');
    expect(violations('listProducts', text)).toEqual([]);
    await h.request('GET', '/runs', { key: acct.key('all') });
    const problem = await h.request('GET', '/runs', { key: acct.key('all') });
    expect(problem.status).toBe(429);
    expect(problem.body.code).toBe('RATE_LIMITED');
    expect(violations('listRuns', problem)).toEqual([]);
    h.advance(40);
    expect((await h.request('GET', '/products', { key: acct.key('all') })).status).toBe(200);
  });

  it('RATE: a 429 on a write consumes no idempotency key', async () => {
    acct.state.limitOverrides['group:campaign_writes'] = 1;
    await h.request('POST', '/campaigns', { key: acct.key('all'), body: createBody, headers: { 'idempotency-key': 'first' } });
    const limited = await h.request('POST', '/campaigns', { key: acct.key('all'), body: createBody, headers: { 'idempotency-key': 'k2' } });
    expect(limited.status).toBe(429);
    expect(limited.headers['content-type']).toMatch(/^text\/plain/);
    h.advance(60);
    const retried = await h.request('POST', '/campaigns', { key: acct.key('all'), body: createBody, headers: { 'idempotency-key': 'k2' } });
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('the per-IP caps count on real elapsed time (D274)', () => {
  // [name, how time moves after the cap is spent, whether the next write is admitted]
  const cases: [string, { advanceSeconds: number; wallSeconds: number; admitted: boolean }][] = [
    ['an advance of the manual clock by a whole window does not end the window', { advanceSeconds: 60, wallSeconds: 0, admitted: false }],
    ['a manual clock nobody advances: real time ends it', { advanceSeconds: 0, wallSeconds: 60, admitted: true }],
    ['real time short of the window does not', { advanceSeconds: 3600, wallSeconds: 59, admitted: false }],
  ];
  for (const [name, { advanceSeconds, wallSeconds, admitted }] of cases) {
    it(name, async () => {
      let wall = 1_795_000_020_000; // a window boundary of the wall clock
      const w = await createHarness({ handlers, wall: () => wall });
      try {
        expect((await w.control('PATCH', '/__mock/limits', { 'ip:writes': 2 })).status).toBe(200);
        const a = await w.account({ empty: true });
        const write = (n: number) => w.request('POST', '/campaigns', { key: a.key('all'), body: createBody, headers: { 'idempotency-key': `ip-${n}` } });
        expect((await write(1)).status).toBe(201);
        expect((await write(2)).status).toBe(201);
        const refused = await write(3);
        expect([refused.status, refused.headers['ratelimit'], refused.headers['retry-after']]).toEqual([429, 'limit=2, remaining=0, reset=60', '60']);
        if (advanceSeconds > 0) w.advance(advanceSeconds);
        wall += wallSeconds * 1000;
        const next = await write(4);
        expect(next.status, next.text).toBe(admitted ? 201 : 429);
      } finally {
        await w.close();
      }
    });
  }
});

describe('validation', () => {
  const write = (opts: Parameters<Harness['request']>[2]) => h.request('POST', '/campaigns', { key: acct.key('all'), headers: { 'idempotency-key': 'v' }, ...opts });

  it('IDEM: a missing required key is 400 IDEMPOTENCY_KEY_REQUIRED; a malformed one 400 INVALID_IDEMPOTENCY_KEY', async () => {
    const missing = await h.request('POST', '/campaigns', { key: acct.key('all'), body: createBody });
    expect(missing.body.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    const bad = await h.request('POST', '/campaigns', { key: acct.key('all'), body: createBody, headers: { 'idempotency-key': 'has space' } });
    expect(bad.body.code).toBe('INVALID_IDEMPOTENCY_KEY');
    for (const res of [missing, bad]) expect(violations('createCampaign', res)).toEqual([]);
    expect(calls).toEqual([]);
  });

  it.each([
    ['required (POST /campaigns)', 'POST', '/campaigns', createBody],
    ['optional (PATCH /campaigns/{id})', 'PATCH', '/campaigns/cmp_1', { name: 'x' }],
  ] as const)('D73 IDEM-011: an empty Idempotency-Key header where the key is %s is malformed: 400 INVALID_IDEMPOTENCY_KEY', async (_where, method, path, body) => {
    const res = await h.request(method, path, { key: acct.key('all'), body, headers: { 'idempotency-key': '' } });
    expect([res.status, res.body.code], res.text).toEqual([400, 'INVALID_IDEMPOTENCY_KEY']);
    expect(calls).toEqual([]);
  });

  it('D22: the quoted and bare forms of a key are the same key', async () => {
    const a = await write({ body: createBody, headers: { 'idempotency-key': '"same-key"' } });
    const b = await write({ body: createBody, headers: { 'idempotency-key': 'same-key' } });
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.text).toBe(a.text);
  });

  it.each([
    ['malformed JSON → 400', { rawBody: '{"name":', contentType: 'application/json' }, 400, 'VALIDATION_ERROR'],
    ['a wrong content type → 415', { rawBody: 'name=x', contentType: 'application/x-www-form-urlencoded' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['an unknown field → 422 naming it', { body: { ...createBody, colour: 'red' } }, 422, 'VALIDATION_ERROR'],
    ['a missing field → 422 naming it', { body: { name: 'x', productIds: ['p'] } }, 422, 'VALIDATION_ERROR'],
    ['an empty body → 422', { rawBody: '', contentType: 'application/json' }, 422, 'VALIDATION_ERROR'],
  ] as const)('D23/D24: %s', async (_name, opts, status, code) => {
    const res = await write(opts as Parameters<Harness['request']>[2]);
    expect(res.status, res.text).toBe(status);
    expect(res.body.code).toBe(code);
    expect(violations('createCampaign', res)).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('D23: errors[] names the offending fields', async () => {
    const res = await write({ body: { ...createBody, colour: 'red', productIds: [] } });
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'colour' }), expect.objectContaining({ field: 'productIds' })]));
  });

  it('D24: a body over 1 MiB is 413 problem+json', async () => {
    const res = await write({ rawBody: `{"name":"${'x'.repeat(1_100_000)}"}`, contentType: 'application/json' });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('D23: a bad query parameter is 400 naming it; unknown parameters are ignored', async () => {
    for (const limit of ['0', '101', 'ten', '2.5']) {
      const res = await h.request('GET', '/products', { key: acct.key('read'), query: { limit } });
      expect(res.status, limit).toBe(400);
      expect(res.body.errors[0].field).toBe('limit');
    }
    expect((await h.request('GET', '/products', { key: acct.key('read'), query: { _: '123' } })).status).toBe(200);
  });

  it('PAGE: a cursor this API did not issue is 400', async () => {
    const res = await h.request('GET', '/products', { key: acct.key('read'), query: { cursor: 'bm90LWEtY3Vyc29y' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('cursor');
  });

  it('an unknown path is 404 NOT_FOUND and a known path with another method 405, both problem+json', async () => {
    const missing = await h.request('GET', '/nope', { key: acct.key('read') });
    expect([missing.status, missing.body.code]).toEqual([404, 'NOT_FOUND']);
    const method = await h.request('PUT', '/products', { key: acct.key('read') });
    expect([method.status, method.body.code]).toEqual([405, 'METHOD_NOT_ALLOWED']);
    expect(method.headers['ratelimit']).toBeDefined();
  });
});

describe('faults and idempotency', () => {
  it('IDEM: a retry replays status, headers and body; no second resource', async () => {
    const first = await h.request('POST', '/campaigns', { key: acct.key('all'), body: createBody, headers: { 'idempotency-key': 'once' } });
    const again = await h.request('POST', '/campaigns', { key: acct.key('all'), body: createBody, headers: { 'idempotency-key': 'once' } });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(calls).toEqual(['create']);
    const reused = await h.request('POST', '/campaigns', { key: acct.key('all'), body: { ...createBody, name: 'Other' }, headers: { 'idempotency-key': 'once' } });
    expect([reused.status, reused.body.code]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    expect(violations('createCampaign', reused)).toEqual([]);
  });

  it('D73 D51 IDEM-016: a replayed problem carries its own requestId, the rest of the stored answer unchanged', async () => {
    const send = () => h.request('POST', '/creatives/crv_1/approve', { key: acct.key('all'), headers: { 'idempotency-key': 'stored-refusal' } });
    const first = await send();
    const again = await send();
    expect([first.status, again.status, again.headers['idempotent-replayed']]).toEqual([409, 409, 'true']);
    expect(calls, 'replayed, not run again').toEqual(['approve']);
    expect(again.body.requestId).toMatch(/^req_/);
    expect(again.body.requestId, 'every answer has its own requestId').not.toBe(first.body.requestId);
    const { requestId: _a, ...original } = first.body;
    const { requestId: _b, ...replayed } = again.body;
    expect(replayed).toEqual(original);
    expect(violations('approveCreative', again)).toEqual([]);
  });

  it('IDEM: a request still running is 409 IDEMPOTENCY_IN_PROGRESS with Retry-After; concurrent identical requests create one resource', async () => {
    acct.state.faults.slowWritesMs = 2000;
    const send = () => h.request('POST', '/campaigns', { key: acct.key('all'), body: createBody, headers: { 'idempotency-key': 'slow' } });
    const first = send();
    await new Promise((resolve) => setImmediate(resolve));
    const during = await Promise.all([send(), send()]);
    for (const res of during) {
      expect([res.status, res.body.code]).toEqual([409, 'IDEMPOTENCY_IN_PROGRESS']);
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
    }
    h.advance(2);
    expect((await first).status).toBe(201);
    expect((await send()).headers['idempotent-replayed']).toBe('true');
    expect(calls).toEqual(['create']);
  });

  it('IDEM: 503 WRITES_PAUSED does not consume the key; reads are unaffected', async () => {
    acct.state.faults.writesPaused = true;
    const paused = await h.request('POST', '/campaigns', { key: acct.key('all'), body: createBody, headers: { 'idempotency-key': 'p' } });
    expect([paused.status, paused.body.code]).toEqual([503, 'WRITES_PAUSED']);
    expect(paused.headers['retry-after']).toMatch(/^\d+$/);
    expect(violations('createCampaign', paused)).toEqual([]);
    expect((await h.request('GET', '/products', { key: acct.key('all') })).status).toBe(200);
    acct.state.faults.writesPaused = false;
    const after = await h.request('POST', '/campaigns', { key: acct.key('all'), body: createBody, headers: { 'idempotency-key': 'p' } });
    expect(after.status).toBe(201);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a per-request Prefer: scenario=writes_paused pauses that request only', async () => {
    const paused = await h.request('POST', '/campaigns', { key: acct.key('all'), body: createBody, headers: { 'idempotency-key': 's', prefer: 'scenario=writes_paused' } });
    expect(paused.status).toBe(503);
    expect((await h.request('POST', '/campaigns', { key: acct.key('all'), body: createBody, headers: { 'idempotency-key': 's' } })).status).toBe(201);
  });

  it('D37: a 409 CAMPAIGN_CASCADE_PENDING leaves the key free and carries Retry-After', async () => {
    const res = await h.request('DELETE', '/campaigns/cmp_1', { key: acct.key('all'), headers: { 'idempotency-key': 'd' } });
    expect([res.status, res.body.code, res.headers['retry-after']]).toEqual([409, 'CAMPAIGN_CASCADE_PENDING', '5']);
    expect(acct.state.idempotency.has('d')).toBe(false);
  });

  it('ETAG: a stale If-Match is 412 and the handler never runs', async () => {
    const res = await h.request('PATCH', '/campaigns/cmp_1', { key: acct.key('all'), body: { name: 'x' }, headers: { 'if-match': '"stale"' } });
    expect([res.status, res.body.code]).toEqual([412, 'PRECONDITION_FAILED']);
    expect(calls).toEqual([]);
    const bad = await h.request('PATCH', '/campaigns/cmp_1', { key: acct.key('all'), body: { name: 'x' }, headers: { 'if-match': 'unquoted' } });
    expect(bad.status).toBe(400);
  });
});

describe('HEAD', () => {
  it('answers as GET, with the same status and headers and no body', async () => {
    const get = await h.request('GET', '/products', { key: acct.key('read') });
    const head = await h.request('HEAD', '/products', { key: acct.key('read') });
    expect(head.status).toBe(get.status);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['ratelimit']).toMatch(/^limit=200, remaining=\d+, reset=\d+$/);
    expect(head.text).toBe('');
  });
});

describe('faults on demand: Prefer: scenario=<name>', () => {
  const post = (scenario: string, path = '/campaigns') =>
    h.request('POST', path, { key: acct.key('all'), body: createBody, headers: { 'idempotency-key': `k-${scenario}`, prefer: `scenario=${scenario}` } });

  it.each([
    ['lost_race', 503, 'SERVICE_UNAVAILABLE'],
    ['in_progress', 409, 'IDEMPOTENCY_IN_PROGRESS'],
    ['writes_paused', 503, 'WRITES_PAUSED'],
  ] as const)('%s answers %i %s with Retry-After, runs nothing and leaves the key free', async (scenario, status, code) => {
    const res = await post(scenario);
    expect([res.status, res.body.code]).toEqual([status, code]);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(violations('createCampaign', res)).toEqual([]);
    expect(calls).toEqual([]);
    expect(acct.state.idempotency.size).toBe(0);
  });

  it('cascade_pending answers 409 CAMPAIGN_CASCADE_PENDING on a campaign delete', async () => {
    const res = await h.request('DELETE', '/campaigns/cmp_x', { key: acct.key('all'), headers: { prefer: 'scenario=cascade_pending' } });
    expect([res.status, res.body.code, res.headers['retry-after']]).toEqual([409, 'CAMPAIGN_CASCADE_PENDING', '2']);
    expect(violations('deleteCampaign', res)).toEqual([]);
  });

  it('rate_limited answers the plane\'s 429 with the group limit at remaining=0, counting nothing', async () => {
    const read = await h.request('GET', '/products', { key: acct.key('all'), headers: { prefer: 'scenario=rate_limited' } });
    expect(read.status).toBe(429);
    expect(read.headers['content-type']).toMatch(/^text\/plain/);
    expect(read.headers['ratelimit']).toBe('limit=200, remaining=0, reset=60');
    expect(read.headers['retry-after']).toBe('60');
    expect(violations('listProducts', read)).toEqual([]);
    const gen = await h.request('GET', '/runs', { key: acct.key('all'), headers: { prefer: 'scenario=rate_limited' } });
    expect([gen.status, gen.body.code]).toEqual([429, 'RATE_LIMITED']);
    expect(violations('listRuns', gen)).toEqual([]);
    const after = await h.request('GET', '/products', { key: acct.key('all') });
    expect(after.headers['ratelimit']).toBe('limit=200, remaining=199, reset=60');
  });

  it('the control plane forces the account\'s next N requests to 429', async () => {
    const patched = await h.control('PATCH', `/__mock/accounts/${acct.accountId}/faults`, { forcedRateLimits: 2 });
    expect(patched.status).toBe(200);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await h.request('GET', '/products', { key: acct.key('read') })).status);
    expect(statuses).toEqual([429, 429, 200]);
  });
});

describe('fuzz findings, fixed', () => {
  it('KB1: a path id is measured in characters (150 astral characters are a valid id, answered 404)', async () => {
    const res = await h.request('GET', `/products/${encodeURIComponent('𝕏'.repeat(150))}`, { key: acct.key('read') });
    expect(res.status, res.text).toBe(404);
    const tooLong = await h.request('GET', `/products/${encodeURIComponent('𝕏'.repeat(201))}`, { key: acct.key('read') });
    expect(tooLong.status).toBe(400);
  });

  it('KB2: an If-Match longer than 2048 characters is 400 naming If-Match', async () => {
    const res = await h.request('PATCH', '/campaigns/cmp_1', { key: acct.key('all'), body: { name: 'x' }, headers: { 'if-match': `"${'a'.repeat(2050)}"` } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('If-Match');
  });
});
