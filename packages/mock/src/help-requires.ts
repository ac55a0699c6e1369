/**
 * The packages a command needs beyond the in-process mock (D195). A frontend project installs the
 * toolkit for `<package>/msw` and gets only what that path imports (its dependencies, and msw as a
 * peer); the server (fastify, light-my-request, swagger-ui-dist for /docs/, htm for the console) and
 * the conformance suite (@playwright/test) are optional peer dependencies, installed by the team
 * that runs those commands. A command checks its packages before it loads any module that imports
 * them, and names what is missing with the install line that brings it:
 *
 *   cgs-mock needs fastify, swagger-ui-dist (optional peer dependencies of creative-generation-contract-toolkit, ...)
 *     npm install --save-dev fastify@5.12.8 light-my-request@6.8.1 swagger-ui-dist@5.35.0 htm@3.1.1
 *
 * The versions are the ones the toolkit is built and tested with (its own devDependencies).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the mock server (`cgs-mock`, `npm start`, and any command that starts one) imports. */
export const SERVER_PACKAGES = ['fastify', 'light-my-request', 'swagger-ui-dist', 'htm'] as const;
/** What the conformance suite (Playwright) imports. */
export const SUITE_PACKAGES = ['@playwright/test'] as const;

interface Manifest {
  name: string;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** The toolkit's package.json: the first one above this module (bin/lib/ in the checkout, dist/bin/lib/ installed). */
function manifest(): Manifest {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
    } catch {
      const parent = dirname(dir);
      if (parent === dir) return { name: 'creative-generation-contract-toolkit' };
      dir = parent;
    }
  }
}

/** Whether `name` resolves from the toolkit's own modules (where the command will import it). */
export function resolvable(name: string, resolve: (specifier: string) => string = (s) => import.meta.resolve(s)): boolean {
  try {
    resolve(name);
    return true;
  } catch {
    return false;
  }
}

/** The message for the packages of `needed` that are missing, or undefined when none is. */
export function missingPackagesMessage(command: string, needed: readonly string[], isResolvable: (name: string) => boolean = (n) => resolvable(n)): string | undefined {
  const missing = needed.filter((name) => !isResolvable(name));
  if (missing.length === 0) return undefined;
  const own = manifest();
  const version = (name: string) => own.devDependencies?.[name] ?? own.peerDependencies?.[name]?.replace(/^[^\d]*/, '');
  const install = needed.map((name) => (version(name) ? `${name}@${version(name)}` : name)).join(' ');
  return [
    `${command} needs ${missing.join(', ')}, which its package declares (the gate's @playwright/test is its peer dependency, D279).`,
    `Install them beside it:`,
    `  npm install --save-dev ${install}`,
  ].join('\n');
}

/** Exits 2 with the message when a package `command` needs is missing; call before importing the command's modules. */
export function requirePackages(command: string, needed: readonly string[]): void {
  const message = missingPackagesMessage(command, needed);
  if (message === undefined) return;
  console.error(message);
  process.exit(2);
}
