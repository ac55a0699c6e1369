/** Failures grouped by their first violated rule, blocked tests, and what would judge an unjudged rule (causes.ts, rules-reporter.ts). */
import { describe, expect, it } from 'vitest';
import { causesOf, firstRuleOf, judgeWith, rulesInMessage, UNATTRIBUTED, type CauseInput } from './causes.ts';
import { loadLedger, rulesById } from './ledger.ts';
import { failureOf, isCheckerStop, judgeRules, listRules, outsideAreaLines, writeRulesReport, type TestRecord } from '../../conformance/suite/reporters/rules-reporter.ts';
import { outsideReason } from './areas.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ledger = loadLedger();
const rules = rulesById(ledger);

/** The message of client.ts's ContractViolation (checks/index.ts formatViolations). */
const refused = (url: string, ...violations: [string, string[]][]) =>
  [`GET ${url} → 200 breaks the contract:`, ...violations.map(([check, ids]) => `  - ${check}${ids.length ? ` [${ids.join(', ')}]` : ''}: wrong`), '  response headers:', '    etag: W/"x" (ETAG-009 in a header value must not count)', '  body: {}'].join('\n');

function record(over: Partial<TestRecord> & Pick<TestRecord, 'title'>): TestRecord {
  return { checkerStop: false, file: 'x.spec.ts', tags: [], outcome: 'passed', named: [], checked: [], violated: [], warnings: [], ...over };
}

describe('failureOf: the first violation of a failed test', () => {
  it('takes the rules of the first refused response, before its headers, and counts the refused responses', () => {
    const failure = failureOf({ errors: [{ message: `Error: ${refused('/api/public/v1/creatives/c1', ['etag', ['ETAG-002', 'ETAG-003']], ['schema', []])}` }, { message: refused('/api/public/v1/campaigns', ['status', ['CAMP-022']]) }] });
    expect(failure).toEqual({ rules: ['ETAG-002', 'ETAG-003'], at: 'GET /api/public/v1/creatives/c1 → 200', responses: 2 });
  });

  it('takes the rules and the location of an assertion of the test itself', () => {
    const failure = failureOf({ errors: [{ message: '\u001b[31mRUN-029 finalizedAt moved\u001b[39m\nexpected 1 to be 2', location: { file: `${process.cwd()}/packages/conformance/suite/tests/runs.spec.ts`, line: 42, column: 3 } }] });
    expect(failure).toEqual({ rules: ['RUN-029'], at: 'packages/conformance/suite/tests/runs.spec.ts:42: RUN-029 finalizedAt moved', responses: 0 });
  });

  it('blames AUTH-035, not the title\'s first rule, when the auth test fails on the detail comparison (the rule named in the expect message)', () => {
    const source = readFileSync('packages/conformance/suite/tests/auth.spec.ts', 'utf8');
    const message = /expect\(denied\.problem\.detail, '([^']*)'\)/.exec(source)?.[1];
    expect(message, 'the detail expectation of the AUTH-034 AUTH-035 test').toBeDefined();
    const failure = failureOf({ errors: [{ message: `Error: ${message}\n\nexpect(received).toEqual(expected) // deep equality` }] }, { named: ['AUTH-034', 'AUTH-035'], rules });
    expect(firstRuleOf({ named: ['AUTH-034', 'AUTH-035'], violated: [], failure } as unknown as CauseInput)).toBe('AUTH-035');
  });

  it('is undefined without errors', () => {
    expect(failureOf({ errors: [] })).toBeUndefined();
  });

  it('an assertion whose message names no rule: the test\'s own rules that state what it expected (D161)', () => {
    const location = { file: `${process.cwd()}/packages/conformance/suite/tests/etag.spec.ts`, line: 182, column: 3 };
    const stale = 'Error: PATCH with the tag from before the count changed\n\nexpected a 412 problem with code PRECONDITION_FAILED, got:\nPATCH http://x/api/public/v1/campaigns/c → 200';
    // ETAG-001 (the ETag changes) states neither the code nor 412: the assertion checks ERR-034 and ETAG-005.
    expect(failureOf({ errors: [{ message: stale, location }] }, { named: ['ETAG-001', 'ERR-034', 'ETAG-005'], rules })?.rules).toEqual(['ERR-034', 'ETAG-005']);
    expect(failureOf({ errors: [{ message: stale, location }] })?.rules).toEqual([]);
    const accepted = 'Error: expected status 202, got:\nPOST http://x/api/public/v1/runs → 200';
    expect(failureOf({ errors: [{ message: accepted, location }] }, { named: ['IDEM-001', 'RUN-035'], rules })?.rules).toEqual(['RUN-035']);
    expect(failureOf({ errors: [{ message: 'Error: expected 1 to be 2', location }] }, { named: ['RUN-011'], rules })?.rules).toEqual([]);
  });
});

describe('causesOf: failed tests under their first violated rule, the most widespread first', () => {
  const weak = (title: string, named: string[]): CauseInput =>
    record({ title, named, outcome: 'failed', checkerStop: true, violated: ['ETAG-002', 'ETAG-003'], failure: { rules: ['ETAG-002', 'ETAG-003'], at: `GET /api/public/v1/${title} → 200`, responses: 1 } });
  const records: CauseInput[] = [
    record({ title: 'create', named: ['CAMP-022'], outcome: 'failed', failure: { rules: ['CAMP-022'], at: 'campaigns.spec.ts:9: expected 201', responses: 0 } }),
    weak('creatives', ['CRTV-001', 'ETAG-002']),
    weak('assets', ['ASST-001']),
    record({ title: 'passes', named: ['PROD-001'], outcome: 'passed' }),
    record({ title: 'nameless', outcome: 'failed' }),
  ];

  it('groups, counts and orders them, with the rule text and section and the rules blocked', () => {
    const causes = causesOf(records, rules);
    expect(causes.map((c) => [c.rule, c.tests, c.responses])).toEqual([
      ['ETAG-002', 2, 2],
      ['CAMP-022', 1, 0],
      [UNATTRIBUTED, 1, 0],
    ]);
    expect(causes[0]).toMatchObject({ section: rules.get('ETAG-002')!.section, text: rules.get('ETAG-002')!.rule, first: 'GET /api/public/v1/creatives → 200 (x.spec.ts creatives)', blocked: ['CRTV-001', 'ASST-001'] });
  });

  it.each<[string, Partial<CauseInput>, string]>([
    ['the first rule of the refused response the test names or the checker saw', { failure: { rules: ['ETAG-003', 'ETAG-002'], at: '', responses: 1 }, violated: ['ETAG-002', 'ETAG-003'] }, 'ETAG-003'],
    ['a violated rule when the message names none', { violated: ['GEN-001'], named: ['PROD-001'] }, 'GEN-001'],
    ['the first rule the test names, for its own assertion', { named: ['RUN-029', 'RUN-030'] }, 'RUN-029'],
    ['unattributed otherwise', {}, UNATTRIBUTED],
  ])('first rule: %s', (_, over, expected) => {
    expect(firstRuleOf(record({ title: 't', outcome: 'failed', ...over }))).toBe(expected);
  });

  it('reads rule ids from a message in order, once each', () => {
    expect(rulesInMessage('[ETAG-002, ETAG-003] then ETAG-002 and RUN-001')).toEqual(['ETAG-002', 'ETAG-003', 'RUN-001']);
  });
});

describe('judgeRules: blocked tests never blame the rules they did not judge', () => {
  it('a test stopped by a header violation that also broke the document blocks the rules it names (the classification a header violation used to disable)', () => {
    // What the rules reporter records for a test the checker stopped at a weak ETag (ETAG-002, and the header's pattern of the document).
    const stopped = record({ title: 'CRTV-001 GET /creatives/{id}', named: ['CRTV-001'], outcome: 'failed', checkerStop: true, violated: ['ETAG-002'], checked: ['ETAG-002'] });
    const report = judgeRules([stopped], ledger);
    const byId = new Map(report.rules.map((r) => [r.id, r]));
    expect(byId.get('CRTV-001')).toMatchObject({ result: 'not run', judgeWith: ['fixing ETAG-002 (blocked by it)'] });
    expect(byId.get('CRTV-001')!.tests[0]).toMatchObject({ outcome: 'blocked', reason: 'stopped by a violation of ETAG-002' });
    expect(byId.get('ETAG-002')!.result).toBe('failed');
    expect(report.causes.map((c) => c.rule)).toEqual(['ETAG-002']);
  });

  it('records what would judge each rule no test judged', () => {
    const report = judgeRules(
      [
        record({ title: 'RUN-002 a run starts', named: ['RUN-002'], outcome: 'skipped', reason: 'needs hook clock: the target serves no test clock', tags: ['@hook:clock'] }),
        record({ title: 'RUN-010 spends', named: ['RUN-010'], outcome: 'skipped', reason: '@spend: spends credits; set CONFORMANCE_ALLOW_SPEND=1 to run it', tags: ['@spend'] }),
      ],
      ledger,
    );
    const byId = new Map(report.rules.map((r) => [r.id, r]));
    expect(byId.get('RUN-002')!.judgeWith).toEqual(['hook clock (--hooks-url)']);
    expect(byId.get('RUN-010')!.judgeWith).toEqual(['--allow-spend']);
    expect(byId.get('ETAG-002')!.judgeWith?.[0]).toMatch(/^a test that names it: none ran in this run/);
  });
});

describe('judgeWith: what would judge a test\'s rules', () => {
  it.each<[string, Partial<CauseInput>, string | undefined]>([
    ['a skip for a hook', { reason: 'needs hook accounts: one account per worker' }, 'hook accounts (--hooks-url)'],
    ['a skip for a hook, with the other hooks the test is tagged with', { reason: 'needs hook accounts: one account per worker', tags: ['@hook:clock', '@hook:accounts', '@spend'] }, 'hook accounts, hook clock (--hooks-url)'],
    ['a skip for an action of a hook, not the hook', { reason: 'needs capability actors.actions revokeKey: the action revokeKey, of hook actors', tags: ['@hook:accounts', '@hook:actors'] }, 'capability actors.actions revokeKey (--hooks-url)'],
    ['a skip for a capability flag, not its hook', { reason: 'needs capability accounts.rateCard: a rate card of the account (credits.rateCard), of hook accounts (PATCH /accounts/{accountId} answered 501 HOOK_NOT_SUPPORTED: no)', tags: ['@hook:accounts'] }, 'capability accounts.rateCard (--hooks-url)'],
    ['absent data, not the hooks the test is tagged with', { reason: 'skipped because no live asset in the account; the hooks contract makes none', tags: ['@hook:accounts', '@hook:events'] }, 'data: no live asset in the account; the hooks contract makes none'],
    ['a skip for a key profile', { reason: 'needs key profile creatives:review' }, 'key profile creatives:review (--keys)'],
    ['the fixtures\' missing profile', { reason: 'CONFORMANCE_KEYS has no "all" key profile' }, 'key profile all (--keys)'],
    ['a skip for real time', { reason: 'needs --real-time: the target has no clock hook' }, '--real-time'],
    ['a skip for spend', { reason: 'needs --allow-spend' }, '--allow-spend'],
    ['a second account', { reason: 'needs a second account: set CONFORMANCE_KEYS_B' }, '--keys-b (a second account)'],
    ['the tags when the reason says nothing', { reason: 'skipped', tags: ['@hook:clock', '@hook:faults'] }, 'hook clock, hook faults (--hooks-url)'],
    ['@spend by tag', { tags: ['@spend'] }, '--allow-spend'],
    ['@control by tag', { tags: ['@control'] }, 'the accounts hook or a /__mock control plane (--hooks-url)'],
    ['the fixtures\' control-plane skip', { reason: '@control: needs the /__mock control plane, which http://t does not serve', tags: ['@control'] }, 'the accounts hook or a /__mock control plane (--hooks-url)'],
    ['an exclusive test without leases', { reason: '@exclusive: needs the shared mock to itself, and http://t serves no /__mock/leases to ask for it', tags: ['@exclusive', '@control'] }, 'a target of its own (the leases of /__mock, or one worker per target)'],
    ['a passed test', { outcome: 'passed' }, undefined],
  ])('%s', (_, over, expected) => {
    expect(judgeWith({ outcome: 'skipped', tags: [], violated: [], ...over })).toBe(expected);
  });
});

describe('isCheckerStop: which failed tests are blocked for the rules they name', () => {
  const stopped = { message: `ContractViolation: ${refused('/api/public/v1/creatives/c1', ['etag', ['ETAG-002']])}` };
  it.each<[string, { type: string; description?: string }[], { message: string }[], boolean]>([
    ['a rule violated, and the document too (a weak ETag breaks the header pattern)', [{ type: 'rules-violated', description: 'ETAG-002' }, { type: 'document-violated' }], [stopped], true],
    ['a rule violated', [{ type: 'rules-violated', description: 'ETAG-002' }], [stopped], true],
    ['only the document violated: what the test may be about', [{ type: 'document-violated' }], [stopped], false],
    ['an assertion of the test failed as well', [{ type: 'rules-violated', description: 'ETAG-002' }], [stopped, { message: 'expected 201' }], false],
    ['no error', [], [], false],
  ])('%s: %s', (_, annotations, errors, expected) => {
    expect(isCheckerStop({ annotations, results: [{ errors }] })).toBe(expected);
  });
});

describe('the summary counts the service\'s rules', () => {
  it('a client\'s or a receiver\'s pinned rule is marked with its party and left out of "pinned, observable"', () => {
    const report = judgeRules([], ledger);
    const party = ledger.rules.filter((r) => r.party === 'client' || r.party === 'receiver');
    const server = ledger.rules.filter((r) => r.status === 'pinned' && r.observable && (r.party === undefined || r.party === 'server'));
    expect(party.length).toBeGreaterThan(0);
    expect(report.summary.pinnedObservable.total).toBe(server.length);
    expect(report.rules.filter((r) => r.party !== undefined).map((r) => r.id)).toEqual(party.map((r) => r.id));
  });
});

describe('an unserved endpoint is its own cause (#32 item 12)', () => {
  it('tests stopped at a 404 without a problem body are filed under "serve /campaigns", their own rules blocked', () => {
    const message = 'ContractViolation: POST http://x/api/public/v1/campaigns → 404 breaks the contract:\n  - unserved (cause: serve /campaigns): the target does not serve POST /campaigns (createCampaign): a 404 without a problem body\n  - content-type [ERR-001]: wrong\n  response headers:\n  body: {}';
    const failure = failureOf({ errors: [{ message }] });
    expect(failure?.cause).toBe('serve /campaigns');
    const tests = [
      record({ title: 'IDEM-006 a replay', outcome: 'failed', checkerStop: true, named: ['IDEM-006', 'CAMP-022'], violated: ['ERR-001'], failure: failure! }),
      record({ title: 'GEN-004 another account', outcome: 'failed', checkerStop: true, named: ['GEN-004'], violated: ['ERR-001'], failure: failure! }),
    ];
    expect(tests.map(firstRuleOf)).toEqual(['serve /campaigns', 'serve /campaigns']);
    const causes = causesOf(tests, rules);
    expect(causes).toHaveLength(1);
    expect(causes[0]).toMatchObject({ rule: 'serve /campaigns', tests: 2, blocked: ['IDEM-006', 'CAMP-022', 'GEN-004'] });
    expect(causes[0]!.text).toMatch(/does not serve this path/);
  });

  it('the rules of a test that failed on an unserved operation are not judged, in rules.json as in the summary, whichever assertion noticed it (D288)', () => {
    const failure = { rules: ['GEN-004'], at: 'POST /api/public/v1/upscales → 404', responses: 1, cause: 'serve /upscales' };
    const tests = [
      // The test's own status assertion failed after the unserved answer: not a checker stop.
      record({ title: 'GEN-004 ERR-019 ERR-020 another account', outcome: 'failed', checkerStop: false, named: ['GEN-004', 'ERR-019', 'ERR-020'], violated: [], failure }),
      // A rule violated by a served response of the same test stays failed.
      record({ title: 'ERR-008 CAMP-001 a served violation too', outcome: 'failed', checkerStop: true, named: ['ERR-008', 'CAMP-001'], violated: ['ERR-008'], failure }),
    ];
    const byId = new Map(judgeRules(tests, ledger).rules.map((r) => [r.id, r]));
    for (const id of ['GEN-004', 'ERR-019', 'ERR-020', 'CAMP-001']) {
      expect(byId.get(id)?.result, id).toBe('not run');
      expect(byId.get(id)?.tests[0]).toMatchObject({ outcome: 'blocked' });
      expect(byId.get(id)?.tests[0]?.reason, id).toMatch(/^stopped by serve \/upscales/);
    }
    expect(byId.get('ERR-008')?.result).toBe('failed');
    expect(causesOf(tests, rules)[0]).toMatchObject({ rule: 'serve /upscales' });
  });
});

describe('the rules --area leaves out (#32 item 7, D277)', () => {
  const reason = outsideReason('read', ['runs']);
  const tests = [
    record({ title: 'RUN-002 a run starts', named: ['RUN-002'], outcome: 'skipped', reason, tags: ['@area:products', '@area:runs'] }),
    record({ title: 'RUN-010 spends', named: ['RUN-010'], outcome: 'skipped', reason: outsideReason('read', ['presets', 'runs']), tags: ['@area:presets', '@area:runs', '@spend'] }),
    // Named by a test of the area that went unjudged for a lack of the target: not "outside".
    record({ title: 'RUN-011 in the area, but spends', named: ['RUN-011'], outcome: 'skipped', reason: '@spend: spends credits; set CONFORMANCE_ALLOW_SPEND=1 to run it', tags: ['@area:products', '@spend'] }),
    record({ title: 'RUN-011 outside', named: ['RUN-011'], outcome: 'skipped', reason, tags: ['@area:runs'] }),
    record({ title: 'PROD-001 lists', named: ['PROD-001'], outcome: 'passed', tags: ['@area:products'] }),
  ];
  const report = judgeRules(tests, ledger);
  const byId = new Map(report.rules.map((r) => [r.id, r]));

  it('are "outside --area", with the areas their tests touch beyond it, never blamed on a hook or a flag', () => {
    expect(judgeWith({ outcome: 'skipped', reason, tags: ['@hook:clock', '@spend'], violated: [] })).toBe('outside --area read');
    expect(byId.get('RUN-002')).toMatchObject({ result: 'not run', judgeWith: ['outside --area read'], outsideArea: ['runs'] });
    expect(byId.get('RUN-010')).toMatchObject({ judgeWith: ['outside --area read'], outsideArea: ['presets', 'runs'] });
    expect(byId.get('RUN-011')!.outsideArea).toBeUndefined();
    expect(byId.get('RUN-011')!.judgeWith).toEqual(['--allow-spend', 'outside --area read']);
  });

  it('are counted and named in the summary and rules.md, apart from the rules the chosen areas left unjudged', () => {
    const dir = mkdtempSync(join(tmpdir(), 'area-report-'));
    try {
      const lines = writeRulesReport(dir, { generatedAt: 'now', target: 't', ...report });
      const outside = ledger.rules.filter((r) => r.status === 'pinned' && r.observable && (r.party ?? 'server') === 'server' && ['RUN-002', 'RUN-010'].includes(r.id)).map((r) => r.id);
      expect(outsideAreaLines(report.rules)).toEqual([`  outside --area read: ${outside.length} pinned rule(s) not judged, their tests touching runs (${outside.length})${outside.includes('RUN-010') ? ', presets (1)' : ''}: ${outside.join(' ')}`]);
      expect(lines).toContain(outsideAreaLines(report.rules)[0]);
      expect(lines).toContain('    3 × outside --area read');
      const md = readFileSync(join(dir, 'rules.md'), 'utf8');
      const section = md.split('## Pinned rules outside --area read')[1]!.split('\n## ')[0]!;
      for (const id of outside) expect(section).toContain(`| ${id} |`);
      expect(section).not.toContain('RUN-011');
      expect(md.split('## Pinned rules not judged')[1]!.split('\n## ')[0]).not.toContain('| RUN-002 |');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a listing of --area says its unnamed pinned rules lie outside it', () => {
    expect(listRules([['PROD-001']], ledger, 'read')[2]).toMatch(/^ {2}pinned rules no listed test names: \d+, outside --area read \(or left out by a file filter or --grep; .*D277\): /);
  });
});
