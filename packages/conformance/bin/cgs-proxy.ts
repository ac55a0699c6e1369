#!/usr/bin/env node
/**
 * cgs-proxy (and `npm run proxy --`): the validating proxy (packages/conformance/proxy/server.ts) in front of any
 * implementation of the API. Point a frontend in development, an SDK's integration tests or a
 * staging smoke run at it instead of the implementation: every exchange is forwarded unchanged and
 * checked; each violation is printed as it happens, with the rule ids it breaks; on exit (Ctrl-C,
 * SIGTERM) the rules report is written and the counts printed.
 *
 *   cgs-proxy --target http://127.0.0.1:4010/api/public/v1 [--port 4011] [--host 127.0.0.1]
 *             [--report-dir proxy-report] [--fail-on-violation] [--enforce-assumptions] [--quiet]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startValidatingProxy } from '../proxy/server.ts';

const USAGE = `usage: cgs-proxy --target URL [--port 4011] [--host 127.0.0.1] [--report-dir DIR] [--fail-on-violation]
                 [--enforce-assumptions] [--quiet]

  --target URL            the implementation's base URL, e.g. http://127.0.0.1:4010/api/public/v1 (required)
  --port N                port the proxy listens on; clients use the target's base path (default 4011)
  --host H                address the proxy binds (default 127.0.0.1)
  --report-dir DIR        rules.json and rules.md, written on exit (default ./proxy-report)
  --fail-on-violation     exit 1 on exit when any response broke the contract, a gate (default: exit 0)
  --enforce-assumptions   count violations of decided gaps (x-assumption) too; default: printed as warnings
  --quiet                 print only the summary on exit, not each violation (default: each one)
  --help                  print this help and exit`;

let values: { target?: string; port?: string; host?: string; 'report-dir'?: string; 'fail-on-violation'?: boolean; 'enforce-assumptions'?: boolean; quiet?: boolean; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      target: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'report-dir': { type: 'string' },
      'fail-on-violation': { type: 'boolean' },
      'enforce-assumptions': { type: 'boolean' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (error) {
  console.error(`cgs-proxy: ${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!values.target) {
  console.error(`cgs-proxy: --target is required\n\n${USAGE}`);
  process.exit(2);
}
const port = Number(values.port ?? '4011');
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`cgs-proxy: --port must be 0..65535, not ${values.port}`);
  process.exit(2);
}
const reportDir = resolve(values['report-dir'] ?? 'proxy-report');
const quiet = values.quiet ?? false;

let proxy: Awaited<ReturnType<typeof startValidatingProxy>>;
try {
  proxy = await startValidatingProxy({
    target: values.target,
    port,
    host: values.host ?? '127.0.0.1',
    enforceAssumptions: values['enforce-assumptions'] ?? false,
    checker: 'worker',
    print: (line) => {
      if (!quiet) console.log(line);
    },
  });
} catch (error) {
  console.error(`cgs-proxy: ${(error as Error).message}`);
  process.exit(1);
}
console.log(`cgs-proxy: ${proxy.origin}${proxy.basePath} → ${values.target} (every exchange checked; ✗ violation, ~ assumption warning, ! request the document does not allow). Ctrl-C stops and writes ${reportDir}/rules.md`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    void (async () => {
      await proxy.close(); // waits for the checks of the exchanges already forwarded
      for (const line of proxy.tally.write(reportDir, values.target!)) console.log(line);
      const failed = values['fail-on-violation'] === true && proxy.tally.counts.violating > 0;
      if (failed) console.log(`cgs-proxy: ${proxy.tally.counts.violating} exchange(s) broke the contract (--fail-on-violation)`);
      process.exit(failed ? 1 : 0);
    })();
  });
}
