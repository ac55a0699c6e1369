#!/usr/bin/env node
/**
 * cgs-webhooks-check: the webhook receiver exam (docs/client-check.md).
 *
 *   cgs-webhooks-check --url http://127.0.0.1:4020/hooks --secret whsec_... [--seed N]
 *                      [--timeout-ms 10000] [--out exam-report/webhooks]
 *
 * Sends the receiver a seeded battery of deliveries signed as the mock signs them, judges each
 * answer against the RECV- rules of packages/contract/spec/rules.yaml, prints a summary and writes rules.json,
 * rules.md and junit.xml. Exit 0: every judged rule held; 1: one did not; 2: the exam could not
 * run (bad options, the receiver unreachable).
 */
import { webhooksCheck } from '../src/webhooks-cli.ts';

webhooksCheck(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(2);
  },
);
