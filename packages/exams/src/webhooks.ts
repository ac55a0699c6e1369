/**
 * The webhook receiver exam (cgs-webhooks-check): a seeded battery of deliveries, signed as the
 * mock signs them (packages/mock-core/src/events/signing.ts, the `standardwebhooks` package), sent one after another
 * to a receiver's URL; each answer judged against the RECV- rules of packages/contract/spec/rules.yaml.
 *
 * What an answer can show: 2xx for a valid delivery (RECV-006) within the time budget (RECV-007),
 * non-2xx for an invalid one (RECV-001 tampered body, RECV-002 old, RECV-003 bad or missing
 * signature, RECV-005 future), 2xx for valid bodies of unusual spacing and key order (RECV-001) and
 * for a header with several signatures (RECV-004). What it cannot show (RECV-008 de-duplication,
 * RECV-009 ordering) is listed with the deliveries that exercise it, for the team to check.
 *
 * An answer later than the budget counts as none: a failure for a valid delivery, a refusal for
 * an invalid one (the service would retry either). No answer at all (refused connection) on the
 * first delivery means the exam could not run.
 */
import { Webhook } from 'standardwebhooks';
import { signatureHeaders } from '../../mock-core/src/events/signing.ts';
import { hexFrom, seeded } from '../../contract/platform/seeded.ts';
import { toBase64 } from '../../contract/platform/crypto.ts';
import type { Rule } from '../../contract/spec/types.ts';
import { report, verdicts, type ExamReport, type Finding } from './report.ts';

export const DEFAULT_TIMEOUT_MS = 10_000;
/** Six minutes: one minute past the five-minute replay window. */
const SKEW_SECONDS = 6 * 60;

/** What a delivery of the battery expects and which rules its answer judges. */
export interface Delivery {
  name: string;
  headers: Record<string, string>;
  body: string;
  /** `accept`: 2xx expected; `reject`: non-2xx expected. */
  expect: 'accept' | 'reject';
  /** Rules an answer of this delivery judges (RECV-007 is added for every accepted one). */
  rules: string[];
  /** What this delivery exercises that no answer shows (RECV-008, RECV-009). */
  unjudged?: string;
}

/** The checks of the receiver exam, by the rules each judges (rules:coverage reads this). */
export const RECEIVER_CHECKS: readonly { id: string; rules: readonly string[] }[] = [
  { id: 'valid-delivery-accepted', rules: ['RECV-006', 'RECV-007'] },
  { id: 'raw-body-verified', rules: ['RECV-001'] },
  { id: 'old-timestamp-rejected', rules: ['RECV-002'] },
  { id: 'bad-signature-rejected', rules: ['RECV-003'] },
  { id: 'several-signatures-accepted', rules: ['RECV-004'] },
  { id: 'future-timestamp-rejected', rules: ['RECV-005'] },
];

const EVENT_TYPES = ['run.completed', 'creative.approved', 'campaign.updated', 'asset.deleted'] as const;

function resource(type: string, id: string, iso: string): Record<string, unknown> {
  const kind = type.split('.')[0]!;
  if (kind === 'run') return { object: 'run', runId: id, status: 'SUCCEEDED', total: 2, credits: { estimated: 2, rateCardVersion: 'exam' }, counts: { succeeded: 2, failed: 0, refused: 0, stopped: 0, pending: 0 }, createdAt: iso, finalizedAt: iso };
  if (kind === 'creative') return { object: 'creative', creativeId: id, productId: `prod_${id}`, campaignId: `camp_${id}`, brandId: 'brand_exam', sku: null, mediaType: 'image', url: 'https://cdn.example/c.png', thumbnailUrl: null, aspectRatio: '1:1', approvedAt: iso, playerUrl: null, embedCode: null, deletedAt: null };
  if (kind === 'asset') return { object: 'asset', assetId: id, productId: `prod_${id}`, type: 'STATIC', url: 'https://cdn.example/a.png', thumbnailUrl: null, favorited: false, status: 'active', name: 'exam', width: 1024, height: 1024, durationSec: null, playerUrl: null, embedCode: null, createdAt: iso, deletedAt: iso };
  return { object: 'campaign', campaignId: id, name: 'Exam', status: 'IN_PROGRESS', brandId: 'brand_exam', creativeCount: 1, createdAt: iso, deletedAt: null };
}

function envelope(type: string, id: string, at: number): Record<string, unknown> {
  const iso = new Date(at).toISOString();
  return {
    type,
    timestamp: iso,
    data: resource(type, id, iso),
    ...(type.endsWith('.updated') ? { previousAttributes: { name: 'Before' } } : {}),
    ...(type === 'run.completed' ? {} : { actor: { kind: 'user' } }),
  };
}

/** Valid JSON a re-serialiser changes: keys in reverse order, spaces, newlines, escaped slashes. */
function unusual(value: Record<string, unknown>): string {
  const entries = Object.entries(value).reverse();
  return `{\n  ${entries.map(([k, v]) => `${JSON.stringify(k)} :  ${JSON.stringify(v, null, 1).replaceAll('/', '\\/')}`).join(' ,\n\t')}\n}`;
}

/** The battery for one seed, stamped around `nowMs` (Unix ms of the receiver's clock). */
export function battery(secret: string, seed: number, nowMs: number): Delivery[] {
  const random = seeded(seed);
  const id = () => `msg_exam${hexFrom(random, 20)}`;
  const signed = (name: string, body: string, expect: Delivery['expect'], rules: string[], at = nowMs, msgId = id()): Delivery => ({ name, headers: { ...signatureHeaders(secret, msgId, at, body), 'content-type': 'application/json' }, body, expect, rules });
  const out: Delivery[] = [];
  const order = [...EVENT_TYPES].sort(() => random() - 0.5);
  for (const type of order) out.push(signed(`valid ${type}`, JSON.stringify(envelope(type, hexFrom(random, 12), nowMs - 30_000)), 'accept', ['RECV-006']));
  for (const type of order.slice(0, 2)) out.push(signed(`valid ${type}, unusual spacing and key order`, unusual(envelope(type, hexFrom(random, 12), nowMs - 20_000)), 'accept', ['RECV-001']));

  const multi = signed('several signatures, the first of another secret', JSON.stringify(envelope('creative.approved', hexFrom(random, 12), nowMs - 10_000)), 'accept', ['RECV-004']);
  const wrong = new Webhook(otherSecret(seed)).sign(multi.headers['webhook-id']!, new Date(Number(multi.headers['webhook-timestamp']) * 1000), multi.body);
  multi.headers['webhook-signature'] = `${wrong} ${multi.headers['webhook-signature']}`;
  out.push(multi);

  const first = out[0]!;
  out.push({ ...first, name: `duplicate of "${first.name}" (same webhook-id)`, headers: { ...first.headers }, rules: ['RECV-006'], unjudged: `RECV-008: ${first.headers['webhook-id']} was sent twice; your store should hold its event once.` });

  const campaign = hexFrom(random, 12);
  const later = { ...envelope('campaign.updated', campaign, nowMs - 5_000), data: { ...resource('campaign.updated', campaign, new Date(nowMs - 5_000).toISOString()), name: 'Later' } };
  const earlier = { ...envelope('campaign.updated', campaign, nowMs - 15_000), data: { ...resource('campaign.updated', campaign, new Date(nowMs - 15_000).toISOString()), name: 'Earlier' } };
  const laterDelivery = signed('out of order: the later campaign.updated first', JSON.stringify(later), 'accept', ['RECV-006']);
  out.push(laterDelivery);
  out.push({ ...signed('out of order: the earlier campaign.updated second', JSON.stringify(earlier), 'accept', ['RECV-006']), unjudged: `RECV-009: campaign ${campaign} was updated twice, the later change (name "Later", ${laterDelivery.headers['webhook-id']}) delivered first; your store should keep "Later".` });

  const tamperedFrom = JSON.stringify(envelope('creative.approved', hexFrom(random, 12), nowMs - 10_000));
  const tampered = signed('tampered body (changed after signing)', tamperedFrom, 'reject', ['RECV-001']);
  tampered.body = tamperedFrom.replace('"brandId":"brand_exam"', '"brandId":"brand_evil"');
  out.push(tampered);

  const other = new Webhook(otherSecret(seed));
  const foreign = signed('signed with another secret', JSON.stringify(envelope('asset.deleted', hexFrom(random, 12), nowMs)), 'reject', ['RECV-003']);
  foreign.headers['webhook-signature'] = other.sign(foreign.headers['webhook-id']!, new Date(Number(foreign.headers['webhook-timestamp']) * 1000), foreign.body);
  out.push(foreign);
  const garbled = signed('garbled signature', JSON.stringify(envelope('asset.deleted', hexFrom(random, 12), nowMs)), 'reject', ['RECV-003']);
  garbled.headers['webhook-signature'] = `v1,${toBase64(new TextEncoder().encode(hexFrom(random, 32)))}`;
  out.push(garbled);
  for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const missing = signed(`missing ${header}`, JSON.stringify(envelope('creative.approved', hexFrom(random, 12), nowMs)), 'reject', ['RECV-003']);
    delete missing.headers[header];
    out.push(missing);
  }
  out.push(signed('timestamp six minutes old, correctly signed', JSON.stringify(envelope('creative.approved', hexFrom(random, 12), nowMs - SKEW_SECONDS * 1000)), 'reject', ['RECV-002'], nowMs - SKEW_SECONDS * 1000));
  out.push(signed('timestamp six minutes ahead, correctly signed', JSON.stringify(envelope('creative.approved', hexFrom(random, 12), nowMs)), 'reject', ['RECV-005'], nowMs + SKEW_SECONDS * 1000));
  return out;
}

/** A second, valid secret that is not the receiver's (derived from the seed). */
function otherSecret(seed: number): string {
  const random = seeded(seed ^ 0x5bd1e995);
  return `whsec_${toBase64(new TextEncoder().encode(hexFrom(random, 32)))}`;
}

export interface WebhooksExamOptions {
  url: string;
  secret: string;
  seed: number;
  timeoutMs?: number;
  /** The receiver's clock (Unix ms); default the wall clock. */
  now?: () => number;
  ledger: readonly Rule[];
}

type Answer = { status: number } | { timedOut: true } | { error: string };

async function send(url: string, delivery: Delivery, timeoutMs: number): Promise<Answer> {
  try {
    const response = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await response.arrayBuffer().catch(() => undefined);
    return { status: response.status };
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError') return { timedOut: true };
    const cause = (error as { cause?: { code?: string } }).cause;
    return { error: cause?.code ?? (error instanceof Error ? error.message : String(error)) };
  }
}

const CHECK_OF: Record<string, string> = { 'RECV-001': 'raw-body-verified', 'RECV-002': 'old-timestamp-rejected', 'RECV-003': 'bad-signature-rejected', 'RECV-004': 'several-signatures-accepted', 'RECV-005': 'future-timestamp-rejected', 'RECV-006': 'valid-delivery-accepted' };

/** Sends the battery and judges every answer. */
export async function runWebhooksExam(options: WebhooksExamOptions): Promise<ExamReport> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const deliveries = battery(options.secret, options.seed, now());
  const findings: Finding[] = [];
  const notes = [`receiver ${options.url}, ${deliveries.length} deliveries, one at a time, time budget ${timeoutMs} ms each`];
  for (const [index, delivery] of deliveries.entries()) {
    const answer = await send(options.url, delivery, timeoutMs);
    if ('error' in answer) {
      const rules = verdicts(options.ledger, 'receiver', []);
      return report('cgs-webhooks-check', rules, notes, { seed: options.seed, error: `delivery #${index + 1} (${delivery.name}) got no answer: ${answer.error}` });
    }
    const seen = 'timedOut' in answer ? `no answer within ${timeoutMs} ms` : `answered ${answer.status}`;
    const proof = [`#${index + 1} ${delivery.name}: webhook-id ${delivery.headers['webhook-id'] ?? '(none)'}, ${seen}, expected ${delivery.expect === 'accept' ? '2xx' : 'non-2xx'}`];
    const accepted = 'status' in answer && answer.status >= 200 && answer.status < 300;
    if (delivery.expect === 'accept') {
      // An answer after the budget is RECV-007's alone: what it would have said is not known.
      if ('timedOut' in answer) findings.push({ rule: 'RECV-007', check: 'valid-delivery-accepted', held: false, proof });
      else {
        findings.push({ rule: 'RECV-007', check: 'valid-delivery-accepted', held: true, proof });
        for (const rule of delivery.rules) findings.push({ rule, check: CHECK_OF[rule]!, held: accepted, proof });
      }
    } else for (const rule of delivery.rules) findings.push({ rule, check: CHECK_OF[rule]!, held: !accepted, proof });
    if (delivery.unjudged) notes.push(`not judged, ${delivery.unjudged}`);
  }
  return report('cgs-webhooks-check', verdicts(options.ledger, 'receiver', findings), notes, { seed: options.seed });
}
