/** The document's `x-` tables as typed, frozen values (rate limits, webhook delivery, plans) and its event types, each checked as it is read (packages/contract/spec/contract.ts reads the document). */
import { type JsonObject, isObject, deepFreeze, document, escapeSegment, stringArray, requiredString } from './contract.ts';

export interface RateLimitGroup {
  limit: number;
  traffic: string;
  appliesTo: string;
}

export interface RateLimits {
  windowSeconds: number;
  groups: Readonly<Record<string, RateLimitGroup>>;
  /** Per kind of traffic: the account-wide cap and the per-source-IP cap. */
  caps: Readonly<Record<string, { account: number; ip: number }>>;
}

export interface WebhookDelivery {
  processingDelaySeconds: number;
  retry: { firstDelaySeconds: number; factor: number; maxDelaySeconds: number; horizonSeconds: number };
  replayWindowSeconds: number;
}

export interface PlanDefaults {
  campaigns: boolean;
  webhooks: boolean;
  runsWrite: boolean;
  imageSizes: string[];
  upscales: boolean;
  campaignLimit: number;
  productsPerCampaign: number;
}

export interface Plans {
  /** Lowest first. */
  tiers: string[];
  defaults: Readonly<Record<string, PlanDefaults>>;
}

function object(value: unknown, where: string): JsonObject {
  if (!isObject(value)) throw new Error(`${where}: expected an object`);
  return value;
}

function integer(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new Error(`${where}: expected a non-negative integer`);
  }
  return value;
}

function boolean(value: unknown, where: string): boolean {
  if (typeof value !== 'boolean') throw new Error(`${where}: expected a boolean`);
  return value;
}

function mapValues<T>(value: unknown, where: string, read: (v: unknown, at: string) => T): Record<string, T> {
  return Object.fromEntries(
    Object.entries(object(value, where)).map(([k, v]) => [k, read(v, `${where}/${escapeSegment(k)}`)]),
  );
}

function readRateLimits(): RateLimits {
  const raw = object(document['x-rate-limits'], '#/x-rate-limits');
  return {
    windowSeconds: integer(raw['windowSeconds'], '#/x-rate-limits/windowSeconds'),
    groups: mapValues(raw['groups'], '#/x-rate-limits/groups', (v, at) => {
      const g = object(v, at);
      return {
        limit: integer(g['limit'], `${at}/limit`),
        traffic: requiredString(g['traffic'], `${at}/traffic`),
        appliesTo: requiredString(g['appliesTo'], `${at}/appliesTo`),
      };
    }),
    caps: mapValues(raw['caps'], '#/x-rate-limits/caps', (v, at) => {
      const c = object(v, at);
      return { account: integer(c['account'], `${at}/account`), ip: integer(c['ip'], `${at}/ip`) };
    }),
  };
}

function readWebhookDelivery(): WebhookDelivery {
  const at = '#/x-webhook-delivery';
  const raw = object(document['x-webhook-delivery'], at);
  const retry = object(raw['retry'], `${at}/retry`);
  return {
    processingDelaySeconds: integer(raw['processingDelaySeconds'], `${at}/processingDelaySeconds`),
    retry: {
      firstDelaySeconds: integer(retry['firstDelaySeconds'], `${at}/retry/firstDelaySeconds`),
      factor: integer(retry['factor'], `${at}/retry/factor`),
      maxDelaySeconds: integer(retry['maxDelaySeconds'], `${at}/retry/maxDelaySeconds`),
      horizonSeconds: integer(retry['horizonSeconds'], `${at}/retry/horizonSeconds`),
    },
    replayWindowSeconds: integer(raw['replayWindowSeconds'], `${at}/replayWindowSeconds`),
  };
}

function readPlans(): Plans {
  const at = '#/x-plans';
  const raw = object(document['x-plans'], at);
  const tiers = stringArray(raw['tiers'], `${at}/tiers`);
  const defaults = mapValues(raw['defaults'], `${at}/defaults`, (v, where) => {
    const d = object(v, where);
    return {
      campaigns: boolean(d['campaigns'], `${where}/campaigns`),
      webhooks: boolean(d['webhooks'], `${where}/webhooks`),
      runsWrite: boolean(d['runsWrite'], `${where}/runsWrite`),
      imageSizes: stringArray(d['imageSizes'], `${where}/imageSizes`),
      upscales: boolean(d['upscales'], `${where}/upscales`),
      campaignLimit: integer(d['campaignLimit'], `${where}/campaignLimit`),
      productsPerCampaign: integer(d['productsPerCampaign'], `${where}/productsPerCampaign`),
    };
  });
  const missing = tiers.filter((t) => defaults[t] === undefined);
  if (missing.length > 0) throw new Error(`${at}/defaults: no defaults for ${missing.join(', ')}`);
  return { tiers, defaults };
}

export const rateLimits: RateLimits = deepFreeze(readRateLimits());
export const webhookDelivery: WebhookDelivery = deepFreeze(readWebhookDelivery());
export const plans: Plans = deepFreeze(readPlans());
export const eventTypes: readonly string[] = deepFreeze(
  stringArray(object(document.components.schemas['EventType'], '#/components/schemas/EventType')['enum'], '#/components/schemas/EventType/enum'),
);
