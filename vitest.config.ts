import { defineConfig } from 'vitest/config';

const INCLUDE = ['packages/*/**/*.test.ts', 'examples/**/*.test.ts', 'scripts/**/*.test.ts'];
// packages/conformance/suite/tests/ is the Playwright suite (npm run conformance), not vitest.
const EXCLUDE = ['**/node_modules/**', '**/dist/**', 'packages/conformance/suite/tests/**', 'packages/*/examples/**'];
/**
 * Test files that need a module graph of their own (vitest's default isolation): they replace a
 * module with `vi.mock` (a module another file already loaded in the same worker would keep its real
 * implementation, and the mock would leak into the files after it) or fake the timers.
 */
const ISOLATED = ['packages/msw/src/msw.equivalence.test.ts', 'packages/conformance/suite/fixtures/shared-account.test.ts', 'packages/mock-core/src/events/listener.test.ts', 'packages/mock-core/src/events/signing.test.ts'];
/**
 * npm pack and the whole suite (and the exams) through the packaged commands, and the generated
 * client's exam (real Retry-After waits): a step of npm run test:proofs.
 */
const PACKAGE = ['scripts/packaging/package-dependencies.test.ts', 'scripts/packaging/packages.test.ts', 'scripts/packaging/package.test.ts', 'scripts/packaging/exam-package.test.ts', 'examples/generated-client/exam.test.ts'];

export default defineConfig({
  test: {
    // The Prism smoke test starts a server and the Spectral test runs the CLI.
    testTimeout: 60_000,
    // Both cores of the 2-core CI machine (vitest's default leaves one idle there): measured with
    // scripts/test.sh's step timings, the unit-test step went from 130 s to 92 s.
    maxWorkers: 2,
    hookTimeout: 60_000,
    // Three projects (docs/testing.md, D192): `unit` and `isolated` are npm test's unit-test step
    // (`--project unit --project isolated`), `package` is a step of npm run test:proofs
    // (`--project package`); `npx vitest run` runs all three. In `unit` the files share their
    // worker's module graph (`isolate: false`: the mock, the documents, Ajv and the dependencies are
    // loaded once per worker, not once per file, which halved the step's CPU time, 397 s to 189 s
    // measured side by side); the files of ISOLATED keep a graph of their own.
    projects: [
      { extends: true, test: { name: 'unit', isolate: false, include: INCLUDE, exclude: [...EXCLUDE, ...ISOLATED, ...PACKAGE] } },
      { extends: true, test: { name: 'isolated', isolate: true, include: ISOLATED, exclude: EXCLUDE } },
      // npm pack once for both files (scripts/packaging/pack-once.ts, D233).
      { extends: true, test: { name: 'package', include: PACKAGE, exclude: EXCLUDE, globalSetup: ['scripts/packaging/pack-once.ts'] } },
    ],
  },
});
