#!/usr/bin/env node
/**
 * cgs-conformance: the conformance suite of the package against an implementation, for a CI gate.
 *
 *   cgs-conformance --base-url https://staging.example/api/public/v1 --keys keys.json --pinned-only
 *   cgs-conformance --config cgs-conformance.config.json
 *
 * It checks first that the target can be judged (packages/conformance/bin/lib/conformance.ts preflight), runs
 * `playwright test` with the suite's own config (packages/conformance/suite/playwright.config.ts, compiled in dist/
 * for the package), from any working directory, writes JUnit, HTML and the rules report to
 * --report-dir, prints the rules by section and the failures by their first violated rule, and exits
 * 0 when the implementation conforms, 1 when it does not, 2 when the run could not judge it.
 * Options: packages/conformance/bin/lib/conformance.ts (USAGE); docs/gate.md.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT, planRun, SetupError, UsageError, USAGE, usageErrorText, type ConformancePlan } from './lib/conformance.ts';
import { preflight } from './lib/preflight.ts';
import { summarize, type RulesJson } from './lib/verdict.ts';
import { requirePackages, SERVER_PACKAGES, SUITE_PACKAGES } from '../../mock/src/help-requires.ts';

const self = fileURLToPath(import.meta.url);
const CONFIG = fileURLToPath(new URL(`../suite/playwright.config${extname(self)}`, import.meta.url));

let plan: ConformancePlan;
try {
  // The installed package runs the compiled suite (*.spec.js): file filters named *.spec.ts map to it.
  plan = planRun(process.argv.slice(2), process.cwd(), (path) => readFileSync(path, 'utf8'), process.env, extname(self));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(usageErrorText(error));
  process.exit(EXIT.couldNotJudge);
}
if (plan.help) {
  console.log(USAGE);
  process.exit(EXIT.conforms);
}
// Optional peer dependencies (D195): Playwright, and the mock's server when the suite starts it itself.
requirePackages('cgs-conformance', plan.target || plan.list ? SUITE_PACKAGES : [...SUITE_PACKAGES, ...SERVER_PACKAGES]);
/** Playwright's command line, resolved from this package: the same instance the suite's tests import. */
const PLAYWRIGHT_CLI = createRequire(import.meta.url).resolve('@playwright/test/cli');

// --list runs nothing: no target is needed (Playwright runs no global setup), so none is probed.
if (!plan.list) {
  try {
    for (const note of await preflight(plan)) console.log(`cgs-conformance: ${note}`);
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    console.error(`cgs-conformance: could not judge the target: ${error.message}`);
    process.exit(EXIT.couldNotJudge);
  }
}

// A report left by an earlier run is never read as this run's.
rmSync(join(plan.reportDir, 'rules.json'), { force: true });
const child = spawn(process.execPath, [PLAYWRIGHT_CLI, 'test', '-c', CONFIG, ...plan.playwrightArgs], {
  stdio: 'inherit',
  env: { ...process.env, ...plan.env },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
const status = await new Promise<number>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
// A listing judges nothing: Playwright's status (0 when the files load) is the answer.
if (plan.list) process.exit(status === 0 ? EXIT.conforms : EXIT.couldNotJudge);

let report: RulesJson | undefined;
try {
  report = JSON.parse(readFileSync(join(plan.reportDir, 'rules.json'), 'utf8')) as RulesJson;
} catch {
  report = undefined;
}
const verdict = summarize(report, status, plan.reportDir, plan);
console.log(verdict.lines.join('\n'));
process.exit(verdict.exit);
