/** Merging shards' rules reports: the merged report judges every rule as one run over all their tests would. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadLedger } from '../../../contract/rules/ledger.ts';
import { mergeReports, mergeRulesReports } from './merge.ts';
import { judgeRules, type RulesReport, type TestRecord } from './rules-reporter.ts';

const ledger = loadLedger();

function record(title: string, outcome: TestRecord['outcome'], extra: Partial<TestRecord> = {}): TestRecord {
  return { checkerStop: false, title, file: 'packages/conformance/suite/tests/x.spec.ts', tags: [], outcome, named: [...title.matchAll(/\b[A-Z]+-\d{3}\b/g)].map((m) => m[0]), checked: [], violated: [], warnings: [], ...extra };
}

function shard(target: string, tests: TestRecord[]): RulesReport {
  return { generatedAt: '2026-01-01T00:00:00.000Z', target, ...judgeRules(tests, ledger) };
}

const result = (report: RulesReport, id: string) => report.rules.find((r) => r.id === id)!.result;

describe('mergeRulesReports', () => {
  const a = [record('AUTH-032 a revoked key answers 401', 'passed', { checked: ['RATE-020'] }), record('AUTH-035 skipped here', 'skipped', { reason: 'no key' })];
  const b = [record('PAGE-001 a list pages', 'failed'), record('AUTH-020 a read-only key works', 'passed')];

  it('judges every rule from the tests of all shards, as one run over them would', () => {
    const merged = mergeRulesReports([shard('http://a', a), shard('http://b', b)], ledger);
    const one = judgeRules([...a, ...b], ledger);
    expect(merged.rules).toEqual(one.rules);
    expect(merged.summary).toEqual(one.summary);
    expect(merged.tests).toEqual([...a, ...b]);
    expect(merged.target).toBe('http://a, http://b');
    expect([result(merged, 'AUTH-032'), result(merged, 'PAGE-001'), result(merged, 'AUTH-035'), result(merged, 'RATE-020')]).toEqual(['passed', 'failed', 'not run', 'passed']);
    // Neither shard alone says what the merge says.
    expect(result(shard('a', a), 'PAGE-001')).toBe('not run');
    expect(result(shard('b', b), 'AUTH-032')).toBe('not run');
  });

  it('counts a test reported by two shards once, by its worse outcome', () => {
    const twice = mergeRulesReports([shard('a', [record('PAGE-001 a list pages', 'passed')]), shard('b', [record('PAGE-001 a list pages', 'failed')])], ledger);
    expect(twice.tests.map((t) => t.outcome)).toEqual(['failed']);
    expect(result(twice, 'PAGE-001')).toBe('failed');
    expect(twice.summary.tests).toEqual({ total: 1, passed: 0, failed: 1, skipped: 0 });
  });

  it('refuses shards of another rule ledger, and nothing to merge', () => {
    expect(() => mergeRulesReports([{ ...shard('a', a), ledgerVersion: '0.0.0-other' }], ledger)).toThrow(/rule ledgers/);
    expect(() => mergeRulesReports([], ledger)).toThrow(/no rules report/);
  });
});

describe('mergeReports', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cgs-merge-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds each shard\'s rules.json under the given dirs and writes rules.json and rules.md of the merge', () => {
    for (const [name, tests] of [['shard-1', [record('AUTH-032 revoked', 'passed')]], ['shard-2', [record('PAGE-001 pages', 'failed')]]] as const) {
      mkdirSync(join(dir, 'in', name), { recursive: true });
      writeFileSync(join(dir, 'in', name, 'rules.json'), JSON.stringify(shard(name, [...tests])));
    }
    const merged = mergeReports({ inputs: [join(dir, 'in')], outputDir: join(dir, 'out') });
    expect(merged.rulesFiles.map((f) => f.slice(dir.length))).toEqual(['/in/shard-1/rules.json', '/in/shard-2/rules.json']);
    expect(merged.blobs).toEqual([]);
    const written = JSON.parse(readFileSync(join(dir, 'out', 'rules.json'), 'utf8')) as RulesReport;
    expect(written.summary.tests).toEqual({ total: 2, passed: 1, failed: 1, skipped: 0 });
    expect(readFileSync(join(dir, 'out', 'rules.md'), 'utf8')).toContain('| PAGE-001 |');
  });
});
