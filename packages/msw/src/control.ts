/**
 * The control plane as a typed in-process API (`control` of createMockHandlers): one method per
 * operation of packages/contract/spec/mock-control.yaml, named by its operationId, its arguments the path parameters
 * in path order and then the body (or, for a read with query parameters, the query). Each call is a
 * request through `dispatchControl` (packages/mock-core/src/control/routes.ts), the very dispatch the server's
 * /__mock routes run: the same validation, the same handlers, the same answers. It resolves to the
 * parsed body of the 2xx answer (undefined for a 204) and rejects with a ControlProblem carrying
 * the problem+json of any other. The dispatch is imported on the first call (D221).
 *
 * Names, methods, paths and types all come from the document: packages/contract/spec/generated/mock-control.ts
 * (`npm run generate`).
 */
import { controlRoutes, type components, type operations } from '../../contract/spec/generated/mock-control.ts';
import type { MockServices } from '../../mock-core/src/services/services.ts';
import type { ControlOptions } from '../../mock-core/src/control/types.ts';
import type { ControlHttpResponse } from '../../mock-core/src/control/routes.ts';
// Not ControlHttpResponse in what the package declares: routes.ts names fastify's types (D195).
import type { ControlStreamSink } from '../../mock-core/src/services/feed.ts';

export type ControlOperationId = keyof typeof controlRoutes;

type Operation<Id extends ControlOperationId> = operations[Id];

type Strings<T extends readonly string[]> = { -readonly [K in keyof T]: string };
type PathArgs<Id extends ControlOperationId> = Strings<(typeof controlRoutes)[Id]['pathParams']>;

type JsonOf<T> = T extends { content: { 'application/json': infer J } } ? J : never;

/** The JSON body an operation takes (never: none). */
export type ControlBody<Id extends ControlOperationId> = Operation<Id> extends { requestBody?: infer B } ? JsonOf<B> : never;

/** The query parameters an operation takes (never: none). */
export type ControlQuery<Id extends ControlOperationId> = Operation<Id>['parameters'] extends { query?: infer Q } ? ([NonNullable<Q>] extends [never] ? never : NonNullable<Q>) : never;

type TailArgs<Id extends ControlOperationId> = [ControlBody<Id>] extends [never]
  ? [ControlQuery<Id>] extends [never]
    ? []
    : [query?: ControlQuery<Id>]
  : undefined extends Operation<Id>['requestBody']
    ? [body?: ControlBody<Id>]
    : [body: ControlBody<Id>];

/** The arguments of a control method: the path parameters in path order, then the body or the query. */
export type ControlArgs<Id extends ControlOperationId> = [...PathArgs<Id>, ...TailArgs<Id>];

type SuccessStatus = 200 | 201 | 202 | 204;

/** What a control method resolves to: the JSON of its 2xx answer (undefined for a 204). */
export type ControlResult<Id extends ControlOperationId> = {
  [S in keyof Operation<Id>['responses']]: S extends SuccessStatus ? ([JsonOf<Operation<Id>['responses'][S]>] extends [never] ? undefined : JsonOf<Operation<Id>['responses'][S]>) : never;
}[keyof Operation<Id>['responses']];

export type ControlProblemBody = components['schemas']['Problem'];

/** A control call answered with a problem (4xx, or 500 for a bug of the mock): its status, code and body. */
export class ControlProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly problem: ControlProblemBody;
  constructor(problem: ControlProblemBody, status: number) {
    super(`${problem.code ?? 'ERROR'} (${status}): ${problem.detail ?? problem.title ?? ''}`);
    this.name = 'ControlProblem';
    this.status = status;
    this.code = String(problem.code);
    this.problem = problem;
  }
}

type Methods = { [Id in Exclude<ControlOperationId, 'streamChanges'>]: (...args: ControlArgs<Id>) => Promise<ControlResult<Id>> };

/** The typed control plane: every operation of packages/contract/spec/mock-control.yaml, and conveniences over them. */
export interface MockControl extends Methods {
  /** streamChanges: the server-sent event stream (text/event-stream bytes) until it is cancelled. */
  streamChanges(query?: ControlQuery<'streamChanges'>): Promise<ReadableStream<Uint8Array>>;
  /** setClock({ advanceSeconds }): moves the clock on and runs what falls due (runs, webhook deliveries). */
  advanceClock(seconds: number): Promise<ControlResult<'setClock'>>;
}

function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The SSE stream of an answer as a web ReadableStream (bytes), started at once, stopped on cancel. */
export function eventStream(response: { stream?: (sink: ControlStreamSink) => () => void }): ReadableStream<Uint8Array> {
  const start = response.stream!;
  const encoder = new TextEncoder();
  let stop: (() => void) | undefined;
  let closed = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const close = () => {
        if (closed) return;
        closed = true;
        stop?.();
        controller.close();
      };
      stop = start({
        write: (chunk) => {
          if (!closed) controller.enqueue(encoder.encode(chunk));
        },
        // What the reader has not taken yet: the queue beyond its high-water mark (0 until then).
        backlog: () => Math.max(0, -(controller.desiredSize ?? 0)),
        close,
      });
      if (closed) stop();
    },
    cancel() {
      if (closed) return;
      closed = true;
      stop?.();
    },
  });
}

/** The typed control API over dispatchControl for one mock's services. */
export function createControl(services: MockServices, options: ControlOptions): MockControl {
  const call = async (operationId: ControlOperationId, args: unknown[]): Promise<ControlHttpResponse> => {
    const route = controlRoutes[operationId];
    const pathParams = route.pathParams as readonly string[];
    if (args.length < pathParams.length) throw new TypeError(`control.${operationId} takes ${pathParams.join(', ')} first`);
    let path: string = route.path;
    pathParams.forEach((name, index) => {
      path = path.replace(`{${name}}`, encodeURIComponent(String(args[index])));
    });
    const rest = args[pathParams.length];
    const takesQuery = route.method === 'GET' || route.method === 'DELETE';
    const url = path + (takesQuery ? queryString(rest as Record<string, unknown> | undefined) : '');
    const body = !takesQuery && rest !== undefined ? JSON.stringify(rest) : undefined;
    // The control plane (its document, validators and handlers, about 230 kB of a browser bundle) loads on the first call (D221).
    const { dispatchControl } = await import('../../mock-core/src/control/routes.ts');
    const response = await dispatchControl(services, options, {
      method: route.method,
      url,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body,
    });
    if (response.status >= 300) {
      const problem = JSON.parse(response.body ?? '{}') as ControlProblemBody;
      throw new ControlProblem(problem, response.status);
    }
    return response;
  };
  const control: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const operationId of Object.keys(controlRoutes) as ControlOperationId[]) {
    control[operationId] = async (...args: unknown[]) => {
      const response = await call(operationId, args);
      if (response.stream) return eventStream(response);
      return response.body === undefined ? undefined : JSON.parse(response.body);
    };
  }
  control['advanceClock'] = (seconds: unknown) => control['setClock']!({ advanceSeconds: seconds });
  return control as unknown as MockControl;
}
