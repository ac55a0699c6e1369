/**
 * In-process test harness: a mock with a manual clock, fresh accounts through the real control
 * plane, and requests through mock.inject (no socket, the server's own listener). Used by every `*.test.ts` in mock/.
 */
import { basePath, operations } from '../../../contract/spec/contract.ts';
import { checkResponse } from '../../../conformance/suite/checks/index.ts';
import { buildMock, type Mock } from '../../../mock/src/node/app.ts';
import { Clock } from '../core/clock.ts';
import type { PlanTier } from '../domain/accounts/model.ts';
import type { WebhookOptions } from '../events/webhooks.ts';
import type { HandlerTable } from '../domain/operation.ts';
import type { AccountState } from '../domain/store.ts';
import type { WebOptions } from '../../../mock/src/web/index.ts';

export interface TestResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Parsed JSON body (undefined when the body is not JSON). */
  body: any;
  /** The request it answers (the API's, through `request`): what `violations` hands the suite's checker. */
  request?: { method: string; url: string };
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  /** Raw body bytes/string sent as-is (with `contentType`). */
  rawBody?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  ip?: string;
}

export interface TestAccount {
  accountId: string;
  keys: Record<string, { keyId: string; key: string; scopes: string[] }>;
  state: AccountState;
  /** Key string by profile name (`read`, `all`, `creatives:write`, ...). */
  key(name: string): string;
}

export interface Harness {
  mock: Mock;
  clock: Clock;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  control(method: string, path: string, body?: unknown): Promise<TestResponse>;
  account(options?: { empty?: boolean; plan?: PlanTier; seed?: number }): Promise<TestAccount>;
  advance(seconds: number): void;
  close(): Promise<void>;
}

export async function createHarness(options: { start?: number; handlers?: HandlerTable; webhooks?: WebhookOptions; web?: WebOptions; wall?: () => number } = {}): Promise<Harness> {
  const errors: unknown[] = [];
  // A scheduled task that throws fails the next request of the test, like a request error would.
  const clock = new Clock({ mode: 'manual', onTaskError: (error) => errors.push(error), ...(options.start !== undefined ? { start: options.start } : {}), ...(options.wall ? { wall: options.wall } : {}) });
  // Every hit of the response cache is recomputed and compared: a stale answer fails the test.
  const mock = buildMock({ clock, logError: (error) => errors.push(error), responseCache: { verify: true }, ...(options.handlers ? { handlers: options.handlers } : {}), ...(options.webhooks ? { webhooks: options.webhooks } : {}), ...(options.web ? { web: options.web } : {}) });
  await mock.app.ready();

  const toResponse = (res: { statusCode: number; headers: Record<string, unknown>; payload: string }): TestResponse => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(res.headers)) headers[name.toLowerCase()] = String(value);
    let body: unknown;
    if ((headers['content-type'] ?? '').includes('json') && res.payload) {
      try {
        body = JSON.parse(res.payload);
      } catch {
        body = undefined;
      }
    }
    return { status: res.statusCode, headers, text: res.payload, body };
  };

  const harness: Harness = {
    mock,
    clock,
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.key) headers.authorization = `Bearer ${opts.key}`;
      let payload: string | Buffer | undefined;
      if (opts.rawBody !== undefined) {
        payload = opts.rawBody;
        if (opts.contentType) headers['content-type'] = opts.contentType;
      } else if (opts.body !== undefined) {
        payload = JSON.stringify(opts.body);
        headers['content-type'] = opts.contentType ?? 'application/json';
      }
      const query = opts.query ? `?${new URLSearchParams(Object.entries(opts.query).map(([k, v]): [string, string] => [k, String(v)])).toString()}` : '';
      const res = await mock.inject({
        method: method as 'GET',
        url: `${basePath}${path}${query}`,
        headers,
        ...(payload !== undefined ? { payload } : {}),
        remoteAddress: opts.ip ?? '127.0.0.1',
      });
      if (errors.length) throw new Error(`the mock logged an unexpected error: ${String(errors[0])}`);
      return { ...toResponse(res), request: { method, url: `${CHECK_ORIGIN}${basePath}${path}${query}` } };
    },
    async control(method, path, body) {
      const res = await mock.inject({
        method: method as 'GET',
        url: path,
        ...(body !== undefined ? { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
      });
      return toResponse(res);
    },
    async account(accountOptions = {}) {
      const res = await harness.control('POST', '/__mock/accounts', accountOptions);
      if (res.status !== 201) throw new Error(`account creation failed: ${res.status} ${res.text}`);
      const { accountId, keys } = res.body as { accountId: string; keys: TestAccount['keys'] };
      const state = mock.services.store.accounts.get(accountId)!;
      return {
        accountId,
        keys,
        state,
        key(name: string) {
          const k = keys[name];
          if (!k) throw new Error(`no key profile ${name}`);
          return k.key;
        },
      };
    },
    advance(seconds) {
      clock.advance(seconds);
    },
    async close() {
      await mock.app.close();
    },
  };
  return harness;
}

/** A response as a document declares it: its content types, their schemas, and (the API's) its headers. */
export interface DeclaredAnswer {
  contentTypes: readonly string[];
  schemaPointers: Readonly<Record<string, string>>;
  headers?: Readonly<Record<string, { required: boolean; schemaPointer: string }>>;
}

/** A validator for a schema node of the document at a pointer (`validatorFor`, `controlValidator`). */
type ValidatorAt = (pointer: string) => { (value: unknown): boolean; errors?: unknown[] | null };

/**
 * The one check of an answer against the response its document declares (empty when it
 * conforms): the status declared, no body where none is declared, the content type, the body's
 * schema, and declared headers present when required and matching their schemas: the check of the
 * control plane's answers (`controlViolations`, packages/mock-core/src/testkit/control.ts, packages/contract/spec/mock-control.yaml),
 * which the suite's checker does not read; the API's answers go through the suite's (`violations`).
 */
export function declaredViolations(
  operationId: string,
  responses: Readonly<Record<string, DeclaredAnswer>>,
  validator: ValidatorAt,
  res: { status: number; headers: Record<string, string>; body: unknown; text: string },
): string[] {
  const declared = responses[String(res.status)];
  if (!declared) return [`status ${res.status} is not declared for ${operationId}: ${res.text.slice(0, 500)}`];
  if (declared.contentTypes.length === 0) return res.text === '' ? [] : [`status ${res.status} declares no body, got ${res.text.slice(0, 500)}`];
  const out: string[] = [];
  const contentType = (res.headers['content-type'] ?? '').split(';')[0]!.trim();
  const pointer = declared.schemaPointers[contentType];
  if (!declared.contentTypes.includes(contentType)) out.push(`content type ${contentType || '(none)'} is not one of ${declared.contentTypes.join(', ')}`);
  else if (pointer && contentType.includes('json')) {
    const validate = validator(pointer);
    if (!validate(res.body)) out.push(`body does not match ${pointer}: ${JSON.stringify(validate.errors?.slice(0, 3))} in ${res.text.slice(0, 500)}`);
  }
  for (const [name, header] of Object.entries(declared.headers ?? {})) {
    const value = res.headers[name];
    if (value === undefined) {
      if (header.required) out.push(`required header ${name} is missing`);
      continue;
    }
    if (!validator(header.schemaPointer)(value)) out.push(`header ${name}: ${value} does not match its schema`);
  }
  return out;
}

/** The origin the answers of `request` are checked under (inject sends no Host of its own). */
const CHECK_ORIGIN = 'http://localhost';

/**
 * Every way an answer of the API breaks packages/contract/spec/openapi.yaml: the suite's response checker
 * (`checkResponse`, packages/conformance/suite/checks/), the one check of the API's answers, and the request must
 * reach `operationId`. Use as `expect(violations('getCreative', res)).toEqual([])`.
 */
/** The request beside an answer made elsewhere (a socket, MSW), for `violations`: `pathBelowBase` with its query. */
export function sentRequest(method: string, pathBelowBase: string): { method: string; url: string } {
  return { method, url: `${CHECK_ORIGIN}${basePath}${pathBelowBase}` };
}

export function violations(operationId: string, res: TestResponse): string[] {
  if (!operations.has(operationId)) return [`no operation ${operationId} in the document`];
  if (!res.request) return [`no request beside the answer (made by the harness's request): the checker needs its method and URL`];
  const headers = Object.fromEntries(Object.entries(res.headers).map(([name, value]) => [name, [value]]));
  const report = checkResponse({ request: res.request, response: { status: res.status, headers, body: res.text } }, { basePath });
  const out = report.violations.map((v) => `${v.check}${v.rules.length > 0 ? ` [${v.rules.join(', ')}]` : ''}: ${v.message}${v.assumption ? ` (x-assumption at ${v.assumption})` : ''}`);
  if (report.operationId !== operationId) out.unshift(`${res.request.method} ${res.request.url} reaches ${report.operationId ?? 'no operation'}, not ${operationId}`);
  return out;
}

/**
 * Freeze a value and everything it holds: the transition tables' fixtures, so that a transition that
 * mutates its input throws instead of passing (transitions are pure).
 */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
