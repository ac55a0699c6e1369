/**
 * `npm run exam:proof` (a step of npm run test:proofs): the client exam's defect proof. One mock on
 * 127.0.0.1 (real-time clock); cgs-client-check's exam (bin/lib/exam/client.ts, through the mock's
 * control plane, as `--mock-url` does) on the example client (examples/client/tasks.ts), which must
 * pass, and on each faulty variant of it (EXAMPLE_CLIENT_FAULT), which must fail exactly its rules.
 * A few at a time (each waits out real Retry-After seconds more than it computes).
 *
 *   npx tsx scripts/prove-exam.ts [--only <fault>] [--seed N] [--verbose]
 */
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { buildMock } from '../mock/adapters/node/app.ts';
import { Clock } from '../mock/core/clock.ts';
import { loadLedger } from '../conformance/reporters/ledger.ts';
import { runClientExam } from '../bin/lib/exam/client.ts';
import { exitCode } from '../bin/lib/exam/report.ts';
import type { Fault } from '../examples/client/client.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Each variant, exactly the rules its exam must fail ([] : it passes, exit 0), and the rules the same
 * fault also breaks when the run happens to exercise them (it may fail those too, never others): a
 * client that retries with a new key breaks CLIENT-002 only if one of its writes met a 429, which
 * four exams on one mock (sharing its per-IP caps) do not always serve.
 */
export const CATALOGUE: [Fault | 'none', string[], string[]?][] = [
  ['none', []],
  ['ignore-retry-after', ['CLIENT-001', 'CLIENT-003', 'CLIENT-004']],
  ['new-key-on-retry', ['CLIENT-003', 'CLIENT-004'], ['CLIENT-002']],
  ['stop-at-empty-page', ['CLIENT-005']],
  ['rebuild-cursor', ['CLIENT-006']],
  ['retry-422', ['CLIENT-009']],
  ['break-on-unknown-status', ['CLIENT-021']],
  ['no-reread-after-412', ['CLIENT-010']],
  ['items-before-final', ['CLIENT-011']],
  ['no-key-on-approve', ['CLIENT-017']],
  ['new-key-on-drop', ['CLIENT-023']],
  ['give-up-on-drop', ['CLIENT-023']],
  ['retry-401', ['CLIENT-019']],
  ['strict-unknown-field', ['CLIENT-020']],
];

const CONCURRENCY = 4;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { only: { type: 'string' }, seed: { type: 'string', default: '1' }, verbose: { type: 'boolean' } } });
  const selected = CATALOGUE.filter(([fault]) => values.only === undefined || fault === values.only);
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
        const [fault, expected, mayAlso = []] = next;
        const result = await runClientExam({
          command: [process.execPath, '--import', 'tsx', 'examples/client/tasks.ts'],
          seed: Number(values.seed),
          mockUrl,
          ledger,
          stdio: 'ignore',
          timeoutSeconds: 180,
          env: fault === 'none' ? {} : { EXAMPLE_CLIENT_FAULT: fault },
        });
        const failed = result.rules.filter((r) => r.result === 'failed').map((r) => r.id).sort();
        const passed = result.rules.filter((r) => r.result === 'passed').length;
        const code = exitCode(result);
        const required = expected.every((id) => failed.includes(id));
        const onlyItsOwn = failed.every((id) => expected.includes(id) || mayAlso.includes(id));
        const ok = required && onlyItsOwn && code === (expected.length ? 1 : 0);
        console.log(`${ok ? 'ok  ' : 'FAIL'} ${fault.padEnd(24)} exit ${code}, failed [${failed.join(' ')}]${ok ? '' : `, expected [${expected.join(' ')}]`}; ${passed} passed${result.error ? `; ${result.error}` : ''}`);
        if (values.verbose) for (const r of result.rules.filter((x) => x.result !== 'not judged')) console.log(`       ${r.id} ${r.result}${r.findings[0] ? `: ${r.findings.find((f) => !f.held)?.proof.join(' | ') ?? r.findings[0].proof.join(' | ')}` : ''}`);
        if (!ok) {
          problems.push(fault);
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
