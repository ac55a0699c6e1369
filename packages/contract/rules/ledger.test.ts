import { describe, expect, it } from 'vitest';
import { loadLedger, namingProblems, ruleIdsIn, rulesById } from './ledger.ts';
import { ruleResult } from '../../conformance/suite/reporters/rules-reporter.ts';

const rules = rulesById(loadLedger());

describe('rule ids in titles', () => {
  it('finds every id once, in order, across describe and test titles', () => {
    expect(ruleIdsIn(['RATE-020 headers', 'AUTH-032 AUTH-035 revoked, AUTH-032 again'])).toEqual(['RATE-020', 'AUTH-032', 'AUTH-035']);
  });

  it('ignores look-alikes', () => {
    expect(ruleIdsIn(['XAUTH-001 AUTH-01 AUTH-0011 HTTP-200'])).toEqual([]);
  });
});

describe('naming problems', () => {
  it('flags an unknown id', () => {
    expect(namingProblems(['AUTH-999'], [], rules)).toEqual(['names unknown rule id(s) AUTH-999']);
  });

  it('flags an assumed rule without @assumed, and accepts it with the tag', () => {
    const assumed = [...rules.values()].find((r) => r.status === 'assumed')!.id;
    expect(namingProblems([assumed], [], rules)[0]).toContain('without the @assumed tag');
    expect(namingProblems([assumed], ['@assumed'], rules)).toEqual([]);
  });
});

describe('rule results', () => {
  it('fails on a failed named test or a violation the checker saw', () => {
    expect(ruleResult([{ outcome: 'passed', via: 'title' }, { outcome: 'failed', via: 'title' }])).toBe('failed');
    expect(ruleResult([{ outcome: 'passed', via: 'checker', violated: true }])).toBe('failed');
  });

  it('passes on a passed named test, or a clean check in a test that failed for another reason', () => {
    expect(ruleResult([{ outcome: 'passed', via: 'title' }, { outcome: 'skipped', via: 'title' }])).toBe('passed');
    expect(ruleResult([{ outcome: 'failed', via: 'checker', violated: false }])).toBe('passed');
  });

  it('is not run when every test was skipped or blocked by another rule', () => {
    expect(ruleResult([{ outcome: 'skipped', via: 'title' }, { outcome: 'blocked', via: 'title' }])).toBe('not run');
    expect(ruleResult([])).toBe('not run');
  });
});
