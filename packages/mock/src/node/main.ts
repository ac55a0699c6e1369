/**
 * `npm start` (and `cgs-mock` of the package, packages/mock/bin/cgs-mock.ts): the command line of the stateful
 * mock (its flags: USAGE below). It reads and checks the flags, passes the document version in
 * (packages/contract/spec/api-versions.ts) and only then loads the server (serve.ts), whose modules read
 * packages/contract/spec/contract.ts when they load: nothing it imports statically reads the document
 * (scripts/layout.test.ts).
 */
import { parseArgs } from 'node:util';
import { chooseApiVersion, parseApiVersion } from '../../../contract/spec/api-versions.ts';
import { controlBindingRefusal } from '../../../mock-core/src/control/binding.ts';
import { parsePublicUrl } from '../../../mock-core/src/media/links.ts';
import { parseWithhold } from '../../../mock-core/src/hooks/withhold-flag.ts';
import { fail, integerFlag } from './cli.ts';

const USAGE = `usage: cgs-mock [options]   (npx cgs-mock where it is installed; npm start -- in the repository)

The stateful mock of the Creative Generation Service API at http://HOST:PORT/api/public/v1, its
control plane at /__mock, the conformance hooks at /__hooks, the console at /console/, the documents
at /docs/; prints the demo account's keys.

  --port N                  port to listen on; 0 picks a free one (default 4010; env PORT)
  --host H                  address to bind (default 127.0.0.1; env HOST)
  --seed N                  seed of the demo data and demo keys: the same seed, the same keys (default 42)
  --clock real|manual       real time, or time that moves only by POST /__mock/clock (default real, or the state file's)
  --state FILE              keep the state in FILE: each write journaled (FILE.journal) before its answer, one mock per file (default: none)
  --scenario FILE           make the accounts of a scenario file (YAML or JSON, docs/frontend.md) and print their keys (default: none)
  --defect NAME             start with an injected contract violation; repeatable or comma-separated (default: none)
  --response-cache on|off   keep the bytes of cacheable reads until the account changes (default on)
  --public-url URL          origin and path prefix handed out in media URLs (default: where it listens; env PUBLIC_URL)
  --control-token TOKEN     require Authorization: Bearer TOKEN on /__mock and /__hooks (default: none; env CGS_CONTROL_TOKEN)
  --insecure-control        allow a non-loopback --host without a control token (default: refused)
  --cors on|off             answer CORS preflights and let pages of other origins read answers (default on)
  --cors-origin ORIGIN,...  only these origins on the API, and the pages that may use /__mock, /__hooks, /console/; comma-separated or repeated (default: any origin on the API, the mock's own on its planes)
  --allowed-host NAME,...   a further Host /__mock, /__hooks and /console/ answer (tunnel, container; .example.test: it and its subdomains); repeatable (default: none; loopback names, IP addresses and --public-url's host always)
  --api-version current|next  the document served: next is the pending version (default current; env MOCK_API_VERSION)
  --hooks-withhold LIST     /__hooks serves and lists less, as a partial target: a hook, actions:NAME, operations[:ID], kinds:NAME, faults:NAME, a flag, data (GET /__hooks lists what is served); comma-separated or repeated (default: none)
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
  'allowed-host'?: string[];
  'api-version'?: string;
  'hooks-withhold'?: string[];
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
      'allowed-host': { type: 'string', multiple: true },
      'api-version': { type: 'string' },
      'hooks-withhold': { type: 'string', multiple: true },
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
try {
  chooseApiVersion(parseApiVersion(values['api-version'] ?? (process.env.MOCK_API_VERSION || undefined), '--api-version'));
} catch (error) {
  fail((error as Error).message);
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
const allowedHosts = (values['allowed-host'] ?? []).flatMap((list) => list.split(',')).map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
for (const name of allowedHosts) {
  // A host name as the Host header carries it, without port: `tunnel.example.test`, `.example.test`, `mock`.
  if (!/^\.?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/.test(name)) fail(`--allowed-host takes host names such as tunnel.example.test or .example.test (no scheme, no port), not ${JSON.stringify(name)}`);
}
const controlToken = values['control-token'] ?? (process.env.CGS_CONTROL_TOKEN || undefined);
if (controlToken !== undefined && !/^[\x21-\x7e]{16,512}$/.test(controlToken)) {
  fail('--control-token (or CGS_CONTROL_TOKEN) must be 16 to 512 visible ASCII characters without spaces (it is sent as a bearer token)');
}
const controlRefusal = controlBindingRefusal(host, controlToken, values['insecure-control'] === true);
if (controlRefusal) fail(controlRefusal);

let hooksWithhold: string[] = [];
try {
  hooksWithhold = parseWithhold(values['hooks-withhold'] ?? []);
} catch (error) {
  fail((error as Error).message);
}

const { serve } = await import('./serve.ts');
await serve({
  port,
  host,
  seedFlag,
  clock: values.clock as 'real' | 'manual' | undefined,
  responseCache,
  publicUrl,
  cors,
  corsOrigins,
  allowedHosts,
  defects: values.defect ?? [],
  statePath: values.state,
  scenarioFile: values.scenario,
  controlToken,
  hooksWithhold,
});
