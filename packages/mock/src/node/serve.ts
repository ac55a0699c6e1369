/**
 * The node server of the mock, started from the checked flags of the command line (main.ts): the
 * state file, the clock, the services (app.ts), the demo account and a scenario, what it prints,
 * and the --state journal, its lock and the save on SIGINT/SIGTERM/SIGHUP. Loaded by main.ts after it passed the document version in.
 */
import { readFileSync, statSync } from 'node:fs';
import { apiVersion, document } from '../../../contract/spec/contract.ts';
import { buildMock } from './app.ts';
import { fail } from './cli.ts';
import { Clock, realTimeout, type ClockMode } from '../../../mock-core/src/core/clock.ts';
import { isLoopback } from '../../../mock-core/src/control/binding.ts';
import { controlRoutes, dispatchControl } from '../../../mock-core/src/control/routes.ts';
import { resumeGeneration } from '../../../mock-core/src/domain/runs/resume.ts';
import { DefectNameError, parseDefects } from '../../../mock-core/src/events/defects.ts';
import { PersistenceError, restoreDecoded, type DecodedState } from './persistence.ts';
import { acquireStateLock, journalPath, loadDurableState, StateJournal } from './state-journal.ts';
import { DEMO_ACCOUNT_ID, demoKeys, seedDemo } from '../../../mock-core/src/seed/account.ts';
import { scenarioTextLimit, type ScenarioLoaded } from '../../../mock-core/src/scenario/apply.ts';
import { alreadyMadeLine, scenarioAtStart, scenarioRefusal } from '../../../mock-core/src/scenario/start.ts';
import { Store } from '../../../mock-core/src/domain/store.ts';
import { DOCS_PATH } from '../web/index.ts';

/** The command line's flags, checked (main.ts); the defects' names are checked here. */
export interface ServeFlags {
  port: number;
  host: string;
  seedFlag: number | undefined;
  clock: ClockMode | undefined;
  responseCache: 'on' | 'off';
  publicUrl: string | undefined;
  cors: 'on' | 'off';
  corsOrigins: string[];
  /** `--allowed-host` (packages/mock/src/web/guard.ts). */
  allowedHosts: string[];
  defects: string[];
  statePath: string | undefined;
  scenarioFile: string | undefined;
  controlToken: string | undefined;
  /** `--hooks-withhold` (packages/mock-core/src/hooks/withhold.ts). */
  hooksWithhold?: readonly string[];
}

export async function serve(flags: ServeFlags): Promise<void> {
  const { port, host, seedFlag, responseCache, publicUrl, cors, corsOrigins, allowedHosts, statePath, controlToken } = flags;
  let defects: Set<string>;
  try {
    defects = parseDefects(flags.defects);
  } catch (error) {
    if (error instanceof DefectNameError) fail(error.message);
    throw error;
  }
  // The state file, when there is one (D248-D250): its lock first (a second mock on the same file
  // is refused), then the file and its journal replayed over it. A file that cannot be read stops
  // the start, so that it is never overwritten by a state that did not come from it.
  let loaded: DecodedState | undefined;
  let releaseLock: (() => void) | undefined;
  if (statePath !== undefined) {
    try {
      releaseLock = acquireStateLock(statePath);
    } catch (error) {
      fail(`cannot use --state ${statePath}: ${(error as Error).message}`, 1);
    }
    process.once('exit', releaseLock);
    try {
      const durable = loadDurableState(statePath);
      loaded = durable.state;
      if (durable.tornBytes > 0) console.warn(`mock: the journal of --state ${statePath} ended in an incomplete record (${durable.tornBytes} bytes, a crash mid-write): dropped; the ${durable.replayed} records before it are kept`);
    } catch (error) {
      fail(`cannot load --state ${statePath}: ${(error as Error).message}`, 1);
    }
  }

  const clockMode: ClockMode = flags.clock ?? loaded?.clock.mode ?? 'real';
  const clock = new Clock({ mode: clockMode, ...(clockMode === 'manual' && loaded ? { start: loaded.clock.epochMs } : {}) });
  const store = new Store();
  if (loaded) {
    try {
      clock.restoreAccountOffsets(restoreDecoded(store, loaded).accountOffsetsMs);
    } catch (error) {
      if (error instanceof PersistenceError) fail(`cannot load --state ${statePath}: ${error.message}`, 1);
      throw error;
    }
    // Real time resumes from the saved reading when that is later than now: time never runs backwards
    // for the saved state (only packages/mock-core/src/core/clock.ts reads the wall clock).
    const ahead = loaded.clock.epochMs - clock.now();
    if (clockMode === 'real' && ahead > 0) clock.advance(ahead / 1000);
  }
  const snapshot = loaded;

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
    web: { cors: { enabled: cors === 'on', origins: corsOrigins }, allowedHosts },
    control: {
      onReset: (s) => seedDemo(s, resetSeed),
      ...(statePath !== undefined ? { stateFile: statePath, saveStateFile: () => journal!.compact() } : {}),
      ...(controlToken !== undefined ? { controlToken } : {}),
      ...(flags.hooksWithhold?.length ? { hooksWithhold: flags.hooksWithhold } : {}),
    },
  });
  // The clock's tasks are not saved: runs and upscales in flight pick up where they stopped (webhook
  // deliveries too: buildMock's WebhookService re-arms them, packages/mock-core/src/events/webhooks.ts).
  if (snapshot) resumeGeneration(services.store, services.clock, services.events);
  // The journal: the loaded state compacted into the state file, then every write journaled (D248).
  let journal: StateJournal | undefined;
  if (statePath !== undefined) {
    journal = new StateJournal(statePath, services.store, services.clock, { logError: services.logError });
    try {
      journal.compact();
    } catch (error) {
      fail(`cannot write --state ${statePath}: ${(error as Error).message}`, 1);
    }
    journal.watch(services);
    services.durability = journal;
  }

  // Open the port first (serve within 2 s of launch), then create the demo account and print its
  // keys: nobody can use a demo key before it is printed.
  try {
    await app.listen({ port, host });
  } catch (error) {
    fail(`cannot listen on ${host}:${port}: ${(error as Error).message}`, 1);
  }
  if (!savedDemo) await seedDemo(services, seed);
  let scenario: ScenarioLoaded | undefined;
  let scenarioKept: string | undefined;
  if (flags.scenarioFile !== undefined) {
    // D254: a file larger than the text limit could ever be (4 bytes a character) is not read; D255: made once into a --state.
    const file = flags.scenarioFile;
    let text: string;
    try {
      if (statSync(file).size > 4 * scenarioTextLimit()) throw new Error(`it is larger than ${scenarioTextLimit()} characters can be`);
      text = readFileSync(file, 'utf8');
    } catch (error) {
      fail(`cannot read --scenario ${file}: ${(error as Error).message}`, 1);
    }
    const authorization = controlToken !== undefined ? `Bearer ${controlToken}` : undefined;
    try {
      const outcome = await scenarioAtStart({ services, startsMock: true, dispatch: (request) => dispatchControl(services, {}, { ...request, headers: { authorization } }) }, text, file, statePath !== undefined);
      if ('made' in outcome) scenario = outcome.made;
      else scenarioKept = alreadyMadeLine(file, outcome);
    } catch (error) {
      fail(scenarioRefusal(file, error), 1);
    }
  }
  await journal?.flush(); // the demo account and the scenario are on disk before the mock says it is ready
  // SIGINT, SIGTERM and SIGHUP (a closed terminal): save, close, exit, within SHUTDOWN_MS (D249).
  // In place before the mock says it is ready: a signal right after the ready lines is handled, not
  // the default death (a script that stops the mock as soon as it reads them).
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1); // a second signal: stop now
      stopping = true;
      let code = 0;
      if (journal !== undefined) {
        try {
          const saved = journal.close();
          if (saved) console.log(`State saved to ${saved.path} (${saved.accounts} accounts, ${saved.bytes} bytes)`);
        } catch (error) {
          console.error(`mock: saving --state ${statePath} failed (the journal beside it still holds every acknowledged write):`, error);
          code = 1;
        }
      }
      releaseLock?.();
      // Connections kept alive, a stream or a webhook in flight do not hold the exit.
      realTimeout(SHUTDOWN_MS, () => process.exit(code));
      app.server.closeAllConnections?.();
      void app.close().then(
        () => process.exit(code),
        () => process.exit(1),
      );
    });
  }
  controlRoutes(); // read packages/contract/spec/mock-control.yaml now rather than on the first control request
  const address = app.server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;
  console.log(`Creative Generation Service mock listening on ${origin}/api/public/v1 (clock: ${clock.mode}, seed: ${seed}, API ${String(document.info.version)}${apiVersion === 'next' ? ': the pending version, packages/contract/spec/overlays/next.yaml' : ''})`);
  if (snapshot) console.log(`State loaded from ${statePath} (${store.accounts.size} accounts, clock ${clock.nowIso()}); every write is journaled to ${journalPath(statePath!)} before it is answered`);
  else if (statePath !== undefined) console.log(`State file ${statePath} created; every write is journaled to ${journalPath(statePath)} before it is answered`);
  if (defects.size > 0) console.log(`Injected defects: ${[...defects].join(', ')}`);
  console.log(`Demo account ${DEMO_ACCOUNT_ID} keys (stable for seed ${seed}):`);
  for (const [name, key] of demoKeys(services, seed)) console.log(`  ${name.padEnd(17)} ${key}`);
  if (scenarioKept !== undefined) console.log(scenarioKept);
  if (scenario) {
    console.log(`Scenario ${flags.scenarioFile}: ${scenario.accounts.length} account(s), ${scenario.steps} step(s), clock ${scenario.clock.now}`);
    for (const account of scenario.accounts) {
      console.log(`  ${account.accountId}${account.as ? ` (${account.as})` : ''} ${account.name}`);
      for (const [name, key] of Object.entries(account.keys)) console.log(`    ${name.padEnd(17)} ${key.key}${key.state !== 'active' ? ` (${key.state})` : ''}`);
    }
  }
  console.log(`Control plane: ${origin}/__mock (contract: @creative-generation/contract/mock-control.yaml, and at ${origin}/docs/${controlToken !== undefined ? '; needs the control token as a bearer token' : ''})`);
  if (controlToken === undefined && !isLoopback(host)) console.warn(`mock: --insecure-control: anyone who can reach ${host}:${boundPort} can reset this mock, mint keys and read webhook secrets through /__mock`);
  console.log(`Media (images, videos, player pages; no key needed): ${services.store.publicOrigin}/media/`);
  console.log(`API reference: ${origin}${DOCS_PATH} (both documents; "Try it out" calls this mock)`);
  console.log(cors === 'off' ? 'CORS: off (pages on other origins are refused)' : `CORS: on for ${corsOrigins.length > 0 ? corsOrigins.join(', ') : 'any origin'} on the API`);
  console.log(
    `/__mock, /__hooks and /console/: pages of ${corsOrigins.length > 0 ? `${corsOrigins.join(', ')} and ` : ''}this origin only; Host: loopback names, IP addresses${publicUrl !== undefined ? `, ${new URL(publicUrl).hostname}` : ''}${allowedHosts.length > 0 ? `, ${allowedHosts.join(', ')}` : ''} (--allowed-host adds names)`,
  );
  console.log(`Console: ${origin}/console/${controlToken !== undefined ? ' (with the control token: open /console/?token=<token> once)' : ''}`);
}

/** How long a signal waits for the server to close before the process exits anyway. */
export const SHUTDOWN_MS = 2_000;
