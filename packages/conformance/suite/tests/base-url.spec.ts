/**
 * The base URL (VER-001): the API answers under it, and it includes the versioned prefix
 * /api/public/v1; the same path without the prefix is not the API.
 */
import { expect, test } from '../fixtures/index.ts';

test('VER-001 the API answers under the base URL, which includes /api/public/v1; the same path without the prefix is not the API', { tag: ['@area:products'] }, async ({ api, account, target, transport }) => {
  expect(target.basePath, `the base URL ${target.baseURL} includes the versioned prefix`).toMatch(/\/api\/public\/v1$/);
  await expect(await api.get('/products', { query: { limit: 1 } })).toHaveStatus(200);
  const bare = await transport.get(`${target.origin}/products?limit=1`, { headers: { authorization: `Bearer ${account.key('read')}` }, failOnStatusCode: false, maxRedirects: 0 });
  if (target.localMock) {
    expect(bare.status(), `GET ${target.origin}/products without the prefix`).toBe(404);
  } else {
    // Another target may serve something else at its root; it must not be the API's product list.
    let body: unknown;
    try {
      body = JSON.parse(await bare.text());
    } catch {
      body = undefined;
    }
    const isList = bare.status() === 200 && typeof body === 'object' && body !== null && Array.isArray((body as { data?: unknown }).data);
    expect(isList, `GET ${target.origin}/products without the prefix answered the API's list`).toBe(false);
  }
});
