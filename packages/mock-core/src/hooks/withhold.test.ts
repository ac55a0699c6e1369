/**
 * `--hooks-withhold` (withhold.ts, D263): the mock plays a partial target. Each withheld thing leaves
 * the capabilities, and a request that needs it answers 501 HOOK_NOT_SUPPORTED (or, for a flag a
 * target may ignore, is served without the member); `data` leaves accounts with their catalog only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildMock, type Mock } from '../../../mock/src/node/app.ts';
import { Clock } from '../core/clock.ts';
import { parseWithhold } from './withhold-flag.ts';

let mock: Mock | undefined;
afterEach(async () => {
  await mock?.app.close();
  mock = undefined;
});

async function withheld(names: string[]) {
  mock = buildMock({ clock: new Clock({ mode: 'manual' }), control: { hooksWithhold: names } });
  await mock.app.ready();
  const target = mock;
  return async (method: string, path: string, body?: unknown, key?: string) => {
    const res = await target.inject({ method: method as 'GET', url: path, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(key ? { authorization: `Bearer ${key}` } : {}) }, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) });
    return { status: res.statusCode, body: res.body === '' ? undefined : (JSON.parse(res.body) as any) };
  };
}

describe('--hooks-withhold', () => {
  it('parses hooks, list entries, flags and data, and refuses anything else', () => {
    expect(parseWithhold(['actors,faults:idempotencyInProgressSeconds', 'accounts.rateCard', 'data', 'operations', 'operations:createCampaign'])).toEqual(['actors', 'faults:idempotencyInProgressSeconds', 'accounts.rateCard', 'data', 'operations', 'operations:createCampaign']);
    expect(() => parseWithhold(['pages'])).toThrow(/--hooks-withhold takes a hook/);
    expect(() => parseWithhold(['faults:'])).toThrow(/not "faults:"/);
  });

  it('leaves a withheld hook, action, fault, kind, operationId and flag out of the capabilities', async () => {
    const hook = await withheld(['clock', 'actions:revokeKey', 'faults:idempotencyInProgressSeconds', 'kinds:staff', 'operations:createCampaign', 'accounts.rateCard', 'webhooks.deliveryLog']);
    const { body } = await hook('GET', '/__hooks/capabilities');
    expect(body.hooks).toEqual(['accounts', 'faults', 'actors', 'webhooks', 'rate-limits', 'outcomes', 'events']);
    expect(body.clock).toBeUndefined();
    expect(body.actors.actions).not.toContain('revokeKey');
    expect(body.actors.actions).toContain('generateCreatives');
    expect(body.actors.kinds).not.toContain('staff');
    expect(body.actors.operations).toContain('approveCreative');
    expect(body.actors.operations).not.toContain('createCampaign');
    expect(body.faults.supported).toEqual(['writesPaused', 'spendUnavailable', 'lostRaces', 'cascadePendingSeconds', 'campaignCreationSeconds']);
    expect([body.accounts.rateCard, body.webhooks.deliveryLog]).toEqual([false, false]);
  });

  it('answers 501 HOOK_NOT_SUPPORTED to what needs a withheld thing, and serves the rest', async () => {
    const hook = await withheld(['clock', 'actions:revokeKey', 'faults:idempotencyInProgressSeconds', 'operations', 'accounts.rateCard']);
    const created = await hook('POST', '/__hooks/accounts', {});
    expect(created.status).toBe(201);
    const id = created.body.accountId as string;
    const refusals = [
      await hook('POST', `/__hooks/accounts/${id}/clock/advance`, { seconds: 1 }),
      await hook('POST', `/__hooks/accounts/${id}/actions`, { actor: { kind: 'user' }, action: 'revokeKey', input: { keyId: created.body.keys.read.keyId } }),
      await hook('PATCH', `/__hooks/accounts/${id}/faults`, { writesPaused: false, idempotencyInProgressSeconds: 5 }),
      await hook('POST', `/__hooks/accounts/${id}/actions`, { actor: { kind: 'user' }, operationId: 'deleteCampaign', pathParams: { campaignId: 'cmp_x' } }),
      await hook('PATCH', `/__hooks/accounts/${id}`, { credits: { rateCard: { image: { '2K': null } } } }),
    ];
    expect(refusals.map((r) => `${r.status} ${r.body.code}`)).toEqual(Array(5).fill('501 HOOK_NOT_SUPPORTED'));
    expect((await hook('PATCH', `/__hooks/accounts/${id}/faults`, { writesPaused: false })).status).toBe(200);
    expect((await hook('PATCH', `/__hooks/accounts/${id}`, { credits: { balance: 10 } })).status).toBe(200);
  });

  it('data: an account of the hooks holds its catalog (products of two brands) and nothing else', async () => {
    const hook = await withheld(['data']);
    const created = await hook('POST', '/__hooks/accounts', {});
    const key = created.body.keys.all.key as string;
    const products = await hook('GET', '/api/public/v1/products?limit=100', undefined, key);
    expect(new Set((products.body.data as { brandId: string }[]).map((p) => p.brandId)).size).toBe(2);
    for (const list of ['campaigns?showDeleted=true', 'creatives?showDeleted=true', 'assets?showDeleted=true', 'deliveries?limit=100']) {
      const page = await hook('GET', `/api/public/v1/${list}`, undefined, key);
      expect(page.body.data, list).toEqual([]);
    }
  });
});
