/** cgs-conformance's command line, config file, first probe and verdict, without running anything (packages/conformance/bin/lib/conformance.ts). */
import { describe, expect, it } from 'vitest';
import { chapterOf, summarize, type RulesJson, type VerdictContext } from './verdict.ts';
import { EXIT, fileFilterFor, planRun, SetupError, UsageError } from './conformance.ts';
import { preflight, type Probe } from './preflight.ts';

const files: Record<string, string> = {
  '/work/keys.json': '{"read":"cgs_r","all":"cgs_a"}',
  '/work/bad.json': '["x"]',
  '/work/pairs.json': '[{"read":"cgs_r1"},{"read":"cgs_r2"}]',
  '/work/ci/cgs-conformance.config.json': JSON.stringify({
    baseUrl: 'https://staging.example/api/public/v1',
    keys: { env: 'CGS_KEYS' },
    keysB: { file: '../pairs.json' },
    controlToken: { env: 'CGS_TOKEN' },
    hooksUrl: 'https://staging.example/__hooks',
    allowSpend: true,
    pinnedOnly: true,
    realTime: true,
    realTimeBudget: 60,
    require: ['pinned', 'hook:clock', 'key-profile:all'],
    reportDir: 'out',
    workers: 3,
    reporter: 'line',
  }),
  '/work/wrong.config.json': JSON.stringify({ baseUrl: 'ftp://x', keys: 'plain', require: ['everything'], extra: 1 }),
  '/work/unset.config.json': JSON.stringify({ baseUrl: 'http://x/api/public/v1', keys: { env: 'NOT_SET' } }),
};
const readFile = (path: string): string => {
  const text = files[path];
  if (text === undefined) throw new Error('ENOENT');
  return text;
};
const plan = (...argv: string[]) => planRun(argv, '/work', readFile);

describe('planRun', () => {
  it.each<[string, string[], Partial<ReturnType<typeof plan>>]>([
    ['nothing: the packaged mock, reports in ./conformance-report', [], { env: { CONFORMANCE_CONSOLE_REPORTER: 'dot', CONFORMANCE_REPORT_DIR: '/work/conformance-report' }, playwrightArgs: ['--max-failures=10'], target: undefined }],
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
    [
      'hooks, real time, requirements, a list of account pairs',
      ['--base-url', 'http://t/api/public/v1', '--keys', 'pairs.json', '--hooks-url', 'http://t/__hooks/', '--hooks-token', 'h0k', '--real-time', '--real-time-budget', '30', '--require', 'pinned', '--require=hook:clock,key-profile:read'],
      {
        env: expect.objectContaining({
          CONFORMANCE_KEYS: '[{"read":"cgs_r1"},{"read":"cgs_r2"}]',
          CONFORMANCE_HOOKS_URL: 'http://t/__hooks',
          CONFORMANCE_HOOKS_TOKEN: 'h0k',
          CONFORMANCE_REAL_TIME: '1',
          CONFORMANCE_REAL_TIME_BUDGET: '30',
          CONFORMANCE_REQUIRE: 'pinned,hook:clock,key-profile:read',
        }) as Record<string, string>,
        requirements: { pinned: true, hooks: ['clock'], keyProfiles: ['read'] },
        target: { baseUrl: 'http://t/api/public/v1', keys: [{ read: 'cgs_r1' }, { read: 'cgs_r2' }], keysB: undefined, controlToken: undefined, hooksUrl: 'http://t/__hooks', hooksToken: 'h0k' },
      },
    ],
    ['--pinned-only and a shard; Playwright options passed on', ['--pinned-only', '--shard', '2/3', '--workers=4', '-x', '--retries', '1', 'tests/etag.spec.ts'], { playwrightArgs: ['--shard=2/3', '--grep-invert=@assumed', '--workers=4', '-x', '--retries', '1', 'tests/etag.spec.ts'], sharded: true, pinnedOnly: true }],
    ['--pinned-only with a --grep-invert of its own', ['--pinned-only', '--grep-invert', '@spend'], { playwrightArgs: ['--max-failures=10', '--grep-invert=(?:@assumed)|(?:@spend)'] }],
    ['--report-dir relative to the working directory, a console reporter', ['--report-dir', 'out/gate', '--reporter', 'list'], { reportDir: '/work/out/gate' }],
    ['after --, everything is Playwright\'s', ['--', '--shard', 'x', '--anything'], { playwrightArgs: ['--max-failures=10', '--shard', 'x', '--anything'] }],
  ])('%s', (_, argv, expected) => {
    expect(plan(...argv)).toMatchObject(expected);
  });

  it.each<[string[], RegExp]>([
    [['--base-url', 'ftp://x/'], /http or https/],
    [['--base-url', 'not a url'], /not a URL/],
    [['--base-url', 'http://x/', '--keys', 'missing.json'], /neither JSON nor a readable file/],
    [['--base-url', 'http://x/', '--keys', 'bad.json'], /JSON object of profile name/],
    [['--base-url', 'http://x/', '--keys', '[]'], /non-empty list/],
    [['--keys', '{"read":"k"}'], /give --base-url too/],
    [['--shard', '4/3'], /--shard is I\/N/],
    [['--shard', '0/3'], /--shard is I\/N/],
    [['--reporter', 'html'], /list, dot or line/],
    [['--base-url'], /needs a value/],
    [['--allow-spend=yes'], /takes no value/],
    [['--control-token='], /empty/],
    [['--bogus'], /unknown option --bogus .*--help/],
    [['--pinned-onyl'], /unknown option --pinned-onyl/],
    [['-q'], /unknown option -q/],
    [['-c', 'other.config.ts'], /sets Playwright's config and reporters itself/],
    [['--require', 'everything'], /pinned, hook:NAME or key-profile:NAME/],
    [['--real-time-budget', '1.5'], /whole number of seconds/],
    [['--hooks-url', 'hooks'], /http or https URL/],
    [['--config', 'none.json'], /--config .*none\.json: cannot read it/],
    [['--config', 'keys.json', '--config', 'keys.json'], /does not follow|given once/],
  ])('refuses %j', (argv, message) => {
    expect(() => plan(...argv)).toThrow(UsageError);
    expect(() => plan(...argv)).toThrow(message);
  });

  it('reads the config file: each member is its flag, secrets from the environment, paths beside the file, flags win', () => {
    const environment = { CGS_KEYS: '{"read":"cgs_env","all":"cgs_env_all"}', CGS_TOKEN: 'ctl_secret' };
    const configured = planRun(['--config', 'ci/cgs-conformance.config.json', '--reporter', 'list'], '/work', readFile, environment);
    expect(configured.env).toMatchObject({
      CONFORMANCE_BASE_URL: 'https://staging.example/api/public/v1',
      CONFORMANCE_KEYS: '{"read":"cgs_env","all":"cgs_env_all"}',
      CONFORMANCE_KEYS_B: '[{"read":"cgs_r1"},{"read":"cgs_r2"}]',
      CONFORMANCE_CONTROL_TOKEN: 'ctl_secret',
      CONFORMANCE_HOOKS_URL: 'https://staging.example/__hooks',
      CONFORMANCE_ALLOW_SPEND: '1',
      CONFORMANCE_REAL_TIME: '1',
      CONFORMANCE_REAL_TIME_BUDGET: '60',
      CONFORMANCE_REQUIRE: 'pinned,hook:clock,key-profile:all',
      CONFORMANCE_CONSOLE_REPORTER: 'list',
    });
    expect(configured.reportDir).toBe('/work/ci/out');
    expect(configured.playwrightArgs).toEqual(['--max-failures=10', '--grep-invert=@assumed', '--workers=3']);
    expect(configured.requirements).toEqual({ pinned: true, hooks: ['clock'], keyProfiles: ['all'] });
    // The hooks token defaults to the control token.
    expect(configured.target?.hooksToken).toBe('ctl_secret');
  });

  it.each<[string, RegExp]>([
    ['wrong.config.json', /does not follow its schema \(@creative-generation\/contract\/dist\/spec\/schemas\/conformance-config.schema.json\):[\s\S]*additional properties: extra[\s\S]*\/baseUrl[\s\S]*\/require\/0/],
    ['unset.config.json', /environment variable NOT_SET, which is unset or empty/],
  ])('refuses the config file %s with what is wrong', (file, message) => {
    expect(() => planRun(['--config', file], '/work', readFile, {})).toThrow(message);
  });

  it('takes CONFORMANCE_REQUIRE and the target from the caller\'s environment', () => {
    const fromEnv = planRun([], '/work', readFile, { CONFORMANCE_REQUIRE: 'pinned', CONFORMANCE_BASE_URL: 'http://t/api/public/v1/', CONFORMANCE_KEYS: '{"read":"k"}' });
    expect(fromEnv.requirements.pinned).toBe(true);
    expect(fromEnv.target).toMatchObject({ baseUrl: 'http://t/api/public/v1', keys: [{ read: 'k' }] });
  });
});

// ---------------------------------------------------------------------------------------------

/** A probe answering from a table by URL (and key); a URL not in it is unreachable. */
function probeOf(answers: Record<string, number | { status: number; body?: string; auth?: string } | ((headers: Record<string, string>) => number)>): Probe & { calls: string[] } {
  const calls: string[] = [];
  const probe = (async (url: string, headers: Record<string, string>) => {
    calls.push(`${url} ${headers['authorization'] ?? ''}`.trim());
    const answer = answers[url];
    if (answer === undefined) throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    const status = typeof answer === 'number' ? answer : typeof answer === 'function' ? answer(headers) : answer.status;
    const body = typeof answer === 'object' ? answer.body ?? '' : '';
    const auth = typeof answer === 'object' ? answer.auth : undefined;
    return { status, header: (name: string) => (name === 'www-authenticate' ? auth ?? null : null), text: async () => body };
  }) as Probe & { calls: string[] };
  probe.calls = calls;
  return probe;
}

const T = 'http://t:8080';
const API = `${T}/api/public/v1`;
const CLOCK = `${T}/__mock/clock`;
const PRODUCTS = `${API}/products?limit=1`;
const keyed = (accepted: readonly string[]) => (headers: Record<string, string>) => (accepted.some((k) => headers['authorization'] === `Bearer ${k}`) ? 200 : 401);

describe('preflight: exit 2 before anything runs, with what to do', () => {
  it.each<[string, string[], Parameters<typeof probeOf>[0], RegExp]>([
    ['an unreachable target', ['--base-url', API, '--keys', '{"read":"k"}'], {}, /cannot reach http:\/\/t:8080\/api\/public\/v1 \(ECONNREFUSED\): start the implementation, or correct --base-url/],
    ['a base URL without the API path', ['--base-url', T, '--keys', '{"read":"k"}'], { [CLOCK]: 404, [`${T}/products?limit=1`]: 404 }, /answered 404 without a key: is --base-url the API's base, \/api\/public\/v1 included/],
    ['a control plane that wants a token', ['--base-url', API], { [CLOCK]: { status: 401, auth: 'Bearer realm="mock-control"' }, [PRODUCTS]: 401 }, /wants a control token .*pass --control-token TOKEN/],
    ['a control plane that refuses the token', ['--base-url', API, '--control-token', 'wrong'], { [CLOCK]: { status: 401, auth: 'Bearer realm="mock-control"' }, [PRODUCTS]: 401 }, /refused the control token given .*--control-token TOKEN/],
    ['no control plane and no keys', ['--base-url', API], { [CLOCK]: 404, [PRODUCTS]: 401 }, /serves no \/__mock control plane, so the suite needs your accounts' keys: pass --keys/],
    ['no control plane, no keys, and hooks without accounts', ['--base-url', API, '--hooks-url', 'http://h:1/__hooks'], { [CLOCK]: 404, [PRODUCTS]: 401, 'http://h:1/__hooks/capabilities': { status: 200, body: '{"contractVersion":"1.0.0","hooks":["clock"]}' } }, /needs your accounts' keys: pass --keys .*or --hooks-url of a test build whose conformance hooks serve accounts/],
    ['every key refused', ['--base-url', API, '--keys', '{"read":"k1","all":"k2"}', '--keys-b', '{"read":"k3"}'], { [CLOCK]: 404, [PRODUCTS]: keyed([]) }, /refused every key given \(3 tried, each 401 on GET \/products\)/],
    ['a required key profile missing', ['--base-url', API, '--keys', '[{"read":"k1","all":"k2"},{"read":"k3"}]', '--require', 'key-profile:all'], { [CLOCK]: 404, [PRODUCTS]: keyed(['k1']) }, /needs key profile all .*entry 2 of --keys has none/],
    ['a required hook without --hooks-url', ['--base-url', API, '--keys', '{"read":"k1"}', '--require', 'hook:clock'], { [CLOCK]: 404, [PRODUCTS]: keyed(['k1']) }, /needs hook\(s\) clock .*pass --hooks-url/],
    ['an unreachable hooks URL', ['--base-url', API, '--keys', '{"read":"k1"}', '--hooks-url', 'http://h:1/__hooks', '--require', 'hook:clock'], { [CLOCK]: 404, [PRODUCTS]: keyed(['k1']) }, /cannot reach http:\/\/h:1\/__hooks .*correct --hooks-url/],
    ['a required hook not served', ['--base-url', API, '--keys', '{"read":"k1"}', '--hooks-url', 'http://h:1/__hooks', '--require', 'hook:clock', '--require', 'hook:accounts'], { [CLOCK]: 404, [PRODUCTS]: keyed(['k1']), 'http://h:1/__hooks/capabilities': { status: 200, body: '{"contractVersion":"1.0.0","hooks":["accounts","faults"]}' } }, /needs hook\(s\) clock .*serves only accounts, faults/],
    ['the hooks refusing their token', ['--base-url', API, '--keys', '{"read":"k1"}', '--hooks-url', 'http://h:1/__hooks', '--require', 'hook:clock'], { [CLOCK]: 404, [PRODUCTS]: keyed(['k1']), 'http://h:1/__hooks/capabilities': 401 }, /refused the hooks token \(401\): pass --hooks-token/],
    ['a mock\'s own hooks lacking one', ['--base-url', API, '--require', 'hook:clock'], { [CLOCK]: { status: 200, body: '{"now":"2026-01-01T00:00:00Z","mode":"manual"}' }, [PRODUCTS]: 401, [`${T}/__hooks/capabilities`]: { status: 200, body: '{"contractVersion":"1.0.0","hooks":[]}' } }, /needs hook\(s\) clock .*serves only none/],
  ])('%s', async (_, argv, answers, message) => {
    const run = preflight(plan(...argv), probeOf(answers));
    await expect(run).rejects.toThrow(SetupError);
    await expect(preflight(plan(...argv), probeOf(answers))).rejects.toThrow(message);
  });

  it('passes a target with a control plane (no key probed) and one whose keys are accepted (stopping at the first)', async () => {
    const control = probeOf({ [CLOCK]: { status: 200, body: '{"now":"2026-01-01T00:00:00Z","mode":"manual"}' }, [PRODUCTS]: 401 });
    await expect(preflight(plan('--base-url', API), control)).resolves.toEqual([]);
    expect(control.calls).toEqual([CLOCK, PRODUCTS]);
    const keys = probeOf({ [CLOCK]: 404, [PRODUCTS]: keyed(['k2']) });
    await expect(preflight(plan('--base-url', API, '--keys', '{"read":"k1","all":"k2","runs:write":"k3"}'), keys)).resolves.toEqual([]);
    expect(keys.calls).toEqual([CLOCK, PRODUCTS, `${PRODUCTS} Bearer k1`, `${PRODUCTS} Bearer k2`]);
  });

  it('passes when the hooks serve what is required', async () => {
    const served = probeOf({ [CLOCK]: 404, [PRODUCTS]: keyed(['k1']), 'http://h:1/__hooks/capabilities': { status: 200, body: '{"contractVersion":"1.0.0","hooks":["clock","accounts"]}' } });
    await expect(preflight(plan('--base-url', API, '--keys', '{"read":"k1"}', '--hooks-url', 'http://h:1/__hooks', '--require', 'hook:clock'), served)).resolves.toEqual([]);
  });

  it('passes a target without /__mock and without keys whose hooks serve accounts (asking the capabilities once)', async () => {
    const caps = 'http://h:1/__hooks/capabilities';
    const hooks = probeOf({ [CLOCK]: 404, [PRODUCTS]: 401, [caps]: { status: 200, body: '{"contractVersion":"1.0.0","hooks":["accounts","clock"]}' } });
    await expect(preflight(plan('--base-url', API, '--hooks-url', 'http://h:1/__hooks', '--require', 'hook:clock'), hooks)).resolves.toEqual(['no --keys: the suite makes its own accounts through the accounts hook at http://h:1/__hooks']);
    expect(hooks.calls).toEqual([CLOCK, PRODUCTS, caps]);
  });

  it('probes nothing without a target (the packaged mock)', async () => {
    const none = probeOf({});
    await expect(preflight(plan(), none)).resolves.toEqual([]);
    expect(none.calls).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('summarize', () => {
  type Result = 'passed' | 'failed' | 'not run';
  const report = (results: Result[], tests = { total: 3, passed: 3, failed: 0, skipped: 0 }, extra: Partial<RulesJson> = {}): RulesJson => ({
    target: 'http://t/api/public/v1',
    summary: { pinnedObservable: { total: results.length, passed: 0, failed: 0, notRun: 0 }, tests },
    rules: results.map((result, i) => ({ id: `ERR-00${i}`, section: i % 2 ? 'Errors / Codes by status' : 'Authentication 3', result, status: 'pinned', observable: true, ...(result === 'not run' ? { judgeWith: [i % 2 ? 'hook clock (--hooks-url)' : '--allow-spend'] } : {}) })),
    ...extra,
  });
  const context = (pinned: boolean, more: Partial<VerdictContext['requirements']> = {}, sharded = false): VerdictContext => ({ requirements: { pinned, hooks: [], keyProfiles: [], ...more }, sharded });

  it('conforms when Playwright passed, no rule failed, a test passed and every pinned rule was judged', () => {
    const verdict = summarize(report(['passed', 'passed']), 0, '/r');
    expect(verdict.exit).toBe(EXIT.conforms);
    expect(verdict.lines.join('\n')).toMatch(/Authentication\s+1\s+0\s+0\n\s+Errors\s+1\s+0\s+0/);
    expect(verdict.lines.at(-1)).toBe('  verdict: CONFORMS (every pinned rule judged)');
  });

  it('says plainly when pinned rules went unjudged, and what would judge them (--pinned-only without --allow-spend)', () => {
    const verdict = summarize(report(['passed', 'not run', 'not run', 'not run']), 0, '/r');
    expect(verdict.exit).toBe(EXIT.conforms);
    expect(verdict.lines.at(-1)).toBe(
      '  verdict: CONFORMS on what was judged, but 3 of 4 pinned rules were NOT judged (2 × hook clock (--hooks-url); 1 × --allow-spend); rules.md lists each. Add --require pinned to fail the gate when pinned rules go unjudged.',
    );
  });

  it('--require pinned: every unjudged pinned rule fails the gate, listed with what would judge it', () => {
    const verdict = summarize(report(['passed', 'not run', 'not run']), 0, '/r', context(true));
    expect(verdict.exit).toBe(EXIT.doesNotConform);
    const text = verdict.lines.join('\n');
    expect(text).toContain('    ERR-001 (Errors / Codes by status): hook clock (--hooks-url)');
    expect(text).toContain('    ERR-002 (Authentication 3): --allow-spend');
    expect(verdict.lines.at(-1)).toBe('  verdict: DOES NOT CONFORM (2 pinned rule(s) not judged, and --require pinned asks for every one)');
  });

  it('--require pinned leaves a client\'s and a receiver\'s rules to the exams', () => {
    const json = report(['passed']);
    json.rules.push({ id: 'CLIENT-001', section: 'Limits', result: 'not run', status: 'pinned', observable: true, party: 'client' }, { id: 'RECV-001', section: 'Events', result: 'not run', status: 'pinned', observable: true, party: 'receiver' });
    const verdict = summarize(json, 0, '/r', context(true));
    expect(verdict.exit).toBe(EXIT.conforms);
    expect(verdict.lines.at(-1)).toBe('  verdict: CONFORMS (every pinned rule judged)');
  });

  it('--require pinned in a shard is judged on the merged report, not in the shard', () => {
    const verdict = summarize(report(['passed', 'not run']), 0, '/r', context(true, {}, true));
    expect(verdict.exit).toBe(EXIT.conforms);
    expect(verdict.lines.at(-1)).toMatch(/CONFORMS in this shard; 1 pinned rule\(s\) not judged here, .*cgs-conformance-merge --require pinned/);
  });

  it.each<[string, RulesJson, number, RegExp]>([
    ['Playwright failed', report(['passed']), 1, /Playwright exited 1/],
    ['a rule failed', report(['passed', 'failed']), 0, /1 rule\(s\) failed/],
    ['a test failed', report(['passed'], { total: 2, passed: 1, failed: 1, skipped: 0 }), 0, /1 test\(s\) failed/],
  ])('does not conform (exit 1) when %s', (_, json, status, reason) => {
    const verdict = summarize(json, status, '/r');
    expect(verdict.exit).toBe(EXIT.doesNotConform);
    expect(verdict.lines.join('\n')).toMatch(reason);
    expect(verdict.lines.at(-1)).toMatch(/^ {2}verdict: DOES NOT CONFORM/);
  });

  it.each<[string, RulesJson | undefined, VerdictContext, RegExp]>([
    ['Playwright wrote no report', undefined, context(false), /COULD NOT JUDGE \(Playwright exited 1 before writing \/r\/rules.json/],
    ['no test was selected', report(['not run'], { total: 0, passed: 0, failed: 0, skipped: 0 }), context(false), /COULD NOT JUDGE \(no test was selected/],
    ['an error before any test (globalSetup refused the target)', { ...report(['not run'], { total: 0, passed: 0, failed: 0, skipped: 0 }), errors: ['Error: the target implements the hooks contract 1.0.0, and this suite the hooks contract 0.3.0'] }, context(false), /COULD NOT JUDGE \(the run stopped before any test: Error: the target implements the hooks contract 1\.0\.0/],
    ['every test was skipped', report(['not run'], { total: 2, passed: 0, failed: 0, skipped: 2 }), context(false), /COULD NOT JUDGE \(every test was skipped \(2\)/],
    [
      'a required hook is not served',
      report(['passed'], { total: 2, passed: 1, failed: 0, skipped: 1 }, { tests: [{ title: 't', outcome: 'skipped', reason: 'needs hook clock: the target serves no clock', tags: ['@hook:clock'] }] }),
      context(false, { hooks: ['clock'] }),
      /COULD NOT JUDGE \(hook clock \(--require hook:clock\): 1 test\(s\) skipped, e.g. "needs hook clock: the target serves no clock"/,
    ],
    [
      'a required key profile is missing',
      report(['passed'], { total: 2, passed: 1, failed: 0, skipped: 1 }, { tests: [{ title: 't', outcome: 'skipped', reason: 'CONFORMANCE_KEYS has no "all" key profile', tags: [] }] }),
      context(false, { keyProfiles: ['all'] }),
      /COULD NOT JUDGE \(key profile all \(--require key-profile:all\): 1 test\(s\) skipped.*add a "all" key to --keys/,
    ],
  ])('could not judge (exit 2) when %s', (_, json, ctx, message) => {
    const verdict = summarize(json, 1, '/r', ctx);
    expect(verdict.exit).toBe(EXIT.couldNotJudge);
    expect(verdict.lines.at(-1)).toMatch(message);
  });

  it('prints the failures grouped by their first violated rule, with the rule text', () => {
    const causes = [{ rule: 'ETAG-002', section: 'Conventions 4', text: 'ETags are strong.', tests: 31, responses: 57, first: 'GET /api/public/v1/creatives/c1 → 200 (creatives.spec.ts:10 t)', blocked: ['CRTV-001'] }];
    const verdict = summarize(report(['failed'], { total: 31, passed: 0, failed: 31, skipped: 0 }, { causes }), 1, '/r');
    expect(verdict.lines.join('\n')).toContain(
      '    ETAG-002 (Conventions 4): violated in 57 response(s) of 31 test(s), first at GET /api/public/v1/creatives/c1 → 200 (creatives.spec.ts:10 t)\n      rule: ETags are strong.\n      blocked, not judged: CRTV-001',
    );
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

describe('fail fast', () => {
  it.each<[string[], string[]]>([
    [[], ['--max-failures=10']],
    [['--max-failures', '0'], ['--max-failures=0']],
    [['--max-failures=3'], ['--max-failures=3']],
    [['-x'], ['-x']],
  ])('%j gives Playwright %j', (argv, expected) => {
    expect(plan(...argv).playwrightArgs).toEqual(expected);
  });

  it('refuses a --max-failures that is not a count', () => {
    expect(() => plan('--max-failures', 'many')).toThrow(/--max-failures is a whole number/);
  });

  it('says when the run stopped at its failures', () => {
    const report: RulesJson = {
      target: 't',
      summary: { pinnedObservable: { total: 1, passed: 0, failed: 1, notRun: 0 }, tests: { total: 3, passed: 1, failed: 1, skipped: 1 } },
      rules: [{ id: 'ETAG-002', section: 'Conventions 4', result: 'failed', status: 'pinned', observable: true }],
      tests: [{ title: 'later', outcome: 'skipped', reason: 'not run: the run stopped after 1 failed test(s) (--max-failures 1; --max-failures 0 judges every test)', tags: [] }],
    };
    const verdict = summarize(report, 1, '/r');
    expect(verdict.exit).toBe(EXIT.doesNotConform);
    expect(verdict.lines.at(-1)).toContain('1 test(s) failed, and the run stopped there: 1 test(s) not run (--max-failures 0 judges every test)');
  });
});

describe('test file filters as the docs name them (#32 item 7)', () => {
  it('name the compiled *.spec.js of the installed package, with or without a line', () => {
    expect(fileFilterFor('runs.spec.ts', '.js')).toBe('runs.spec.js');
    expect(fileFilterFor('packages/conformance/suite/tests/runs.spec.ts:40', '.js')).toBe('packages/conformance/suite/tests/runs.spec.js:40');
    expect(fileFilterFor('runs.spec.ts:40:3', '.js')).toBe('runs.spec.js:40:3');
    expect(fileFilterFor('runs', '.js')).toBe('runs');
    // In the checkout the suite is TypeScript: the filter is kept as given.
    expect(fileFilterFor('runs.spec.ts', '.ts')).toBe('runs.spec.ts');
    expect(planRun(['runs.spec.ts', '--grep', 'RUN-004'], '/work', () => '', {}, '.js').playwrightArgs).toEqual(expect.arrayContaining(['runs.spec.js', '--grep', 'RUN-004']));
  });

  it('--list plans a listing: no target needed, the reporter told', () => {
    const listed = planRun(['--list'], '/work', () => '', {});
    expect(listed.list).toBe(true);
    expect(listed.env['CONFORMANCE_LIST']).toBe('1');
    expect(planRun([], '/work', () => '', {}).list).toBe(false);
  });
});

describe('--area: gating a partial implementation (#32 item 7, D277)', () => {
  it('plans a run of the chosen areas: the suite told (CONFORMANCE_AREA), nothing left out by grep (the fixtures skip the rest, so the report names their rules)', () => {
    const run = planRun(['--area', 'read,webhooks', '--pinned-only'], '/work', () => '', {});
    expect(run.area).toEqual({ list: 'read,webhooks', resources: ['products', 'creatives', 'campaigns', 'assets', 'deliveries', 'webhooks'] });
    expect(run.env['CONFORMANCE_AREA']).toBe('read,webhooks');
    expect(run.playwrightArgs).toEqual(['--max-failures=10', '--grep-invert=@assumed']);
    expect(planRun([], '/work', () => '', { CONFORMANCE_AREA: 'generation' }).area?.resources).toEqual(['presets', 'runs', 'estimate', 'upscales']);
    expect(planRun([], '/work', () => '', {}).area).toBeUndefined();
  });

  it('with --list, leaves the tests of other areas out of the listing (no target needed)', () => {
    const listed = planRun(['--list', '--area=read', '--pinned-only'], '/work', () => '', {});
    expect(listed.target).toBeUndefined();
    expect(listed.playwrightArgs).toContain('--grep-invert=(?:@assumed)|(?:@area:(?:presets|runs|estimate|upscales|webhooks)(?![\\w-]))');
  });

  it('refuses an unknown area (exit 2), naming the known ones', () => {
    expect(() => plan('--area', 'read,billing')).toThrow(UsageError);
    expect(() => plan('--area', 'read,billing')).toThrow(/unknown area billing; the areas are the planes read, generation/);
    expect(() => plan('--area')).toThrow('--area needs a value');
  });

  it('reads `area` from the config file, checked by its schema', () => {
    files['/work/area.config.json'] = JSON.stringify({ area: ['read', 'webhooks'] });
    files['/work/bad-area.config.json'] = JSON.stringify({ area: ['billing'] });
    expect(plan('--config', 'area.config.json').env['CONFORMANCE_AREA']).toBe('read,webhooks');
    expect(plan('--config', 'area.config.json', '--area', 'products').area?.resources).toEqual(['products']);
    expect(() => plan('--config', 'bad-area.config.json')).toThrow(/\/area\/0 must be equal to one of the allowed values/);
  });

  const report = (outside: number, inArea: number): RulesJson => ({
    target: 'http://t/api/public/v1',
    summary: { pinnedObservable: { total: 1 + outside + inArea, passed: 1, failed: 0, notRun: outside + inArea }, tests: { total: 3, passed: 2, failed: 0, skipped: 1 } },
    rules: [
      { id: 'PROD-001', section: 'Catalog', result: 'passed', status: 'pinned', observable: true },
      ...Array.from({ length: outside }, (_, i) => ({ id: `RUN-00${i}`, section: 'Runs', result: 'not run' as const, status: 'pinned', observable: true, judgeWith: ['outside --area read'], outsideArea: ['runs'] })),
      ...Array.from({ length: inArea }, (_, i) => ({ id: `CAMP-00${i}`, section: 'Campaigns', result: 'not run' as const, status: 'pinned', observable: true, judgeWith: ['--allow-spend'] })),
    ],
  });
  const requirePinned: VerdictContext = { requirements: { pinned: true, hooks: [], keyProfiles: [] }, sharded: false };

  it('--require pinned asks for every pinned rule of the chosen areas, not those outside them: counted and named apart', () => {
    const verdict = summarize(report(2, 0), 0, '/r', requirePinned);
    expect(verdict.exit).toBe(EXIT.conforms);
    expect(verdict.lines).toContain('  outside --area read: 2 pinned rule(s) not judged, named only by tests of other areas (not required by --require pinned; rules.md "Pinned rules outside --area" lists each)');
    expect(verdict.lines.at(-1)).toBe('  verdict: CONFORMS on --area read (every pinned rule its tests name was judged; 2 of 3 pinned rules lie outside it)');
  });

  it('--require pinned still fails on a rule the chosen areas\' tests left unjudged', () => {
    const verdict = summarize(report(2, 1), 0, '/r', requirePinned);
    expect(verdict.exit).toBe(EXIT.doesNotConform);
    expect(verdict.lines).toContain('    CAMP-000 (Campaigns): --allow-spend');
    expect(verdict.lines.join('\n')).not.toContain('RUN-000 (Runs)');
    expect(verdict.lines.at(-1)).toBe('  verdict: DOES NOT CONFORM (1 pinned rule(s) not judged, and --require pinned asks for every one)');
  });
});
