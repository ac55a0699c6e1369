/**
 * What the control-plane handlers share: their signature, the context they get, and the one error
 * type they throw. Handlers never see fastify objects; routes.ts parses, validates against
 * packages/contract/spec/mock-control.yaml, calls, and serialises (problem+json for a ControlError).
 */
import type { MockServices } from '../services/services.ts';
import type { ControlStreamSink } from '../services/feed.ts';
import type { Clock } from '../core/clock.ts';
import type { FieldError } from '../core/errors.ts';
import type { AccountState, Store } from '../domain/store.ts';
import type { ControlSchemas, HooksSchemas } from '../../../contract/spec/types.ts';

/** The codes of the control plane's and the hooks' own problems (Problem.code of packages/contract/spec/mock-control.yaml and packages/contract/spec/conformance-hooks.yaml). */
export type ControlErrorCode = ControlSchemas['Problem']['code'] | HooksSchemas['Problem']['code'];

export class ControlError extends Error {
  constructor(
    readonly status: number,
    readonly code: ControlErrorCode,
    detail: string,
    readonly errors?: FieldError[],
  ) {
    super(detail);
  }
}

/** 422 VALIDATION_ERROR naming one field (a rule of the mock the schema cannot state). */
export function invalidField(field: string, message: string, detail = `${field} ${message}.`): ControlError {
  return new ControlError(422, 'VALIDATION_ERROR', detail, [{ field, message }]);
}

/** What main.ts (or a test) tells the control plane about the process it runs in. */
export interface ControlOptions {
  /** Called after POST /__mock/reset emptied the store: main.ts re-creates the demo account. */
  onReset?: (services: MockServices) => void | Promise<void>;
  /** The `--state` file that POST /__mock/state/save writes. */
  stateFile?: string;
  /** How it is written (packages/mock/src/node/persistence.ts; the node adapter passes it: in-process there is no file system). */
  saveStateFile?: (path: string, store: Store, clock: Clock) => { path: string; bytes: number; accounts: number; clock: string };
  /**
   * `--control-token`: when set, every request under /__mock needs `Authorization: Bearer <token>`
   * (401 UNAUTHORIZED otherwise); the public API is not affected.
   */
  controlToken?: string;
  /** `--hooks-withhold`: what /__hooks leaves out of its capabilities and refuses (packages/mock-core/src/hooks/withhold.ts, D263). */
  hooksWithhold?: readonly string[];
}

export interface ControlRequest {
  /** Path parameters, validated. */
  params: Record<string, string>;
  /** Declared query parameters, validated and coerced. */
  query: Record<string, unknown>;
  /** The parsed body, validated against the operation's schema (undefined when none was sent). */
  body: unknown;
}

export interface ControlResult {
  status: number;
  /** JSON body; undefined for an empty answer (204). */
  body?: unknown;
  /**
   * A server-sent event stream instead of a body (streamChanges): called once the headers are
   * sent with the sink to write to; returns what to do when the client goes away.
   */
  stream?: (sink: ControlStreamSink) => () => void;
}

/** Where a control stream writes (defined beside the feed that writes to it). */
export type { ControlStreamSink };

export interface ControlContext {
  services: MockServices;
  options: ControlOptions;
  requestId: string;
  /** The request path (problem `instance`). */
  instance: string;
  /** The account with this id, or a 404 ACCOUNT_NOT_FOUND. */
  account(accountId: string): AccountState;
  /** Aborted when the client went away before the answer (a handler that waits stops waiting). */
  signal?: AbortSignal;
  /**
   * Another control request, answered by the same dispatcher with this request's authorization
   * (loadScenario makes a scenario with the plane's own operations).
   */
  dispatch(request: { method: string; url: string; body?: string | undefined }): Promise<{ status: number; body?: string | undefined }>;
}

export type ControlHandler = (request: ControlRequest, ctx: ControlContext) => ControlResult | Promise<ControlResult>;

/** Handlers of one group, keyed by the operationId of packages/contract/spec/mock-control.yaml. */
export type ControlHandlers = Record<string, ControlHandler>;
