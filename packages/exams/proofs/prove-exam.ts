/**
 * `npm run exam:proof` (a step of npm run test:proofs): the client exam's defect proof. One mock on
 * 127.0.0.1 (real-time clock); cgs-client-check's exam (packages/exams/src/client.ts, through the mock's
 * control plane, as `--mock-url` does, strict: `--require exercised` on tasks 1-9) on the example
 * client (examples/client/tasks.ts), which must pass, and on each faulty variant of it
 * (EXAMPLE_CLIENT_FAULT), which must fail exactly its rules with exit 1. Metamorphic (D259): the
 * faithful client passes under seeds 1-4, sequential and parallel (EXAMPLE_CLIENT_PARALLEL=1), and
 * with unrelated traffic on other accounts of the same mock (a second process, bounded). A few at
 * a time (each waits out real Retry-After seconds more than it computes).
 *
 *   npx tsx packages/exams/proofs/prove-exam.ts [--only <name>] [--seed N] [--verbose]
 *   npx tsx packages/exams/proofs/prove-exam.ts --noise <mock-url>   (the unrelated traffic, run by the proof)
 */
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { buildMock } from '../../mock/src/node/app.ts';
import { Clock } from '../../mock-core/src/core/clock.ts';
import { loadLedger } from '../../contract/rules/ledger.ts';
import { runClientExam } from '../src/client.ts';
import { exitCode } from '../src/report.ts';
import type { Fault } from '../../../examples/client/client.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * Each variant, exactly the rules its exam must fail ([] : it passes, exit 0), the rules the same
 * fault also breaks when the run happens to exercise them (it may fail those too, never others; a
 * client that retries with a new key breaks CLIENT-002 only if a keyed write met the 429), and the
 * declared tasks it must leave undone (a failure of their own: exit 1).
 */
export const CATALOGUE: [Fault | 'none', string[], string[]?, number[]?][] = [
  ['none', []],
  ['ignore-retry-after', ['CLIENT-001', 'CLIENT-002', 'CLIENT-003', 'CLIENT-004']],
  ['backoff-ignores-value', ['CLIENT-001', 'CLIENT-002', 'CLIENT-003', 'CLIENT-004']],
  ['new-key-on-retry', ['CLIENT-003', 'CLIENT-004'], ['CLIENT-002']],
  ['stop-at-empty-page', ['CLIENT-005']],
  ['first-page-only', [], [], [1, 8]],
  ['rebuild-cursor', ['CLIENT-006']],
  ['retry-422', ['CLIENT-009']],
  ['break-on-unknown-status', ['CLIENT-021']],
  ['strict-unknown-field', ['CLIENT-020']],
  ['no-reread-after-412', ['CLIENT-010']],
  ['unquoted-if-match', ['CLIENT-024'], [], [4]],
  ['items-before-final', ['CLIENT-011']],
  ['no-key-on-approve', ['CLIENT-017']],
  ['new-key-on-drop', ['CLIENT-023']],
  ['give-up-on-drop', ['CLIENT-023']],
  ['retry-401', ['CLIENT-019']],
  ['parse-429-as-json', ['CLIENT-001']],
];

/** One exam of the proof: a variant, its seed, sequential or parallel, with or without unrelated traffic. */
interface Exam {
  name: string;
  fault: Fault | 'none';
  expected: string[];
  mayAlso: string[];
  undone?: number[];
  seed: number;
  parallel?: boolean;
  noise?: boolean;
}

/** The metamorphic runs of the faithful client (D259): its verdict (pass, exit 0) must not change. */
const FAITHFUL_SEEDS = [1, 2, 3, 4];

/** The unrelated traffic: its own account on the same mock, three loops of reads and writes, bounded. */
const NOISE_LIMIT = 1500;

/** Exams at a time: each mostly waits out real Retry-After seconds. */
const CONCURRENCY = 9;

async function noise(mockUrl: string): Promise<void> {
  const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const r = await fetch(`${mockUrl}/__mock${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return (await r.json()) as T;
  };
  const account = await control<{ accountId: string }>('POST', '/accounts', { name: 'Exam noise', plan: 'enterprise', seed: 99 });
  const { key } = await control<{ key: string }>('POST', `/accounts/${account.accountId}/keys`, { name: 'noise', scopes: ['read', 'campaigns:write'] });
  const api = `${mockUrl}/api/public/v1`;
  const headers = { authorization: `Bearer ${key}` };
  const campaigns = (await (await fetch(`${api}/campaigns?limit=5`, { headers })).json()) as { data: { brandId: string }[] };
  const brandId = campaigns.data[0]?.brandId;
  const products = (await (await fetch(`${api}/products?limit=5${brandId ? `&brandId=${brandId}` : ''}`, { headers })).json()) as { data: { productId: string }[] };
  let sent = 0;
  const loop = async (n: number) => {
    while (sent < NOISE_LIMIT) {
      sent += 1;
      const pick = sent % 4;
      if (pick === 0 && brandId && products.data[0]) await fetch(`${api}/campaigns`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `noise-${n}-${sent}` }, body: JSON.stringify({ name: `noise ${sent}`, brandId, productIds: [products.data[0].productId] }) }).then((r) => r.arrayBuffer());
      else await fetch(`${api}/${['creatives?limit=5', 'products?limit=50', 'presets'][pick - 1] ?? 'presets'}`, { headers }).then((r) => r.arrayBuffer());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  await Promise.all([1, 2, 3].map(loop));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { only: { type: 'string' }, seed: { type: 'string', default: '1' }, verbose: { type: 'boolean' }, noise: { type: 'string' } } });
  if (values.noise !== undefined) return noise(values.noise);
  const seed = Number(values.seed);
  const exams: Exam[] = [
    ...FAITHFUL_SEEDS.flatMap((s): Exam[] => [
      { name: `none seed ${s}`, fault: 'none', expected: [], mayAlso: [], seed: s },
      { name: `parallel seed ${s}`, fault: 'none', expected: [], mayAlso: [], seed: s, parallel: true },
    ]),
    { name: 'none + other traffic', fault: 'none', expected: [], mayAlso: [], seed, noise: true },
    ...CATALOGUE.filter(([fault]) => fault !== 'none').map(([fault, expected, mayAlso = [], undone]): Exam => ({ name: fault, fault, expected, mayAlso, seed, ...(undone ? { undone } : {}) })),
  ];
  const selected = exams.filter((e) => values.only === undefined || e.name === values.only || e.fault === values.only);
  const mock = buildMock({ clock: new Clock({ mode: 'real' }), logError: (error) => console.error('[mock]', error) });
  await mock.app.listen({ host: '127.0.0.1', port: 0 });
  const mockUrl = `http://127.0.0.1:${(mock.app.server.address() as AddressInfo).port}`;
  const ledger = loadLedger().rules;
  const started = Date.now();
  const problems: string[] = [];
  try {
    const queue = [...selected];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const { name, fault, expected, mayAlso } = next;
        const t0 = Date.now();
        const other = next.noise ? spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--noise', mockUrl], { stdio: 'ignore' }) : undefined;
        const result = await runClientExam({
          command: [process.execPath, '--import', 'tsx', 'examples/client/tasks.ts'],
          seed: next.seed,
          mockUrl,
          ledger,
          stdio: 'ignore',
          timeoutSeconds: 180,
          env: { ...(fault === 'none' ? {} : { EXAMPLE_CLIENT_FAULT: fault }), ...(next.parallel ? { EXAMPLE_CLIENT_PARALLEL: '1' } : {}) },
        });
        other?.kill();
        const failed = result.rules.filter((r) => r.result === 'failed').map((r) => r.id).sort();
        const passed = result.rules.filter((r) => r.result === 'passed').length;
        const undone = (result.tasks ?? []).filter((t) => t.result === 'undone').map((t) => t.id);
        const code = exitCode(result);
        const required = expected.every((id) => failed.includes(id));
        const onlyItsOwn = failed.every((id) => expected.includes(id) || mayAlso.includes(id));
        const leftUndone = (next.undone ?? []).every((id) => undone.includes(id));
        const ok = required && onlyItsOwn && leftUndone && code === (expected.length || next.undone?.length ? 1 : 0) && result.error === undefined;
        console.log(`${ok ? 'ok  ' : 'FAIL'} ${name.padEnd(24)} exit ${code}, failed [${failed.join(' ')}]${ok ? '' : `, expected [${expected.join(' ')}]${next.undone ? ` and tasks [${next.undone.join(' ')}] undone` : ''}`}; ${passed} passed; tasks undone [${undone.join(' ')}]${result.programFailed ? `; ${result.programFailed}` : ''}${result.error ? `; ${result.error}` : ''} (${Math.round((Date.now() - t0) / 1000)} s)`);
        if (values.verbose) for (const r of result.rules.filter((x) => x.result !== 'not judged')) console.log(`       ${r.id} ${r.result}${r.findings[0] ? `: ${r.findings.find((f) => !f.held)?.proof.join(' | ') ?? r.findings[0].proof.join(' | ')}` : ''}`);
        if (!ok) {
          problems.push(name);
          for (const r of result.rules.filter((x) => x.result === 'failed')) for (const f of r.findings.filter((x) => !x.held)) console.log(`       ${r.id} [${f.check}] ${f.proof.join(' | ')}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    await mock.app.close();
  }
  console.log(`exam:proof: ${selected.length - problems.length} of ${selected.length} clients judged as expected in ${Math.round((Date.now() - started) / 1000)} s`);
  if (problems.length) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.chdir(ROOT);
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(2);
  });
}
