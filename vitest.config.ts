import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['spec/**/*.test.ts', 'scripts/**/*.test.ts', 'mock/**/*.test.ts', 'conformance/**/*.test.ts'],
    // conformance/tests/ is the Playwright suite (npm run conformance), not vitest.
    exclude: ['**/node_modules/**', 'conformance/tests/**'],
    // The Prism smoke test starts a server and the Spectral test runs the CLI.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
