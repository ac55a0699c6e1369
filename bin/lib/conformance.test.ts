/** cgs-conformance's command line and verdict, without running anything (bin/lib/conformance.ts). */
import { describe, expect, it } from 'vitest';
import { chapterOf, planRun, summarize, UsageError, type RulesJson } from './conformance.ts';

const files: Record<string, string> = { '/work/keys.json': '{"read":"cgs_r","all":"cgs_a"}', '/work/bad.json': '["x"]' };
const readFile = (path: string): string => {
  const text = files[path];
  if (text === undefined) throw new Error('ENOENT');
  return text;
};
const plan = (...argv: string[]) => planRun(argv, '/work', readFile);

describe('planRun', () => {
  it.each<[string, string[], Partial<ReturnType<typeof plan>>]>([
    ['nothing: the packaged mock, reports in ./conformance-report', [], { env: { CONFORMANCE_CONSOLE_REPORTER: 'dot', CONFORMANCE_REPORT_DIR: '/work/conformance-report' }, playwrightArgs: [] }],
    [
      'a target with keys from a file and inline, spend, a token',
      ['--base-url', 'https://x.example/api/public/v1/', '--keys', 'keys.json', '--keys-b={"read":"cgs_b"}', '--allow-spend', '--control-token', 't0k'],
      {
        env: {
          CONFORMANCE_BASE_URL: 'https://x.example/api/public/v1',
          CONFORMANCE_KEYS: '{"read":"cgs_r","all":"cgs_a"}',
          CONFORMANCE_KEYS_B: '{"read":"cgs_b"}',
          CONFORMANCE_ALLOW_SPEND: '1',
          CONFORMANCE_CONTROL_TOKEN: 't0k',
          CONFORMANCE_CONSOLE_REPORTER: 'dot',
          CONFORMANCE_REPORT_DIR: '/work/conformance-report',
        },
      },
    ],
    ['--pinned-only and a shard; the rest passed on', ['--pinned-only', '--shard', '2/3', '--workers=4', 'tests/etag.spec.ts'], { playwrightArgs: ['--shard=2/3', '--grep-invert=@assumed', '--workers=4', 'tests/etag.spec.ts'] }],
    ['--pinned-only with a --grep-invert of its own', ['--pinned-only', '--grep-invert', '@spend'], { playwrightArgs: ['--grep-invert=(?:@assumed)|(?:@spend)'] }],
    ['--report-dir relative to the working directory, a console reporter', ['--report-dir', 'out/gate', '--reporter', 'list'], { reportDir: '/work/out/gate' }],
    ['after --, everything is Playwright\'s', ['--', '--shard', 'x'], { playwrightArgs: ['--shard', 'x'] }],
  ])('%s', (_, argv, expected) => {
    expect(plan(...argv)).toMatchObject(expected);
  });

  it.each<[string[], RegExp]>([
    [['--base-url', 'ftp://x/'], /http or https/],
    [['--base-url', 'not a url'], /not a URL/],
    [['--base-url', 'http://x/', '--keys', 'missing.json'], /neither a JSON object nor a readable file/],
    [['--base-url', 'http://x/', '--keys', 'bad.json'], /JSON object of profile name/],
    [['--keys', '{"read":"k"}'], /give --base-url too/],
    [['--shard', '4/3'], /--shard is I\/N/],
    [['--shard', '0/3'], /--shard is I\/N/],
    [['--reporter', 'html'], /list, dot or line/],
    [['--base-url'], /needs a value/],
    [['--allow-spend=yes'], /takes no value/],
    [['--control-token='], /empty/],
  ])('refuses %j', (argv, message) => {
    expect(() => plan(...argv)).toThrow(UsageError);
    expect(() => plan(...argv)).toThrow(message);
  });
});

describe('summarize', () => {
  const report = (results: ('passed' | 'failed' | 'not run')[], tests = { total: 3, passed: 3, failed: 0, skipped: 0 }): RulesJson => ({
    target: 'http://t/api/public/v1',
    summary: { pinnedObservable: { total: results.length, passed: 0, failed: 0, notRun: 0 }, tests },
    rules: results.map((result, i) => ({ id: `ERR-00${i}`, section: i % 2 ? 'Errors / Codes by status' : 'Authentication 3', result })),
  });

  it('conforms when Playwright passed, no rule failed and a test passed', () => {
    const verdict = summarize(report(['passed', 'passed', 'not run']), 0, '/r');
    expect(verdict.conforming).toBe(true);
    expect(verdict.lines.join('\n')).toMatch(/Authentication\s+1\s+0\s+1\n\s+Errors\s+1\s+0\s+0/);
    expect(verdict.lines.at(-1)).toBe('  verdict: CONFORMS');
  });

  it.each<[string, RulesJson, number, RegExp]>([
    ['Playwright failed', report(['passed']), 1, /Playwright exited 1/],
    ['a rule failed', report(['passed', 'failed']), 0, /1 rule\(s\) failed.*|failed rules: ERR-001/],
    ['a test failed', report(['passed'], { total: 2, passed: 1, failed: 1, skipped: 0 }), 0, /1 test\(s\) failed/],
    ['nothing ran', report(['not run'], { total: 2, passed: 0, failed: 0, skipped: 2 }), 0, /no test passed/],
  ])('does not conform when %s', (_, json, status, reason) => {
    const verdict = summarize(json, status, '/r');
    expect(verdict.conforming).toBe(false);
    expect(verdict.lines.join('\n')).toMatch(reason);
    expect(verdict.lines.at(-1)).toMatch(/^ {2}verdict: DOES NOT CONFORM/);
  });

  it.each([
    ['Authentication 3', 'Authentication'],
    ['Endpoints / Conventions 1; Authentication 1', 'Endpoints'],
    ['Events / Enabling 2-3', 'Events'],
    ['What the service does 10', 'What the service does'],
    ['Introduction', 'Introduction'],
  ])('chapter of %s is %s', (section, chapter) => {
    expect(chapterOf(section)).toBe(chapter);
  });
});
