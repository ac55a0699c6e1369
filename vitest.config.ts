import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['platform/**/*.test.ts', 'spec/**/*.test.ts', 'examples/**/*.test.ts', 'scripts/**/*.test.ts', 'bin/**/*.test.ts', 'mock/**/*.test.ts', 'proxy/**/*.test.ts', 'conformance/**/*.test.ts'],
    // conformance/tests/ is the Playwright suite (npm run conformance), not vitest.
    exclude: ['**/node_modules/**', 'dist/**', 'conformance/tests/**'],
    // The Prism smoke test starts a server and the Spectral test runs the CLI.
    testTimeout: 60_000,
    // Both cores of the 2-core CI machine (vitest's default leaves one idle there): measured with
    // scripts/test.sh's step timings, the unit-test step went from 130 s to 92 s.
    maxWorkers: 2,
    hookTimeout: 60_000,
  },
});
