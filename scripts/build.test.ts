/**
 * The build's guard that test support stays out of the package (scripts/build.ts,
 * testFrameworkImports): the package test (bin/package.test.ts) builds the real dist/ through
 * `npm pack`; here the guard is shown to find what it must and to pass what it may.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testFrameworkImports } from './build.ts';

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
