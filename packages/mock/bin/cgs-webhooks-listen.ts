#!/usr/bin/env node
/**
 * cgs-webhooks-listen: a local webhook receiver that verifies every delivery with the
 * `standardwebhooks` package and prints it (packages/mock/src/webhooks-listen.ts, `npm run webhooks:listen`):
 * `cgs-webhooks-listen --port 4020 --secret whsec_... [--verbose]`.
 */
import { main } from '../src/webhooks-listen.ts';

main(process.argv.slice(2), 'cgs-webhooks-listen').catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
