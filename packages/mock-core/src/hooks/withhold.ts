/**
 * Hooks that serve and list less (`cgs-mock --hooks-withhold LIST`, D263): the mock plays a partial
 * target, so that the gate's promise (what a target does not serve or does not have is skipped with
 * its reason, never failed) can be proven by withdrawing each capability (packages/conformance/proofs/prove-monotonic.ts).
 *
 * A withdrawn thing leaves the capabilities, and a request that needs it answers as a target without
 * it may (packages/contract/spec/conformance-hooks.yaml): 501 HOOK_NOT_SUPPORTED, or, for a flag a target that does not
 * list it may ignore (`webhooks.duplicates`, `actors.generateUntil`), the member is ignored. The
 * names are the suite's own (packages/conformance/suite/fixtures/hooks.ts `Capability`):
 *
 * - a hook: `accounts`, `clock`, `faults`, `actors`, `webhooks`, `rate-limits`, `outcomes`, `events`;
 * - `actions:<action>`, `operations:<operationId>` (`operations` alone: the whole operationId form),
 *   `kinds:<actor kind>`, `faults:<member of FaultsChange>`;
 * - a capability flag: `accounts.rateCard`, `accounts.credits`, `webhooks.deliveryLog`,
 *   `webhooks.duplicates`, `actors.generateUntil`;
 * - `data`: accounts hold the catalog only (products of two brands), the least the contract promises.
 */
import { operations } from '../../../contract/spec/contract.ts';
import { Collection } from '../core/collection.ts';
import { isWrite } from '../pipeline/faults.ts';
import { WITHHOLDABLE_FLAGS, WITHHOLDABLE_HOOKS } from './withhold-flag.ts';
import { ControlError, type ControlContext, type ControlHandler, type ControlRequest } from '../control/types.ts';

type Body = Record<string, any>;

/** The hook (tag of packages/contract/spec/conformance-hooks.yaml) of each operation. */
const HOOK_OF: Readonly<Record<string, string>> = {
  createAccount: 'accounts',
  getAccount: 'accounts',
  updateAccount: 'accounts',
  deleteAccount: 'accounts',
  getAccountClock: 'clock',
  advanceAccountClock: 'clock',
  setAccountFaults: 'faults',
  runAction: 'actors',
  createWebhookEndpoint: 'webhooks',
  deleteWebhookEndpoint: 'webhooks',
  listWebhookDeliveries: 'webhooks',
  setAccountRateLimits: 'rate-limits',
  setAccountOutcomes: 'outcomes',
  listAccountEvents: 'events',
};

/** Every write operation of the public API (what the operationId form of runAction can run). */
function writeOperations(): string[] {
  return [...operations.values()].filter(isWrite).map((o) => o.operationId);
}

/** The capabilities with the withheld things left out. */
export function withheldCapabilities(capabilities: Body, withheld: ReadonlySet<string>): Body {
  if (withheld.size === 0) return capabilities;
  const out: Body = structuredClone(capabilities);
  out['hooks'] = (out['hooks'] as string[]).filter((hook) => !withheld.has(hook));
  for (const hook of WITHHOLDABLE_HOOKS) if (withheld.has(hook)) delete out[hook === 'rate-limits' ? 'rateLimits' : hook];
  const drop = (list: string, items: string[] | undefined): string[] | undefined => items?.filter((item) => !withheld.has(`${list}:${item}`));
  if (out['actors']) {
    out['actors']['actions'] = drop('actions', out['actors']['actions']);
    out['actors']['kinds'] = drop('kinds', out['actors']['kinds']);
    if (withheld.has('operations')) out['actors']['operations'] = false;
    else if ([...withheld].some((name) => name.startsWith('operations:'))) out['actors']['operations'] = drop('operations', writeOperations());
  }
  if (out['faults']) out['faults']['supported'] = drop('faults', out['faults']['supported']);
  for (const flag of WITHHOLDABLE_FLAGS) {
    const [hook, member] = flag.split('.') as [string, string];
    if (withheld.has(flag) && out[hook]) out[hook][member] = false;
  }
  return out;
}

function notSupported(detail: string): ControlError {
  return new ControlError(501, 'HOOK_NOT_SUPPORTED', `${detail} (this mock was started with --hooks-withhold).`);
}

/**
 * The refusal of a request that needs something withheld (a 501 HOOK_NOT_SUPPORTED), or the request
 * with an ignorable member left out. Undefined refusal: serve it.
 */
export function screen(operationId: string, request: ControlRequest, withheld: ReadonlySet<string>): { refusal?: ControlError; request: ControlRequest } {
  const hook = HOOK_OF[operationId];
  if (hook !== undefined && withheld.has(hook)) return { refusal: notSupported(`the ${hook} hook is not served`), request };
  const body = (request.body ?? {}) as Body;
  if (operationId === 'setAccountFaults') {
    const missing = Object.keys(body).filter((member) => withheld.has(`faults:${member}`));
    if (missing.length > 0) return { refusal: notSupported(`the faults ${missing.join(', ')} are not served`), request };
  }
  if (operationId === 'runAction') {
    if (typeof body['action'] === 'string' && withheld.has(`actions:${body['action']}`)) return { refusal: notSupported(`the action ${body['action']} is not served`), request };
    if (typeof body['operationId'] === 'string' && (withheld.has('operations') || withheld.has(`operations:${body['operationId']}`))) {
      return { refusal: notSupported(`the operationId form for ${body['operationId']} is not served`), request };
    }
    const kind = (body['actor'] as Body | undefined)?.['kind'];
    if (typeof kind === 'string' && withheld.has(`kinds:${kind}`)) return { refusal: notSupported(`the actor kind ${kind} is not served`), request };
    // A target without `actors.generateUntil` may ignore `until` and generate to PENDING (the contract says so).
    if (withheld.has('actors.generateUntil') && body['action'] === 'generateCreatives' && (body['input'] as Body | undefined)?.['until'] !== undefined) {
      const { until: _until, ...input } = body['input'] as Body;
      return { request: { ...request, body: { ...body, input } } };
    }
  }
  if ((operationId === 'createAccount' || operationId === 'updateAccount') && body['credits'] !== undefined) {
    if (withheld.has('accounts.credits')) return { refusal: notSupported('credits cannot be set'), request };
    if (withheld.has('accounts.rateCard') && (body['credits'] as Body)['rateCard'] !== undefined) return { refusal: notSupported('credits.rateCard cannot be set'), request };
  }
  if (operationId === 'listWebhookDeliveries' && withheld.has('webhooks.deliveryLog')) return { refusal: notSupported('the delivery log is not kept'), request };
  // A target without `webhooks.duplicates` may ignore it.
  if (operationId === 'createWebhookEndpoint' && withheld.has('webhooks.duplicates') && body['duplicates'] !== undefined) {
    const { duplicates: _duplicates, ...rest } = body;
    return { request: { ...request, body: rest } };
  }
  return { request };
}

/** What an account of the hooks holds with `data` withheld: its catalog (brands and products) only. */
export function catalogOnly(ctx: ControlContext, accountId: string): void {
  const account = ctx.account(accountId);
  account.campaigns = new Collection();
  account.creatives = new Collection();
  account.assets = new Collection();
  account.deliveries = new Collection();
}

/** A hook's handler behind the withholding of `ctx.options.hooksWithhold`. */
export function withholding(operationId: string, handler: ControlHandler): ControlHandler {
  return async (request, ctx) => {
    const withheld = new Set(ctx.options.hooksWithhold ?? []);
    if (withheld.size === 0) return handler(request, ctx);
    const screened = screen(operationId, request, withheld);
    if (screened.refusal) throw screened.refusal;
    const result = await handler(screened.request, ctx);
    if (operationId === 'getCapabilities') return { ...result, body: withheldCapabilities(result.body as Body, withheld) };
    if (operationId === 'createAccount' && withheld.has('data')) catalogOnly(ctx, (result.body as Body)['accountId'] as string);
    return result;
  };
}
