/**
 * Proof of the gate on broken targets (`npx tsx packages/conformance/proofs/prove-gate.ts`, a step of
 * scripts/proofs.sh): the whole suite through `cgs-conformance` (packages/conformance/bin/cgs-conformance.ts, as a team
 * runs it) against a conforming target and against a catalogue of broken ones, each made of
 * defects of packages/conformance/suite/defects/catalogue.ts injected by its proxy (packages/conformance/suite/defects/proxy.ts)
 * in front of a fresh mock. Each broken target must be reported with the right rule first (the
 * first cause of the summary, packages/contract/rules/causes.ts) and exit 1, in about the time the
 * conforming run takes; the conforming run must exit 0. The table prints each run's wall time
 * beside the conforming run's. Every run is `--pinned-only`, as a team gating a release runs it
 * (D234): each broken target breaks a pinned rule.
 *
 * The HTTP/2 hop (#23 item 2) is proven with the rewriting front in one run of
 * packages/conformance/proofs/prove-real-target.ts --http2 (D231).
 *
 * `--without-actors` (D273) proves instead that what a generation-plane target without the actors
 * hook can show is judged there: the mock plays such a target (`--hooks-withhold actors,data`: no
 * actors hook, accounts holding their catalog only, so no creative to review), and only the webhook
 * tests run (WITHOUT_ACTORS_FILES). The conforming run must pass and judge the rules of run.completed
 * and of deliveries (JUDGED_WITHOUT_ACTORS: their tests take the event from a run, not a creative);
 * each broken target (a defect the mock plants, `--defect`) must be reported with its rule first.
 *
 *   npx tsx packages/conformance/proofs/prove-gate.ts [--only NAME[,NAME...]] [--max-ratio R (default 5)] [--workers N] [--without-actors]
 *
 * Exit 1 when a broken target is not reported with its rule first, does not exit 1, or takes more
 * than R times the conforming run (or, with --without-actors, a rule of JUDGED_WITHOUT_ACTORS is not
 * judged by the conforming run); 2 on a usage error.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { defectNamed, type Defect } from '../suite/defects/catalogue.ts';
import { startProxy, type Proxy } from '../suite/defects/proxy.ts';
import { basePath } from '../../contract/spec/contract.ts';
import { launchMock } from '../../mock/src/node/launch.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const OUT = `${ROOT}conformance-report/gate/`;
const TSX = `${ROOT}node_modules/.bin/tsx`;

/** A broken target: the defects its proxy injects and its mock plants (the first cause of the summary must be a rule one of them breaks). */
export interface BrokenTarget {
  name: string;
  what: string;
  defects: readonly string[];
  /** Defects the mock itself plants (`--defect`, packages/mock-core/src/events/defects.ts): what the proxy cannot see. */
  mockDefects?: readonly string[];
}

/**
 * From one wrong header everywhere to one wrong state transition. Three of them were once reported
 * under another rule first (docs/gate.md): a 200 for a 202 was a violation of the document alone
 * (now of the rules pinning the operation's status, D160); an ignored If-Match was blamed on the
 * first rule its tests name, ETAG-001 (now on the rule stating what the failed assertion expected,
 * D161); a moving finalizedAt broke EVT-008 and RUN-038 as well, which its catalogue entry did not
 * list (D162). Six, the issue's least (D236): two more of the "one header wrong everywhere" kind
 * (no ETag at all, JSON labelled text/plain) ran here until 2026-11-25; the defect proof still
 * catches both (etag-missing, json-as-text).
 */
export const BROKEN_TARGETS: readonly BrokenTarget[] = [
  { name: 'weak-etags', what: 'every ETag weak (one header wrong everywhere)', defects: ['etag-weak'] },
  { name: 'weak-etags-and-create-200', what: 'weak ETags and 200 for a create (the two bugs of #23)', defects: ['etag-weak', 'create-201-as-200'] },
  { name: 'problem-without-request-id', what: 'no problem carries requestId', defects: ['problem-request-id-missing'] },
  { name: 'accepted-as-200', what: 'generation starts answer 200, not 202', defects: ['accepted-202-as-200'] },
  { name: 'if-match-ignored', what: 'If-Match ignored on writes (one precondition)', defects: ['if-match-ignored'] },
  { name: 'run-finalized-at-moving', what: 'a final run keeps moving its finalizedAt (one state transition)', defects: ['run-finalized-at-moving'] },
];

/** What the mock withholds to play a generation-plane target without the actors hook (D263): no actors hook, accounts with their catalog only. */
export const WITHOUT_ACTORS = ['actors', 'data'] as const;
/** The tests the --without-actors targets run: the webhooks file holds run.completed and every delivery test. */
export const WITHOUT_ACTORS_FILES = ['packages/conformance/suite/tests/webhooks.spec.ts'] as const;
/** Rules the conforming target without actors must judge: run.completed once, signature, retries, duplicates (#32). */
export const JUDGED_WITHOUT_ACTORS = ['EVT-002', 'EVT-008', 'EVT-039', 'EVT-040', 'EVT-041', 'EVT-043', 'EVT-044', 'EVT-045', 'EVT-046'] as const;

/** Broken generation-plane targets without the actors hook: each a defect only a run's run.completed shows there. */
export const BROKEN_WITHOUT_ACTORS: readonly BrokenTarget[] = [
  { name: 'no-actors-run-completed-twice', what: 'run.completed recorded (and delivered) twice, no actors hook, catalog only', defects: [], mockDefects: ['run-completed-twice'] },
  { name: 'no-actors-webhook-retry-fixed', what: 'every retry 5 minutes later, no actors hook, catalog only', defects: [], mockDefects: ['webhook-retry-fixed'] },
];

/** The rules a broken target's defects break, proxy and mock alike. */
export function rulesBrokenBy(target: BrokenTarget): string[] {
  return [...target.defects, ...(target.mockDefects ?? [])].flatMap((name) => {
    const defect = defectNamed(name);
    if (!defect) throw new Error(`no defect named ${name} in packages/conformance/suite/defects/catalogue.ts`);
    return defect.rules;
  });
}

/** Several defects of the catalogue applied one after another by one proxy. */
export function composeDefects(names: readonly string[]): Defect {
  const defects = names.map((name) => {
    const defect = defectNamed(name);
    if (!defect) throw new Error(`no defect named ${name} in packages/conformance/suite/defects/catalogue.ts`);
    if (defect.via !== 'proxy') throw new Error(`defect ${name} is injected by the mock, not the proxy`);
    return defect;
  });
  return {
    name: names.join('+'),
    kind: defects[0]!.kind,
    description: defects.map((d) => d.description).join('; '),
    rules: defects.flatMap((d) => d.rules),
    grep: defects.map((d) => d.grep).join('|'),
    via: 'proxy',
    request: (request, context) => defects.reduce((r, d) => (d.request ? d.request(r, context) : r), request),
    response: (response, context) => defects.reduce((r, d) => (d.response ? d.response(r, context) : r), response),
  };
}

// ---------------------------------------------------------------------------------------------
// Processes

const children = new Set<ChildProcess>();
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // gone
  }
}
process.on('exit', () => children.forEach(killGroup));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

/** A fresh mock on a real clock (packages/mock/src/node/launch.ts), stopped with this process whatever happens. */
async function startMock(log: string, args: readonly string[] = []): Promise<{ origin: string; stop(): Promise<void> }> {
  return launchMock({ clock: 'real', log, stopWithParent: true, timeoutMs: 60_000, args });
}

interface GateRun {
  status: number | null;
  seconds: number;
  output: string;
  report:
    | {
        causes?: { rule: string; tests: number; responses: number }[];
        summary: { tests: { failed: number } };
        rules?: { id: string; result: string }[];
        tests?: { title: string; outcome: string; reason?: string }[];
      }
    | undefined;
}

/** `cgs-conformance` (from the checkout) against `baseUrl`, reports in `reportDir`. */
function gate(baseUrl: string, reportDir: string, extra: readonly string[]): Promise<GateRun> {
  rmSync(reportDir, { recursive: true, force: true });
  const started = Date.now();
  const child = spawn(TSX, ['packages/conformance/bin/cgs-conformance.ts', '--base-url', baseUrl, '--allow-spend', '--report-dir', reportDir, '--reporter', 'dot', '--trace=off', '--pinned-only', ...extra], {
    cwd: ROOT,
    env: { ...process.env, FORCE_COLOR: '0', CI: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.add(child);
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString('utf8')));
  return new Promise((resolve) =>
    child.on('exit', (status) => {
      children.delete(child);
      let report: GateRun['report'];
      try {
        report = JSON.parse(readFileSync(`${reportDir}/rules.json`, 'utf8')) as GateRun['report'];
      } catch {
        report = undefined;
      }
      resolve({ status, seconds: (Date.now() - started) / 1000, output, report });
    }),
  );
}

async function against(name: string, defect: Defect | undefined, extra: readonly string[], mockArgs: readonly string[] = []): Promise<GateRun> {
  const dir = `${OUT}${name}/`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const mock = await startMock(`${dir}mock.log`, mockArgs);
  let proxy: Proxy | undefined;
  try {
    proxy = defect ? await startProxy(mock.origin, defect) : undefined;
    const origin = proxy?.origin ?? mock.origin;
    const run = await gate(`${origin}${basePath}`, `${dir}report`, extra);
    writeFileSync(`${dir}output.log`, run.output);
    return run;
  } finally {
    await proxy?.close();
    await mock.stop();
  }
}

// ---------------------------------------------------------------------------------------------

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let args: { only?: string; 'max-ratio': string; workers?: string; 'without-actors'?: boolean };
  try {
    ({ values: args } = parseArgs({ options: { only: { type: 'string' }, 'max-ratio': { type: 'string', default: '5' }, workers: { type: 'string' }, 'without-actors': { type: 'boolean' } }, strict: true }));
  } catch (error) {
    console.error(`prove-gate: ${(error as Error).message}`);
    process.exit(2);
  }
  const withoutActors = args['without-actors'] === true;
  const catalogue = withoutActors ? BROKEN_WITHOUT_ACTORS : BROKEN_TARGETS;
  const only = args.only?.split(',');
  const targets = only ? catalogue.filter((t) => only.includes(t.name)) : catalogue;
  if (targets.length === 0) {
    console.error(`prove-gate: --only names none of ${catalogue.map((t) => t.name).join(', ')}`);
    process.exit(2);
  }
  const maxRatio = Number(args['max-ratio']);
  const extra = [...(args.workers ? [`--workers=${args.workers}`] : []), ...(withoutActors ? WITHOUT_ACTORS_FILES : [])];
  const withheld = withoutActors ? ['--hooks-withhold', WITHOUT_ACTORS.join(',')] : [];
  mkdirSync(OUT, { recursive: true });

  const problems: string[] = [];
  const conformingName = withoutActors ? 'no-actors-conforming' : 'conforming';
  const conforming = await against(conformingName, undefined, extra, withheld);
  if (conforming.status !== 0) problems.push(`the conforming target exited ${conforming.status} (see ${OUT}${conformingName}/output.log)`);
  if (withoutActors) {
    const unjudged = JUDGED_WITHOUT_ACTORS.filter((id) => conforming.report?.rules?.find((r) => r.id === id)?.result !== 'passed');
    if (unjudged.length > 0) problems.push(`without the actors hook the conforming target did not judge (pass) ${unjudged.join(', ')} (see ${OUT}${conformingName}/report/rules.md)`);
    for (const t of conforming.report?.tests ?? []) console.log(`  ${conformingName}: ${t.outcome.padEnd(7)} ${t.title.slice(0, 110)}${t.reason ? ` (${t.reason.slice(0, 80)})` : ''}`);
  }
  const rows = [`| target | what is broken | exit | first cause | tests failed | seconds | × conforming |`, '|---|---|---|---|---|---|---|'];
  rows.push(`| ${conformingName} | nothing${withoutActors ? ` (withheld: ${WITHOUT_ACTORS.join(', ')})` : ''} | ${conforming.status} | — | ${conforming.report?.summary.tests.failed ?? '?'} | ${conforming.seconds.toFixed(1)} | 1.00 |`);
  for (const target of targets) {
    const mockArgs = [...withheld, ...(target.mockDefects ?? []).flatMap((d) => ['--defect', d])];
    const run = await against(target.name, target.defects.length > 0 ? composeDefects(target.defects) : undefined, extra, mockArgs);
    const first = run.report?.causes?.[0];
    const ratio = run.seconds / conforming.seconds;
    rows.push(
      `| ${target.name} | ${target.what} | ${run.status} | ${first ? `${first.rule} (${first.tests} tests, ${first.responses} responses)` : '—'} | ${run.report?.summary.tests.failed ?? '?'} | ${run.seconds.toFixed(1)} | ${ratio.toFixed(2)} |`,
    );
    if (run.status !== 1) problems.push(`${target.name}: exit ${run.status}, not 1 (see ${OUT}${target.name}/output.log)`);
    const expected = rulesBrokenBy(target);
    if (!first || !expected.includes(first.rule)) problems.push(`${target.name}: first cause ${first?.rule ?? 'none'}, expected one of the rules its defects break: ${expected.join(', ')}`);
    if (ratio > maxRatio) problems.push(`${target.name}: ${run.seconds.toFixed(1)} s, ${ratio.toFixed(2)} × the conforming run's ${conforming.seconds.toFixed(1)} s (more than ${maxRatio} ×)`);
  }
  const table = rows.join('\n');
  writeFileSync(`${OUT}${withoutActors ? 'gate-without-actors.md' : 'gate.md'}`, `# The gate on broken targets${withoutActors ? ` without the actors hook (--hooks-withhold ${WITHOUT_ACTORS.join(',')}; ${WITHOUT_ACTORS_FILES.join(', ')})` : ''}\n\n${table}\n`);
  console.log(table);
  for (const problem of problems) console.log(`PROBLEM: ${problem}`);
  console.log(problems.length ? `prove-gate: ${problems.length} problem(s)` : `prove-gate: every broken target reported with its rule first, exit 1, at most ${maxRatio} × the conforming run's time`);
  process.exit(problems.length ? 1 : 0);
}
