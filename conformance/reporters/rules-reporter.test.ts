/**
 * The rules reporter driven as Playwright drives it, for a run that stops before any test (a global
 * setup refusing the target): rules.json keeps each error's first line, without colour codes, so the
 * verdict can say why nothing ran (bin/lib/conformance.ts `summarize`); a run without errors writes
 * no `errors` at all.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FullConfig, Suite, TestError } from '@playwright/test/reporter';
import { afterEach, describe, expect, it, vi } from 'vitest';
import RulesReporter from './rules-reporter.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

function runWithErrors(errors: TestError[]): { errors?: string[]; tests: unknown[] } {
  const dir = mkdtempSync(join(tmpdir(), 'rules-reporter-'));
  dirs.push(dir);
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  const reporter = new RulesReporter({ outputDir: dir });
  reporter.onBegin({ maxFailures: 0 } as FullConfig, { allTests: () => [] } as unknown as Suite);
  for (const error of errors) reporter.onError(error);
  reporter.onEnd();
  return JSON.parse(readFileSync(join(dir, 'rules.json'), 'utf8')) as { errors?: string[]; tests: unknown[] };
}

describe('RulesReporter.onError', () => {
  it('keeps the first non-blank line of each error outside a test, without colour codes', () => {
    const report = runWithErrors([
      { message: '\n\u001b[31mError: conformance: http://127.0.0.1:9/api/public/v1 does not answer\u001b[39m\n    at globalSetup (global-setup.ts:10:5)' },
      { value: 'a thrown string' },
    ]);
    expect(report.tests).toEqual([]);
    expect(report.errors).toEqual(['Error: conformance: http://127.0.0.1:9/api/public/v1 does not answer', 'a thrown string']);
  });

  it('writes no errors for a run that had none', () => {
    expect(runWithErrors([]).errors).toBeUndefined();
  });
});

describe('RulesReporter: one rule per failed test in every report', () => {
  it('the JUnit/HTML `violated rule` annotation names the rule the summary groups the test under (#32 item 6)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rules-reporter-'));
    dirs.push(dir);
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    // The checker's message names RATE-021 first, a rule the test neither names nor was stopped at
    // (only ETAG-002 is in its rules-violated): the cause is ETAG-002.
    const message = 'ContractViolation: GET http://x/api/public/v1/assets/ast_1 → 200 breaks the contract:\n  - etag [RATE-021, ETAG-002]: weak\n  response headers:\n    etag: W/"1"';
    const result = { status: 'failed', errors: [{ message }] };
    const annotations = [{ type: 'rules-violated', description: 'ETAG-002' }];
    const test = {
      titlePath: () => ['', 'project', 'assets.spec.ts', 'ASST-001 an asset reads back'],
      location: { file: join(process.cwd(), 'conformance/tests/assets.spec.ts'), line: 3, column: 1 },
      tags: [],
      annotations,
      results: [result],
      outcome: () => 'unexpected',
    };
    const reporter = new RulesReporter({ outputDir: dir });
    reporter.onBegin({ maxFailures: 0 } as FullConfig, { allTests: () => [test] } as unknown as Suite);
    reporter.onTestEnd(test as never, result as never);
    reporter.onEnd();
    const report = JSON.parse(readFileSync(join(dir, 'rules.json'), 'utf8')) as { causes: { rule: string }[] };
    const junit = annotations.filter((a) => a.type === 'violated rule').map((a) => a.description.split(' ')[0]);
    expect(report.causes.map((c) => c.rule)).toEqual(['ETAG-002']);
    expect(junit[0]).toBe('ETAG-002');
  });
});
