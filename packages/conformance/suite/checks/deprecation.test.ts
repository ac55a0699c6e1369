/**
 * Deprecation (RFC 9745) and Sunset (RFC 8594): the mock's headers for a deprecated operation, and
 * the suite's check of them, table-driven. No operation of 1.9.0 is deprecated, so the operation
 * here is the document's listProducts with deprecation dates added.
 */
import { describe, expect, it } from 'vitest';
import { operations, type OperationInfo } from '../../../contract/spec/contract.ts';
import { deprecationHeaders, withRateLimitHeaders } from '../../../mock-core/src/pipeline/respond.ts';
import { checkDeprecation } from './headers.ts';

const plain = operations.get('listProducts')!;
const deprecated: OperationInfo = { ...plain, deprecation: { deprecatedAt: '2027-01-04', sunset: '2027-04-04' } };
const wrap = (headers: Record<string, string>): Record<string, string[]> => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]]));

describe('Deprecation and Sunset', () => {
  it('the mock sends the document dates in the RFC formats, and nothing on an operation that is not deprecated', () => {
    expect(deprecationHeaders(deprecated)).toEqual({ deprecation: '@1799020800', sunset: 'Sun, 04 Apr 2027 00:00:00 GMT' });
    expect(deprecationHeaders(plain)).toEqual({});
  });

  it('the respond stage adds them to every answer of a deprecated operation, errors included', () => {
    const answer = withRateLimitHeaders({ status: 404, headers: { 'content-type': 'application/problem+json' }, body: '{}' }, undefined, deprecated);
    expect(answer.headers).toMatchObject({ deprecation: '@1799020800', sunset: 'Sun, 04 Apr 2027 00:00:00 GMT' });
    expect(withRateLimitHeaders({ status: 200, headers: {}, body: '' }, undefined, plain).headers).toEqual({});
  });

  it('the check accepts what the mock sends', () => {
    expect(checkDeprecation(deprecated, wrap(deprecationHeaders(deprecated)))).toEqual([]);
    expect(checkDeprecation(plain, {})).toEqual([]);
  });

  const broken: [string, OperationInfo, Record<string, string>, string][] = [
    ['no Deprecation', deprecated, { sunset: 'Sun, 04 Apr 2027 00:00:00 GMT' }, 'no Deprecation header'],
    ['no Sunset', deprecated, { deprecation: '@1799020800' }, 'no Sunset header'],
    ['Deprecation as an HTTP-date', deprecated, { deprecation: 'Mon, 04 Jan 2027 00:00:00 GMT', sunset: 'Sun, 04 Apr 2027 00:00:00 GMT' }, 'is not a structured-field Date'],
    ['Deprecation a day late', deprecated, { deprecation: '@1799107200', sunset: 'Sun, 04 Apr 2027 00:00:00 GMT' }, 'the document says 2027-01-04'],
    ['Sunset in ISO 8601', deprecated, { deprecation: '@1799020800', sunset: '2027-04-04' }, 'is not an HTTP-date'],
    ['Sunset another day', deprecated, { deprecation: '@1799020800', sunset: 'Mon, 05 Apr 2027 00:00:00 GMT' }, "is not 2027-04-04, the document's sunset"],
    ['Deprecation on a live operation', plain, { deprecation: '@1799020800' }, 'on an operation the document does not deprecate'],
    ['Sunset on a live operation', plain, { sunset: 'Sun, 04 Apr 2027 00:00:00 GMT' }, 'on an operation without a sunset date'],
  ];
  it.each(broken)('the check fails on %s', (_name, operation, headers, message) => {
    const violations = checkDeprecation(operation, wrap(headers));
    expect(violations).toHaveLength(1);
    expect(violations[0]!.message).toContain(message);
  });
});
