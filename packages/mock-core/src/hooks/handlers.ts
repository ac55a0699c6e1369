/**
 * The conformance hooks (packages/contract/spec/conformance-hooks.yaml) served by the mock: a thin adapter over the
 * control plane's handlers (packages/mock-core/src/control/), each hook translating its request into the control
 * operations that do the same and their answers back. Nothing here changes state by itself.
 */
import { isoOrNull } from '../domain/shared.ts';
import { controlHandlers } from '../control/routes.ts';
import { advanceAccount } from '../control/clock.ts';
import { ControlError, type ControlContext, type ControlHandlers, type ControlRequest } from '../control/types.ts';
import type { AccountClock } from '../core/clock.ts';
import type { AccountState } from '../domain/store.ts';
import { hooksDocument, hooksVersion } from './document.ts';
import { putOwn } from '../core/own.ts';

type Body = Record<string, any>;

declare module '../domain/store.ts' {
  interface AccountState {
    /** Made by the hooks' createAccount (D256): the only accounts the hooks act on. Saved with the state. */
    hooksAccount?: true;
  }
}

/**
 * The account of the path, when the hooks made it (D256, "Accounts are the unit of isolation" of
 * packages/contract/spec/conformance-hooks.yaml): any other id (the demo account, one made through /__mock or a
 * scenario, none at all) answers 404 ACCOUNT_NOT_FOUND, so a hook never reaches an account it did not make.
 */
function hookAccount(ctx: ControlContext, accountId: string): AccountState {
  const account = ctx.services.store.accounts.get(accountId);
  if (!account || account.hooksAccount !== true) throw new ControlError(404, 'ACCOUNT_NOT_FOUND', `The hooks made no account ${accountId}.`);
  return account;
}

/** Calls a control handler by operationId and returns its body (a ControlError propagates). */
async function control(operationId: string, ctx: ControlContext, params: Record<string, string>, body?: unknown, query: Record<string, unknown> = {}): Promise<any> {
  const handler = controlHandlers[operationId];
  if (!handler) throw new Error(`no control handler ${operationId}`);
  const request: ControlRequest = { params, query, body };
  return (await handler(request, ctx)).body;
}

const READ_SCOPES = new Set(['read', 'runs:read']);
const FAULTS = ['writesPaused', 'spendUnavailable', 'lostRaces', 'cascadePendingSeconds', 'campaignCreationSeconds', 'idempotencyInProgressSeconds'];
const ACTIONS = ['generateCreatives', 'startGeneration', 'finishGeneration', 'regenerateCreative', 'removeProductFromCampaign', 'revokeKey'];

function planOf(ctx: ControlContext, accountId: string): Body {
  const { tier, ...features } = ctx.account(accountId).plan as Body;
  return { name: tier, ...features };
}

function clockView(clock: AccountClock): Body {
  return { accountId: clock.accountId, now: clock.nowIso(), advancedSeconds: clock.offsetMs / 1000 };
}

function faultsView(faults: Body): Body {
  return {
    writesPaused: faults['writesPaused'],
    spendUnavailable: faults['spendUnavailable'],
    lostRaces: faults['lostRaces'],
    cascadePendingSeconds: faults['cascadeSeconds'],
    campaignCreationSeconds: faults['creationSeconds'],
    idempotencyInProgressSeconds: faults['slowWritesMs'] / 1000,
  };
}

async function accountView(ctx: ControlContext, accountId: string): Promise<Body> {
  const ledger = await control('getCredits', ctx, { accountId }, undefined, { limit: 1 });
  return {
    accountId,
    plan: planOf(ctx, accountId),
    credits: { balance: ledger.balance, held: ledger.held, charged: ledger.totals?.charged ?? 0, dailyBudget: ledger.dailyBudget ? ledger.dailyBudget.dailyLimit : null },
  };
}

/** Quota overrides without the `null`s (createAccount takes quotas only). */
function quotas(change: Body | undefined): Body | undefined {
  if (!change) return undefined;
  const out: Body = {};
  for (const [name, quota] of Object.entries(change)) if (quota !== null) out[name] = quota;
  return out;
}

export const hookHandlers: ControlHandlers = {
  getCapabilities() {
    const tags = (hooksDocument()['tags'] as { name: string }[]).map((t) => t.name).filter((name) => name !== 'capabilities');
    return {
      status: 200,
      body: {
        contractVersion: hooksVersion(),
        hooks: tags,
        accounts: { plans: ['starter', 'core', 'growth', 'enterprise'], features: ['campaigns', 'webhooks', 'runsWrite', 'imageSizes', 'upscales', 'campaignLimit', 'productsPerCampaign'], credits: true, rateCard: true },
        faults: { supported: FAULTS },
        actors: { kinds: ['api_key', 'user', 'share_link', 'staff', 'partner_operator'], actions: ACTIONS, operations: true, generateUntil: true },
        webhooks: { deliveryLog: true, duplicates: true },
        clock: { maxAdvanceSeconds: 315360000 },
      },
    };
  },

  async createAccount(request, ctx) {
    const body = (request.body ?? {}) as Body;
    const limits = quotas(body['rateLimits']);
    const created = await control('createAccount', ctx, {}, {
      ...(body['plan'] !== undefined ? { plan: body['plan'] } : {}),
      ...(body['features'] !== undefined ? { features: body['features'] } : {}),
      ...(limits ? { limits } : {}),
      ...(body['empty'] !== undefined ? { empty: body['empty'] } : {}),
    });
    const accountId = created.accountId as string;
    ctx.account(accountId).hooksAccount = true;
    if (body['credits'] !== undefined) await control('updateCredits', ctx, { accountId }, body['credits']);
    const account = ctx.account(accountId);
    const keys: Body = {};
    if (body['keys'] === undefined) {
      for (const [profile, key] of Object.entries(created.keys as Body)) putOwn(keys, profile, { ...key, expiresAt: isoOrNull(account.keys.get(key.keyId)?.expiresAt ?? null) });
    } else {
      // Only the keys asked for: the default ones are revoked at once.
      for (const key of Object.values(created.keys as Body)) await control('revokeKey', ctx, { accountId, keyId: key.keyId });
      for (const [profile, wanted] of Object.entries(body['keys'] as Record<string, Body>)) {
        const scopes = wanted['scopes'] as string[];
        const writes = scopes.some((s) => !READ_SCOPES.has(s));
        const made = await control('createKey', ctx, { accountId }, { name: profile, scopes, ...(writes ? { expiresInDays: wanted['expiresInDays'] ?? 365 } : {}) });
        putOwn(keys, profile, { keyId: made.keyId, key: made.key, scopes: made.scopes, expiresAt: made.expiresAt });
      }
    }
    return { status: 201, body: { accountId, keys, plan: planOf(ctx, accountId) } };
  },

  async getAccount(request, ctx) {
    const accountId = hookAccount(ctx, request.params['accountId']!).accountId;
    return { status: 200, body: await accountView(ctx, accountId) };
  },

  async updateAccount(request, ctx) {
    const accountId = hookAccount(ctx, request.params['accountId']!).accountId;
    const body = request.body as Body;
    if (body['plan'] !== undefined || body['features'] !== undefined) {
      await control('updatePlan', ctx, { accountId }, { ...(body['plan'] !== undefined ? { tier: body['plan'] } : {}), ...(body['features'] !== undefined ? { features: body['features'] } : {}) });
    }
    if (body['credits'] !== undefined) await control('updateCredits', ctx, { accountId }, body['credits']);
    return { status: 200, body: await accountView(ctx, accountId) };
  },

  async deleteAccount(request, ctx) {
    const account = hookAccount(ctx, request.params['accountId']!);
    for (const key of account.keys.values()) await control('revokeKey', ctx, { accountId: account.accountId, keyId: key.keyId });
    await control('updateAccount', ctx, { accountId: account.accountId }, { suspended: true });
    ctx.services.clock.forAccount(account.accountId).forget();
    return { status: 204 };
  },

  getAccountClock(request, ctx) {
    const account = hookAccount(ctx, request.params['accountId']!);
    return { status: 200, body: clockView(ctx.services.clock.forAccount(account.accountId)) };
  },

  async advanceAccountClock(request, ctx) {
    const account = hookAccount(ctx, request.params['accountId']!);
    const clock = await advanceAccount(ctx.services, account.accountId, { advanceSeconds: (request.body as Body)['seconds'] }, 'seconds');
    return { status: 200, body: clockView(clock) };
  },

  async setAccountFaults(request, ctx) {
    const accountId = hookAccount(ctx, request.params['accountId']!).accountId;
    const body = request.body as Body;
    const change: Body = {};
    if (body['writesPaused'] !== undefined) change['writesPaused'] = body['writesPaused'];
    if (body['spendUnavailable'] !== undefined) change['spendUnavailable'] = body['spendUnavailable'];
    if (body['lostRaces'] !== undefined) change['lostRaces'] = body['lostRaces'];
    if (body['cascadePendingSeconds'] !== undefined) change['cascadeSeconds'] = body['cascadePendingSeconds'];
    if (body['campaignCreationSeconds'] !== undefined) change['creationSeconds'] = body['campaignCreationSeconds'];
    if (body['idempotencyInProgressSeconds'] !== undefined) change['slowWritesMs'] = Math.round(body['idempotencyInProgressSeconds'] * 1000);
    return { status: 200, body: faultsView(await control('updateAccountFaults', ctx, { accountId }, change)) };
  },

  async runAction(request, ctx) {
    const accountId = hookAccount(ctx, request.params['accountId']!).accountId;
    const body = request.body as Body;
    if (body['action'] === 'revokeKey') {
      const keyId = (body['input'] as Body | undefined)?.['keyId'];
      if (typeof keyId !== 'string') return { status: 200, body: { status: 422, body: { code: 'VALIDATION_ERROR', detail: 'revokeKey takes { keyId }.' } } };
      try {
        const key = await control('revokeKey', ctx, { accountId, keyId });
        return { status: 200, body: { status: 200, body: key, ids: [keyId] } };
      } catch (error) {
        if (error instanceof ControlError && error.status === 404) return { status: 200, body: { status: 404, body: { code: error.code, detail: error.message } } };
        throw error;
      }
    }
    const forwarded = body['operationId'] !== undefined ? body : { actor: body['actor'] ?? { kind: 'user' }, action: body['action'], ...(body['input'] !== undefined ? { input: body['input'] } : {}) };
    const outcome = await control('runAction', ctx, { accountId }, forwarded);
    const made = outcome.body as Body | null;
    const ids = made && Array.isArray(made['creativeIds']) ? made['creativeIds'] : undefined;
    return { status: 200, body: { ...outcome, ...(ids ? { ids } : {}) } };
  },

  async createWebhookEndpoint(request, ctx) {
    const accountId = hookAccount(ctx, request.params['accountId']!).accountId;
    const { duplicates, ...endpoint } = request.body as Body;
    // `duplicates` is the control plane's chaos `duplicate` count (copies of every delivery).
    const made = await control('createWebhookEndpoint', ctx, { accountId }, { ...endpoint, ...(duplicates ? { chaos: { duplicate: duplicates } } : {}) });
    return { status: 201, body: { endpointId: made.endpointId, url: made.url, eventTypes: made.eventTypes, secret: made.secret } };
  },

  async deleteWebhookEndpoint(request, ctx) {
    const accountId = hookAccount(ctx, request.params['accountId']!).accountId;
    try {
      await control('deleteWebhookEndpoint', ctx, { accountId, endpointId: request.params['endpointId']! });
    } catch (error) {
      if (!(error instanceof ControlError && error.status === 404 && error.code !== 'ACCOUNT_NOT_FOUND')) throw error;
    }
    return { status: 204 };
  },

  async listWebhookDeliveries(request, ctx) {
    const accountId = hookAccount(ctx, request.params['accountId']!).accountId;
    const query = request.query['eventId'] !== undefined ? { eventId: request.query['eventId'] } : {};
    const rows = (await control('listWebhookDeliveries', ctx, { accountId }, undefined, query)).data as Body[];
    const data = rows
      .filter((row) => !row['duplicate'])
      .map((row) => ({ eventId: row['eventId'], endpointId: row['endpointId'], type: row['type'], attempt: row['attempt'], status: row['status'], attemptedAt: row['attemptedAt'], responseStatus: row['responseStatus'], nextAttemptAt: row['nextAttemptAt'] }));
    return { status: 200, body: { data } };
  },

  async setAccountRateLimits(request, ctx) {
    const accountId = hookAccount(ctx, request.params['accountId']!).accountId;
    const limits = await control('updateAccountLimits', ctx, { accountId }, request.body);
    const out: Body = {};
    for (const [name, quota] of Object.entries(limits.overrides as Body)) if (name.startsWith('group:') || name.startsWith('account:')) out[name] = quota;
    return { status: 200, body: out };
  },

  async setAccountOutcomes(request, ctx) {
    const accountId = hookAccount(ctx, request.params['accountId']!).accountId;
    const body = request.body as Body;
    const change: Body = {};
    if (body['items'] !== undefined) change['outcomePattern'] = body['items'];
    const upscales = body['upscales'] as string[] | null | undefined;
    if (upscales !== undefined) {
      // The mock draws upscale outcomes from a mix: a pattern of one outcome is exactly a mix of it.
      const kinds = new Set(upscales ?? ['succeeded']);
      if (kinds.size > 1) throw new ControlError(501, 'HOOK_NOT_SUPPORTED', 'This mock decides upscale outcomes from a mix: give `upscales` a pattern of a single outcome (or null).');
      change['upscaleOutcomeMix'] = { [[...kinds][0]!]: 1 };
    }
    await control('updateGeneration', ctx, { accountId }, change);
    return { status: 200, body: { items: body['items'] ?? null, upscales: upscales ?? null } };
  },

  async listAccountEvents(request, ctx) {
    const accountId = hookAccount(ctx, request.params['accountId']!).accountId;
    const query = request.query['type'] !== undefined ? { type: request.query['type'] } : {};
    const events = (await control('listEvents', ctx, { accountId }, undefined, query)).data as Body[];
    const data = events.map((e) => ({ eventId: e['eventId'], type: e['type'], timestamp: e['timestamp'], resource: e['resource'], actor: e['actor'], previousAttributes: e['previousAttributes'] ?? null }));
    return { status: 200, body: { data } };
  },
};

