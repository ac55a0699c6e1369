/**
 * The flows a frontend's tests walk through against the in-process mock, the same in Node
 * (node.test.ts, msw/node) and in the browser (browser/, msw/browser's service worker): each one
 * uses the typed client (client.ts) for the API and the typed control API (`control` of
 * createMockHandlers) for what only a test does (an account, the clock, limits, a webhook
 * endpoint), and returns what it saw; the tests assert on that.
 */
import { Webhook } from 'standardwebhooks';
import type { MockControl } from '../../packages/msw/src/msw.ts';
import { createApiClient, type ApiClient, type Creative, type Run } from './client.ts';

/** A webhook the in-process mock handed over (its `webhooks.deliver` callback, or a receiver). */
export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
}

export interface FlowContext {
  /** The API's base URL, `<baseUrl>/api/public/v1`. */
  api: string;
  control: MockControl;
  /** Every webhook delivered so far. */
  received: () => readonly ReceivedWebhook[];
}

export interface Session {
  accountId: string;
  client: ApiClient;
}

/** A fresh enterprise account with demo data and a client holding its `all` key. */
export async function newSession(context: FlowContext): Promise<Session> {
  const account = await context.control.createAccount({ plan: 'enterprise' });
  const key = account.keys['all']?.key;
  if (!key) throw new Error('createAccount gave no "all" key');
  return { accountId: account.accountId, client: createApiClient({ baseUrl: context.api, key }) };
}

async function pendingCreatives(client: ApiClient, count: number): Promise<Creative[]> {
  const found: Creative[] = [];
  let cursor: string | undefined;
  do {
    const { data, error } = await client.listCreatives({ limit: 100, ...(cursor ? { cursor } : {}) });
    if (!data) throw new Error(`listCreatives: ${JSON.stringify(error)}`);
    found.push(...data.data.filter((c) => c.status === 'PENDING'));
    cursor = data.pagination.nextCursor ?? undefined;
  } while (found.length < count && cursor);
  if (found.length < count) throw new Error(`only ${found.length} pending creatives`);
  return found.slice(0, count);
}

export interface ReviewOutcome {
  approveStatus: number;
  approvedAt: string | null;
  /** Webhooks received before the clock moved (the processing delay has not passed). */
  receivedBeforeAdvance: number;
  /** The creative.approved webhooks received after it, with their signature verified. */
  delivered: { type: string; creativeId: string; verified: boolean }[];
  creativeId: string;
}

/** Approve a pending creative; creative.approved reaches the webhook endpoint once the clock passes the processing delay. */
export async function reviewFlow(context: FlowContext, session: Session): Promise<ReviewOutcome> {
  const endpoint = await context.control.createWebhookEndpoint(session.accountId, { url: 'http://127.0.0.1:9/hooks', eventTypes: ['creative.approved'] });
  const [creative] = await pendingCreatives(session.client, 1);
  const approved = await session.client.approveCreative(creative!.creativeId);
  const before = context.received().length;
  await context.control.advanceClock(120);
  const verifier = new Webhook(endpoint.secret);
  const delivered = context.received().map((message) => {
    let verified = true;
    try {
      verifier.verify(message.body, message.headers);
    } catch {
      verified = false;
    }
    const event = JSON.parse(message.body) as { type: string; data: { creativeId: string } };
    return { type: event.type, creativeId: event.data.creativeId, verified };
  });
  return { approveStatus: approved.response.status, approvedAt: approved.data?.approvedAt ?? null, receivedBeforeAdvance: before, delivered, creativeId: creative!.creativeId };
}

export interface RunOutcome {
  createStatus: number;
  /** The run's status after each clock advance, from its creation on. */
  statuses: Run['status'][];
  finalizedAt: string | null;
  total: number;
}

/** A run is accepted, then progresses only when the clock moves, until it is final. */
export async function runFlow(context: FlowContext, session: Session): Promise<RunOutcome> {
  await context.control.updateGeneration(session.accountId, { outcomeMix: { succeeded: 1 } });
  const products = await session.client.listProducts({ limit: 2 });
  const presets = await session.client.listPresets();
  const productIds = (products.data?.data ?? []).map((p) => p.productId);
  const presetId = presets.data?.data[0]?.presetId;
  if (productIds.length === 0 || !presetId) throw new Error('no products or presets in the demo data');
  const created = await session.client.createRun({ productIds, creativesPerProduct: 2, presetId, modality: 'image' });
  if (!created.data) throw new Error(`createRun ${created.response.status}: ${JSON.stringify(created.error)}`);
  const runId = created.data.runId;
  const statuses: Run['status'][] = [created.data.status];
  let run: Run = created.data;
  for (let step = 0; step < 120 && run.finalizedAt === null; step++) {
    await context.control.advanceClock(2);
    const read = await session.client.getRun(runId);
    if (!read.data) throw new Error(`getRun ${read.response.status}`);
    run = read.data;
    if (statuses[statuses.length - 1] !== run.status) statuses.push(run.status);
  }
  return { createStatus: created.response.status, statuses, finalizedAt: run.finalizedAt, total: run.total };
}

export interface RateLimitOutcome {
  statuses: number[];
  retryAfter: string | null;
  contentType: string | null;
  body: string;
  /** The status of the same request once the clock passed Retry-After. */
  afterWaiting: number;
}

/** With one review a window, a second approval is refused 429 with Retry-After (plain text, not JSON); after waiting it passes. */
export async function rateLimitFlow(context: FlowContext, session: Session): Promise<RateLimitOutcome> {
  await context.control.updateAccountLimits(session.accountId, { 'group:creative_reviews': 1 });
  const [a, b] = await pendingCreatives(session.client, 2);
  const first = await session.client.approveCreative(a!.creativeId);
  const second = await session.client.approveCreative(b!.creativeId);
  const retryAfter = second.response.headers.get('retry-after');
  // openapi-fetch hands a body that is not JSON over as its text.
  const body = typeof second.error === 'string' ? second.error : JSON.stringify(second.error);
  await context.control.advanceClock(Number(retryAfter ?? 60));
  const again = await session.client.approveCreative(b!.creativeId);
  return { statuses: [first.response.status, second.response.status], retryAfter, contentType: second.response.headers.get('content-type'), body, afterWaiting: again.response.status };
}

export interface PreconditionOutcome {
  etag: string | null;
  updateStatus: number;
  newEtag: string | null;
  staleStatus: number;
  staleCode: string | null;
  staleContentType: string | null;
}

/** PATCH with the ETag read passes and changes the tag; the same stale tag again is 412 PRECONDITION_FAILED. */
export async function preconditionFlow(_context: FlowContext, session: Session): Promise<PreconditionOutcome> {
  const [creative] = await pendingCreatives(session.client, 1);
  const read = await session.client.getCreative(creative!.creativeId);
  const etag = read.response.headers.get('etag');
  const update = await session.client.updateCreative(creative!.creativeId, etag ?? '*', { metadata: { reviewedIn: 'msw example' } });
  const stale = await session.client.updateCreative(creative!.creativeId, etag ?? '*', { metadata: { reviewedIn: 'again' } });
  return {
    etag,
    updateStatus: update.response.status,
    newEtag: update.response.headers.get('etag'),
    staleStatus: stale.response.status,
    staleCode: (stale.error as { code?: string } | undefined)?.code ?? null,
    staleContentType: stale.response.headers.get('content-type'),
  };
}

export interface AllOutcomes {
  review: ReviewOutcome;
  run: RunOutcome;
  rateLimit: RateLimitOutcome;
  precondition: PreconditionOutcome;
}

/** Every flow, each on an account of its own. */
export async function allFlows(context: FlowContext): Promise<AllOutcomes> {
  return {
    review: await reviewFlow(context, await newSession(context)),
    run: await runFlow(context, await newSession(context)),
    rateLimit: await rateLimitFlow(context, await newSession(context)),
    precondition: await preconditionFlow(context, await newSession(context)),
  };
}
