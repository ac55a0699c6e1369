/**
 * The control token (`--control-token`, CGS_CONTROL_TOKEN): /__mock needs it as a bearer token,
 * the public API does not; and a mock bound beyond loopback without one refuses to start.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMock, type Mock } from '../../../mock/src/node/app.ts';
import { controlBindingRefusal, isLoopback } from './binding.ts';
import { controlViolations } from '../testkit/control.ts';
import { controlTokenCheck } from './routes.ts';

const TOKEN = 'ctl_0123456789abcdef0123';

describe('a mock started with a control token', () => {
  let mock: Mock;
  beforeAll(async () => {
    mock = buildMock({ control: { controlToken: TOKEN } });
    await mock.app.ready();
  });
  afterAll(async () => {
    await mock.app.close();
  });

  const send = async (method: 'GET' | 'POST', url: string, authorization?: string, payload?: unknown) => {
    const res = await mock.inject({
      method,
      url,
      headers: { ...(authorization !== undefined ? { authorization } : {}), ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
    });
    const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
    return { status: res.statusCode, headers, text: res.payload, body: res.payload ? (JSON.parse(res.payload) as Record<string, unknown>) : undefined };
  };

  it.each([
    ['no Authorization', undefined],
    ['another token', 'Bearer ctl_not-the-token-at-all'],
    ['the token with another scheme', `Basic ${TOKEN}`],
    ['the token without a scheme', TOKEN],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, -1)}`],
  ])('refuses %s: 401 UNAUTHORIZED problem+json with WWW-Authenticate, before routing', async (_what, authorization) => {
    for (const [method, url] of [['GET', '/__mock/clock'], ['POST', '/__mock/accounts'], ['GET', '/__mock/nothing-here']] as const) {
      const res = await send(method, url, authorization, method === 'POST' ? {} : undefined);
      expect(res.status, `${method} ${url}`).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="mock-control"');
      expect(res.body).toMatchObject({ type: '/errors/UNAUTHORIZED', title: 'Unauthorized', status: 401, code: 'UNAUTHORIZED', instance: url });
    }
  });

  it('allows it with the token, answers as the document says; nothing was changed by the refused requests', async () => {
    const clock = await send('GET', '/__mock/clock', `Bearer ${TOKEN}`);
    expect(clock.status).toBe(200);
    expect(controlViolations('getClock', clock)).toEqual([]);
    const created = await send('POST', '/__mock/accounts', `bearer  ${TOKEN}`, { plan: 'growth' });
    expect(created.status).toBe(201);
    expect(controlViolations('createAccount', created)).toEqual([]);
    expect(mock.services.store.accounts.size, 'only the authorized create made an account').toBe(1);

    // The public API is not affected: its own keys, no control token.
    const readKey = ((created.body as { keys: Record<string, { key: string }> }).keys['read'])!.key;
    const products = await send('GET', '/api/public/v1/products?limit=1', `Bearer ${readKey}`);
    expect(products.status).toBe(200);
    expect((await send('GET', '/api/public/v1/products?limit=1', `Bearer ${TOKEN}`)).status, 'the control token is no API key').toBe(401);
  });
});

describe('controlTokenCheck', () => {
  it('lets everything through without a token, and only the exact token with one', () => {
    expect(controlTokenCheck(undefined)(undefined)).toBe(true);
    const check = controlTokenCheck(TOKEN);
    expect([`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `Bearer ${TOKEN} `].map(check)).toEqual([true, true, true]);
    expect([undefined, '', 'Bearer', `Bearer ${TOKEN}x`, `Bearer x${TOKEN}`, `Bearer ${TOKEN} extra`].map(check)).toEqual([false, false, false, false, false, false]);
  });
});

describe('binding beyond loopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['::1', true],
    ['[::1]', true],
    ['localhost', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
    ['example.internal', false],
  ])('%s is loopback: %s', (host, loopback) => {
    expect(isLoopback(host)).toBe(loopback);
    expect(controlBindingRefusal(host, undefined, false) === undefined).toBe(loopback);
    expect(controlBindingRefusal(host, TOKEN, false), 'a token makes any address acceptable').toBeUndefined();
    expect(controlBindingRefusal(host, undefined, true), '--insecure-control accepts it anyway').toBeUndefined();
  });

  it('npm start refuses to serve 0.0.0.0 without a token, and says why', () => {
    const root = fileURLToPath(new URL('../../../..', import.meta.url));
    const env = { ...process.env };
    delete env['CGS_CONTROL_TOKEN'];
    const started = spawnSync(process.execPath, ['--import', 'tsx', 'packages/mock/src/node/main.ts', '--host', '0.0.0.0', '--port', '0'], { cwd: root, env, encoding: 'utf8', timeout: 20_000 });
    expect(started.status, started.stdout).toBe(2);
    expect(started.stderr).toContain('refusing to serve the control plane (/__mock) on 0.0.0.0');
    expect(started.stderr).toContain('--control-token');
    expect(started.stderr).toContain('--insecure-control');
    expect(started.stdout, 'it never listened').not.toContain('listening');
  });
});
