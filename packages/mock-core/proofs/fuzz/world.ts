/**
 * The fuzz world: an in-process mock (packages/mock-core/src/testkit/harness.ts harness, manual clock), one fresh account
 * with demo data, and what a plan needs to become a concrete request: the pools of ids of the
 * account's current state, the keys used so far, the current ETag of a resource and a real cursor
 * (both read through the public API, like a client would).
 */
import { basePath, operations, type OperationInfo } from '../../../contract/spec/contract.ts';
import { matchOperation } from '../../../contract/spec/routes.ts';
import { createHarness, type Harness, type TestResponse } from '../../src/testkit/harness.ts';
import type { AccountState } from '../../src/domain/store.ts';
import { presets } from '../../src/domain/presets/catalog.ts';
import { isRecord, Ref, RefList, type Pool } from './schema.ts';
import type { BodyChoice, CursorChoice, IfMatchChoice, KeyChoice, RequestPlan } from './plan.ts';

/** How the account is set up for one fuzz run (generated, so a failure reproduces it). */
export interface WorldProfile {
  /** Seed of the demo data. */
  dataSeed: number;
  /** Starting balance and daily API budget (small ones reach the refusals). */
  credits: { balance: number; dailyBudget: number | null };
  /** Outcome weights of run items (succeeded, failed, refused, stall). */
  outcomeMix: { succeeded: number; failed: number; refused: number; stall: number };
  upscaleOutcomeMix: { succeeded: number; failed: number; stall: number };
  /** `low`: each operation group admits a few requests per window, so 429s are met (and checked) too. */
  limits: 'high' | 'low';
}

export interface KeyProfile {
  keyId: string;
  key: string;
  scopes: string[];
}

const LIMIT_NAMES = ['group:read', 'group:generation_read', 'group:generation_write', 'group:creative_reviews', 'group:creative_writes', 'group:asset_writes', 'group:campaign_writes', 'account:read', 'account:generation', 'account:writes', 'ip:read', 'ip:generation', 'ip:writes'];
/** Limits high enough that the fuzz reaches the operations. */
const HIGH_LIMITS: Record<string, number> = Object.fromEntries(LIMIT_NAMES.map((n) => [n, 1_000_000_000]));
/** A few requests per group and window (the clock moves only when a step advances it). */
const LOW_LIMITS: Record<string, number> = Object.fromEntries(LIMIT_NAMES.map((n) => [n, n.startsWith('group:') ? 6 : 1_000_000_000]));

export interface ConcreteRequest {
  method: string;
  /** Path below the API base, with the query string. */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** The plan it came from. */
  operationId: string;
}

export interface FuzzWorld {
  harness: Harness;
  accountId: string;
  state: AccountState;
  keys: Record<string, KeyProfile>;
  /** Idempotency keys sent so far (as sent, quotes included). */
  usedKeys: string[];
  keyCounter: number;
  /** Every request sent (preflights included). */
  sent: number;
}

/**
 * A fresh account on `harness` (default: a new in-process harness). Everything is set up through
 * the control plane and the public API, so that another way in (packages/msw/src/msw.equivalence.test.ts
 * records the requests and replays them on the MSW handlers) can be set up the same way.
 */
export async function createWorld(profile: WorldProfile, given?: Harness): Promise<FuzzWorld> {
  const harness = given ?? (await createHarness());
  const res = await harness.control('POST', '/__mock/accounts', { seed: profile.dataSeed, limits: HIGH_LIMITS, credits: profile.credits });
  if (res.status !== 201) throw new Error(`fuzz account creation failed: ${res.status} ${res.text}`);
  const { accountId, keys } = res.body as { accountId: string; keys: Record<string, KeyProfile> };
  const state = harness.mock.services.store.accounts.get(accountId)!;
  const settings = await harness.control('PATCH', `/__mock/accounts/${accountId}/generation`, { outcomeMix: profile.outcomeMix, upscaleOutcomeMix: profile.upscaleOutcomeMix });
  if (settings.status !== 200) throw new Error(`fuzz generation settings refused: ${settings.status} ${settings.text}`);
  const world: FuzzWorld = { harness, accountId, state, keys, usedKeys: [], keyCounter: 0, sent: 0 };
  // The demo data holds no runs nor upscales: start one of each through the public API, so that
  // reads, stops and item lists meet real ones (they may be refused on a small balance; fine).
  const auth = { authorization: `Bearer ${keys.all!.key}` };
  const products = state.products.ids().slice(0, 2);
  const setup = [
    { path: '/runs', key: 'setup-run', body: { productIds: products, creativesPerProduct: 3, presetId: presets.ids()[0] } },
    { path: '/upscales', key: 'setup-upscale', body: { source: { productId: products[0], image: 'primary' }, target: '2K' } },
  ];
  for (const s of setup) {
    const res = await harness.request('POST', s.path, { headers: { ...auth, 'idempotency-key': s.key }, body: s.body });
    if (res.status >= 500) throw new Error(`fuzz world setup: POST ${s.path} answered ${res.status} ${res.text}`);
  }
  harness.advance(60); // a new rate-limit window
  if (profile.limits === 'low') {
    const limits = await harness.control('PATCH', `/__mock/accounts/${accountId}/limits`, LOW_LIMITS);
    if (limits.status !== 200) throw new Error(`fuzz limits refused: ${limits.status} ${limits.text}`);
  }
  return world;
}

// ---------------------------------------------------------------------------------------------
// Ids

function poolIds(state: AccountState, pool: Pool): readonly string[] {
  switch (pool) {
    case 'product':
      return state.products.ids();
    case 'brand':
      return state.brands.ids();
    case 'preset':
      return presets.ids();
    case 'creative':
      return state.creatives.ids();
    case 'campaign':
      return state.campaigns.ids();
    case 'asset':
      return state.assets.ids();
    case 'run':
      return state.runs.ids();
    case 'upscale':
      return state.upscales.ids();
    case 'delivery':
      return state.deliveries.ids();
    case 'sku':
      return [...new Set([...state.products.values()].map((p) => p.sku).filter((s): s is string => s !== null))];
    case 'rateCardVersion':
      return [state.credits.rateCard.version];
  }
}

/** Products of one brand, in catalog order (a body naming a brand takes its products from it). */
function productsOfBrand(state: AccountState, brandId: string): string[] {
  return [...state.products.values()].filter((p) => p.brandId === brandId).map((p) => p.productId);
}

export function resolveRef(state: AccountState, ref: Ref, exclude?: ReadonlySet<string>, scope?: ResolveScope): string {
  const ids = ref.pool === 'product' && scope?.brandId !== undefined ? productsOfBrand(state, scope.brandId) : poolIds(state, ref.pool);
  if (ids.length === 0) return `${ref.pool}_none_${ref.n}`;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[(ref.n + k) % ids.length]!;
    if (!exclude?.has(id)) return id;
  }
  return ids[ref.n % ids.length]!;
}

/** What the rest of an object says about its ids: products of a body naming a brand come from that brand. */
export interface ResolveScope {
  brandId?: string;
}

/** The value with every Ref replaced by an id of the account (ids in one array kept distinct). */
function resolveValue(state: AccountState, value: unknown, scope: ResolveScope = {}): unknown {
  if (value instanceof Ref) return resolveRef(state, value, undefined, scope);
  if (value instanceof RefList) {
    const used = new Set<string>();
    const out: string[] = [];
    for (const n of value.ns) {
      const id = resolveRef(state, new Ref(value.pool, n), used, scope);
      if (used.has(id)) continue; // the pool is smaller than the list
      used.add(id);
      out.push(id);
    }
    return out.length > 0 ? out : [`${value.pool}_none`];
  }
  // Separate Refs resolve each on its own (two equal Refs are the same id: a duplicate on purpose).
  if (Array.isArray(value)) return value.map((v) => resolveValue(state, v, scope));
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    const brand = value.brandId instanceof Ref ? resolveRef(state, value.brandId) : typeof value.brandId === 'string' ? value.brandId : undefined;
    const inner: ResolveScope = brand !== undefined && poolIds(state, 'brand').includes(brand) ? { brandId: brand } : scope;
    for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: k === 'brandId' && brand !== undefined ? brand : resolveValue(state, v, inner), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Sending

export async function send(world: FuzzWorld, request: ConcreteRequest): Promise<TestResponse> {
  world.sent++;
  const options: Parameters<Harness['request']>[2] = { headers: request.headers };
  if (request.body !== undefined) options.rawBody = request.body;
  return world.harness.request(request.method, request.path, options);
}

function authHeader(world: FuzzWorld, op: OperationInfo, auth: RequestPlan['auth']): string | undefined {
  switch (auth) {
    case 'valid':
      return `Bearer ${world.keys.all!.key}`;
    case 'none':
      return undefined;
    case 'malformed':
      return 'Bearer not-a-key';
    case 'unknown':
      return `Bearer cgs_${'0'.repeat(64)}`;
    case 'wrong-scope': {
      const needed = op.scopes[0]!;
      // A profile whose key lacks the scope (scopes imply `read`, so a read operation has none: then no token).
      const implied: Record<string, string[]> = { 'runs:write': ['runs:read', 'read'], 'runs:read': ['read'], 'creatives:write': ['read'], 'creatives:review': ['read'], 'assets:write': ['read'], 'campaigns:write': ['read'] };
      const lacking = Object.values(world.keys).find((k) => !k.scopes.some((s) => s === needed || (implied[s] ?? []).includes(needed)));
      return lacking ? `Bearer ${lacking.key}` : undefined;
    }
  }
}

function fillPath(world: FuzzWorld, op: OperationInfo, params: RequestPlan['pathParams']): string {
  return op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const raw = params[name];
    const value = raw instanceof Ref ? resolveRef(world.state, raw) : (raw ?? 'missing');
    return encodeURIComponent(value);
  });
}

function queryString(entries: [string, string][]): string {
  if (entries.length === 0) return '';
  return `?${entries.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
}

/** The operation's GET of the same resource (for its ETag), or undefined. */
function readOperationFor(path: string): { op: OperationInfo; path: string } | undefined {
  const clean = path.split('?')[0]!;
  for (let candidate = clean; candidate.split('/').length > 2; candidate = candidate.slice(0, candidate.lastIndexOf('/'))) {
    const matched = matchOperation('get', candidate);
    if (matched && matched.operation.parameters.some((p) => p.in === 'path')) return { op: matched.operation, path: candidate };
  }
  return undefined;
}

export interface Preflight {
  request: ConcreteRequest;
  response: TestResponse;
}

/** The current ETag of the resource a write acts on, read through its GET (with showDeleted). */
async function currentEtag(world: FuzzWorld, path: string, preflights: Preflight[]): Promise<string | undefined> {
  const read = readOperationFor(path);
  if (!read) return undefined;
  const showDeleted = read.op.parameters.some((p) => p.name === 'showDeleted');
  const request: ConcreteRequest = { method: 'GET', path: `${read.path}${showDeleted ? '?showDeleted=true' : ''}`, headers: { authorization: `Bearer ${world.keys.all!.key}` }, operationId: read.op.operationId };
  const response = await send(world, request);
  preflights.push({ request, response });
  return response.headers.etag;
}

/** A cursor the API issued for the same list and filters (`real`) or for another list (`foreign`). */
async function issuedCursor(world: FuzzWorld, op: OperationInfo, path: string, query: [string, string][], choice: CursorChoice, preflights: Preflight[]): Promise<string | undefined> {
  let listPath = path;
  let listQuery = query.filter(([n]) => n !== 'cursor' && n !== 'limit');
  let operationId = op.operationId;
  if (choice.kind === 'foreign') {
    // Another list operation (with a list of more than one row in the demo data).
    const other = op.operationId === 'listAssets' ? 'listCreatives' : 'listAssets';
    listPath = operations.get(other)!.path;
    listQuery = [];
    operationId = other;
  }
  const request: ConcreteRequest = { method: 'GET', path: `${listPath}${queryString([...listQuery, ['limit', '1']])}`, headers: { authorization: `Bearer ${world.keys.all!.key}` }, operationId };
  const response = await send(world, request);
  preflights.push({ request, response });
  const next = (response.body as { pagination?: { nextCursor?: unknown } } | undefined)?.pagination?.nextCursor;
  if (typeof next === 'string') return next;
  // The other list has one page only: a cursor it never issued stands in (still not this list's).
  return choice.kind === 'foreign' ? 'not-a-cursor-of-this-list' : undefined;
}

function forgedCursor(index: number): string {
  // The shape of this mock's cursors is not part of the contract; a forged one tests that the
  // server survives any index in an otherwise well-formed token.
  return Buffer.from(JSON.stringify({ v: 1, l: 'forged', i: index, p: 0 })).toString('base64url');
}

function keyValue(world: FuzzWorld, choice: KeyChoice): string {
  switch (choice.kind) {
    case 'literal':
      return choice.value;
    case 'fresh': {
      const bare = `fz${world.keyCounter++}-${choice.stem}`.slice(0, 255);
      const value = choice.quoted ? `"${bare}"` : bare;
      world.usedKeys.push(value);
      return value;
    }
    case 'reuse': {
      if (world.usedKeys.length === 0) return keyValue(world, { kind: 'fresh', stem: 'first', quoted: choice.quoted });
      const bare = world.usedKeys[choice.n % world.usedKeys.length]!.replace(/^"|"$/g, '');
      return choice.quoted ? `"${bare}"` : bare;
    }
  }
}

async function ifMatchValue(world: FuzzWorld, choice: IfMatchChoice, path: string, preflights: Preflight[]): Promise<string | undefined> {
  switch (choice.kind) {
    case 'literal':
      return choice.value;
    case 'any':
      return '*';
    case 'stale':
      return '"fuzz-stale-etag-0000000000000"';
    case 'current':
    case 'weak-current':
    case 'list-with-current': {
      const etag = (await currentEtag(world, path, preflights)) ?? '"no-etag-read"';
      if (choice.kind === 'current') return etag;
      if (choice.kind === 'weak-current') return `W/${etag}`;
      return `"not-this-one", ${etag}`;
    }
  }
}

function bodyBytes(world: FuzzWorld, body: BodyChoice): { bytes: string | Buffer; contentType?: string } {
  switch (body.kind) {
    case 'json':
      return { bytes: JSON.stringify(resolveValue(world.state, body.value)), contentType: body.contentType };
    case 'raw':
      return { bytes: body.text, ...(body.contentType ? { contentType: body.contentType } : {}) };
    case 'huge':
      return { bytes: Buffer.alloc(body.bytes, 0x20), contentType: 'application/json' };
  }
}

/** The concrete request of a plan against the account's current state, and the preflight reads it took. */
export async function materialize(world: FuzzWorld, plan: RequestPlan): Promise<{ request: ConcreteRequest; preflights: Preflight[] }> {
  const op = operations.get(plan.operationId)!;
  const preflights: Preflight[] = [];
  const path = fillPath(world, op, plan.pathParams);
  const query: [string, string][] = [];
  for (const [name, value] of plan.query) {
    if (value.kind === 'raw') query.push([name, value.value]);
    else if (value.kind === 'value') {
      const resolved = resolveValue(world.state, value.value);
      query.push([name, typeof resolved === 'string' ? resolved : JSON.stringify(resolved)]);
    }
  }
  for (const [name, value] of plan.query) {
    if (value.kind !== 'cursor') continue;
    const c = value.cursor;
    const cursor = c.kind === 'literal' ? c.value : c.kind === 'forged' ? forgedCursor(c.index) : await issuedCursor(world, op, path, query, c, preflights);
    if (cursor !== undefined) query.push([name, cursor]);
  }
  const headers: Record<string, string> = {};
  const auth = authHeader(world, op, plan.auth);
  if (auth !== undefined) headers.authorization = auth;
  if (plan.idempotencyKey !== undefined) headers['idempotency-key'] = keyValue(world, plan.idempotencyKey);
  if (plan.ifMatch !== undefined) {
    const value = await ifMatchValue(world, plan.ifMatch, path, preflights);
    if (value !== undefined) headers['if-match'] = value;
  }
  const request: ConcreteRequest = { method: op.method.toUpperCase(), path: `${path}${queryString(query)}`, headers, operationId: op.operationId };
  if (plan.body) {
    const { bytes, contentType } = bodyBytes(world, plan.body);
    request.body = bytes;
    if (contentType) headers['content-type'] = contentType;
  }
  return { request, preflights };
}

/** A request as text, for failure reports (long values cut). */
export function describeRequest(request: ConcreteRequest): string {
  const cut = (s: string, n = 600) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);
  const lines = [`${request.method} ${basePath}${cut(request.path, 400)}   [${request.operationId}]`];
  for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${name === 'authorization' ? value.replace(/cgs_[0-9a-f]{60}/, 'cgs_…') : cut(value, 200)}`);
  if (request.body !== undefined) lines.push('', Buffer.isBuffer(request.body) ? `<${request.body.length} bytes>` : cut(request.body));
  return lines.join('\n');
}

export function describeResponse(response: TestResponse): string {
  const keep = ['content-type', 'etag', 'location', 'retry-after', 'idempotent-replayed', 'ratelimit'];
  const lines = [`HTTP ${response.status}`];
  for (const name of keep) if (response.headers[name] !== undefined) lines.push(`${name}: ${response.headers[name]}`);
  lines.push('', response.text.length > 1200 ? `${response.text.slice(0, 1200)}…` : response.text);
  return lines.join('\n');
}
