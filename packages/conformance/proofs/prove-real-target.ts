/**
 * The suite against a correct target as a backend team has one (#23): the mock's API behind a front
 * (packages/conformance/suite/defects/front.ts) that hides what a deployment does not serve and changes what a
 * network may change; accounts given as keys only (CONFORMANCE_KEYS / CONFORMANCE_KEYS_B, made
 * beforehand on the mock's control plane, which the suite itself never sees); default workers.
 * Expects 0 failed tests (a red result must be true on any target) and prints the figures.
 *
 *   npx tsx packages/conformance/proofs/prove-real-target.ts [--hide /__mock,/__hooks] [--reasons keep|rewrite|none]
 *     [--rechunk] [--headers] [--compress] [--clock real|manual] [--pairs N] [--workers N]
 *     [--history N] [--hooks] [--pinned-only] [--min-judged PERCENT] [--http2] [--plan TIER] [-- <playwright args>]
 *
 * - --hide: path prefixes the front answers 404 (default /__mock).
 * - --hooks: the suite gets no keys: it sets every scene through the conformance hooks the front
 *   passes at <front>/__hooks (CONFORMANCE_HOOKS_URL, the hooks token), as a team whose test build
 *   serves packages/contract/spec/conformance-hooks.yaml runs it (#22). /__mock stays hidden.
 * - --pinned-only: only what the interface pins (--grep-invert @assumed, as `cgs-conformance
 *   --pinned-only`).
 * - --min-judged PERCENT: fail unless at least this share of the pinned observable rules was judged
 *   (passed or failed, not "not run"); the share is printed either way.
 * - --pairs N: N account pairs, CONFORMANCE_KEYS as a JSON array (one pair per worker); default 1,
 *   one pair shared by every worker (the harder case).
 * - --http2: the front reaches the mock across a real HTTP/2 hop (front → h2c → an HTTP/2 front →
 *   the mock; packages/conformance/suite/defects/front.ts startH2Front): every answer arrives without its reason
 *   phrase, with lower-case field names and no Connection or Transfer-Encoding, before the front's
 *   own rewriting; the run fails unless exchanges crossed it.
 * - --plan TIER: the plan of the accounts given as keys (default the control plane's, enterprise):
 *   `--plan growth` is an account without 4K, whose refusals of the suite's 4K scenes are skips.
 * - --history N: before the run, N runs of the suite's own writes' kind already on the accounts
 *   (campaigns, metadata keys), so that nothing can pass by assuming an empty account.
 * Reports: test-results/real-target/ (rules.json, junit.xml, the mock's log; with --hooks also
 * hooks-used.jsonl, what each test asked of the hooks, for packages/conformance/proofs/prove-monotonic.ts --from).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startFront, startH2Front } from '../suite/defects/front.ts';
import type { RulesReport } from '../suite/reporters/rules-reporter.ts';
import { launchMock } from '../../mock/src/node/launch.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PLAYWRIGHT = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');
const BASE = '/api/public/v1';

const { values, positionals } = parseArgs({
  options: {
    hide: { type: 'string' },
    reasons: { type: 'string' },
    rechunk: { type: 'boolean' },
    headers: { type: 'boolean' },
    compress: { type: 'boolean' },
    clock: { type: 'string' },
    pairs: { type: 'string' },
    workers: { type: 'string' },
    history: { type: 'string' },
    out: { type: 'string' },
    hooks: { type: 'boolean' },
    'pinned-only': { type: 'boolean' },
    'min-judged': { type: 'string' },
    http2: { type: 'boolean' },
    plan: { type: 'string' },
  },
  allowPositionals: true,
  strict: true,
});
const OUT = join(ROOT, 'test-results', values.out ?? 'real-target');
const reasons = (values.reasons ?? 'keep') as 'keep' | 'rewrite' | 'none';
if (!['keep', 'rewrite', 'none'].includes(reasons)) throw new Error('--reasons is keep, rewrite or none');
const clock = values.clock ?? 'real';
if (clock !== 'real' && clock !== 'manual') throw new Error('--clock is real or manual');
const pairs = Number(values.pairs ?? '1');
const history = Number(values.history ?? '3');
const hide = (values.hide ?? '/__mock').split(',').filter(Boolean);
const viaHooks = values.hooks === true;
if (viaHooks && hide.includes('/__hooks')) throw new Error('--hooks needs the front to pass /__hooks: leave it out of --hide');
const minJudged = Number(values['min-judged'] ?? '0');
if (!Number.isFinite(minJudged) || minJudged < 0 || minJudged > 100) throw new Error('--min-judged is a percentage, 0 to 100');

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const token = `ctl_${randomBytes(24).toString('hex')}`;
const launched = await launchMock({ clock, env: { CGS_CONTROL_TOKEN: token }, controlToken: token, log: join(OUT, 'mock.log'), timeoutMs: 120_000 });
const origin = launched.origin;
const stopMock = (): void => launched.kill();
process.on('exit', stopMock);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

const control = async (method: string, path: string, body?: unknown): Promise<unknown> => {
  const response = await fetch(`${origin}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
};

type Keys = Record<string, string>;
async function account(): Promise<{ keys: Keys; accountId: string }> {
  const created = (await control('POST', '/__mock/accounts', values.plan === undefined ? {} : { plan: values.plan })) as { accountId: string; keys: Record<string, { key: string }> };
  return { accountId: created.accountId, keys: Object.fromEntries(Object.entries(created.keys).map(([profile, { key }]) => [profile, key])) };
}

/** History on an account: campaigns another client made (a real account is never empty). */
async function addHistory(keys: Keys, n: number): Promise<number> {
  const api = async (method: string, path: string, key: string, body?: unknown): Promise<Response> =>
    fetch(`${origin}${BASE}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(method === 'POST' ? { 'idempotency-key': randomBytes(12).toString('hex') } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const reader = keys['read']!;
  const writer = keys['campaigns:write'];
  const campaigns = (await (await api('GET', '/campaigns?limit=1', reader)).json()) as { data: { brandId: string }[] };
  const brandId = campaigns.data[0]?.brandId;
  if (!writer || !brandId) return 0;
  const products = (await (await api('GET', `/products?brandId=${encodeURIComponent(brandId)}&limit=1`, reader)).json()) as { data: { productId: string }[] };
  let created = 0;
  for (let i = 0; i < n && products.data[0]; i += 1) {
    const response = await api('POST', '/campaigns', writer, { name: `history ${i} ${randomBytes(3).toString('hex')}`, brandId, productIds: [products.data[0].productId] });
    if (response.status === 201) created += 1;
  }
  return created;
}

// With --hooks the suite makes its own accounts through the accounts hook: no keys are given.
const made = [];
for (let i = 0; i < (viaHooks ? 0 : pairs); i += 1) made.push({ a: await account(), b: await account() });
let historyMade = 0;
for (const { a, b } of made) historyMade += (await addHistory(a.keys, history)) + (await addHistory(b.keys, history));
const keysA = pairs === 1 ? made[0]?.a.keys : made.map((p) => p.a.keys);
const keysB = pairs === 1 ? made[0]?.b.keys : made.map((p) => p.b.keys);

const h2 = values.http2 ? await startH2Front(origin) : undefined;
const front = await startFront(h2?.origin ?? origin, { hide, reasons, rechunk: values.rechunk === true, headers: values.headers === true, compress: values.compress === true, ...(h2 ? { upstream: 'h2c' as const } : {}) });
const described = [
  hide.length ? `hides ${hide.join(', ')}` : 'hides nothing',
  `reason phrases ${reasons}`,
  values.rechunk ? 're-chunked bodies' : undefined,
  values.headers ? 'its own header case, order, Date, Server, Via' : undefined,
  values.compress ? 'gzip' : undefined,
  h2 ? 'reaching the mock across an HTTP/2 hop (h2c)' : undefined,
]
  .filter(Boolean)
  .join('; ');
console.log(
  viaHooks
    ? `a correct target: the mock (--clock ${clock}) behind a front at ${front.origin} (${described}); no keys given: every scene through the hooks at ${front.origin}/__hooks${values['pinned-only'] ? '; pinned only' : ''}`
    : `a correct target: the mock (--clock ${clock}) behind a front at ${front.origin} (${described}); ${pairs} account pair(s) given as keys only, with ${historyMade} campaigns of history made beforehand`,
);

const started = Date.now();
const env: NodeJS.ProcessEnv = {
  ...process.env,
  CONFORMANCE_BASE_URL: `${front.origin}${BASE}`,
  CONFORMANCE_REPORT_DIR: OUT,
  CONFORMANCE_CONSOLE_REPORTER: 'dot',
  // A team's test account may spend (the @spend tests judge most of the generation plane).
  CONFORMANCE_ALLOW_SPEND: '1',
};
// Nothing of the mock's own: the suite learns the target from the front alone (a control token
// would reach a /__mock the front passes through, which is the point of --hide '').
for (const name of ['CONFORMANCE_LOCAL_MOCK', 'CONFORMANCE_LOCAL_MOCK_URLS', 'CONFORMANCE_MOCK_PID', 'CONFORMANCE_HOOKS_URL', 'CONFORMANCE_HOOKS_TOKEN', 'CONFORMANCE_KEYS', 'CONFORMANCE_KEYS_B', 'CONFORMANCE_HOOKS_USED']) delete env[name];
// The keys made above (after the loop that clears whatever the caller's environment held).
if (!viaHooks) Object.assign(env, { CONFORMANCE_KEYS: JSON.stringify(keysA), CONFORMANCE_KEYS_B: JSON.stringify(keysB) });
if (viaHooks) {
  env['CONFORMANCE_HOOKS_URL'] = `${front.origin}/__hooks`;
  env['CONFORMANCE_HOOKS_TOKEN'] = token;
  // What each test asked of the hooks: packages/conformance/proofs/prove-monotonic.ts --from picks the tests each withdrawal touches from it.
  env['CONFORMANCE_HOOKS_USED'] = join(OUT, 'hooks-used.jsonl');
}
if (hide.includes('/__mock')) {
  delete env['CONFORMANCE_CONTROL_TOKEN'];
} else {
  // The control plane passes through: the whole suite, as against the mock.
  env['CONFORMANCE_CONTROL_TOKEN'] = token;
}
// No traces: a proof's failure is read from its exchanges in the output and rules.md (the suite's own default keeps them).
const args = [PLAYWRIGHT, 'test', '-c', 'packages/conformance/suite/playwright.config.ts', '--trace=off', ...(values.workers ? ['--workers', values.workers] : []), ...(values['pinned-only'] ? ['--grep-invert', '@assumed'] : []), ...positionals];
const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
let output = '';
child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
const code: number = await new Promise((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
const seconds = (Date.now() - started) / 1000;
await front.close();
await h2?.close();

let summary = '';
let failed = -1;
let judgedShare = -1;
try {
  const report = JSON.parse(readFileSync(join(OUT, 'rules.json'), 'utf8')) as RulesReport;
  const { tests, pinnedObservable } = report.summary as RulesReport['summary'] & { pinnedObservable?: { total: number; passed: number; failed: number; notRun: number } };
  failed = tests.failed;
  summary = `${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped`;
  if (pinnedObservable) {
    const judged = pinnedObservable.total - pinnedObservable.notRun;
    judgedShare = pinnedObservable.total === 0 ? 0 : (100 * judged) / pinnedObservable.total;
    summary += `; pinned observable rules judged ${judged} of ${pinnedObservable.total} (${judgedShare.toFixed(1)}%), passed ${pinnedObservable.passed}, failed ${pinnedObservable.failed}`;
  }
} catch (error) {
  summary = `no report: ${(error as Error).message}`;
}
const c = front.counts;
console.log(`front: ${c.forwarded} forwarded, ${c.hidden} hidden, ${c.reasonsRewritten} reason phrases rewritten, ${c.rechunked} bodies re-chunked, ${c.compressed} compressed`);
if (h2) console.log(`HTTP/2 hop: ${h2.counts.forwarded} exchanges crossed it`);
console.log(`suite: exit ${code}, ${seconds.toFixed(1)} s: ${summary}`);
stopMock();
if (h2 && h2.counts.forwarded === 0) {
  console.log('--http2: no exchange crossed the HTTP/2 hop');
  process.exit(1);
}
if (code !== 0 || failed !== 0) {
  console.log(output.slice(-8000));
  process.exit(1);
}
if (judgedShare < minJudged) {
  console.log(`only ${judgedShare.toFixed(1)}% of the pinned observable rules were judged, below --min-judged ${minJudged}% (the unjudged ones and what would judge them: ${join(OUT, 'rules.md')})`);
  process.exit(1);
}
// The mock's child process would keep this one alive.
process.exit(0);
