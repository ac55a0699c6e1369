/**
 * `npm start -- --api-version current|next`: which version of the document the mock serves. Imported
 * first by mock/adapters/node/main.ts, before anything loads spec/contract.ts, it hands the choice to that module
 * through CGS_API_VERSION (env MOCK_API_VERSION is the default of the flag, as PORT is of --port).
 * `next` is the pending version: spec/overlays/next.yaml applied to spec/openapi.yaml (spec/versions.ts).
 */
import { parseApiVersion } from '../../../spec/versions.ts';

function flagValue(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--api-version') return argv[i + 1] ?? '';
    if (arg.startsWith('--api-version=')) return arg.slice('--api-version='.length);
  }
  return undefined;
}

try {
  process.env['CGS_API_VERSION'] = parseApiVersion(flagValue(process.argv.slice(2)) ?? (process.env['MOCK_API_VERSION'] || undefined), '--api-version');
} catch (error) {
  console.error(`mock: ${(error as Error).message}`);
  process.exit(2);
}
