import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildMock } from '../node/app.ts';
import { CONSOLE_FILES } from './serve.ts';

/** The relative modules a console file imports (`./x.js`, `../x.js`), as paths below /console/. */
const importsOf = (name: string, text: string): string[] =>
  [...text.matchAll(/^import [^;]*? from '(\.{1,2}\/[^']+)';$/gm)].map(([, spec]) => new URL(spec!, `http://c/console/${name}`).pathname.slice('/console/'.length));

describe('the console files (packages/mock/src/console/serve.ts)', () => {
  it('serves every module app.js loads, following its imports, with a JavaScript type', async () => {
    const mock = buildMock();
    const seen = new Set<string>();
    const queue = ['app.js'];
    while (queue.length > 0) {
      const name = queue.shift()!;
      if (seen.has(name)) continue;
      seen.add(name);
      const res = await mock.inject({ method: 'GET', url: `/console/${name}` });
      expect(res.statusCode, name).toBe(200);
      expect(res.headers['content-type'], name).toBe('text/javascript; charset=utf-8');
      if (name !== 'vendor/preact-htm.js') queue.push(...importsOf(name, res.body));
    }
    expect([...seen].sort()).toEqual(Object.keys(CONSOLE_FILES).filter((name) => name.endsWith('.js')).sort());
    expect(seen.size).toBeGreaterThan(3);
  });

  it('answers a file it does not have with the one problem writer: 404 problem+json with a request id', async () => {
    const mock = buildMock();
    const res = await mock.inject({ method: 'GET', url: '/console/views/nope.js?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(res.json()).toMatchObject({ type: '/errors/NOT_FOUND', title: 'Not Found', status: 404, code: 'NOT_FOUND', detail: 'The console has no file views/nope.js.', instance: '/console/views/nope.js' });
    expect(res.json().requestId).toMatch(/^req_control_/);
  });

  it('serves index.html, which loads app.js as a module', async () => {
    const res = await buildMock().inject({ method: 'GET', url: '/console/' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(readFileSync(join(import.meta.dirname, 'index.html'), 'utf8'));
    expect(res.body).toContain('<script type="module" src="./app.js"></script>');
  });
});
