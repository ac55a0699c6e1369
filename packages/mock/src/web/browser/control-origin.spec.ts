/**
 * A page whose origin `--cors-origin` names drives the control plane from another origin (D246):
 * the mock of this file lists the app's origin.
 */
import { expect, pageFetch, test } from './fixtures.ts';

test.use({ listApp: true });

test('the control plane answers a page of an origin --cors-origin names', async ({ app, site }) => {
  const clock = await pageFetch(app, `${site.mockOrigin}/__mock/clock`);
  expect(clock.status).toBe(200);
  expect(clock.headers['content-type']).toBe('application/json; charset=utf-8');
  const advanced = await pageFetch(app, `${site.mockOrigin}/__mock/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"advanceSeconds":1}' });
  expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
  // Even a listed page sends only JSON bodies.
  const form = await pageFetch(app, `${site.mockOrigin}/__mock/clock`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"advanceSeconds":1}' });
  expect(form.status).toBe(415);
  expect(form.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
});
