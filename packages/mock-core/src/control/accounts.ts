/** Control plane, accounts: listAccounts, createAccount, getAccount, updateAccount, updatePlan, updateSettings. */
import { createAccount, planFor, provisionKeys } from '../domain/accounts/service.ts';
import type { ImageSize, Plan, PlanTier } from '../domain/accounts/model.ts';
import type { AccountSettings } from '../domain/store.ts';
import { iso } from '../domain/shared.ts';
import type { ControlHandlers } from './types.ts';
import { presentAccount } from './present.ts';
import { keepMinted } from './keys.ts';

/** `credits` of createAccount, kept on the account for the credits ledger to read. */
export interface InitialCredits {
  balance: number;
  dailyBudget: number | null;
}

declare module '../domain/store.ts' {
  interface AccountState {
    /**
     * The credits the account was created with through the control plane (null or absent: none
     * given). Set once at creation; the credits ledger reads it and keeps its own balance.
     */
    initialCredits?: InitialCredits | null;
    /** How many of the first campaigns the demo data made (exportScenario leaves them to the seed). */
    seededCampaigns?: number;
  }
}

type PlanFeatures = Partial<Omit<Plan, 'tier'>>;

interface CreateAccountBody {
  name?: string;
  plan?: PlanTier;
  features?: PlanFeatures;
  limits?: Record<string, number>;
  credits?: { balance: number; dailyBudget?: number | null };
  seed?: number;
  empty?: boolean;
}

function copyFeatures(features: PlanFeatures | undefined): PlanFeatures {
  if (!features) return {};
  return { ...features, ...(features.imageSizes ? { imageSizes: [...features.imageSizes] as ImageSize[] } : {}) };
}

export const accountHandlers: ControlHandlers = {
  async createAccount(request, { services }) {
    const body = (request.body ?? {}) as CreateAccountBody;
    const { store, clock } = services;
    const now = clock.now();
    const account = createAccount(store, {
      now,
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.plan !== undefined ? { tier: body.plan } : {}),
      ...(body.features !== undefined ? { plan: copyFeatures(body.features) } : {}),
      ...(body.seed !== undefined ? { seed: body.seed } : {}),
    });
    if (body.limits) account.limitOverrides = { ...body.limits };
    account.initialCredits = body.credits ? { balance: body.credits.balance, dailyBudget: body.credits.dailyBudget ?? null } : null;
    if (body.empty !== true) {
      // Loaded on first use: the demo data's faker is the heaviest import of the mock (startup time).
      const { seedAccount } = await import('../seed/demo.ts');
      seedAccount(account, { now, seed: account.seed });
    }
    account.seededCampaigns = account.campaigns.size;
    const keys = provisionKeys(store, account, now);
    keepMinted(account, Object.values(keys));
    return { status: 201, body: { accountId: account.accountId, keys } };
  },

  listAccounts(_request, { services }) {
    const data = [...services.store.accounts.values()].map((account) => ({
      accountId: account.accountId,
      name: account.name,
      tier: account.plan.tier,
      suspended: account.suspended,
      createdAt: iso(account.createdAt),
    }));
    return { status: 200, body: { data } };
  },

  getAccount(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    return { status: 200, body: presentAccount(account, ctx.services.clock.forAccount(account.accountId).now()) };
  },

  updateAccount(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const body = request.body as { name?: string; suspended?: boolean };
    if (body.name !== undefined) account.name = body.name;
    if (body.suspended !== undefined) account.suspended = body.suspended;
    return { status: 200, body: presentAccount(account, ctx.services.clock.forAccount(account.accountId).now()) };
  },

  updatePlan(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const body = request.body as { tier?: PlanTier; features?: PlanFeatures };
    const features = copyFeatures(body.features);
    account.plan = body.tier !== undefined ? planFor(body.tier, features) : { ...account.plan, ...features };
    return { status: 200, body: { ...account.plan, imageSizes: [...account.plan.imageSizes] } };
  },

  updateSettings(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    Object.assign(account.settings, request.body as Partial<AccountSettings>);
    return { status: 200, body: { ...account.settings } };
  },
};
