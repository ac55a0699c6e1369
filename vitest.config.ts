import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['spec/**/*.test.ts', 'scripts/**/*.test.ts', 'mock/**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    // The Prism smoke test starts a server and the Spectral test runs the CLI.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
