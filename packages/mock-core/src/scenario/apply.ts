/**
 * Loading a scenario file (packages/contract/spec/schemas/scenario.schema.json, D130): the file is checked whole
 * against its schema first (nothing changes when it is wrong), then every part is made, in file
 * order, by the control plane's own operation (createAccount, createKey and expireKey,
 * createWebhookEndpoint, runAction, setClock...), through the same dispatcher that answers
 * /__mock. Every way in loads scenarios here: `--scenario FILE` (packages/mock/src/node/main.ts), the control
 * operation loadScenario (packages/mock-core/src/control/scenario.ts), the console (which calls that operation), and
 * `createMockHandlers({ scenario })` (packages/msw/src/msw.ts).
 *
 * Errors name the field as a path and, for text, its line and column. Everything that can be
 * known before making is checked first (D254): the text's size and aliases (source.ts), the whole
 * file against its schema, every `as` and every reference's name (names.ts). A refusal while making
 * (a key rule, an action that answers what `expect` does not allow, a reference into a step's
 * answer that is not there) stops the load and removes the accounts it made (their keys stop
 * authenticating, their scheduled work stops): a failed load leaves no account behind. A move of
 * the mock's clock (`clock` at the top) and webhook deliveries already sent cannot be taken back.
 */
import type { ErrorObject } from 'ajv';
import { controlRoutes } from '../../../contract/spec/generated/mock-control.ts';
import type { Scenario, ScenarioAccount } from '../../../contract/spec/generated/scenario.ts';
import schema from '../../../contract/spec/schemas/scenario.schema.json' with { type: 'json' };
import { sha256Hex } from '../../../contract/platform/crypto.ts';
import { controlDocument, schemaValidator } from '../control/document.ts';
import { LATEST_TIME_MS } from '../core/clock.ts';
import type { MockServices } from '../services/services.ts';
import { nameProblems } from './names.ts';
import { resolveReferences, ScenarioReferenceError } from './references.ts';
import { fieldOf, objectSource, parseScenarioText, ScenarioError, type ScenarioPath, type ScenarioProblem, type ScenarioSource } from './source.ts';
import { putOwn } from '../core/own.ts';

export { ScenarioError, type ScenarioProblem } from './source.ts';
export type { Scenario } from '../../../contract/spec/generated/scenario.ts';

/** Answers one control request (dispatchControl with the services and options bound). */
export type ControlDispatch = (request: { method: string; url: string; body?: string | undefined }) => Promise<{ status: number; body?: string }>; // what dispatchControl answers (packages/mock-core/src/control/routes.ts), read here without importing it back

/** Where a scenario is made: the control plane, and the services (for an account's catalog ids and the clock's room). */
export interface ScenarioTarget {
  dispatch: ControlDispatch;
  services: Pick<MockServices, 'store' | 'clock'>;
  /**
   * The scenario starts the mock (`--scenario`, `createMockHandlers({ scenario })`): a `clock.mode`
   * of the file sets the mock's clock. Loaded into a running mock, the mock's clock is everyone's and
   * a `mode` leaves it as it is (D253).
   */
  startsMock?: boolean;
}

/** A key as the load made it: the full key is shown here only (as createAccount and createKey show it). */
export interface LoadedKey {
  keyId: string;
  key: string;
  scopes: string[];
  state: 'active' | 'expired' | 'revoked';
}

export interface LoadedAccount {
  /** The account's `as`, when it has one. */
  as: string | null;
  accountId: string;
  name: string;
  /** The provisioned keys by scope name and `all`, then the scenario's keys by `as` (or name). */
  keys: Record<string, LoadedKey>;
}

export interface ScenarioLoaded {
  accounts: LoadedAccount[];
  /** Steps run, over every account. */
  steps: number;
  /** What each `as` of the file names: an account, a key, an endpoint, a step's answer body. */
  made: Record<string, unknown>;
  /** The clock after the load (getClock). */
  clock: { now: string; mode: string; pendingTasks: number; nextTaskAt: string | null };
}

type Operation = keyof typeof controlRoutes;

let validateScenario: ReturnType<typeof schemaValidator> | undefined;

/** Ajv's instance path as path segments (an index where the data holds an array). */
function pathOf(pointer: string, data: unknown): (string | number)[] {
  const out: (string | number)[] = [];
  let node = data;
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    const key: string | number = Array.isArray(node) && /^\d+$/.test(segment) ? Number(segment) : segment;
    out.push(key);
    node = typeof node === 'object' && node !== null ? (node as Record<string | number, unknown>)[key] : undefined;
  }
  return out;
}

function problemAt(source: ScenarioSource, path: ScenarioPath, message: string): ScenarioProblem {
  const at = source.locate(path);
  return { field: fieldOf(path), message, ...(at ? { line: at.line, column: at.column } : {}) };
}

/** The schema's errors, one per field, most specific first (a failed `if`/`oneOf` only when nothing inside says more). */
function schemaProblems(source: ScenarioSource, errors: readonly ErrorObject[]): ScenarioProblem[] {
  const structural = new Set(['oneOf', 'anyOf', 'allOf', 'if', 'not', 'then', 'else']);
  const ordered = [...errors].sort((a, b) => Number(structural.has(a.keyword)) - Number(structural.has(b.keyword)));
  const byField = new Map<string, ScenarioProblem>();
  for (const error of ordered) {
    const path = pathOf(error.instancePath, source.value);
    const params = error.params as Record<string, unknown>;
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'required') {
      path.push(String(params.missingProperty));
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      path.push(String(params.additionalProperty));
      message = 'is not a field here';
    } else if (error.keyword === 'enum') {
      message = `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    } else if (error.keyword === 'const') {
      message = `must be ${JSON.stringify(params.allowedValue)}`;
    }
    const field = fieldOf(path);
    if (structural.has(error.keyword) && [...byField.keys()].some((f) => f === field || f.startsWith(`${field}.`) || f.startsWith(`${field}[`))) continue;
    if (!byField.has(field)) byField.set(field, problemAt(source, path, message));
  }
  return [...byField.values()];
}

/** Checks the whole file; returns it typed, or throws a ScenarioError with every problem. */
export function checkScenario(source: ScenarioSource, name = 'the scenario'): Scenario {
  validateScenario ??= schemaValidator(schema);
  const problems: ScenarioProblem[] = [];
  if (!validateScenario(source.value)) problems.push(...schemaProblems(source, validateScenario.errors ?? []));
  // What the schema does not say: a step is an action or a move of the clock, not both.
  const value = source.value;
  const accounts = typeof value === 'object' && value !== null ? (value as { accounts?: unknown }).accounts : undefined;
  if (problems.length === 0 && Array.isArray(accounts)) {
    accounts.forEach((account: ScenarioAccount, a) => {
      account.steps?.forEach((step, s) => {
        const path = ['accounts', a, 'steps', s];
        if ((step.action === undefined) === (step.clock === undefined)) problems.push(problemAt(source, path, 'must have exactly one of `action` and `clock`'));
        else if (step.clock !== undefined && (step.as !== undefined || step.expect !== undefined)) problems.push(problemAt(source, path, '`as` and `expect` go with `action`, not with `clock`'));
      });
    });
  }
  if (problems.length > 0) throw new ScenarioError(`${name} does not follow the scenario schema (@creative-generation/contract/dist/spec/schemas/scenario.schema.json; ${problems.length} problem${problems.length === 1 ? '' : 's'}).`, problems);
  // Every `as` new and every reference's name made above it, before anything is made (D254).
  const names = nameProblems(value as Scenario).map((p) => problemAt(source, p.path, p.message));
  if (names.length > 0) throw new ScenarioError(`${name}: ${names.length} name${names.length === 1 ? '' : 's'} do${names.length === 1 ? 'es' : ''} not resolve; nothing was made.`, names);
  return value as Scenario;
}

let textLimit: number | undefined;

/** The longest scenario text parsed (characters): ScenarioLoad.text.maxLength of packages/contract/spec/mock-control.yaml, the one source (D254). */
export function scenarioTextLimit(): number {
  if (textLimit === undefined) {
    const schemas = (controlDocument()['components'] as { schemas: Record<string, { properties?: Record<string, { maxLength?: unknown }> }> }).schemas;
    const limit = schemas['ScenarioLoad']?.properties?.['text']?.maxLength;
    if (typeof limit !== 'number') throw new Error('packages/contract/spec/mock-control.yaml: ScenarioLoad.text has no maxLength');
    textLimit = limit;
  }
  return textLimit;
}

type ClockChange = NonNullable<Scenario['clock']>;

/**
 * The scenario's advances, for each account its own (the file's `clock` plus its steps'), must fit in
 * the `roomMs` the clock has left (D251): checked before anything is made, so a file of a thousand
 * ten-year steps is refused whole (an advance `toNextTask` is checked when it is made).
 */
function checkScenarioAdvances(source: ScenarioSource, scenario: Scenario, roomMs: number, name: string): void {
  const secondsOf = (change: ClockChange | undefined): number => change?.advanceSeconds ?? 0;
  const first = secondsOf(scenario.clock);
  const problems: ScenarioProblem[] = [];
  scenario.accounts.forEach((account, a) => {
    const total = first + (account.steps ?? []).reduce((sum, step) => sum + secondsOf(step.clock), 0);
    if (Math.round(total * 1000) > roomMs) {
      problems.push(problemAt(source, ['accounts', a, 'steps'], `the advances of this account add up to ${total} seconds; its clock can move ${Math.max(0, Math.floor(roomMs / 1000))} more before ${new Date(LATEST_TIME_MS).toISOString()}, the latest time the mock keeps (D251)`));
    }
  });
  if (problems.length > 0) throw new ScenarioError(`${name} moves the clock past the latest time the mock keeps; nothing was made.`, problems);
}

/** Text (YAML or JSON) or an already parsed object. */
export async function scenarioSource(input: string | object, name?: string): Promise<ScenarioSource> {
  return typeof input === 'string' ? parseScenarioText(input, name, scenarioTextLimit()) : objectSource(input);
}

/** What identifies a scenario's content (D255): the sha256 (hex) of its text, or of the object as JSON. */
export function scenarioHash(input: string | object): string {
  return sha256Hex(typeof input === 'string' ? input : JSON.stringify(input));
}

interface ControlProblemBody {
  detail?: string;
  code?: string;
  errors?: { field: string; message: string }[];
}

/**
 * Loads a scenario: checks it whole, then makes it part by part. `input` is YAML or JSON text or the
 * parsed object; `name` is what errors call it (a file name).
 */
export async function loadScenario({ dispatch, services, startsMock = false }: ScenarioTarget, input: string | object, name = 'the scenario'): Promise<ScenarioLoaded> {
  const source = await scenarioSource(input, name);
  const scenario = checkScenario(source, name);
  checkScenarioAdvances(source, scenario, LATEST_TIME_MS - services.clock.committedNow(), name);
  const createdAccounts: string[] = [];
  try {
    const loaded = await make(scenario, source, createdAccounts, { dispatch, services, startsMock }, name);
    services.store.scenarios.set(scenarioHash(input), { name, appliedAt: services.clock.nowIso(), accountIds: [...createdAccounts] });
    return loaded;
  } catch (error) {
    // Refused while making: what this load made goes (D254), newest first.
    for (const accountId of createdAccounts.reverse()) {
      services.store.removeAccount(accountId);
      services.clock.forAccount(accountId).forget();
    }
    if (error instanceof ScenarioError && createdAccounts.length > 0) {
      throw new ScenarioError(`${error.message} The ${createdAccounts.length} account${createdAccounts.length === 1 ? '' : 's'} it made ${createdAccounts.length === 1 ? 'was' : 'were'} removed.`, error.errors);
    }
    throw error;
  }
}

/** Makes a checked scenario part by part; each account made is pushed on `createdAccounts` as soon as it exists. */
async function make(scenario: Scenario, source: ScenarioSource, createdAccounts: string[], { dispatch, services, startsMock = false }: ScenarioTarget, name: string): Promise<ScenarioLoaded> {
  const names = new Map<string, unknown>();
  const made: Record<string, unknown> = {};
  let steps = 0;

  /** One control operation; a refusal is a ScenarioError on `path` (its fields under `bodyPath`). */
  const call = async (operation: Operation, params: Record<string, string>, body: unknown, path: ScenarioPath, bodyPath: ScenarioPath = path): Promise<unknown> => {
    const route = controlRoutes[operation];
    const url = route.path.replace(/\{([^{}]+)\}/g, (_m, p: string) => encodeURIComponent(params[p] ?? ''));
    const response = await dispatch({ method: route.method, url, body: body === undefined ? undefined : JSON.stringify(body) });
    const parsed: unknown = response.body === undefined ? undefined : JSON.parse(response.body);
    if (response.status >= 400) {
      const problem = (parsed ?? {}) as ControlProblemBody;
      const fields = problem.errors ?? [];
      const problems =
        fields.length > 0
          ? fields.map((e) => problemAt(source, [...bodyPath, ...e.field.split(/[.[\]]+/).filter((s) => s !== '' && s !== 'body').map((s) => (/^\d+$/.test(s) ? Number(s) : s))], e.message))
          : [problemAt(source, path, `${operation} answered ${response.status} ${problem.code ?? ''}: ${problem.detail ?? ''}`.trim())];
      throw new ScenarioError(`${name}: ${fieldOf(path)} was refused by ${operation} (${response.status}).`, problems);
    }
    return parsed;
  };
  const resolve = (value: unknown, path: ScenarioPath): unknown => {
    try {
      return resolveReferences(value, names, path);
    } catch (error) {
      if (error instanceof ScenarioReferenceError) throw new ScenarioError(`${name}: a reference names nothing.`, [problemAt(source, error.path, error.message)]);
      throw error;
    }
  };
  const remember = (as: string | undefined, value: unknown, path: ScenarioPath): void => {
    if (as === undefined) return;
    if (names.has(as)) throw new ScenarioError(`${name}: the name ${as} is used twice.`, [problemAt(source, [...path, 'as'], `${as} already names something above`)]);
    names.set(as, value);
    putOwn(made, as, value);
  };

  // D253: a scenario moves only its own accounts' clocks. `mode` sets the mock's clock only when the
  // scenario starts the mock; an advance (the file's own, then each `clock` step) moves the account.
  const clockOf = (change: ClockChange | undefined, path: ScenarioPath) => ({
    mode: async () => {
      if (change?.mode !== undefined && startsMock) await call('setClock', {}, { mode: change.mode }, path, path);
    },
    advance: async (accountId: string) => {
      const { advanceSeconds, toNextTask } = change ?? {};
      if (advanceSeconds !== undefined || toNextTask !== undefined) await call('advanceAccountClock', { accountId }, { advanceSeconds, toNextTask }, path, path);
    },
  });
  await clockOf(scenario.clock, ['clock']).mode();
  const accounts: LoadedAccount[] = [];
  for (const [a, spec] of scenario.accounts.entries()) {
    const at: ScenarioPath = ['accounts', a];
    const created = (await call('createAccount', {}, resolve(spec.account ?? {}, [...at, 'account']), [...at, 'account'])) as { accountId: string; keys: Record<string, { keyId: string; key: string; scopes: string[] }> };
    const accountId = created.accountId;
    createdAccounts.push(accountId);
    const state = (await call('getAccount', { accountId }, undefined, at)) as { name: string; keys: unknown[] };
    const loaded: LoadedAccount = { as: spec.as ?? null, accountId, name: state.name, keys: {} };
    for (const [keyName, key] of Object.entries(created.keys)) loaded.keys[keyName] = { keyId: key.keyId, key: key.key, scopes: key.scopes, state: 'active' };
    // `account`, `brands`, `products`: this account's own (the catalog's order), for references below.
    names.set('account', { ...created, name: state.name });
    // `brands`, `products`, `catalog` and `assets`: the account's ids as they are before each part.
    const account = services.store.accounts.get(accountId);
    const look = (): void => {
      const products = account ? [...account.products.values()] : [];
      const brands = account?.brands.ids() ?? [];
      names.set('brands', brands);
      names.set('products', products.map((p) => p.productId));
      names.set('catalog', brands.map((brandId) => ({ brandId, productIds: products.filter((p) => p.brandId === brandId).map((p) => p.productId) })));
      names.set('assets', account?.assets.ids() ?? []);
    };
    look();
    remember(spec.as, { ...created, name: state.name }, at);
    await clockOf(scenario.clock, ['clock']).advance(accountId);

    if (spec.settings) await call('updateSettings', { accountId }, resolve(spec.settings, [...at, 'settings']), [...at, 'settings']);
    if (spec.generation) await call('updateGeneration', { accountId }, resolve(spec.generation, [...at, 'generation']), [...at, 'generation']);
    for (const [k, entry] of (spec.keys ?? []).entries()) {
      const path = [...at, 'keys', k];
      const key = (await call('createKey', { accountId }, resolve(entry.key, [...path, 'key']), path, [...path, 'key'])) as { keyId: string; key: string; name: string; scopes: string[] };
      const keyState = entry.state ?? 'active';
      if (keyState === 'expired') await call('expireKey', { accountId, keyId: key.keyId }, undefined, [...path, 'state']);
      if (keyState === 'revoked') await call('revokeKey', { accountId, keyId: key.keyId }, undefined, [...path, 'state']);
      putOwn(loaded.keys, entry.as ?? key.name, { keyId: key.keyId, key: key.key, scopes: key.scopes, state: keyState });
      remember(entry.as, { ...key, state: keyState }, path);
    }
    if (spec.webhooks?.settings) await call('updateAccountWebhookSettings', { accountId }, resolve(spec.webhooks.settings, [...at, 'webhooks', 'settings']), [...at, 'webhooks', 'settings']);
    for (const [e, entry] of (spec.webhooks?.endpoints ?? []).entries()) {
      const path = [...at, 'webhooks', 'endpoints', e];
      const endpoint = await call('createWebhookEndpoint', { accountId }, resolve(entry.endpoint, [...path, 'endpoint']), path, [...path, 'endpoint']);
      remember(entry.as, endpoint, path);
    }
    for (const [s, step] of (spec.steps ?? []).entries()) {
      const path = [...at, 'steps', s];
      steps++;
      look();
      if (step.clock) {
        await clockOf(step.clock, [...path, 'clock']).mode();
        await clockOf(step.clock, [...path, 'clock']).advance(accountId);
        continue;
      }
      const outcome = (await call('runAction', { accountId }, resolve(step.action, [...path, 'action']), path, [...path, 'action'])) as { status: number; body: unknown };
      const expected = step.expect;
      if (expected === undefined ? outcome.status < 200 || outcome.status > 299 : outcome.status !== expected) {
        const problem = outcome.body as ControlProblemBody | null;
        const said = problem?.code ? ` ${problem.code}: ${problem.detail ?? ''}` : '';
        throw new ScenarioError(`${name}: ${fieldOf(path)} answered ${outcome.status}.`, [
          problemAt(source, [...path, 'action'], `answered ${outcome.status}${said} (expected ${expected ?? 'a 2xx'})`.trim()),
          ...(problem?.errors ?? []).map((e) => problemAt(source, [...path, 'action', 'body', ...e.field.split('.')], e.message)),
        ]);
      }
      remember(step.as, outcome.body, path);
    }
    if (spec.faults) await call('updateAccountFaults', { accountId }, resolve(spec.faults, [...at, 'faults']), [...at, 'faults']);
    accounts.push(loaded);
  }
  if (scenario.globalFaults) await call('updateGlobalFaults', {}, scenario.globalFaults, ['globalFaults']);
  const clock = (await call('getClock', {}, undefined, [])) as ScenarioLoaded['clock'];
  return { accounts, steps, made, clock };
}
