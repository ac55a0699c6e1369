/**
 * The build's guard that test support stays out of the package (scripts/build.ts,
 * testFrameworkImports): the package test (scripts/packaging/package.test.ts) builds the real dist/ through
 * `npm pack`; here the guard is shown to find what it must and to pass what it may.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { brokenLinks, crossPackage, installedLinks, packageOf, shipDocs, testFrameworkImports } from './build.ts';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function tree(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), 'cgs-build-guard-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('testFrameworkImports', () => {
  it('names every shipped module that imports vitest, fast-check or @playwright/test outside the suite', () => {
    const out = tree({
      'src/testkit/harness.js': "import { expect } from 'vitest';\n",
      'src/core/clock.js': "import fc from 'fast-check';\n",
      'src/console/console.spec.js': 'import { test } from "@playwright/test";\n',
      'src/core/lazy.js': "const v = await import('vitest/node');\n",
      'src/domain/store.js': "import { parse } from 'yaml';\n",
    });
    expect(testFrameworkImports(out, 'mock-core').sort()).toEqual([
      'src/console/console.spec.js: @playwright/test',
      'src/core/clock.js: fast-check',
      'src/core/lazy.js: vitest/node',
      'src/testkit/harness.js: vitest',
    ]);
  });

  it('passes the conformance suite, which runs on @playwright/test, but not vitest in it, and not @playwright/test outside it', () => {
    const out = tree({
      'suite/fixtures/index.js': "import { test as base } from '@playwright/test';\n",
      'suite/playwright.config.js': "import { defineConfig } from '@playwright/test';\n",
      'suite/checks/index.js': "import { describe } from 'vitest';\n",
      'bin/cgs-conformance.js': "import '../suite/checks/index.js';\n",
      'proxy/server.js': "import { expect } from '@playwright/test';\n",
    });
    expect(testFrameworkImports(out, 'conformance').sort()).toEqual(['proxy/server.js: @playwright/test', 'suite/checks/index.js: vitest']);
    expect(testFrameworkImports(out, 'mock')).toContain('suite/fixtures/index.js: @playwright/test');
  });
});

describe('crossPackage (D279): an import into another package is written as that package\'s internal path', () => {
  it('rewrites a relative import that leaves the package, and keeps one inside it', () => {
    const text = "import { a } from '../../../contract/spec/contract.js';\nimport { b } from './app.js';\nexport { c } from '../../../mock-core/src/core/clock.js';\nconst d = await import('../../../mock-core/src/control/binding.js');\nimport { e } from '../web/cors.js';\n";
    expect(crossPackage('packages/mock/src/node/serve.ts', text)).toBe(
      "import { a } from '@creative-generation/contract/internal/spec/contract.js';\nimport { b } from './app.js';\nexport { c } from '@creative-generation/mock-core/internal/src/core/clock.js';\nconst d = await import('@creative-generation/mock-core/internal/src/control/binding.js');\nimport { e } from '../web/cors.js';\n",
    );
  });

  it('reads a file of another package through import.meta.resolve in Node packages only (the in-process mock runs in browsers)', () => {
    const read = "const LEDGER = new URL('../../../contract/spec/rules.yaml', import.meta.url);\n";
    expect(crossPackage('packages/conformance/suite/checks/status-rules.ts', read)).toBe("const LEDGER = new URL(import.meta.resolve('@creative-generation/contract/internal/spec/rules.yaml'));\n");
    expect(crossPackage('packages/mock-core/src/control/document.ts', read)).toBe(read);
  });

  it('gives every source path its package, and none to what is not a package\'s sources', () => {
    expect(packageOf('packages/msw/src/msw.ts')).toBe('msw');
    expect(packageOf('packages/mock-core/src/core/clock.ts')).toBe('mock-core');
    expect(packageOf('packages/contract/rules/ledger.ts')).toBe('contract');
    expect(packageOf('packages/conformance/suite/reporters/merge.ts')).toBe('conformance');
    expect(packageOf('packages/exams/src/client.ts')).toBe('exams');
    expect(packageOf('scripts/build.ts')).toBeUndefined();
    expect(packageOf('packages/mock/proofs/soak.ts')).toBeUndefined();
    expect(packageOf('packages/msw/dist/src/msw.js')).toBeUndefined();
    expect(packageOf('packages/nowhere/src/x.ts')).toBeUndefined();
  });
});

describe('shipped Markdown (D291): every relative link names a file of the installed package', () => {
  const shipped = [['docs/hooks.md', 'docs/hooks.md'], ['packages/conformance/suite/README.md', 'docs/suite.md'], ['examples/ci', 'examples/ci']] as const;

  it('points a link to a shipped file at its copy, names another package\'s file under that package, and makes a repository-only link text', () => {
    const text = '[Hooks](../../../docs/hooks.md#hooks) [ci](../../../examples/ci/) [decisions](../../../docs/decisions.md#x) [packages/contract/spec/schemas/s.json](../../contract/spec/schemas/s.json) ![shot](../../../docs/shot.png) [web](https://example.com) [here](#here)\n```md\n[kept](../../../docs/decisions.md)\n```\n';
    expect(installedLinks(text, 'packages/conformance/suite/README.md', 'docs/suite.md', shipped)).toBe(
      '[Hooks](hooks.md#hooks) [ci](../examples/ci/) decisions (`docs/decisions.md` in the repository) `@creative-generation/contract/dist/spec/schemas/s.json` shot (`docs/shot.png` in the repository) [web](https://example.com) [here](#here)\n```md\n[kept](../../../docs/decisions.md)\n```\n',
    );
  });

  it('brokenLinks names every link and image of the README, docs/ and examples/ that names no file inside the package', () => {
    const root = tree({
      'README.md': '[docs](docs/a.md) [gone](docs/gone.md) [web](https://x.test) `[code](nowhere.md)`\n',
      'docs/a.md': '![pic](a.png) [up](../../outside.md) [b](b.md#part) [repo](../packages/x/y.json)\n',
      'docs/b.md': 'none\n',
      'examples/ci/README.md': '[docs](../../docs/a.md) [missing](config.json)\n',
    });
    expect(brokenLinks(root).sort()).toEqual(['README.md: docs/gone.md', 'docs/a.md: ../../outside.md', 'docs/a.md: ../packages/x/y.json', 'docs/a.md: a.png', 'examples/ci/README.md: config.json']);
  });

  it('every package as the build ships it: its README, docs and examples link only files it ships', () => {
    const out = tree({});
    // shipDocs throws on a broken link; the test names them when it does.
    expect(() => shipDocs(out)).not.toThrow();
    for (const dir of ['contract', 'msw', 'mock', 'conformance', 'exams']) expect(existsSync(join(out, dir, 'docs')), dir).toBe(true);
  });
});
