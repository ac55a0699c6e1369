import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basePath, document } from '../../../contract/spec/contract.ts';
import { controlDocument } from '../../../mock-core/src/control/document.ts';
import { createHarness, type Harness } from '../../../mock-core/src/testkit/harness.ts';

describe('/docs/: the API reference served by the mock', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await createHarness();
  });
  afterAll(() => harness.close());

  const get = async (url: string, method = 'GET') => {
    const res = await harness.mock.inject({ method: method as 'GET', url });
    return { status: res.statusCode, type: String(res.headers['content-type'] ?? ''), headers: res.headers, text: res.payload, bytes: res.rawPayload };
  };

  it('serves the page, which loads only files of its own directory', async () => {
    const page = await get('/docs/');
    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html; charset=utf-8');
    const references = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(references).toEqual(['favicon-32x32.png', 'swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'init.js']);
    for (const reference of references) {
      const file = await get(`/docs/${reference}`);
      expect(file.status, reference).toBe(200);
      expect(file.bytes.length, reference).toBeGreaterThan(0);
    }
    expect((await get('/docs/swagger-ui-bundle.js')).type).toBe('text/javascript; charset=utf-8');
    expect((await get('/docs/swagger-ui.css')).type).toBe('text/css; charset=utf-8');
  });

  it('the initializer names both documents by relative URL and turns off the validator badge', async () => {
    const init = (await get('/docs/init.js')).text;
    expect(init).toContain("url: 'openapi.json'");
    expect(init).toContain("url: 'mock-control.json'");
    expect(init).toContain('validatorUrl: null');
    expect(init).not.toMatch(/https?:\/\//);
  });

  it('serves the public document, webhooks included, with the mock itself as its only server', async () => {
    const res = await get('/docs/openapi.json');
    expect(res.status).toBe(200);
    const served = JSON.parse(res.text) as typeof document;
    expect(served.servers).toEqual([{ url: basePath, description: 'This mock' }]);
    expect(Object.keys(served.webhooks)).toEqual(Object.keys(document.webhooks));
    expect(Object.keys(served.paths)).toEqual(Object.keys(document.paths));
  });

  it('serves the control document with the mock as its server', async () => {
    const served = JSON.parse((await get('/docs/mock-control.json')).text) as { servers: unknown; paths: object };
    expect(served.servers).toEqual([{ url: '/', description: 'This mock' }]);
    expect(Object.keys(served.paths)).toEqual(Object.keys(controlDocument()['paths'] as object));
  });

  it('redirects /docs to /docs/ and answers HEAD without a body', async () => {
    const redirect = await get('/docs?x=1');
    expect(redirect.status).toBe(308);
    expect(redirect.headers['location']).toBe('/docs/?x=1');
    const head = await get('/docs/', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it.each([['/docs/package.json'], ['/docs/../package.json'], ['/docs/swagger-ui.js.map'], ['/docsx']])('%s is not served: the mock answers 404 problem+json', async (url) => {
    const res = await get(url);
    expect(res.status).toBe(404);
    expect(res.type).toContain('application/problem+json');
  });
});
