/** Control plane, credits: getCredits, updateCredits (the ledger's view and setter). */
import { describe, expect, it } from 'vitest';
import { controlSuite } from '../testkit/control.ts';

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

  it('refId narrows the holds and journal to one run and sums them in ref; limit keeps the latest journal entries; both are validated', async () => {
    const acc = await t.h.account({ plan: 'enterprise' });
    const productId = [...acc.state.products.ids()][0];
    const run = await t.h.request('POST', '/runs', { key: acc.key('runs:write'), body: { productIds: [productId], creativesPerProduct: 2, presetId: 'pst_studio_white' }, headers: { 'idempotency-key': 'credits-ref' } });
    expect(run.status, run.text).toBe(202);
    t.h.advance(3600);
    const path = `/__mock/accounts/${acc.accountId}/credits`;
    const whole = (await control('getCredits', 'GET', path)).body;
    const mine = (await control('getCredits', 'GET', `${path}?refId=${run.body.runId}&limit=1`)).body;
    expect(mine.ref).toMatchObject({ id: run.body.runId, held: 0 });
    expect(mine.ref.charged + mine.ref.released).toBeGreaterThan(0);
    expect(mine.ref.charged).toBe(whole.totals.charged);
    expect(mine.journal).toHaveLength(1);
    expect(mine.journal[0]).toEqual(whole.journal.at(-1));
    expect(whole).not.toHaveProperty('ref');
    for (const query of ['limit=0', 'limit=x', 'refId=']) expect((await control('getCredits', 'GET', `${path}?${query}`)).status, query).toBe(400);
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
