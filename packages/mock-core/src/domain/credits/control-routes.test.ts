import { afterEach, describe, expect, it } from 'vitest';
import { buildMock, type Mock } from '../../../../mock/src/node/app.ts';
import { Clock } from '../../core/clock.ts';
import { registerCreditRoutes } from '../../control/credits.ts';

let mock: Mock;
afterEach(async () => {
  await mock?.app.close();
});

async function setup() {
  mock = buildMock({ clock: new Clock({ mode: 'manual' }) });
  registerCreditRoutes(mock.app, mock.services);
  await mock.app.ready();
  const created = await mock.inject({ method: 'POST', url: '/__mock/accounts', payload: { credits: { balance: 500, dailyBudget: 100 } } });
  expect(created.statusCode).toBe(201);
  return created.json().accountId as string;
}

describe('control plane: /__mock/accounts/{id}/credits', () => {
  it('GET shows the ledger, starting from the credits the account was created with', async () => {
    const id = await setup();
    const res = await mock.inject({ method: 'GET', url: `/__mock/accounts/${id}/credits` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ accountId: id, balance: 500, available: 500, held: 0, totals: { charged: 0, released: 0 }, dailyBudget: { dailyLimit: 100, usedToday: 0, remaining: 100 }, holds: [], journal: [] });
  });

  it('POST sets balance, budget and rate card; answers the new view', async () => {
    const id = await setup();
    const res = await mock.inject({ method: 'POST', url: `/__mock/accounts/${id}/credits`, payload: { balance: 7, dailyBudget: null, rateCard: { version: 'v2', image: { '2K': null } } } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ balance: 7, dailyBudget: null, rateCard: { version: 'v2', image: { '1K': 1, '2K': null, '4K': 4 } } });
  });

  it('POST refuses an invalid body with 422 and changes nothing; bad JSON is 400; an unknown account 404', async () => {
    const id = await setup();
    const bad = await mock.inject({ method: 'POST', url: `/__mock/accounts/${id}/credits`, payload: { balance: -3, rateCard: { upscale: { '8K': 1 } } } });
    expect(bad.statusCode).toBe(422);
    expect(bad.headers['content-type']).toContain('application/problem+json');
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'balance' }, { field: 'rateCard.upscale.8K' }] });
    const after = await mock.inject({ method: 'GET', url: `/__mock/accounts/${id}/credits` });
    expect(after.json().balance).toBe(500);
    const json = await mock.inject({ method: 'POST', url: `/__mock/accounts/${id}/credits`, payload: '{oops', headers: { 'content-type': 'application/json' } });
    expect(json.statusCode).toBe(400);
    const missing = await mock.inject({ method: 'GET', url: '/__mock/accounts/acc_none/credits' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('ACCOUNT_NOT_FOUND');
  });
});
