/**
 * The API client exam (cgs-client-check; docs/client-check.md): an exam account on a mock (one
 * started here on 127.0.0.1 with a real-time clock, or `--mock-url` with its control token), the
 * program run with the account's base URL and keys in its environment while the account meets the
 * exam's seeded adversity (packages/mock-core/src/exam/session.ts), then the program's requests judged
 * (packages/mock-core/src/exam/judge.ts, through the control plane's getExamReport) against the CLIENT- rules.
 *
 * Everything on the mock goes through its control plane over HTTP (the same for a mock started
 * here and one elsewhere): createAccount, createKey, updateGeneration, startExam, getExamReport.
 *
 * The mock's server (fastify, light-my-request, swagger-ui-dist, htm: optional peer dependencies,
 * D195) is imported only when the exam starts a mock of its own, so that `--mock-url` needs none of
 * them (D260).
 */
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import type { Mock } from '../../mock/src/node/app.ts';
import type { ExamRuleReport } from '../../mock-core/src/exam/judge.ts';
import { EXAM_TASKS, REQUIRED_TASKS, rulesOfTasks } from '../../mock-core/src/exam/tasks.ts';
import type { Rule } from '../../contract/spec/types.ts';
import { report, verdicts, type ExamReport, type Finding, type TaskVerdict } from './report.ts';

export const API_BASE_PATH = '/api/public/v1';
const SCOPES = ['read', 'runs:read', 'runs:write', 'creatives:write', 'creatives:review', 'assets:write', 'campaigns:write'] as const;
/** The items of a run settle within a second or two (the mock's generation speed for the exam account). */
const EXAM_GENERATION_SPEED = 40;

export interface ClientExamOptions {
  command: string[];
  seed: number;
  /** Probability of adversity once each kind was served (startExam `rate`). */
  rate?: number;
  /** A running mock instead of one started here. */
  mockUrl?: string;
  controlToken?: string;
  /**
   * The address and port the mock started here binds (default 127.0.0.1, a free port). Beyond
   * loopback it guards its control plane with `controlToken` (the command line refuses such a host
   * without one, D260).
   */
  host?: string;
  port?: number;
  /** Seconds the command may run before it is stopped (the exam then cannot judge it: exit 2). */
  timeoutSeconds?: number;
  /** The tasks of the task list the program performs (packages/mock-core/src/exam/tasks.ts; default every required one, 1-9). */
  tasks?: readonly number[];
  /**
   * `exercised` (default): a declared task left undone, or a rule the declared tasks exercise left
   * unexercised by a program that exited 0, fails the exam; `none`: both are only reported (D259).
   */
  require?: 'exercised' | 'none';
  ledger: readonly Rule[];
  /** Where the command's output goes (default: inherited). */
  stdio?: 'inherit' | 'ignore';
  /** Extra environment for the command. */
  env?: Record<string, string>;
}

/** The environment the examined program gets. */
export interface ExamEnvironment {
  CGS_BASE_URL: string;
  CGS_API_KEY: string;
  /** JSON: scope profile (`all` and each scope) → key, and `expired`: a key that answers 401 (D171). */
  CGS_KEYS: string;
}

export class Control {
  constructor(
    private readonly base: string,
    private readonly token: string | undefined,
  ) {}

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.base}/__mock${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`control plane ${method} /__mock${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
}

/** Makes the exam account and its keys and starts the exam; answers the program's environment. */
export async function prepareExam(control: Control, base: string, seed: number, rate: number | undefined): Promise<{ accountId: string; env: ExamEnvironment }> {
  const clock = await control.call<{ mode: string }>('GET', '/clock');
  if (clock.mode !== 'real') throw new Error(`the mock's clock is ${clock.mode}: the exam judges waits on the clock, so it needs a mock on a real-time clock (start it with --clock real)`);
  const account = await control.call<{ accountId: string }>('POST', '/accounts', { name: `Exam ${seed}`, plan: 'enterprise', seed });
  const keys: Record<string, string> = {};
  const make = async (name: string, scopes: readonly string[]) => {
    const created = await control.call<{ key: string }>('POST', `/accounts/${account.accountId}/keys`, { name: `exam ${name}`, scopes, expiresInDays: 30 });
    keys[name] = created.key;
  };
  await make('all', SCOPES);
  // One key per scope, with what the scope requires on the key (runs:read needs read; runs:write, runs:read).
  for (const scope of SCOPES) await make(scope, scope === 'read' ? ['read'] : scope === 'runs:write' ? ['read', 'runs:read', 'runs:write'] : ['read', scope]);
  // An expired key (D171): a 401 on every request, which the client must surface, not send again (CLIENT-019).
  const expired = await control.call<{ key: string; keyId: string }>('POST', `/accounts/${account.accountId}/keys`, { name: 'exam expired', scopes: ['read'] });
  await control.call('POST', `/accounts/${account.accountId}/keys/${expired.keyId}/expire`);
  keys.expired = expired.key;
  await control.call('PATCH', `/accounts/${account.accountId}/generation`, { speed: EXAM_GENERATION_SPEED });
  await control.call('PUT', `/accounts/${account.accountId}/exam`, { seed, ...(rate !== undefined ? { rate } : {}) });
  return { accountId: account.accountId, env: { CGS_BASE_URL: `${base}${API_BASE_PATH}`, CGS_API_KEY: keys.all!, CGS_KEYS: JSON.stringify(keys) } };
}

/** Lines of the program's stderr kept for the report when it exits before its first request. */
const STDERR_TAIL_LINES = 6;

/**
 * Runs the program: its stdout as `stdio` says, its stderr passed through (or dropped for
 * `ignore`) with its last lines kept, to name the cause when it exits before its first request.
 */
function runCommand(command: string[], env: Record<string, string>, timeoutSeconds: number, stdio: 'inherit' | 'ignore'): Promise<{ exitCode: number | null; timedOut: boolean; error?: string; stderrTail: string[] }> {
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', stdio, 'pipe'], detached: false });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      if (stdio === 'inherit') process.stderr.write(chunk);
      stderr = (stderr + chunk.toString()).slice(-8192);
    });
    // The last lines, led by the error's own line when a stack trace pushed it out of them (Node's `Error [ERR_MODULE_NOT_FOUND]: ...`).
    const tail = () => {
      const lines = stderr.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '');
      const last = lines.slice(-STDERR_TAIL_LINES);
      const cause = lines.findLast((l) => /^(?:[\w.]*Error\b|Error \[)/.test(l));
      return cause !== undefined && !last.includes(cause) ? [cause, '...', ...last.slice(2 - STDERR_TAIL_LINES)] : last;
    };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
    }, timeoutSeconds * 1000);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ exitCode: null, timedOut, error: error.message, stderrTail: [] });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ exitCode: code, timedOut, stderrTail: tail() });
    });
  });
}

/** The address the program (on this machine) reaches a mock bound to `host` at: loopback for a wildcard bind. */
export function reachable(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === '0.0.0.0') return '127.0.0.1';
  if (bare === '::') return '[::1]';
  return bare.includes(':') ? `[${bare}]` : bare;
}

/** Runs the whole exam: mock, account, command, judgement. */
export async function runClientExam(options: ClientExamOptions): Promise<ExamReport> {
  const notes: string[] = [];
  const rules = (findings: Finding[]) => verdicts(options.ledger, 'client', findings);
  let mock: Mock | undefined;
  try {
    let base = options.mockUrl?.replace(/\/+$/, '');
    if (base === undefined) {
      const [{ buildMock }, { Clock }, { isLoopback }] = await Promise.all([import('../../mock/src/node/app.ts'), import('../../mock-core/src/core/clock.ts'), import('../../mock-core/src/control/binding.ts')]);
      const host = options.host ?? '127.0.0.1';
      // The token guards the control plane of a mock bound beyond loopback; on loopback it is not needed.
      const guarded = !isLoopback(host) && options.controlToken !== undefined;
      mock = buildMock({ clock: new Clock({ mode: 'real' }), logError: () => {}, ...(guarded ? { control: { controlToken: options.controlToken! } } : {}) });
      await mock.app.listen({ host, port: options.port ?? 0 });
      base = `http://${reachable(host)}:${(mock.app.server.address() as AddressInfo).port}`;
      notes.push(`mock started at ${base}${host === reachable(host) ? '' : ` (bound to ${host})`} (real-time clock${guarded ? '; control plane guarded by the control token' : ''})`);
    } else notes.push(`mock at ${base}`);
    const control = new Control(base, options.controlToken);
    let prepared;
    try {
      prepared = await prepareExam(control, base, options.seed, options.rate);
    } catch (error) {
      return report('cgs-client-check', rules([]), notes, { seed: options.seed, error: `could not make the exam account: ${error instanceof Error ? error.message : String(error)}` });
    }
    notes.push(`exam account ${prepared.accountId}; CGS_BASE_URL=${prepared.env.CGS_BASE_URL}`);
    notes.push(`command: ${options.command.join(' ')}`);
    const ran = await runCommand(options.command, { ...options.env, ...prepared.env }, options.timeoutSeconds ?? 300, options.stdio ?? 'inherit');
    if (ran.error !== undefined) return report('cgs-client-check', rules([]), notes, { seed: options.seed, error: `the command did not start: ${ran.error}` });
    notes.push(ran.timedOut ? `the command was stopped after ${options.timeoutSeconds ?? 300} s` : `the command exited ${String(ran.exitCode)}`);
    const exitCode = ran.exitCode ?? 255;
    const judged = await control.call<ExamRuleReport>('GET', `/accounts/${prepared.accountId}/exam?exitCode=${Math.min(255, Math.max(0, exitCode))}`);
    await control.call('DELETE', `/accounts/${prepared.accountId}/exam`).catch(() => undefined);
    notes.push(`${judged.requests} requests judged`);
    const findings = Object.values(judged.rules).flatMap((r) => r.findings);
    const declared = options.tasks ?? REQUIRED_TASKS;
    const strict = (options.require ?? 'exercised') === 'exercised';
    const exited = !ran.timedOut && exitCode === 0;
    // --require exercised: a rule a declared task exercises when done as asked, left unexercised by a
    // program that exited 0 though the task was done (an undone task fails by itself: its rules are
    // not failed again; a program that failed is failed already, for what stopped it).
    const done = declared.filter((id) => judged.tasks[String(id)]?.done === true);
    if (strict && exited) {
      for (const rule of rulesOfTasks(done)) {
        if (findings.some((f) => f.rule === rule)) continue;
        const by = EXAM_TASKS.filter((t) => done.includes(t.id) && t.rules.includes(rule)).map((t) => t.id);
        findings.push({ rule, check: 'exercised-by-tasks', held: false, proof: [`not exercised: ${by.length ? `task ${by.join(', ')} of the task list, done,` : 'the writes of tasks 4-8 together, done,'} put it to the test when done as asked, and the traffic never did (--require none reports it as not exercised)`] });
      }
    }
    const tasks: TaskVerdict[] = EXAM_TASKS.map((t) => {
      const outcome = judged.tasks[String(t.id)];
      const done = outcome?.done ?? false;
      return { id: t.id, task: t.task, result: done ? 'done' : declared.includes(t.id) ? 'undone' : 'not declared', proof: outcome?.proof ?? [] };
    });
    notes.push(`tasks declared: ${declared.join(', ')} (--require ${strict ? 'exercised' : 'none'})`);
    // A program that exits non-zero after answers the contract allows failed by itself: exit 1, naming the last answer it heard.
    // One that exits non-zero before its first request never ran the tasks: the report leads with that and its stderr's last lines.
    const early = !ran.timedOut && exitCode !== 0 && judged.requests === 0;
    const programFailed = early ? `the program exited ${exitCode} before its first request` : !ran.timedOut && exitCode !== 0 ? `the command exited ${exitCode} after ${judged.last ?? 'sending no request'}` : undefined;
    const result = report('cgs-client-check', rules(findings), notes, { seed: options.seed, tasks, strict, ...(programFailed !== undefined ? { programFailed } : {}), ...(early ? { programStderr: ran.stderrTail } : {}) });
    if (ran.timedOut) return { ...result, error: `the command did not finish within ${options.timeoutSeconds ?? 300} s` };
    return result;
  } finally {
    await mock?.app.close();
  }
}
