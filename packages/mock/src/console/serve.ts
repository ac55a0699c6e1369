/**
 * Serves the console (packages/mock/src/console/: index.html, style.css, and its ES modules: app.js, client.js,
 * pieces.js, views/*.js) at /console/ on the mock's
 * origin, and the one UI library it uses, htm's Preact build (a single ES module file from npm,
 * node_modules/htm/preact/standalone.module.js), at /console/vendor/preact-htm.js. No build step
 * and no CDN: the files are served as they are in the repository. The console is a client of the
 * control plane (packages/contract/spec/mock-control.yaml) and of the public API, and of nothing else.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { ownValue } from '../../../mock-core/src/core/own.ts';
import { FRAME_HEADERS } from '../web/index.ts';
import { problemResponse } from '../../../mock-core/src/core/problem.ts';
import { nextRequestId } from '../../../mock-core/src/pipeline/context.ts';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const JS = 'text/javascript; charset=utf-8';
/** The console's own modules (app.js loads the others). */
const MODULES = ['app.js', 'client.js', 'pieces.js', 'views/accounts.js', 'views/data.js', 'views/generation.js', 'views/webhooks.js', 'views/requests.js'];

/** Every file the console serves: URL path below /console/ → file and type. Nothing else is served. */
export const CONSOLE_FILES: Record<string, { file: string; type: string }> = {
  '': { file: join(here, 'index.html'), type: 'text/html; charset=utf-8' },
  ...Object.fromEntries(MODULES.map((name) => [name, { file: join(here, name), type: JS }])),
  'style.css': { file: join(here, 'style.css'), type: 'text/css; charset=utf-8' },
  'vendor/preact-htm.js': { file: join(dirname(require.resolve('htm/preact')), 'standalone.module.js'), type: JS },
};

export const CONSOLE_PATH = '/console/';

export function registerConsole(app: FastifyInstance): void {
  // Read once, on first use (the files do not change while the mock runs).
  const cache = new Map<string, Buffer>();
  app.get('/console', (_request, reply) => reply.redirect(CONSOLE_PATH, 301));
  app.get('/console/*', (request, reply) => {
    const name = (request.params as { '*': string })['*'];
    const entry = ownValue(CONSOLE_FILES, name);
    if (!entry) {
      const answer = problemResponse({ status: 404, code: 'NOT_FOUND', detail: `The console has no file ${name}.` }, request.url.split('?')[0]!, nextRequestId('control'));
      return reply.status(answer.status).headers(answer.headers).send(answer.body);
    }
    let bytes = cache.get(name);
    if (!bytes) {
      bytes = readFileSync(entry.file);
      cache.set(name, bytes);
    }
    return reply.type(entry.type).header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff').headers(FRAME_HEADERS).send(bytes);
  });
}
