#!/usr/bin/env node
/**
 * cgs-client-check: the API client exam (docs/client-check.md).
 *
 *   cgs-client-check [--seed N] [--host H --port N | --mock-url URL --control-token T] [--out DIR] -- node my-sdk-example.js
 *
 * Makes an exam account on a mock (started here on 127.0.0.1, or --mock-url), runs the command with
 * CGS_BASE_URL, CGS_API_KEY and CGS_KEYS, serves that account the adversity the contract allows from
 * a seeded schedule, then judges the command's requests against the CLIENT- rules of
 * packages/contract/spec/rules.yaml: a summary, rules.json, rules.md and junit.xml. Exit 0: every exercised rule
 * held; 1: one did not; 2: the exam could not run.
 *
 * The mock's server packages (optional peer dependencies, D195) are checked, and imported, only when
 * the exam starts a mock of its own: `--help` and `--mock-url` need none of them (D260).
 */
import { clientCheck } from '../src/client-cli.ts';

clientCheck(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(2);
  },
);
