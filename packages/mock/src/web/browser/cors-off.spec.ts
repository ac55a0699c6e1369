/**
 * With `--cors off` the mock answers as a server without CORS: a page on another origin is refused
 * by the browser, both a simple request and one that needs a preflight. (The console's CORS errors
 * and the failed loads are what this test expects: it checks them and clears them.)
 */
import { expect, test } from './fixtures.ts';

test.use({ cors: { enabled: false } });

test('a page on another origin is refused when CORS is off', async ({ app, site, problems }) => {
  const attempt = (init: { headers?: Record<string, string> }) =>
    app.evaluate(
      async ({ url, init }) => {
        try {
          const response = await fetch(url, init);
          return `answered ${response.status}`;
        } catch (error) {
          return `refused: ${(error as Error).name}`;
        }
      },
      { url: `${site.api}/products`, init },
    );
  // No custom header: no preflight, the answer itself lacks Access-Control-Allow-Origin.
  expect(await attempt({})).toBe('refused: TypeError');
  // Authorization needs a preflight, which the mock answers with its 405 and no CORS headers.
  expect(await attempt({ headers: { authorization: `Bearer ${site.key}` } })).toBe('refused: TypeError');
  await expect.poll(() => problems.list.filter((line) => line.includes('blocked by CORS policy')).length).toBe(2);
  expect(problems.list.some((line) => line.includes('Response to preflight request'))).toBe(true);
  problems.clear();
});
