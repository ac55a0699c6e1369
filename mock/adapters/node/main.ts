/**
 * `npm start` (and `cgs-mock` of the package, bin/cgs-mock.ts): serve the stateful mock at http://HOST:PORT/api/public/v1, with its control plane
 * under /__mock, and print the demo account's keys.
 *
 *   --port N          port (env PORT, default 4010; 0 picks a free one)
 *   --host H          address to bind (env HOST, default 127.0.0.1)
 *   --seed N          seed of the demo data and of the demo keys (default 42): the same seed gives
 *                     the same keys on every start
 *   --clock MODE      real | manual (default real, or the mode saved in the state file)
 *   --state FILE      load FILE at start when it exists, save it on SIGINT/SIGTERM and on
 *                     POST /__mock/state/save (atomically)
 *   --scenario FILE   make the accounts of a scenario file (YAML or JSON, spec/schemas/scenario.schema.json,
 *                     docs/frontend.md) after the demo account, and print their keys; a bad file stops
 *                     the start with each error's line and field
 *   --defect NAME     start with an injected contract violation (repeatable, or comma-separated)
 *   --api-version current|next
 *                     the document served (env MOCK_API_VERSION; default current): next is the
 *                     pending version, spec/overlays/next.yaml applied (mock/adapters/node/api-version.ts)
 *   --response-cache on|off
 *                     keep the bytes of cacheable reads until the account changes (default on;
 *                     mock/pipeline/response-cache.ts); off computes every answer
 *   --public-url URL  the origin (and path prefix) media URLs are handed out on, when the mock is
 *                     reached through another host or port (default: the origin it listens on;
 *                     env PUBLIC_URL)
 *   --control-token T require `Authorization: Bearer T` on every request under /__mock (env
 *                     CGS_CONTROL_TOKEN); the public API is not affected
 *   --insecure-control
 *                     allow binding an address other than loopback without a control token
 *   --cors on|off     answer CORS preflights and let pages on other origins read every answer
 *                     (default on; mock/web/cors.ts)
 *   --cors-origin LIST
 *                     only these origins (comma-separated or repeated, `http://localhost:3000`);
 *                     default: any origin
 */
// First: it chooses the document before spec/contract.ts loads.
import './api-version.ts';
import { parseArgs } from 'node:util';
import { apiVersion, document } from '../../../spec/contract.ts';
import { buildMock } from './app.ts';
import { Clock, type ClockMode } from '../../core/clock.ts';
import { controlBindingRefusal, isLoopback } from '../../control/binding.ts';
import { controlRoutes } from '../../control/routes.ts';
import { resumeGeneration } from '../../domain/runs/resume.ts';
import { parsePublicUrl } from '../../media/links.ts';
import { DefectNameError, parseDefects } from '../../core/defects.ts';
import { loadStateFile, PersistenceError, restoreState, saveStateFile, type StateSnapshot } from './persistence.ts';
import { DEMO_ACCOUNT_ID, demoKeys, seedDemo } from '../../seed/account.ts';
import { dispatchControl } from '../../control/routes.ts';
import { loadScenario, ScenarioError, type ScenarioLoaded } from '../../scenario/apply.ts';
import { readFileSync } from 'node:fs';
import { Store } from '../../core/store.ts';
import { DOCS_PATH } from '../../web/index.ts';

function fail(message: string, code = 2): never {
  console.error(`mock: ${message}`);
  process.exit(code);
}

function integerFlag(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) fail(`--${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  return value;
}

const USAGE = `usage: cgs-mock (or npm start --) [options]

The stateful mock of the Creative Generation Service API at http://HOST:PORT/api/public/v1, its
control plane at /__mock, the conformance hooks at /__hooks, the console at /console/, the documents
at /docs/; prints the demo account's keys.

  --port N                  port to listen on; 0 picks a free one (default 4010; env PORT)
  --host H                  address to bind (default 127.0.0.1; env HOST)
  --seed N                  seed of the demo data and demo keys: the same seed, the same keys (default 42)
  --clock real|manual       real time, or time that moves only by POST /__mock/clock (default real, or the state file's)
  --state FILE              load FILE at start when it exists, save it on exit and on POST /__mock/state/save (default: none)
  --scenario FILE           make the accounts of a scenario file (YAML or JSON, docs/frontend.md) and print their keys (default: none)
  --defect NAME             start with an injected contract violation; repeatable or comma-separated (default: none)
  --response-cache on|off   keep the bytes of cacheable reads until the account changes (default on)
  --public-url URL          origin and path prefix handed out in media URLs (default: where it listens; env PUBLIC_URL)
  --control-token TOKEN     require Authorization: Bearer TOKEN on /__mock and /__hooks (default: none; env CGS_CONTROL_TOKEN)
  --insecure-control        allow a non-loopback --host without a control token (default: refused)
  --cors on|off             answer CORS preflights and let pages of other origins read answers (default on)
  --cors-origin ORIGIN,...  only these origins; comma-separated or repeated (default: any origin)
  --api-version current|next  the document served: next is the pending version (default current; env MOCK_API_VERSION)
  --help                    print this help and exit`;

let values: {
  help?: boolean;
  port?: string;
  host?: string;
  seed?: string;
  clock?: string;
  state?: string;
  scenario?: string;
  defect?: string[];
  'response-cache'?: string;
  'control-token'?: string;
  'insecure-control'?: boolean;
  'public-url'?: string;
  cors?: string;
  'cors-origin'?: string[];
  'api-version'?: string;
};
try {
  ({ values } = parseArgs({
    options: {
      help: { type: 'boolean' },
      port: { type: 'string' },
      host: { type: 'string' },
      seed: { type: 'string' },
      clock: { type: 'string' },
      state: { type: 'string' },
      scenario: { type: 'string' },
      defect: { type: 'string', multiple: true },
      'response-cache': { type: 'string' },
      'public-url': { type: 'string' },
      'control-token': { type: 'string' },
      'insecure-control': { type: 'boolean' },
      cors: { type: 'string' },
      'cors-origin': { type: 'string', multiple: true },
      'api-version': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (error) {
  fail(`${(error as Error).message}\n${USAGE}`);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

// An empty PORT or HOST counts as unset.
const port = integerFlag('port', values.port ?? (process.env.PORT || '4010'), 0, 65535);
const host = values.host ?? (process.env.HOST || '127.0.0.1');
const seedFlag = values.seed === undefined ? undefined : integerFlag('seed', values.seed, 0, 2147483647);
if (values.clock !== undefined && values.clock !== 'real' && values.clock !== 'manual') fail(`--clock is real or manual, not ${JSON.stringify(values.clock)}`);
const responseCache = values['response-cache'] ?? 'on';
if (responseCache !== 'on' && responseCache !== 'off') fail(`--response-cache is on or off, not ${JSON.stringify(responseCache)}`);
const publicUrlFlag = values['public-url'] ?? (process.env.PUBLIC_URL || undefined);
const publicUrl = publicUrlFlag === undefined ? undefined : parsePublicUrl(publicUrlFlag);
if (publicUrl instanceof Error) fail(publicUrl.message);
const cors = values.cors ?? 'on';
if (cors !== 'on' && cors !== 'off') fail(`--cors is on or off, not ${JSON.stringify(cors)}`);
const corsOrigins = (values['cors-origin'] ?? []).flatMap((list) => list.split(',')).map((origin) => origin.trim()).filter((origin) => origin !== '');
for (const origin of corsOrigins) {
  // An origin is exactly what a browser sends: scheme, host and port, no path, no trailing slash.
  let parsed: URL | undefined;
  try {
    parsed = new URL(origin);
  } catch {
    parsed = undefined;
  }
  if (!parsed || parsed.origin !== origin) fail(`--cors-origin takes origins such as http://localhost:3000, not ${JSON.stringify(origin)}`);
}
if (cors === 'off' && corsOrigins.length > 0) fail('--cors-origin has no effect with --cors off');
let defects: Set<string>;
try {
  defects = parseDefects(values.defect ?? []);
} catch (error) {
  if (error instanceof DefectNameError) fail(error.message);
  throw error;
}
const statePath = values.state;
const controlToken = values['control-token'] ?? (process.env.CGS_CONTROL_TOKEN || undefined);
if (controlToken !== undefined && !/^[\x21-\x7e]{16,512}$/.test(controlToken)) {
  fail('--control-token (or CGS_CONTROL_TOKEN) must be 16 to 512 visible ASCII characters without spaces (it is sent as a bearer token)');
}
const controlRefusal = controlBindingRefusal(host, controlToken, values['insecure-control'] === true);
if (controlRefusal) fail(controlRefusal);

// The state file, when there is one: a file that cannot be read stops the start, so that it is
// never overwritten on shutdown by a state that did not come from it.
let snapshot: StateSnapshot | undefined;
if (statePath !== undefined) {
  try {
    snapshot = loadStateFile(statePath);
  } catch (error) {
    fail(`cannot load --state ${statePath}: ${(error as Error).message}`, 1);
  }
}

const clockMode: ClockMode = (values.clock as ClockMode | undefined) ?? snapshot?.clock.mode ?? 'real';
const clock = new Clock({ mode: clockMode, ...(clockMode === 'manual' && snapshot ? { start: snapshot.clock.epochMs } : {}) });
const store = new Store();
if (snapshot) {
  try {
    clock.restoreAccountOffsets(restoreState(store, snapshot).accountOffsetsMs);
  } catch (error) {
    if (error instanceof PersistenceError) fail(`cannot load --state ${statePath}: ${error.message}`, 1);
    throw error;
  }
  // Real time resumes from the saved reading when that is later than now: time never runs backwards
  // for the saved state (only mock/core/clock.ts reads the wall clock).
  const ahead = snapshot.clock.epochMs - clock.now();
  if (clockMode === 'real' && ahead > 0) clock.advance(ahead / 1000);
}

const savedDemo = store.accounts.get(DEMO_ACCOUNT_ID);
const seed = savedDemo?.seed ?? seedFlag ?? 42;
if (savedDemo && seedFlag !== undefined && seedFlag !== savedDemo.seed) {
  console.warn(`mock: the state file's demo account has seed ${savedDemo.seed}; --seed ${seedFlag} applies after POST /__mock/reset`);
}
const resetSeed = seedFlag ?? seed;

const { app, services } = buildMock({
  clock,
  store,
  defects,
  responseCache: { enabled: responseCache === 'on' },
  ...(publicUrl !== undefined ? { publicUrl } : {}),
  web: { cors: { enabled: cors === 'on', origins: corsOrigins } },
  control: {
    onReset: (s) => seedDemo(s, resetSeed),
    ...(statePath !== undefined ? { stateFile: statePath } : {}),
    ...(controlToken !== undefined ? { controlToken } : {}),
  },
});
// The clock's tasks are not saved: runs and upscales in flight pick up where they stopped (webhook
// deliveries too: buildMock's WebhookService re-arms them, mock/events/webhooks.ts).
if (snapshot) resumeGeneration(services.store, services.clock, services.events);

// Open the port first (serve within 2 s of launch), then create the demo account and print its
// keys: nobody can use a demo key before it is printed.
try {
  await app.listen({ port, host });
} catch (error) {
  fail(`cannot listen on ${host}:${port}: ${(error as Error).message}`, 1);
}
if (!savedDemo) await seedDemo(services, seed);
let scenario: ScenarioLoaded | undefined;
if (values.scenario !== undefined) {
  const file = values.scenario;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    fail(`cannot read --scenario ${file}: ${(error as Error).message}`, 1);
  }
  const authorization = controlToken !== undefined ? `Bearer ${controlToken}` : undefined;
  try {
    scenario = await loadScenario({ services, dispatch: (request) => dispatchControl(services, {}, { ...request, headers: { authorization } }) }, text, file);
  } catch (error) {
    if (!(error instanceof ScenarioError)) throw error;
    const lines = error.errors.map((e) => `  ${file}${e.line !== undefined ? `:${e.line}:${e.column ?? 1}` : ''} ${e.field}: ${e.message}`);
    fail(`${error.message}\n${lines.join('\n')}`, 1);
  }
}
controlRoutes(); // read spec/mock-control.yaml now rather than on the first control request
const address = app.server.address();
const boundPort = typeof address === 'object' && address ? address.port : port;
const origin = `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;
console.log(`Creative Generation Service mock listening on ${origin}/api/public/v1 (clock: ${clock.mode}, seed: ${seed}, API ${String(document.info.version)}${apiVersion === 'next' ? ': the pending version, spec/overlays/next.yaml' : ''})`);
if (snapshot) console.log(`State loaded from ${statePath} (${store.accounts.size} accounts, clock ${clock.nowIso()})`);
else if (statePath !== undefined) console.log(`State file ${statePath} does not exist yet; it is written on shutdown and on POST /__mock/state/save`);
if (defects.size > 0) console.log(`Injected defects: ${[...defects].join(', ')}`);
console.log(`Demo account ${DEMO_ACCOUNT_ID} keys (stable for seed ${seed}):`);
for (const [name, key] of demoKeys(services, seed)) console.log(`  ${name.padEnd(17)} ${key}`);
if (scenario) {
  console.log(`Scenario ${values.scenario}: ${scenario.accounts.length} account(s), ${scenario.steps} step(s), clock ${scenario.clock.now}`);
  for (const account of scenario.accounts) {
    console.log(`  ${account.accountId}${account.as ? ` (${account.as})` : ''} ${account.name}`);
    for (const [name, key] of Object.entries(account.keys)) console.log(`    ${name.padEnd(17)} ${key.key}${key.state !== 'active' ? ` (${key.state})` : ''}`);
  }
}
console.log(`Control plane: ${origin}/__mock (contract: spec/mock-control.yaml${controlToken !== undefined ? '; needs the control token as a bearer token' : ''})`);
if (controlToken === undefined && !isLoopback(host)) console.warn(`mock: --insecure-control: anyone who can reach ${host}:${boundPort} can reset this mock, mint keys and read webhook secrets through /__mock`);
console.log(`Media (images, videos, player pages; no key needed): ${services.store.publicOrigin}/media/`);
console.log(`API reference: ${origin}${DOCS_PATH} (both documents; "Try it out" calls this mock)`);
console.log(cors === 'off' ? 'CORS: off (pages on other origins are refused)' : `CORS: on for ${corsOrigins.length > 0 ? corsOrigins.join(', ') : 'any origin'}`);
console.log(`Console: ${origin}/console/${controlToken !== undefined ? ' (with the control token: open /console/?token=<token> once)' : ''}`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1); // a second signal: stop now
    stopping = true;
    let code = 0;
    if (statePath !== undefined) {
      try {
        const saved = saveStateFile(statePath, services.store, services.clock);
        console.log(`State saved to ${saved.path} (${saved.accounts} accounts, ${saved.bytes} bytes)`);
      } catch (error) {
        console.error(`mock: saving --state ${statePath} failed:`, error);
        code = 1;
      }
    }
    void app.close().then(
      () => process.exit(code),
      () => process.exit(1),
    );
  });
}
