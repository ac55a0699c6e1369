/**
 * `violations` hands the API's answers to the suite's checker (checkResponse, D211): a conforming
 * answer passes, and each way of breaking one is reported (the checker's own cases are in
 * packages/conformance/suite/checks/).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, violations, type Harness, type TestResponse } from './harness.ts';

let h: Harness;
let read: string;
let ok: TestResponse;
let refused: TestResponse;
beforeAll(async () => {
  h = await createHarness();
  read = (await h.account()).keys['read']!.key;
  ok = await h.request('GET', '/products', { key: read });
  refused = await h.request('GET', '/products', { key: 'cgs_wrong' });
});
afterAll(async () => {
  await h.close();
});

describe('violations: the suite checker over the harness answers', () => {
  it('a conforming answer and a conforming refusal have none', () => {
    expect([ok.status, refused.status]).toEqual([200, 401]);
    expect(violations('listProducts', ok)).toEqual([]);
    expect(violations('listProducts', refused)).toEqual([]);
  });

  it.each([
    { what: 'another content type', change: (r: TestResponse): TestResponse => ({ ...r, headers: { ...r.headers, 'content-type': 'text/plain' } }), found: /^content-type/ },
    { what: 'an undeclared status', change: (r: TestResponse): TestResponse => ({ ...r, status: 299 }), found: /^status-declared/ },
    { what: 'a body off its schema', change: (r: TestResponse): TestResponse => ({ ...r, text: JSON.stringify({ data: 'x' }) }), found: /^body-schema/ },
    { what: 'no RateLimit headers', change: (r: TestResponse): TestResponse => ({ ...r, headers: Object.fromEntries(Object.entries(r.headers).filter(([name]) => !name.startsWith('ratelimit'))) }), found: /RATE-0/ },
  ])('reports $what', ({ change, found }) => {
    expect(violations('listProducts', change(ok)).some((v) => found.test(v))).toBe(true);
  });

  it('a problem whose status differs from the answer', () => {
    const text = JSON.stringify({ ...refused.body, status: 400 });
    expect(violations('listProducts', { ...refused, text }).some((v) => v.startsWith('problem-status'))).toBe(true);
  });

  it('an answer of another operation, or without its request', () => {
    expect(violations('getCreative', ok)).toEqual([expect.stringMatching(/reaches listProducts, not getCreative/)]);
    const { request: _request, ...alone } = ok;
    expect(violations('listProducts', alone)).toEqual([expect.stringMatching(/no request beside the answer/)]);
  });
});
