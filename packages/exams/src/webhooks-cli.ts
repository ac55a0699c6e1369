/** The command line of cgs-webhooks-check (packages/exams/bin/cgs-webhooks-check.ts): options, run, reports, exit code. */
import { parseArgs } from 'node:util';
import { isSigningSecret } from '../../mock-core/src/events/signing.ts';
import { loadLedger } from '../../contract/rules/ledger.ts';
import { consoleSummary, exitCode, writeReports } from './report.ts';
import { DEFAULT_TIMEOUT_MS, runWebhooksExam } from './webhooks.ts';

const USAGE = `usage: cgs-webhooks-check --url <receiver URL> --secret <whsec_...> [options]

Sends your webhook receiver a seeded battery of signed deliveries and judges its answers against the
RECV- rules. Exit 0: every judged rule held; 1: one did not; 2: the exam could not run.

  --url URL               the receiver's http(s) URL (required)
  --secret whsec_...      the signing secret the receiver verifies with (required)
  --seed N                the battery's seed: the same seed, the same deliveries (default 1)
  --timeout-ms N          how long to wait for each answer, in milliseconds (default ${DEFAULT_TIMEOUT_MS})
  --out DIR               where rules.json, rules.md and junit.xml go (default exam-report/webhooks)
  --help                  print this help and exit`;

export async function webhooksCheck(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { url: { type: 'string' }, secret: { type: 'string' }, seed: { type: 'string', default: '1' }, 'timeout-ms': { type: 'string', default: String(DEFAULT_TIMEOUT_MS) }, out: { type: 'string', default: 'exam-report/webhooks' }, help: { type: 'boolean' } } }));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : error}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const seed = Number(values.seed);
  const timeoutMs = Number(values['timeout-ms']);
  const problems = [
    ...(values.url && URL.canParse(values.url) && /^https?:$/.test(new URL(values.url).protocol) ? [] : ['--url must be an http(s) URL']),
    ...(values.secret && isSigningSecret(values.secret) ? [] : ['--secret must be a signing secret (whsec_ and base64 of 24 to 64 bytes)']),
    ...(Number.isInteger(seed) && seed >= 0 ? [] : ['--seed must be a non-negative integer']),
    ...(Number.isInteger(timeoutMs) && timeoutMs > 0 ? [] : ['--timeout-ms must be a positive integer']),
  ];
  if (problems.length) {
    console.error(`${problems.join('\n')}\n${USAGE}`);
    return 2;
  }
  const result = await runWebhooksExam({ url: values.url!, secret: values.secret!, seed, timeoutMs, ledger: loadLedger().rules });
  console.log(consoleSummary(result));
  writeReports(result, values.out!);
  console.log(`  reports: ${values.out}/rules.json, rules.md, junit.xml`);
  return exitCode(result);
}
