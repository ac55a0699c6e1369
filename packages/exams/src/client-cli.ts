/** The command line of cgs-client-check (packages/exams/bin/cgs-client-check.ts): options, run, reports, exit code. */
import { parseArgs } from 'node:util';
import { loadLedger } from '../../contract/rules/ledger.ts';
import { isLoopback } from '../../mock-core/src/control/binding.ts';
import { missingPackagesMessage, SERVER_PACKAGES } from '../../mock/src/help-requires.ts';
import { runClientExam } from './client.ts';
import { consoleSummary, exitCode, writeReports } from './report.ts';
import { EXAM_TASKS } from '../../mock-core/src/exam/tasks.ts';

/** `--tasks`: `none`, or numbers and ranges of the task list (`1-9,10`); undefined when malformed. */
export function parseTasks(text: string): number[] | undefined {
  if (text.trim() === 'none') return [];
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^\s*(\d+)(?:-(\d+))?\s*$/.exec(part);
    if (!m) return undefined;
    const [from, to] = [Number(m[1]), Number(m[2] ?? m[1])];
    if (from < 1 || to > EXAM_TASKS.length || from > to) return undefined;
    for (let i = from; i <= to; i++) out.add(i);
  }
  return [...out].sort((a, b) => a - b);
}

const USAGE = `usage: cgs-client-check [options] -- <command ...>

Runs the command (your SDK's example or tests) against an exam account with CGS_BASE_URL, CGS_API_KEY
and CGS_KEYS, serves it the adversity the contract allows, and judges its requests against the
CLIENT- rules and its tasks' outcomes. Exit 0: every exercised rule held and every declared task
was done; 1: the program's fault (a rule broken, a declared task undone, a rule the tasks exercise
left unexercised, or the program failed); 2: the exam could not run (bad options, the mock
unreachable, the command not started or not finished in time).

  --seed N                the exam's schedule of adversity: the same seed, the same exam (default 1)
  --rate 0..1             probability of adversity once each kind was served (default 0.3)
  --mock-url URL          a running mock to make the exam account on (default: one started here, see --host);
                          needs none of the server's packages (fastify, light-my-request, swagger-ui-dist, htm)
  --control-token TOKEN   that mock's control token (default: env CGS_CONTROL_TOKEN); with a --host beyond
                          loopback, the token the mock started here requires (16 to 512 visible characters)
  --host H                address the mock started here binds (default 127.0.0.1); one that is not loopback
                          (0.0.0.0, a LAN address) is refused unless --control-token is given
  --port N                port the mock started here listens on (default 0: a free port)
  --timeout-s N           seconds the command may run before it is stopped (default 300)
  --out DIR               where rules.json, rules.md and junit.xml go (default exam-report/client)
  --tasks LIST            the tasks of docs/client-check.md the command performs, 1-9,10 or none (default 1-9)
  --require MODE          exercised: an undone declared task or a rule a done task leaves unexercised fails; none: reported only (default exercised)
  --help                  print this help and exit`;

export async function clientCheck(argv: string[]): Promise<number> {
  const split = argv.indexOf('--');
  const own = split < 0 ? argv : argv.slice(0, split);
  const command = split < 0 ? [] : argv.slice(split + 1);
  let values;
  try {
    ({ values } = parseArgs({ args: own, options: { seed: { type: 'string', default: '1' }, rate: { type: 'string' }, 'mock-url': { type: 'string' }, host: { type: 'string' }, port: { type: 'string' }, 'control-token': { type: 'string', default: process.env.CGS_CONTROL_TOKEN }, 'timeout-s': { type: 'string', default: '300' }, out: { type: 'string', default: 'exam-report/client' }, tasks: { type: 'string', default: '1-9' }, require: { type: 'string', default: 'exercised' }, help: { type: 'boolean' } } }));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : error}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const seed = Number(values.seed);
  const rate = values.rate === undefined ? undefined : Number(values.rate);
  const timeout = Number(values['timeout-s']);
  const port = values.port === undefined ? undefined : Number(values.port);
  const host = values.host;
  // An empty CGS_CONTROL_TOKEN counts as unset.
  const token = values['control-token'] || undefined;
  const beyondLoopback = host !== undefined && !isLoopback(host);
  const tasks = parseTasks(values.tasks!);
  const problems = [
    ...(command.length ? [] : ['a command to examine is needed after --']),
    ...(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff ? [] : ['--seed must be an integer from 0 to 4294967295']),
    ...(rate === undefined || (rate >= 0 && rate <= 1) ? [] : ['--rate must be from 0 to 1']),
    ...(Number.isFinite(timeout) && timeout > 0 ? [] : ['--timeout-s must be a positive number']),
    ...(values['mock-url'] === undefined || URL.canParse(values['mock-url']) ? [] : ['--mock-url must be a URL']),
    ...(values['mock-url'] !== undefined && (host !== undefined || port !== undefined) ? ['--host and --port are for the mock started here: not with --mock-url'] : []),
    ...(port === undefined || (Number.isInteger(port) && port >= 0 && port <= 65535) ? [] : ['--port must be an integer from 0 to 65535']),
    ...(host === undefined || host.trim() !== '' ? [] : ['--host must not be empty']),
    // As cgs-mock (D260): anyone who reaches /__mock can read the exam account's keys and steer it.
    ...(beyondLoopback && token === undefined ? [`refusing to bind the exam's mock to ${host}, which is not a loopback address, without a control token: anyone who can reach it could read the exam account's keys and reset the mock. Give --control-token TOKEN (or CGS_CONTROL_TOKEN), or leave --host out (127.0.0.1)`] : []),
    ...(beyondLoopback && token !== undefined && !/^[\x21-\x7e]{16,512}$/.test(token) ? ['--control-token (or CGS_CONTROL_TOKEN) must be 16 to 512 visible ASCII characters without spaces (it is sent as a bearer token)'] : []),
    ...(tasks !== undefined ? [] : [`--tasks must be none or task numbers and ranges from 1 to ${EXAM_TASKS.length} (1-9,10)`]),
    ...(values.require === 'exercised' || values.require === 'none' ? [] : ['--require must be exercised or none']),
  ];
  if (problems.length) {
    console.error(`${problems.join('\n')}\n${USAGE}`);
    return 2;
  }
  // Only a mock started here needs the server's packages (optional peers, D195, D260).
  const missing = values['mock-url'] === undefined ? missingPackagesMessage('cgs-client-check', SERVER_PACKAGES) : undefined;
  if (missing !== undefined) {
    console.error(`${missing}\n(or give --mock-url URL of a running mock: then none of them is needed)`);
    return 2;
  }
  const result = await runClientExam({
    command,
    seed,
    ...(rate !== undefined ? { rate } : {}),
    ...(values['mock-url'] !== undefined ? { mockUrl: values['mock-url'] } : {}),
    ...(token !== undefined ? { controlToken: token } : {}),
    ...(host !== undefined ? { host } : {}),
    ...(port !== undefined ? { port } : {}),
    timeoutSeconds: timeout,
    tasks: tasks!,
    require: values.require as 'exercised' | 'none',
    ledger: loadLedger().rules,
  });
  console.log(consoleSummary(result));
  writeReports(result, values.out!);
  console.log(`  reports: ${values.out}/rules.json, rules.md, junit.xml`);
  return exitCode(result);
}
