/** Control plane, credits: getCredits, updateCredits (the ledger's view and setter). */
import { describe, expect, it } from 'vitest';
import { controlSuite } from './conformance.ts';

const t = controlSuite();
const { control } = t;

describe('/__mock/accounts/{accountId}/credits', () => {
  it('starts from the credits of createAccount', async () => {
    const created = await control('createAccount', 'POST', '/__mock/accounts', { empty: true, credits: { balance: 300, dailyBudget: 50 } });
    const res = await control('getCredits', 'GET', `/__mock/accounts/${created.body.accountId}/credits`);
    expect(res.body).toMatchObject({ accountId: created.body.accountId, balance: 300, available: 300, held: 0, dailyBudget: { dailyLimit: 50, remaining: 50 }, holds: [], journal: [] });
  });

  it('sets balance, budget and prices; no body changes nothing', async () => {
    const acc = await t.h.account({ empty: true });
    const res = await control('updateCredits', 'POST', `/__mock/accounts/${acc.accountId}/credits`, { balance: 7, dailyBudget: null, rateCard: { version: 'v2', image: { '4K': null }, upscale: { '2K': 3 } } });
    expect(res.body).toMatchObject({ balance: 7, dailyBudget: null, rateCard: { version: 'v2', image: { '4K': null }, upscale: { '2K': 3 } } });
    const same = await control('updateCredits', 'POST', `/__mock/accounts/${acc.accountId}/credits`);
    expect(same.body).toEqual(res.body);
  });

  it.each([
    [{ balance: -1 }, 'balance'],
    [{ rateCard: { image: { '8K': 1 } } }, 'rateCard.image.8K'],
    [{ rateCard: { video: null } }, 'rateCard.video'],
    [{ gift: 5 }, 'gift'],
  ])('refuses %j with 422 and changes nothing', async (body, field) => {
    const acc = await t.h.account({ empty: true });
    const before = await control('getCredits', 'GET', `/__mock/accounts/${acc.accountId}/credits`);
    const res = await control('updateCredits', 'POST', `/__mock/accounts/${acc.accountId}/credits`, body);
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect((await control('getCredits', 'GET', `/__mock/accounts/${acc.accountId}/credits`)).body).toEqual(before.body);
  });
});
