import { describe, expect, it } from 'vitest';
import { coveredWithoutAssumed, declaredTests, isServerRule, strayJudges, unjudgedPartyRules } from './rules-coverage.ts';
import { loadLedger } from '../packages/contract/rules/ledger.ts';
import { RECEIVER_CHECKS } from '../packages/exams/src/webhooks.ts';
import { CLIENT_CHECKS } from '../packages/mock-core/src/exam/judge.ts';
import type { Rule } from '../packages/contract/spec/types.ts';

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

describe('client and receiver rules are judged by the exams', () => {
  const rule = (id: string, party: Rule['party'], observable = true): Rule => ({ id, section: 's', rule: 'r', status: 'pinned', observable, ...(party ? { party } : {}) });
  const rules = [rule('AUTH-001', undefined), rule('CLIENT-001', 'client'), rule('CLIENT-002', 'client'), rule('CLIENT-003', 'client', false), rule('RECV-001', 'receiver')];

  it('names each observable client or receiver rule no exam check judges, never a server rule or an unobservable one', () => {
    expect(unjudgedPartyRules(rules, [{ id: 'a', rules: ['CLIENT-001'] }]).map((r) => r.id)).toEqual(['CLIENT-002', 'RECV-001']);
    expect(unjudgedPartyRules(rules, [{ id: 'a', rules: ['CLIENT-001', 'CLIENT-002'] }, { id: 'b', rules: ['RECV-001'] }])).toEqual([]);
  });

  it('names an exam check that judges a server rule, an unobservable rule or an unknown id', () => {
    expect(strayJudges(rules, [{ id: 'a', rules: ['CLIENT-001', 'AUTH-001', 'CLIENT-003', 'CLIENT-999'] }])).toEqual([
      'exam check a judges AUTH-001, which is not an observable client or receiver rule',
      'exam check a judges CLIENT-003, which is not an observable client or receiver rule',
      'exam check a judges CLIENT-999, which is not an observable client or receiver rule',
    ]);
  });

  it('the ledger: every observable client and receiver rule is judged by a check of the exams, and none judges a stray rule', () => {
    const ledger = loadLedger().rules;
    const checks = [...CLIENT_CHECKS, ...RECEIVER_CHECKS];
    expect(ledger.filter((r) => !isServerRule(r)).length).toBeGreaterThan(0);
    expect(unjudgedPartyRules(ledger, checks).map((r) => r.id)).toEqual([]);
    expect(strayJudges(ledger, checks)).toEqual([]);
  });
});
