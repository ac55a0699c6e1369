/**
 * What `cgs-conformance` (packages/conformance/bin/cgs-conformance.ts) does before Playwright runs the suite: its command
 * line (and config file) turned into the suite's environment (packages/conformance/suite/fixtures/env.ts) and
 * Playwright's arguments. Then preflight.ts probes the target once, and verdict.ts turns the rules
 * report into the summary and the exit status.
 *
 * Exit status (EXIT): 0 the implementation conforms, 1 it does not, 2 the run could not judge it
 * (a bad flag or config file, an unreachable target, refused credentials, a missing token, a hook or
 * key profile the run was told it needs and does not have, nothing judged). Each 2 says what to do.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ConformanceConfig } from '../../../contract/spec/generated/conformance-config.ts';
import { expandAreas, outsideGrep } from '../../../contract/rules/areas.ts';

/**
 * The gate stops a run after this many failed tests unless told otherwise (--max-failures): every
 * failed test costs Playwright a new worker process (seconds each), so a target that breaks one
 * header everywhere took 269 s (1304 s on a loaded machine) where a conforming run takes 25 s
 * (59 s); its first causes are known after a few failures. D110.
 */
export const DEFAULT_MAX_FAILURES = 10;

export const USAGE = `usage: cgs-conformance [--config FILE] [--base-url URL] [--keys FILE|JSON] [--keys-b FILE|JSON]
                       [--control-token TOKEN] [--hooks-url URL] [--hooks-token TOKEN] [--allow-spend]
                       [--real-time] [--real-time-budget SECONDS] [--pinned-only] [--area LIST] [--require WHAT]...
                       [--report-dir DIR] [--shard I/N] [--reporter list|dot|line] [playwright options]

  --config FILE         cgs-conformance.config.json (its schema: @creative-generation/contract/dist/spec/schemas/conformance-config.schema.json): the
                        target, keys, hooks and requirements in one file; a flag given here wins over it.
  --base-url URL        the implementation, including /api/public/v1 (CONFORMANCE_BASE_URL).
                        Without it, the suite starts the packaged mock (one per worker) and runs against it.
  --keys FILE|JSON      profile name → key, a JSON object or a file holding one, or a JSON list of such
                        objects, one account per worker (CONFORMANCE_KEYS): read, runs:read, runs:write,
                        creatives:write, creatives:review, assets:write, campaigns:write, all.
                        Not needed by a target that serves the /__mock control plane.
  --keys-b FILE|JSON    the same for the second account of each pair: the ownership tests (CONFORMANCE_KEYS_B)
  --control-token TOKEN the bearer token of a mock's /__mock control plane (CONFORMANCE_CONTROL_TOKEN)
  --hooks-url URL       the conformance hooks of the target (CONFORMANCE_HOOKS_URL; docs/hooks.md)
  --hooks-token TOKEN   bearer token sent to the hooks (CONFORMANCE_HOOKS_TOKEN; default: the control token)
  --allow-spend         run the tests that spend credits (CONFORMANCE_ALLOW_SPEND=1)
  --real-time           tests that need time to pass wait in real time when there is no clock hook
                        (CONFORMANCE_REAL_TIME=1), each up to --real-time-budget seconds (default 120)
  --pinned-only         leave out the tests of decided gaps (--grep-invert @assumed): what the interface pins
  --area LIST           the areas a partial implementation serves, comma-separated (CONFORMANCE_AREA):
                        planes read, generation, or resources products, creatives, campaigns, assets,
                        deliveries, presets, runs, estimate, upscales, webhooks. Only the tests whose
                        areas are all in LIST run; the rules of the others are reported "outside --area".
  --require WHAT        repeatable (CONFORMANCE_REQUIRE, comma-separated):
                          pinned             every pinned rule not judged fails the gate (exit 1);
                                             with --area, those outside the areas excepted
                          hook:NAME          the run stops (exit 2) when the target does not serve this hook
                          key-profile:NAME   the run stops (exit 2) when the keys lack this profile
  --report-dir DIR      junit.xml, html/, rules.json, rules.md, test-results/ (default ./conformance-report)
  --shard I/N           run shard I of N (Playwright's sharding; merge with cgs-conformance-merge)
  --reporter NAME       what prints while the run goes: list, dot (default) or line
  --max-failures N      stop the run after N failed tests (default ${DEFAULT_MAX_FAILURES}: a broken target is reported
                        in about the time a conforming run takes, its first causes found); 0 judges every test
  --help                print this help and exit
  playwright options    passed to Playwright as they are: --grep (-g), --grep-invert, --workers (-j),
                        --retries, -x, --timeout, --global-timeout, --repeat-each, --trace, --project,
                        --output, --tsconfig, --list, --forbid-only, --fail-on-flaky-tests,
                        --fully-parallel, --pass-with-no-tests, --quiet, --last-failed, --no-deps,
                        test file filters; anything after -- as is.

Exit status: 0 the implementation conforms (every test that ran passed, no rule failed, at least one
test passed, and with --require pinned every pinned rule was judged); 1 it does not conform; 2 the
run could not judge it (bad flags or config, unreachable target, refused keys, missing token, a
required hook or key profile missing, nothing judged): the message says what to do.`;

/** cgs-conformance-merge's options (node:util parseArgs, strict). */
const MERGE_OPTIONS = { out: { type: 'string' }, 'rules-only': { type: 'boolean' }, require: { type: 'string' }, help: { type: 'boolean' } } as const;

/** cgs-conformance-merge's command line; throws with what is wrong. */
export function parseMergeArgs(args: readonly string[]): { out?: string; rulesOnly: boolean; requirePinned: boolean; inputs: string[]; help?: true } {
  const { values, positionals } = parseArgs({ args: [...args], options: MERGE_OPTIONS, allowPositionals: true, strict: true });
  if (values.help) return { rulesOnly: false, requirePinned: false, inputs: [], help: true };
  if (positionals.length === 0) throw new Error('name at least one shard report directory');
  if (values.require !== undefined && values.require !== 'pinned') throw new Error(`--require is pinned here (hooks and key profiles are required of each shard's run), not ${values.require}`);
  return { ...(values.out !== undefined ? { out: values.out } : {}), rulesOnly: values['rules-only'] === true, requirePinned: values.require === 'pinned', inputs: positionals };
}

export const EXIT = { conforms: 0, doesNotConform: 1, couldNotJudge: 2 } as const;
export type ExitStatus = (typeof EXIT)[keyof typeof EXIT];

/** A flag or the config file is wrong (exit 2). */
export class UsageError extends Error {}

/** What cgs-conformance prints for a usage error (exit 2): the error and where the usage is, not the usage (its 40 lines scrolled the error away). */
export function usageErrorText(error: UsageError): string {
  return `cgs-conformance: ${error.message}\n(cgs-conformance --help for the usage)`;
}
/** The target cannot be judged as given (exit 2): unreachable, credentials refused, a token missing... */
export class SetupError extends Error {}

export type KeyProfiles = Readonly<Record<string, string>>;

export interface Requirements {
  pinned: boolean;
  hooks: string[];
  keyProfiles: string[];
}

/** What the first probe needs to know of the target (preflight). */
export interface TargetPlan {
  baseUrl: string;
  /** One entry per account (a list of --keys is one account per worker). */
  keys: KeyProfiles[] | undefined;
  keysB: KeyProfiles[] | undefined;
  controlToken: string | undefined;
  hooksUrl: string | undefined;
  hooksToken: string | undefined;
}

export interface ConformancePlan {
  /** Environment for the Playwright process, on top of the caller's. */
  env: Record<string, string>;
  /** Arguments after `playwright test -c <config>`. */
  playwrightArgs: string[];
  reportDir: string;
  help: boolean;
  requirements: Requirements;
  /** Set when the run is against a target (--base-url or CONFORMANCE_BASE_URL), not the packaged mock. */
  target: TargetPlan | undefined;
  /** A shard judges only its part: --require pinned is judged on the merged report. */
  sharded: boolean;
  allowSpend: boolean;
  pinnedOnly: boolean;
  /** `--area`: the list as given and the resources it selects (packages/contract/rules/areas.ts). */
  area: { list: string; resources: string[] } | undefined;
  /** `--list`: list the tests and their rules; no target is probed and nothing is judged. */
  list: boolean;
}

/**
 * A test file filter as the docs name it (`runs.spec.ts`, `runs.spec.ts:40`), for the suite as it
 * is installed: the package ships the compiled `runs.spec.js`, so with `suiteExtension` `.js` a
 * filter ending in `.ts` (before any `:line[:column]`) names the `.js` file (#32 item 7).
 */
export function fileFilterFor(filter: string, suiteExtension: string): string {
  if (suiteExtension !== '.js') return filter;
  return filter.replace(/\.ts((?::\d+){0,2})$/, '.js$1');
}

const VALUE_FLAGS = new Set(['area', 'base-url', 'keys', 'keys-b', 'report-dir', 'shard', 'control-token', 'reporter', 'hooks-url', 'hooks-token', 'real-time-budget', 'require', 'config', 'grep-invert', 'max-failures']);
const BOOLEAN_FLAGS = new Set(['allow-spend', 'pinned-only', 'help', 'real-time']);
/** Playwright's own options passed through (value-taking, then boolean); -c and --reporter are the gate's. */
const PLAYWRIGHT_VALUE = new Set(['grep', 'g', 'workers', 'j', 'retries', 'timeout', 'global-timeout', 'repeat-each', 'trace', 'project', 'output', 'tsconfig']);
const PLAYWRIGHT_BOOLEAN = new Set(['x', 'list', 'forbid-only', 'fail-on-flaky-tests', 'fully-parallel', 'pass-with-no-tests', 'quiet', 'last-failed', 'no-deps']);
const CONSOLE_REPORTERS = new Set(['list', 'dot', 'line']);
const REQUIREMENT = /^(pinned|hook:[a-z][a-z0-9-]*|key-profile:\S+)$/;

// ---------------------------------------------------------------------------------------------
// Keys

/** Keys as the suite reads them (CONFORMANCE_KEYS): an object of profile → key, or a non-empty list of them. */
export function parseKeys(label: string, text: string): KeyProfiles[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${label} is not JSON: ${(error as Error).message}`);
  }
  const isProfiles = (v: unknown): v is KeyProfiles =>
    typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length > 0 && Object.values(v).every((k) => typeof k === 'string' && k !== '');
  if (isProfiles(parsed)) return [parsed];
  if (Array.isArray(parsed) && parsed.length > 0 && parsed.every(isProfiles)) return parsed;
  throw new UsageError(`${label} must be a JSON object of profile name → key (strings), or a non-empty list of such objects (one account per worker)`);
}

/** A JSON object or list of keys, given inline or as a file; checked, returned as the suite's environment value. */
function keysValue(flag: string, raw: string, cwd: string, readFile: (path: string) => string): { text: string; keys: KeyProfiles[] } {
  let text = raw.trim();
  if (!text.startsWith('{') && !text.startsWith('[')) {
    try {
      text = readFile(resolve(cwd, raw)).trim();
    } catch (error) {
      throw new UsageError(`--${flag} ${raw}: neither JSON nor a readable file (${(error as Error).message})`);
    }
  }
  return { text, keys: parseKeys(`--${flag}`, text) };
}

// ---------------------------------------------------------------------------------------------
// The config file

let validateConfig: ((data: unknown) => boolean) & { errors?: { instancePath: string; message?: string; params?: Record<string, unknown> }[] | null } | undefined;

/**
 * The flags a config file stands for (packages/contract/spec/schemas/conformance-config.schema.json), validated;
 * `{ "env": "NAME" }` values read from `environment`, `{ "file": "..." }` and reportDir relative to
 * the file's folder.
 */
export function configArgs(path: string, readFile: (path: string) => string, environment: Readonly<Record<string, string | undefined>>): string[] {
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    throw new UsageError(`--config ${path}: cannot read it (${(error as Error).message})`);
  }
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--config ${path} is not JSON: ${(error as Error).message}`);
  }
  if (!validateConfig) {
    const schema = JSON.parse(readFileSync(fileURLToPath(new URL('../../../contract/spec/schemas/conformance-config.schema.json', import.meta.url)), 'utf8')) as object;
    validateConfig = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
  }
  if (!validateConfig(config)) {
    const errors = (validateConfig.errors ?? []).map((e) => {
      const extra = e.params?.['additionalProperty'];
      return `${e.instancePath || '(the file)'} ${e.message ?? ''}${typeof extra === 'string' ? `: ${extra}` : ''}`;
    });
    throw new UsageError(`--config ${path} does not follow its schema (@creative-generation/contract/dist/spec/schemas/conformance-config.schema.json):\n  ${[...new Set(errors)].join('\n  ')}`);
  }
  const c = config as ConformanceConfig;
  const dir = dirname(path);
  const fromEnv = (member: string, name: string): string => {
    const value = environment[name];
    if (value === undefined || value === '') throw new UsageError(`--config ${path}: ${member} comes from the environment variable ${name}, which is unset or empty (set it, e.g. from a CI secret)`);
    return value;
  };
  const secret = (member: string, value: string | { env: string }): string => (typeof value === 'string' ? value : fromEnv(member, value.env));
  const keys = (member: string, value: NonNullable<ConformanceConfig['keys']>): string => {
    if (Array.isArray(value)) return JSON.stringify(value);
    if ('env' in value && typeof value.env === 'string' && Object.keys(value).length === 1) return fromEnv(member, value.env);
    if ('file' in value && typeof value.file === 'string' && Object.keys(value).length === 1) return resolve(dir, value.file);
    return JSON.stringify(value);
  };
  const args: string[] = [];
  if (c.baseUrl !== undefined) args.push('--base-url', c.baseUrl);
  if (c.keys !== undefined) args.push('--keys', keys('keys', c.keys));
  if (c.keysB !== undefined) args.push('--keys-b', keys('keysB', c.keysB));
  if (c.controlToken !== undefined) args.push('--control-token', secret('controlToken', c.controlToken));
  if (c.hooksUrl !== undefined) args.push('--hooks-url', c.hooksUrl);
  if (c.hooksToken !== undefined) args.push('--hooks-token', secret('hooksToken', c.hooksToken));
  if (c.allowSpend) args.push('--allow-spend');
  if (c.pinnedOnly) args.push('--pinned-only');
  if (c.area !== undefined) args.push('--area', c.area.join(','));
  if (c.realTime) args.push('--real-time');
  if (c.realTimeBudget !== undefined) args.push('--real-time-budget', String(c.realTimeBudget));
  for (const requirement of c.require ?? []) args.push('--require', requirement);
  if (c.reportDir !== undefined) args.push('--report-dir', resolve(dir, c.reportDir));
  if (c.workers !== undefined) args.push(`--workers=${c.workers}`);
  if (c.reporter !== undefined) args.push('--reporter', c.reporter);
  if (c.grep !== undefined) args.push('--grep', c.grep);
  if (c.maxFailures !== undefined) args.push('--max-failures', String(c.maxFailures));
  return args;
}

// ---------------------------------------------------------------------------------------------
// The command line

/**
 * The plan of a run from its command line (`argv`, after the config file's flags when --config is
 * given), the working directory, a file reader and the caller's environment (CONFORMANCE_* values
 * not given as flags still count, for the probe and the requirements).
 */
export function planRun(
  argv: readonly string[],
  cwd: string,
  readFile: (path: string) => string,
  environment: Readonly<Record<string, string | undefined>> = {},
  /** The extension of the suite's files as run: `.ts` in the checkout, `.js` in the installed package. */
  suiteExtension = '.ts',
): ConformancePlan {
  // The config file first, so that every flag on the command line wins over it.
  const at = argv.findIndex((a) => a === '--config' || a.startsWith('--config='));
  let all = [...argv];
  if (at >= 0 && !argv.slice(0, at).includes('--')) {
    const inline = argv[at]!.startsWith('--config=');
    const path = inline ? argv[at]!.slice('--config='.length) : argv[at + 1];
    if (path === undefined || path === '' || (!inline && path.startsWith('--'))) throw new UsageError('--config needs a value');
    all = [...configArgs(resolve(cwd, path), readFile, environment), ...argv.slice(0, at), ...argv.slice(at + (inline ? 1 : 2))];
  }

  const values = new Map<string, string>();
  const flags = new Set<string>();
  const passthrough: string[] = [];
  const grepInvert: string[] = [];
  const required: string[] = [];
  for (let i = 0; i < all.length; i += 1) {
    const arg = all[i]!;
    if (arg === '--') {
      passthrough.push(...all.slice(i + 1));
      break;
    }
    const match = /^--?([a-zA-Z][a-z-]*)(?:=(.*))?$/s.exec(arg);
    if (!match) {
      if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg} (cgs-conformance --help lists them; after -- anything goes to Playwright as is)`);
      passthrough.push(fileFilterFor(arg, suiteExtension)); // a test file filter
      continue;
    }
    const name = match[1]!;
    const short = !arg.startsWith('--');
    const inline = match[2];
    if (!short && VALUE_FLAGS.has(name)) {
      const value = inline ?? all[++i];
      if (value === undefined || (inline === undefined && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
      if (name === 'grep-invert') grepInvert.push(value);
      else if (name === 'require') required.push(...value.split(',').map((v) => v.trim()).filter(Boolean));
      else if (name === 'config') throw new UsageError('--config is given once');
      else values.set(name, value);
    } else if (!short && BOOLEAN_FLAGS.has(name)) {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value`);
      flags.add(name);
    } else if (PLAYWRIGHT_VALUE.has(name) && short === (name.length === 1)) {
      const value = inline ?? all[++i];
      if (value === undefined || (inline === undefined && value.startsWith('--'))) throw new UsageError(`${arg} needs a value`);
      passthrough.push(...(inline === undefined ? [arg, value] : [arg]));
    } else if (PLAYWRIGHT_BOOLEAN.has(name) && short === (name.length === 1)) {
      if (inline !== undefined) throw new UsageError(`${short ? '-' : '--'}${name} takes no value`);
      passthrough.push(arg);
    } else if (name === 'c' || name === 'config' || name === 'reporter') {
      throw new UsageError(`${arg}: the gate sets Playwright's config and reporters itself`);
    } else {
      throw new UsageError(`unknown option ${arg} (cgs-conformance --help lists them; after -- anything goes to Playwright as is)`);
    }
  }

  const env: Record<string, string> = {};
  const baseUrl = values.get('base-url');
  if (baseUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new UsageError(`--base-url ${baseUrl} is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--base-url must be http or https, not ${url.protocol}`);
    env['CONFORMANCE_BASE_URL'] = baseUrl.replace(/\/+$/, '');
  }
  const keys = values.has('keys') ? keysValue('keys', values.get('keys')!, cwd, readFile) : undefined;
  if (keys) env['CONFORMANCE_KEYS'] = keys.text;
  const keysB = values.has('keys-b') ? keysValue('keys-b', values.get('keys-b')!, cwd, readFile) : undefined;
  if (keysB) env['CONFORMANCE_KEYS_B'] = keysB.text;
  if ((keys || keysB) && baseUrl === undefined && !environment['CONFORMANCE_BASE_URL']) throw new UsageError('--keys and --keys-b are keys of the --base-url target: give --base-url too');
  if (flags.has('allow-spend')) env['CONFORMANCE_ALLOW_SPEND'] = '1';
  for (const [flag, variable] of [
    ['control-token', 'CONFORMANCE_CONTROL_TOKEN'],
    ['hooks-token', 'CONFORMANCE_HOOKS_TOKEN'],
  ] as const) {
    const token = values.get(flag);
    if (token === undefined) continue;
    if (token === '') throw new UsageError(`--${flag} is empty`);
    env[variable] = token;
  }
  const hooksUrl = values.get('hooks-url');
  if (hooksUrl !== undefined) {
    if (!/^https?:\/\/[^/]/.test(hooksUrl)) throw new UsageError(`--hooks-url is an http or https URL, not ${hooksUrl}`);
    env['CONFORMANCE_HOOKS_URL'] = hooksUrl.replace(/\/+$/, '');
  }
  if (flags.has('real-time')) env['CONFORMANCE_REAL_TIME'] = '1';
  const budget = values.get('real-time-budget');
  if (budget !== undefined) {
    if (!/^[1-9]\d*$/.test(budget)) throw new UsageError(`--real-time-budget is a whole number of seconds, not ${budget}`);
    env['CONFORMANCE_REAL_TIME_BUDGET'] = budget;
  }
  const reporter = values.get('reporter') ?? 'dot';
  if (!CONSOLE_REPORTERS.has(reporter)) {
    throw new UsageError(`--reporter is list, dot or line (the HTML, JUnit and rules reports are always written to --report-dir), not ${reporter}`);
  }
  env['CONFORMANCE_CONSOLE_REPORTER'] = reporter;
  // The rules reporter leaves the failures by cause to the gate's summary (printed last).
  env['CONFORMANCE_GATE'] = '1';
  const reportDir = resolve(cwd, values.get('report-dir') ?? 'conformance-report');
  env['CONFORMANCE_REPORT_DIR'] = reportDir;

  if (required.length === 0 && environment['CONFORMANCE_REQUIRE']) required.push(...environment['CONFORMANCE_REQUIRE'].split(',').map((v) => v.trim()).filter(Boolean));
  for (const requirement of required) {
    if (!REQUIREMENT.test(requirement)) throw new UsageError(`--require is pinned, hook:NAME or key-profile:NAME, not ${requirement}`);
  }
  const requirements: Requirements = {
    pinned: required.includes('pinned'),
    hooks: [...new Set(required.filter((r) => r.startsWith('hook:')).map((r) => r.slice('hook:'.length)))],
    keyProfiles: [...new Set(required.filter((r) => r.startsWith('key-profile:')).map((r) => r.slice('key-profile:'.length)))],
  };
  if (required.length > 0) env['CONFORMANCE_REQUIRE'] = [...new Set(required)].join(',');

  // The rules reporter lists the tests' rules instead of judging them (nothing runs).
  const list = passthrough.includes('--list');
  if (list) env['CONFORMANCE_LIST'] = '1';
  let area: ConformancePlan['area'];
  const areaList = values.get('area') ?? (environment['CONFORMANCE_AREA'] || undefined);
  if (areaList !== undefined) {
    try {
      area = { list: areaList.split(',').map((a) => a.trim()).filter(Boolean).join(','), resources: expandAreas(areaList) };
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    env['CONFORMANCE_AREA'] = area.list;
    // A run skips the tests outside the areas (fixtures/index.ts), so that the report names their
    // rules "outside --area"; a listing leaves them out, to show what a run would judge.
    const outside = outsideGrep(area.resources);
    if (list && outside !== undefined) grepInvert.push(outside);
  }
  const playwrightArgs: string[] = [];
  const shard = values.get('shard');
  if (shard !== undefined) {
    const parts = /^(\d+)\/(\d+)$/.exec(shard);
    if (!parts || Number(parts[1]) < 1 || Number(parts[1]) > Number(parts[2])) throw new UsageError(`--shard is I/N with 1 ≤ I ≤ N, not ${shard}`);
    playwrightArgs.push(`--shard=${shard}`);
  }
  const maxFailures = values.get('max-failures') ?? (passthrough.includes('-x') ? '1' : String(DEFAULT_MAX_FAILURES));
  if (!/^\d+$/.test(maxFailures)) throw new UsageError(`--max-failures is a whole number (0: judge every test), not ${maxFailures}`);
  if (!passthrough.includes('-x')) playwrightArgs.push(`--max-failures=${maxFailures}`);
  if (flags.has('pinned-only')) grepInvert.unshift('@assumed');
  if (grepInvert.length === 1) playwrightArgs.push(`--grep-invert=${grepInvert[0]}`);
  else if (grepInvert.length > 1) playwrightArgs.push(`--grep-invert=${grepInvert.map((g) => `(?:${g})`).join('|')}`);
  playwrightArgs.push(...passthrough);

  const targetUrl = env['CONFORMANCE_BASE_URL'] ?? environment['CONFORMANCE_BASE_URL']?.replace(/\/+$/, '');
  const fromEnvironment = (name: string): KeyProfiles[] | undefined => (environment[name] ? parseKeys(name, environment[name]!) : undefined);
  const controlToken = env['CONFORMANCE_CONTROL_TOKEN'] ?? (environment['CONFORMANCE_CONTROL_TOKEN'] || undefined);
  const target: TargetPlan | undefined = targetUrl
    ? {
        baseUrl: targetUrl,
        keys: keys?.keys ?? fromEnvironment('CONFORMANCE_KEYS'),
        keysB: keysB?.keys ?? fromEnvironment('CONFORMANCE_KEYS_B'),
        controlToken,
        hooksUrl: env['CONFORMANCE_HOOKS_URL'] ?? (environment['CONFORMANCE_HOOKS_URL'] || undefined),
        hooksToken: env['CONFORMANCE_HOOKS_TOKEN'] ?? (environment['CONFORMANCE_HOOKS_TOKEN'] || undefined) ?? controlToken,
      }
    : undefined;
  return {
    env,
    playwrightArgs,
    reportDir,
    help: flags.has('help'),
    requirements,
    target,
    sharded: shard !== undefined,
    allowSpend: flags.has('allow-spend') || environment['CONFORMANCE_ALLOW_SPEND'] === '1',
    pinnedOnly: flags.has('pinned-only'),
    area,
    list,
  };
}
