/** The soak's mixed load: its accounts (limits set high), what a client may read and write, and one client's loop of reads and writes. */
import type { AccountState } from '../../../../mock-core/src/domain/store.ts';
import { type Reply, Client } from './client.ts';

const HIGH = 1_000_000_000;
export const ALL_LIMITS_HIGH: Record<string, number> = Object.fromEntries(
  ['group:read', 'group:generation_read', 'group:generation_write', 'group:creative_reviews', 'group:creative_writes', 'group:asset_writes', 'group:campaign_writes', 'account:read', 'account:generation', 'account:writes', 'ip:read', 'ip:generation', 'ip:writes'].map((n) => [n, HIGH]),
);

export interface SoakAccount {
  accountId: string;
  state: AccountState;
  keys: Record<string, { key: string; keyId: string; scopes: string[] }>;
}

export async function newAccount(control: Client, store: Map<string, AccountState>, body: Record<string, unknown>): Promise<SoakAccount> {
  const res = await control.request('POST', '/__mock/accounts', { body });
  if (res.status !== 201) throw new Error(`soak: account creation failed: ${res.status} ${res.text}`);
  const { accountId, keys } = res.body as { accountId: string; keys: SoakAccount['keys'] };
  return { accountId, keys, state: store.get(accountId)! };
}

export function readableCreatives(state: AccountState): string[] {
  const out: string[] = [];
  for (const c of state.creatives.values()) {
    const campaign = state.campaigns.get(c.campaignId);
    if (c.url !== null && (c.mediaType === 'image' || c.mediaType === 'video') && c.status !== 'NOT_GENERATED' && c.deletedAt === null && campaign?.deletedAt === null) out.push(c.creativeId);
  }
  return out;
}

/** Creatives with a public representation (live or deleted: undelete and showDeleted reads need those too). */
function readableOrDeleted(state: AccountState): string[] {
  const out: string[] = [];
  for (const c of state.creatives.values()) if (c.url !== null && (c.mediaType === 'image' || c.mediaType === 'video') && c.status !== 'NOT_GENERATED') out.push(c.creativeId);
  return out;
}

export function liveAssets(state: AccountState): string[] {
  return [...state.assets.values()].filter((a) => a.deletedAt === null).map((a) => a.assetId);
}

export function liveCampaigns(state: AccountState): string[] {
  return [...state.campaigns.values()].filter((c) => c.deletedAt === null).map((c) => c.campaignId);
}

/** Product ids of one brand (a campaign covers products of its brand). */
export function brandProducts(state: AccountState): { brandId: string; productIds: string[] } {
  const brandId = state.brands.ids()[0]!;
  return { brandId, productIds: [...state.products.values()].filter((p) => p.brandId === brandId).map((p) => p.productId) };
}

export interface Replays {
  count: number;
  failed: number;
  notes: string[];
}

export async function mixedClient(client: Client, account: SoakAccount, random: () => number, index: number, more: () => boolean, count: () => void, replays: Replays): Promise<void> {
  const key = account.keys.all!.key;
  const state = account.state;
  let n = 0;
  const pick = <T>(list: readonly T[]): T | undefined => (list.length === 0 ? undefined : list[Math.floor(random() * list.length)]);
  const idem = () => `soak-${index}-${n++}-${Math.floor(random() * 1e9)}`;
  const metaKeys = ['color', 'size', 'channel', 'owner', 'region', 'season'];
  const metaPatch = () => {
    const patch: Record<string, string | null> = {};
    for (let k = 0; k < 1 + Math.floor(random() * 3); k++) patch[pick(metaKeys)!] = random() < 0.25 ? null : `v${Math.floor(random() * 5)}`;
    return patch;
  };
  const send = async (method: string, path: string, opts: { headers?: Record<string, string>; body?: unknown } = {}) => {
    count();
    try {
      return await client.request(method, path, { key, ...opts });
    } catch {
      return undefined; // counted as a client error
    }
  };
  const etagOf = async (path: string) => (await send('GET', `${path}?showDeleted=true`))?.headers.etag;
  let lastKeyed: { method: string; path: string; headers: Record<string, string>; body?: unknown; reply?: Reply } | undefined;
  const keyed = async (entry: NonNullable<typeof lastKeyed>) => {
    lastKeyed = entry;
    entry.reply = await send(entry.method, entry.path, { headers: entry.headers, body: entry.body });
    return entry.reply;
  };

  while (more()) {
    // Mostly creatives the API can act on (campaigns created here open NOT_GENERATED ones: 404s).
    const creative = random() < 0.85 ? (pick(readableOrDeleted(state)) ?? pick(state.creatives.ids())) : pick(state.creatives.ids());
    const asset = pick(state.assets.ids());
    const campaign = pick(state.campaigns.ids());
    const run = pick(state.runs.ids());
    const upscale = pick(state.upscales.ids());
    const r = random();
    if (r < 0.45) {
      // Reads.
      const reads: (() => Promise<unknown>)[] = [
        () => send('GET', `/creatives?limit=${1 + Math.floor(random() * 50)}${random() < 0.3 ? '&showDeleted=true' : ''}${random() < 0.2 ? '&expand=product' : ''}`),
        () => send('GET', `/creatives/${creative}`),
        () => send('GET', `/assets?limit=20`),
        () => send('GET', `/assets/${asset}?showDeleted=true`),
        () => send('GET', `/campaigns${random() < 0.5 ? '?showDeleted=true' : ''}`),
        () => send('GET', `/campaigns/${campaign}`),
        () => send('GET', `/products?limit=50`),
        () => send('GET', `/deliveries?limit=10`),
        () => send('GET', `/presets`),
        () => send('GET', `/runs`),
        () => (run ? send('GET', `/runs/${run}`) : send('GET', '/runs')),
        () => (run ? send('GET', `/runs/${run}/items?limit=10`) : send('GET', '/presets')),
        () => (upscale ? send('GET', `/upscales/${upscale}`) : send('GET', '/presets')),
        async () => {
          const first = await send('GET', '/creatives?limit=5');
          const cursor = (first?.body as { pagination?: { nextCursor?: string | null } } | undefined)?.pagination?.nextCursor;
          if (cursor) await send('GET', `/creatives?limit=5&cursor=${encodeURIComponent(cursor)}`);
        },
      ];
      await pick(reads)!();
      continue;
    }
    const writes: (() => Promise<unknown>)[] = [
      async () => {
        const headers: Record<string, string> = {};
        if (random() < 0.3) {
          const etag = await etagOf(`/creatives/${creative}`);
          if (etag) headers['if-match'] = etag;
        }
        await send('PATCH', `/creatives/${creative}`, { headers, body: random() < 0.2 ? { aspectRatio: pick(['1:1', '4:5', '9:16', null]) } : { metadata: metaPatch() } });
      },
      () => send('PATCH', `/assets/${asset}`, { body: random() < 0.5 ? { favorited: random() < 0.5 } : { metadata: metaPatch(), notes: random() < 0.5 ? '' : `note ${Math.floor(random() * 9)}` } }),
      () => send('PATCH', `/campaigns/${campaign}`, { body: random() < 0.5 ? { name: `Campaign ${Math.floor(random() * 9)}` } : { metadata: metaPatch() } }),
      () => send('DELETE', `/creatives/${creative}`),
      () => keyed({ method: 'POST', path: `/creatives/${creative}/undelete`, headers: { 'idempotency-key': idem() } }),
      () => send('POST', `/creatives/${creative}/${random() < 0.5 ? 'approve' : 'reject'}`, { headers: { 'idempotency-key': idem() } }),
      () => send('DELETE', `/assets/${asset}`),
      () => send('POST', `/assets/${asset}/${pick(['undelete', 'archive', 'unarchive'])}`, { headers: { 'idempotency-key': idem() } }),
      () => send('DELETE', `/campaigns/${campaign}`),
      () => send('POST', `/campaigns/${campaign}/undelete`, { headers: { 'idempotency-key': idem() } }),
      async () => {
        // Creates are bounded, so the data the run makes stays small.
        if (state.campaigns.size >= 40) return send('GET', '/campaigns');
        const { brandId, productIds } = brandProducts(state);
        const k = idem();
        return keyed({ method: 'POST', path: '/campaigns', headers: { 'idempotency-key': k }, body: { name: `Soak ${k}`, brandId, productIds: productIds.slice(0, 1 + Math.floor(random() * 3)) } });
      },
      async () => {
        if (state.runs.size >= 40) return send('GET', '/runs');
        return keyed({ method: 'POST', path: '/runs', headers: { 'idempotency-key': idem() }, body: { productIds: state.products.ids().slice(0, 1 + Math.floor(random() * 3)), creativesPerProduct: 1 + Math.floor(random() * 3), presetId: 'pst_studio_white' } });
      },
      () => (run ? send('POST', `/runs/${run}/stop`) : send('POST', '/runs/estimate', { body: { productIds: state.products.ids().slice(0, 2), creativesPerProduct: 2, presetId: 'pst_flat_lay' } })),
      async () => {
        if (state.upscales.size >= 30) return send('GET', '/presets');
        const source = random() < 0.5 && asset ? { assetId: asset } : { productId: pick(state.products.ids())!, image: 'primary' };
        return keyed({ method: 'POST', path: '/upscales', headers: { 'idempotency-key': idem() }, body: { source, target: pick(['2K', '4K']) } });
      },
      async () => {
        // A retry of an earlier keyed write: after a 2xx it replays the original, byte for byte.
        const original = lastKeyed;
        if (!original?.reply) return send('GET', '/presets');
        const retry = await send(original.method, original.path, { headers: original.headers, body: original.body });
        if (retry && original.reply.status < 300) {
          replays.count++;
          if (retry.headers['idempotent-replayed'] !== 'true' || retry.status !== original.reply.status || retry.text !== original.reply.text) {
            replays.failed++;
            replays.notes.push(`retry of ${original.method} ${original.path} (${original.headers['idempotency-key']}): ${original.reply.status} → ${retry.status}, replayed=${retry.headers['idempotent-replayed'] ?? 'no'}`);
          }
        }
        return retry;
      },
    ];
    await pick(writes)!();
  }
}
