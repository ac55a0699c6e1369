import { describe, expect, it } from 'vitest';
import { coveredWithoutAssumed, declaredTests } from './rules-coverage.ts';

// Source text that declaredTests reads statically, not tests: its test.fixme and test.skip lines are
// the cases the scanner must tell apart (a pending declaration, runtime skips that declare nothing).
const source = `
import { test } from '../fixtures/index.ts';
test('AUTH-032 a revoked key answers 401', { tag: '@control' }, async () => {});
test.describe('PAGE-005 pages', { tag: ['@assumed'] }, () => {
  test('PAGE-012 default size', async () => {});
  test.fixme('PAGE-013 limits', async () => {}); // not skipped: scanner input, because declaredTests must read a declared test that is pending
});
test.skip(true, 'AUTH-999 a runtime skip is not a declaration'); // not skipped: scanner input, because declaredTests must read a runtime skip to ignore
test('no rule here @spend', async () => {
  test.fixme(true, 'RATE-001 a runtime fixme inside a body'); // not skipped: scanner input, because declaredTests must read a runtime fixme to ignore
});
`;

describe('declaredTests', () => {
  const tests = declaredTests('/repo/conformance/tests/x.spec.ts', source);

  it('reads titles, describe titles and tags statically', () => {
    expect(tests.map((t) => [t.ruleIds, t.tags, t.pending])).toEqual([
      [['AUTH-032'], ['@control'], false],
      [['PAGE-005', 'PAGE-012'], ['@assumed'], false],
      [['PAGE-005', 'PAGE-013'], ['@assumed'], true],
      [[], ['@spend'], false],
    ]);
  });

  it('ignores calls whose first argument is not a title', () => {
    expect(tests.flatMap((t) => t.ruleIds)).not.toContain('AUTH-999');
    expect(tests.flatMap((t) => t.ruleIds)).not.toContain('RATE-001');
  });
});

describe('coveredWithoutAssumed', () => {
  it('counts a rule only when a test without @assumed (and not pending) names it', () => {
    const tests = declaredTests('/repo/conformance/tests/x.spec.ts', source);
    expect([...coveredWithoutAssumed(tests)].sort()).toEqual(['AUTH-032']);
    const more = declaredTests('/repo/conformance/tests/y.spec.ts', `test('PAGE-012 PAGE-001 pinned part', async () => {});`);
    expect([...coveredWithoutAssumed([...tests, ...more])].sort()).toEqual(['AUTH-032', 'PAGE-001', 'PAGE-012']);
  });
});
