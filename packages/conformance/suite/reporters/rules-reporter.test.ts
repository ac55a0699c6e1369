/**
 * The rules reporter driven as Playwright drives it, for a run that stops before any test (a global
 * setup refusing the target): rules.json keeps each error's first line, without colour codes, so the
 * verdict can say why nothing ran (packages/conformance/bin/lib/conformance.ts `summarize`); a run without errors writes
 * no `errors` at all.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FullConfig, Suite, TestError } from '@playwright/test/reporter';
import { afterEach, describe, expect, it, vi } from 'vitest';
import RulesReporter, { copyExchanges, replaceErrorContext } from './rules-reporter.ts';

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
    const result = { status: 'failed', errors: [{ message }], attachments: [] };
    const annotations = [{ type: 'rules-violated', description: 'ETAG-002' }];
    const test = {
      titlePath: () => ['', 'project', 'assets.spec.ts', 'ASST-001 an asset reads back'],
      location: { file: join(process.cwd(), 'packages/conformance/suite/tests/assets.spec.ts'), line: 3, column: 1 },
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

describe('a failed test\'s context and exchanges (#32 item 8)', () => {
  it('replaces Playwright\'s error-context.md (instructions to a language model) by failure-context.md, and copies exchanges.txt beside the reports', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rules-reporter-'));
    dirs.push(dir);
    const out = join(dir, 'test-results', 'campaigns-CAMP-022');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'error-context.md'), '# Instructions\n\n- Following Playwright test failed.\n- Explain why, be concise, respect Playwright best practices.\n');
    writeFileSync(join(out, 'exchanges.txt'), '#1 hook call: POST http://h/__hooks/accounts → 201\n');
    const test = { title: 'CAMP-022 a create answers 201 with Location', titlePath: () => ['', 'p', 'campaigns.spec.ts', 'CAMP-022 a create answers 201 with Location'], location: { file: join(process.cwd(), 'packages/conformance/suite/tests/campaigns.spec.ts'), line: 12, column: 1 } };
    const result = {
      errors: [{ message: '\u001b[31mContractViolation: POST http://h/api/public/v1/campaigns → 201 breaks the contract:\u001b[39m\n  - header-schema [CAMP-022]: required header location is missing', location: { file: join(process.cwd(), 'packages/conformance/suite/tests/campaigns.spec.ts'), line: 14, column: 3 } }],
      attachments: [
        { name: 'exchanges.txt', contentType: 'text/plain', path: join(out, 'exchanges.txt') },
        { name: 'error-context', contentType: 'text/markdown', path: join(out, 'error-context.md') },
      ],
    };
    const copied = copyExchanges(test as never, result as never, join(dir, 'exchanges'));
    expect(copied).toBe(join(dir, 'exchanges', 'campaigns-12-CAMP-022-a-create-answers-201-with-Location.txt'));
    expect(readFileSync(copied!, 'utf8')).toContain('hook call');
    replaceErrorContext(test as never, result as never, ['CAMP-022 (Endpoints / Campaigns): POST /campaigns ...'], copied);
    expect(result.attachments.map((a) => a.name)).toEqual(['exchanges.txt', 'failure-context']);
    expect(existsSync(join(out, 'error-context.md'))).toBe(false);
    const context = readFileSync(join(out, 'failure-context.md'), 'utf8');
    expect(context).not.toMatch(/Instructions|Explain why/);
    expect(context).toContain('# CAMP-022 a create answers 201 with Location');
    expect(context).toContain('- First violated rule: CAMP-022 (Endpoints / Campaigns)');
    expect(context).toContain('required header location is missing');
    expect(context).not.toContain('\u001b[');
    expect(context).toContain('exchanges.txt beside this file');
  });
});
