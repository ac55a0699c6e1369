/**
 * The build's guard that test support stays out of the package (scripts/build.ts,
 * testFrameworkImports): the package test (bin/package.test.ts) builds the real dist/ through
 * `npm pack`; here the guard is shown to find what it must and to pass what it may.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { crossPackage, packageOf, testFrameworkImports } from './build.ts';

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
      'mock/testkit/harness.js': "import { expect } from 'vitest';\n",
      'mock/core/clock.js': "import fc from 'fast-check';\n",
      'mock/adapters/console/console.spec.js': 'import { test } from "@playwright/test";\n',
      'mock/core/lazy.js': "const v = await import('vitest/node');\n",
      'spec/contract.js': "import { parse } from 'yaml';\n",
    });
    expect(testFrameworkImports(out).sort()).toEqual([
      'mock/adapters/console/console.spec.js: @playwright/test',
      'mock/core/clock.js: fast-check',
      'mock/core/lazy.js: vitest/node',
      'mock/testkit/harness.js: vitest',
    ]);
  });

  it('passes the conformance suite, which runs on @playwright/test, but not vitest in it', () => {
    const out = tree({
      'conformance/fixtures/index.js': "import { test as base } from '@playwright/test';\n",
      'conformance/playwright.config.js': "import { defineConfig } from '@playwright/test';\n",
      'conformance/checks/index.js': "import { describe } from 'vitest';\n",
      'bin/cgs-mock.js': "import '../mock/adapters/node/main.js';\n",
    });
    expect(testFrameworkImports(out)).toEqual(['conformance/checks/index.js: vitest']);
  });
});

describe('crossPackage (D279): an import into another package is written as that package\'s internal path', () => {
  it('rewrites a relative import that leaves the package, and keeps one inside it', () => {
    const text = "import { a } from '../../../spec/contract.js';\nimport { b } from './app.js';\nexport { c } from '../../core/clock.js';\nconst d = await import('../../control/binding.js');\n";
    expect(crossPackage('mock/adapters/node/serve.ts', text)).toBe(
      "import { a } from '@creative-generation/contract/internal/spec/contract.js';\nimport { b } from './app.js';\nexport { c } from '@creative-generation/mock-core/internal/mock/core/clock.js';\nconst d = await import('@creative-generation/mock-core/internal/mock/control/binding.js');\n",
    );
  });

  it('reads a file of another package through import.meta.resolve in Node packages only (the in-process mock runs in browsers)', () => {
    const read = "const LEDGER = new URL('../../spec/rules.yaml', import.meta.url);\n";
    expect(crossPackage('conformance/checks/status-rules.ts', read)).toBe("const LEDGER = new URL(import.meta.resolve('@creative-generation/contract/internal/spec/rules.yaml'));\n");
    expect(crossPackage('mock/control/document.ts', read)).toBe(read);
  });

  it('gives every shipped path one package, the longest prefix deciding', () => {
    expect(packageOf('mock/adapters/msw/msw.ts')).toBe('msw');
    expect(packageOf('mock/core/clock.ts')).toBe('mock-core');
    expect(packageOf('conformance/reporters/ledger.ts')).toBe('contract');
    expect(packageOf('conformance/reporters/merge.ts')).toBe('conformance');
    expect(packageOf('bin/lib/exam/client.ts')).toBe('exams');
    expect(packageOf('scripts/build.ts')).toBeUndefined();
  });
});
