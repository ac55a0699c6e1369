/**
 * In-process test harness: a mock with a manual clock, fresh accounts through the real control
 * plane, and requests through mock.inject (no socket, the server's own listener). Used by every `*.test.ts` in mock/.
 */
import { basePath, operations, validatorFor } from '../../spec/contract.ts';
import { buildMock, type Mock } from '../adapters/node/app.ts';
import { Clock } from '../core/clock.ts';
import type { PlanTier } from '../domain/accounts/model.ts';
import type { WebhookOptions } from '../events/webhooks.ts';
import type { HandlerTable } from '../pipeline/types.ts';
import type { AccountState } from '../core/store.ts';
import type { WebOptions } from '../web/index.ts';

export interface TestResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Parsed JSON body (undefined when the body is not JSON). */
  body: any;
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
      return toResponse(res);
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

/**
 * Every way a response breaks the document for an operation (empty when it conforms): status
 * declared, content type, body schema (Ajv from the document), required headers present and
 * matching their schemas. Use as `expect(violations('getCreative', res)).toEqual([])`.
 */
export function violations(operationId: string, res: TestResponse): string[] {
  const operation = operations.get(operationId);
  if (!operation) return [`no operation ${operationId} in the document`];
  const declared = operation.responses[String(res.status)];
  if (!declared) return [`status ${res.status} is not declared for ${operationId}`];
  const out: string[] = [];
  const contentType = (res.headers['content-type'] ?? '').split(';')[0]!.trim();
  const pointer = declared.schemaPointers[contentType];
  if (!declared.contentTypes.includes(contentType)) out.push(`content type ${contentType || '(none)'} is not one of ${declared.contentTypes.join(', ')}`);
  else if (pointer && contentType.includes('json')) {
    const validate = validatorFor(pointer);
    if (!validate(res.body)) out.push(`body does not match ${pointer}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
  }
  for (const [name, header] of Object.entries(declared.headers)) {
    const value = res.headers[name];
    if (value === undefined) {
      if (header.required) out.push(`required header ${name} is missing`);
      continue;
    }
    const validate = validatorFor(header.schemaPointer);
    if (!validate(value)) out.push(`header ${name}: ${value} does not match its schema`);
  }
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
