/**
 * Per-account in-memory state. Accounts are isolated: every lookup goes through the account that
 * owns the key, so another account's resource is simply absent (the uniform 404).
 */
import type { ControlSchemas } from '../../../contract/spec/types.ts';
import type { ApiKeyRecord, Plan } from './accounts/model.ts';
import type { Asset } from './assets/model.ts';
import type { Campaign } from './campaigns/model.ts';
import type { Brand, Product } from './catalog/model.ts';
import type { Creative } from './creatives/model.ts';
import type { Delivery } from './deliveries/model.ts';
import type { DomainEvent } from '../events/model.ts';
import { newAccountWebhooks, type AccountWebhooks } from '../events/state.ts';
import { newCreditLedger, type CreditLedger } from './credits/ledger.ts';
import type { Run, RunItem } from './runs/model.ts';
import { defaultGenerationSettings, type GenerationSettings, type GlobalGeneration } from './runs/settings.ts';
import type { Upscale } from './upscales/model.ts';
import { Collection } from '../core/collection.ts';

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface IdempotencyRecord {
  /** Fingerprint of operation, path and body: a different request under the key is a reuse. */
  fingerprint: string;
  state: 'in_progress' | 'done';
  createdAt: number;
  response?: StoredResponse;
  /** The resource the request created or acted on, for invariant checks. */
  resource?: { kind: string; id: string };
}

/** An account's faults: the control document's `Faults` (packages/contract/spec/mock-control.yaml), generated, never copied. */
export type AccountFaults = ControlSchemas['Faults'];

export interface AccountSettings {
  /** Serve sparse and empty pages before the end of every list (client pagination drills). */
  sparsePages: boolean;
}

export interface AccountState {
  accountId: string;
  name: string;
  /** Short tag used in this account's resource ids. */
  tag: string;
  plan: Plan;
  createdAt: number;
  seed: number;
  keys: Map<string, ApiKeyRecord>;
  brands: Collection<Brand>;
  products: Collection<Product>;
  creatives: Collection<Creative>;
  campaigns: Collection<Campaign>;
  assets: Collection<Asset>;
  deliveries: Collection<Delivery>;
  idempotency: Map<string, IdempotencyRecord>;
  events: DomainEvent[];
  faults: AccountFaults;
  settings: AccountSettings;
  /** Next number for this account's ids. */
  sequence: number;
  /** API access suspended: every request answers 401. */
  suspended: boolean;
  /** Rate-limit overrides for this account: `group:<name>`, `account:<traffic>`, `ip:<traffic>`. */
  limitOverrides: Record<string, number>;
  /** Runs, oldest first (GET /runs walks them newest first). */
  runs: Collection<Run>;
  /** Each run's items by runId, keyed by jobId, in request order. */
  runItems: Map<string, Collection<RunItem>>;
  upscales: Collection<Upscale>;
  /** Product images held as assets once upscaled (`<productId>:primary`, `<productId>:gallery:<i>` → assetId). */
  productImageAssets: Map<string, string>;
  /** Balance, holds, charges, daily API budget and rate card. */
  credits: CreditLedger;
  /** Outcome mix, speed and seed of run items and upscales. */
  generation: GenerationSettings;
  /** Webhook endpoints, the delivery log, the processing delay and open deliveries (packages/mock-core/src/events/state.ts). */
  webhooks: AccountWebhooks;
}

export function defaultFaults(): AccountFaults {
  return { writesPaused: false, spendUnavailable: false, lostRaces: 0, cascadeSeconds: 0, creationSeconds: 0, slowWritesMs: 0, forcedRateLimits: 0 };
}

export function newAccountState(init: { accountId: string; name: string; tag: string; plan: Plan; createdAt: number; seed: number }): AccountState {
  return {
    ...init,
    keys: new Map(),
    brands: new Collection(),
    products: new Collection(),
    creatives: new Collection(),
    campaigns: new Collection(),
    assets: new Collection(),
    deliveries: new Collection(),
    idempotency: new Map(),
    events: [],
    faults: defaultFaults(),
    settings: { sparsePages: false },
    sequence: 1,
    suspended: false,
    limitOverrides: {},
    runs: new Collection(),
    runItems: new Map(),
    upscales: new Collection(),
    productImageAssets: new Map(),
    credits: newCreditLedger(),
    generation: defaultGenerationSettings(init.seed),
    webhooks: newAccountWebhooks(),
  };
}

/** A new id for this account: `<prefix>_<account tag><sequence>`, unique across accounts. */
export function nextId(account: AccountState, prefix: string): string {
  const n = account.sequence++;
  return `${prefix}_${account.tag}${n.toString(36).padStart(6, '0')}`;
}

export interface GlobalFaults {
  writesPaused: boolean;
}

export interface GlobalWebhookSettings {
  /** The processing delay of accounts without their own, or null for the service's default. */
  processingDelaySeconds: number | null;
}

/** A scenario the mock made (D255): what `--scenario` with `--state` reads to make a file only once. */
export interface AppliedScenario {
  /** What the load called it (the file name). */
  name: string;
  /** When it was made (the mock's clock, ISO). */
  appliedAt: string;
  /** The accounts it made, in file order. */
  accountIds: string[];
}

export class Store {
  readonly accounts = new Map<string, AccountState>();
  /** sha256(key) → key record, across all accounts. */
  readonly keysByHash = new Map<string, ApiKeyRecord>();
  readonly global: GlobalFaults = { writesPaused: false };
  /** Rate-limit overrides for every account (same names as AccountState.limitOverrides). */
  limitOverrides: Record<string, number> = {};
  readonly webhooks: GlobalWebhookSettings = { processingDelaySeconds: null };
  /** The speed of every account without its own (packages/mock-core/src/domain/runs/settings.ts); kept across a reset. */
  readonly generation: GlobalGeneration = { speed: 1 };
  /**
   * The origin media URLs are handed out on (D49, packages/mock-core/src/media/links.ts): set by buildMock from
   * `--public-url` or the address it listens on. Not part of the saved state.
   */
  publicOrigin = 'http://localhost';
  /**
   * The injected defects the domain applies itself (`--defect NAME`, packages/mock-core/src/events/defects.ts; empty: a
   * conforming mock): set by createServices. Not part of the saved state.
   */
  defects: ReadonlySet<string> = new Set();
  /** The scenarios made into this state, by the sha256 (hex) of their text (D255); saved with it, emptied by a reset. */
  readonly scenarios = new Map<string, AppliedScenario>();
  private accountSequence = 1;

  nextAccountNumber(): number {
    return this.accountSequence++;
  }

  addAccount(account: AccountState): void {
    this.accounts.set(account.accountId, account);
  }

  addKey(record: ApiKeyRecord): void {
    const account = this.accounts.get(record.accountId);
    if (!account) throw new Error(`no account ${record.accountId}`);
    account.keys.set(record.keyId, record);
    this.keysByHash.set(record.hash, record);
  }

  /** Takes an account out (a scenario load that was refused half way, D254): its keys stop authenticating; its scheduled work finds it gone. */
  removeAccount(accountId: string): void {
    const account = this.accounts.get(accountId);
    if (!account) return;
    for (const record of account.keys.values()) if (this.keysByHash.get(record.hash) === record) this.keysByHash.delete(record.hash);
    this.accounts.delete(accountId);
  }

  reset(): void {
    this.accounts.clear();
    this.scenarios.clear();
    this.keysByHash.clear();
    this.global.writesPaused = false;
    this.limitOverrides = {};
    this.webhooks.processingDelaySeconds = null;
    this.accountSequence = 1;
  }
}
