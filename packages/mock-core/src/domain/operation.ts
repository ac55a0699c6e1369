/** What an operation handler receives and returns: the contract between the pipeline and the domain. */
import type { OperationInfo } from '../../../contract/spec/contract.ts';
import type { TimeSource } from '../core/clock.ts';
import type { Actor, ApiKeyRecord } from './accounts/model.ts';
import type { EventDraft, ResourceKind } from '../events/model.ts';
import type { AccountState, Store } from './store.ts';

/** Everything an operation handler may use. Handlers never see HTTP objects. */
export interface RequestContext {
  requestId: string;
  operation: OperationInfo;
  pathParams: Record<string, string>;
  /** Query parameters coerced and validated against the document. */
  query: Record<string, unknown>;
  headers: Record<string, string | undefined>;
  /** The parsed, validated JSON body (undefined when none). */
  body: unknown;
  account: AccountState;
  key: ApiKeyRecord;
  actor: Actor;
  /** Clock reading at the start of the operation (epoch ms). */
  now: number;
  clock: TimeSource;
  store: Store;
  /** Record events of a change (actor and time are filled in). */
  emit(resource: { kind: ResourceKind; id: string }, drafts: readonly EventDraft[]): void;
}

export interface OperationResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Canonical representation whose hash is sent as the strong ETag. */
  etagOf?: unknown;
  /** The resource created or acted on (kept with the idempotency record). */
  resource?: { kind: string; id: string };
}

export interface OperationHandler {
  /**
   * The canonical representation of the resource the operation acts on, for If-Match. Throws the
   * operation's 404 (a precondition is evaluated only after the ordinary checks).
   */
  target?(ctx: RequestContext): unknown;
  /**
   * A read whose answer is a function of the request (path, validated query) and the account's
   * resource collections only: no clock, no headers, nothing global but the mock's public origin
   * of media URLs (Store.publicOrigin, fixed once the server listens; setting it clears the cache). Its bytes are kept until the
   * account changes (pipeline/response-cache.ts; tests recompute every hit to prove the claim).
   */
  cacheable?: true;
  /**
   * The plan entitlements the operation checks (TIER_REQUIRED, IMAGE_SIZE_NOT_ENTITLED,
   * IMAGE_UPSCALE_NOT_ENTITLED): throws the refusal a fresh request would get. The pipeline calls it
   * before replaying a stored answer (IDEM-013, D72: entitlement is re-checked on every request);
   * a fresh request meets the same check inside `run`, in the operation's own check order.
   */
  entitle?(account: AccountState, body: unknown): void;
  run(ctx: RequestContext): OperationResult | Promise<OperationResult>;
}

export type HandlerTable = Record<string, OperationHandler>;
