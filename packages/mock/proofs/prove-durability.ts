/**
 * The kill -9 proof of `--state` (issue 34, finding 3; D248): the real mock (launchMock, as
 * `npm start` runs it) with `--state` in a temporary directory on 127.0.0.1; a bounded burst of
 * concurrent writes of several kinds (accounts made through /__mock, campaigns made through an
 * account's key, an account's settings changed, clock advances); every 2xx answer recorded; SIGKILL
 * in the middle of the burst; a restart on the same file; every acknowledged write checked present.
 * Prints sent, acknowledged, present and lost; exits 1 when anything acknowledged was lost.
 *
 *   npx tsx packages/mock/proofs/prove-durability.ts [--writes 1500] [--concurrency 32] [--kill-after 600]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { launchMock, type LaunchedMock } from '../src/node/launch.ts';

const { values } = parseArgs({
  options: {
    writes: { type: 'string', default: '1500' },
    concurrency: { type: 'string', default: '32' },
    'kill-after': { type: 'string', default: '600' },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});
const WRITES = Math.min(5000, Math.max(10, Number(values.writes)));
const CONCURRENCY = Math.min(64, Math.max(1, Number(values.concurrency)));
const KILL_AFTER = Math.min(WRITES - 1, Math.max(1, Number(values['kill-after'])));
const DEADLINE_MS = 120_000;

interface Answer {
  status: number;
  body: string;
}

/** One request on its own connection (no agent: the kill cuts what is in flight, nothing is retried). */
function call(origin: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const url = new URL(path, origin);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, agent: false, headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(20_000, () => req.destroy(new Error(`timeout on ${method} ${path}`)));
    req.on('error', reject);
    req.end(payload);
  });
}

const json = <T>(answer: Answer, what: string, status = 200): T => {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${answer.body.slice(0, 300)}`);
  return JSON.parse(answer.body) as T;
};

const dir = mkdtempSync(join(tmpdir(), 'cgs-durability-'));
const stateFile = join(dir, 'state.json');
const launch = (): Promise<LaunchedMock> => launchMock({ args: ['--state', stateFile], clock: 'manual', stopWithParent: true });
const began = Date.now();
let mock: LaunchedMock | undefined;

try {
  mock = await launch();
  const origin = mock.origin;
  // The account the API writes go to: the demo catalog (60 products, 2 brands), its `all` key.
  const target = json<{ accountId: string; keys: Record<string, { key: string }> }>(await call(origin, 'POST', '/__mock/accounts', { name: 'Durability target', plan: 'enterprise' }), 'POST /__mock/accounts', 201);
  const auth = { authorization: `Bearer ${target.keys.all!.key}` };
  const products = json<{ data: Array<{ productId: string; brandId: string }> }>(await call(origin, 'GET', '/api/public/v1/products?limit=10', undefined, auth), 'GET /products').data;
  const brandId = products[0]!.brandId;
  const productIds = products.filter((p) => p.brandId === brandId).map((p) => p.productId).slice(0, 2);
  const lifted = await call(origin, 'PATCH', `/__mock/accounts/${target.accountId}/limits`, { 'group:campaign_writes': 1_000_000_000, 'account:write': 1_000_000_000 });
  if (lifted.status >= 300) await call(origin, 'PATCH', '/__mock/limits', { 'group:campaign_writes': 1_000_000_000 });

  // What was acknowledged, by kind.
  const acked = { accounts: [] as string[], campaigns: [] as string[], settings: [] as boolean[], clock: [] as number[] };
  const sent = { accounts: 0, campaigns: 0, settings: 0, clock: 0 };
  let acknowledged = 0;
  let refused = 0;
  let cut = 0;
  let next = 0;
  let killed = false;

  const one = async (i: number): Promise<void> => {
    const kind = i % 10 === 9 ? 'clock' : i % 10 === 8 ? 'settings' : i % 10 >= 5 ? 'campaigns' : 'accounts';
    sent[kind] += 1;
    try {
      if (kind === 'accounts') {
        const answer = await call(origin, 'POST', '/__mock/accounts', { name: `burst ${i}`, empty: true });
        if (answer.status === 201) acked.accounts.push((JSON.parse(answer.body) as { accountId: string }).accountId);
        else return void (refused += 1);
      } else if (kind === 'campaigns') {
        const answer = await call(origin, 'POST', '/api/public/v1/campaigns', { name: `burst ${i}`, brandId, productIds }, { ...auth, 'idempotency-key': `burst-${i}` });
        if (answer.status === 201) acked.campaigns.push((JSON.parse(answer.body) as { campaignId: string }).campaignId);
        else return void (refused += 1);
      } else if (kind === 'settings') {
        // sparsePages alternates; the last acknowledged value is what a restart must show
        const answer = await call(origin, 'PATCH', `/__mock/accounts/${target.accountId}/settings`, { sparsePages: i % 20 === 8 });
        if (answer.status === 200) acked.settings.push(i % 20 === 8);
        else return void (refused += 1);
      } else {
        const answer = await call(origin, 'POST', '/__mock/clock', { advanceSeconds: 60 });
        if (answer.status === 200) acked.clock.push(Date.parse((JSON.parse(answer.body) as { now: string }).now));
        else return void (refused += 1);
      }
      acknowledged += 1;
      if (acknowledged === KILL_AFTER && !killed) {
        killed = true;
        mock!.kill('SIGKILL');
      }
    } catch {
      cut += 1; // in flight when the process died: never acknowledged
    }
  };
  const worker = async (): Promise<void> => {
    while (next < WRITES && !killed && Date.now() - began < DEADLINE_MS) await one(next++);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  if (!killed) throw new Error(`the burst ended before the kill (${acknowledged} acknowledged of ${next} sent); lower --kill-after`);
  await new Promise<void>((resolve) => (mock!.child.exitCode !== null || mock!.child.signalCode !== null ? resolve() : mock!.child.once('exit', () => resolve())));
  const totalSent = Object.values(sent).reduce((a, b) => a + b, 0);

  // The restart on the same file.
  mock = await launch();
  const again = mock.origin;
  const accounts = new Set(json<{ data: Array<{ accountId: string }> }>(await call(again, 'GET', '/__mock/accounts'), 'GET /__mock/accounts').data.map((a) => a.accountId));
  const lostAccounts = acked.accounts.filter((id) => !accounts.has(id));
  // The target account itself was an acknowledged write: without it, its campaigns and settings are lost too.
  const targetKept = accounts.has(target.accountId);
  const campaigns = new Set<string>();
  let cursor: string | undefined;
  if (targetKept) {
    do {
      const page = json<{ data: Array<{ campaignId: string }>; pagination: { nextCursor: string | null } }>(await call(again, 'GET', `/api/public/v1/campaigns?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, undefined, auth), 'GET /campaigns');
      for (const c of page.data) campaigns.add(c.campaignId);
      cursor = page.pagination.nextCursor ?? undefined;
    } while (cursor);
  }
  const lostCampaigns = acked.campaigns.filter((id) => !campaigns.has(id));
  // Settings answers can be acknowledged out of order between concurrent requests; the value kept
  // must be one of the acknowledged ones (all are when none was), never an unacknowledged state.
  const settings = targetKept ? json<{ settings: { sparsePages: boolean } }>(await call(again, 'GET', `/__mock/accounts/${target.accountId}`), 'GET the target account').settings : undefined;
  const settingsPresent = settings !== undefined && (acked.settings.length === 0 || acked.settings.includes(settings.sparsePages));
  const clock = Date.parse(json<{ now: string }>(await call(again, 'GET', '/__mock/clock'), 'GET /__mock/clock').now);
  const lastAdvance = acked.clock.length > 0 ? Math.max(...acked.clock) : -Infinity;
  const clockPresent = clock >= lastAdvance;

  // + 1 each side: the target account, made (and acknowledged) before the burst
  const present = (targetKept ? 1 : 0) + acked.accounts.length - lostAccounts.length + (acked.campaigns.length - lostCampaigns.length) + (settingsPresent ? acked.settings.length : 0) + (clockPresent ? acked.clock.length : 0);
  const lost = acknowledged + 1 - present;
  console.log(`sent ${totalSent} (accounts ${sent.accounts}, campaigns ${sent.campaigns}, settings ${sent.settings}, clock advances ${sent.clock}), ${CONCURRENCY} at a time; SIGKILL after ${KILL_AFTER} acknowledged`);
  console.log(`acknowledged ${acknowledged + 1} (the target account 1, burst accounts ${acked.accounts.length}, campaigns ${acked.campaigns.length}, settings ${acked.settings.length}, clock advances ${acked.clock.length}); refused ${refused}; cut by the kill ${cut}`);
  console.log(`present after the restart ${present}: the target account ${targetKept ? 1 : 0}/1, burst accounts ${acked.accounts.length - lostAccounts.length}/${acked.accounts.length}, campaigns ${acked.campaigns.length - lostCampaigns.length}/${acked.campaigns.length}, settings ${settingsPresent ? 'kept' : 'LOST'}, clock ${new Date(clock).toISOString()} (last acknowledged ${Number.isFinite(lastAdvance) ? new Date(lastAdvance).toISOString() : 'none'})`);
  console.log(`lost ${lost}`);
  await mock.stop();
  mock = undefined;
  if (lost > 0) {
    console.error(`FAIL: ${lost} acknowledged write(s) lost after kill -9 (state in ${dir})`);
    process.exitCode = 1;
  } else console.log(`PASS: every acknowledged write survived kill -9 (${((Date.now() - began) / 1000).toFixed(1)} s)`);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await mock?.stop();
  if (!values.keep && process.exitCode !== 1) rmSync(dir, { recursive: true, force: true });
}
