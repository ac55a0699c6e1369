import { describe, expect, it } from 'vitest';
import { splitUrl } from './app.ts';

describe('splitUrl (the request target, without new URL on plain paths)', () => {
  // Each target: what the WHATWG parser gives is what splitUrl must give, fast path or not.
  const targets = [
    '/api/public/v1/creatives',
    '/api/public/v1/creatives?limit=50',
    '/api/public/v1/creatives?limit=50&cursor=abc_-&expand=product',
    '/api/public/v1/creatives?limit=5&limit=6',
    '/api/public/v1/creatives?a=1+2&b=%20x&c=%zz&d=',
    '/api/public/v1/creatives?q=%C3%A9&r=é',
    '/api/public/v1/creatives?x=1#frag',
    '/api/public/v1/creatives#frag?x=1',
    '/api/public/v1/creatives/cr_1.2',
    '/api/public/v1/creatives/./cr_1',
    '/api/public/v1/creatives/../products',
    '/api/public/v1/creatives/..',
    '/api/public/v1/creatives/%2e%2e/products',
    '/api/public/v1/creatives/a%2Fb',
    '/api/public/v1/creatives/é',
    '/api/public/v1/creatives/a b',
    '/api/public/v1/creatives/a\\b',
    '/api/public/v1//creatives',
    "/api/public/v1/creatives/a'b(c)*!~$;,=:@",
    '/api/public/v1/creatives/{id}',
    '/api/public/v1/creatives?',
    '/api/public/v1',
  ];
  it.each(targets)('%s', (target) => {
    const url = new URL(target, 'http://mock.invalid');
    const split = splitUrl(target);
    expect(split.pathname).toBe(url.pathname);
    expect([...split.searchParams]).toEqual([...url.searchParams]);
  });
});

describe('the API handler writes the pipeline answer on the raw response', () => {
  it('a header value the mock built wrongly is a logged 500, never a hung connection', async () => {
    const { buildMock } = await import('./app.ts');
    const { handlers } = await import('./handlers.ts');
    const logged: unknown[] = [];
    const mock = buildMock({
      logError: (error) => logged.push(error),
      handlers: { ...handlers, listPresets: { run: () => ({ status: 200, body: {}, headers: { 'x-broken': 'a\nb' } }) } },
    });
    try {
      await mock.app.ready();
      const created = await mock.app.inject({ method: 'POST', url: '/__mock/accounts', payload: { empty: true } });
      const key = (created.json() as { keys: { all: { key: string } } }).keys.all.key;
      const res = await mock.app.inject({ method: 'GET', url: '/api/public/v1/presets', headers: { authorization: `Bearer ${key}` } });
      expect(res.statusCode).toBe(500);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(logged).toHaveLength(1);
      expect(String(logged[0])).toMatch(/x-broken|Invalid character/i);
    } finally {
      await mock.app.close();
    }
  });
});
