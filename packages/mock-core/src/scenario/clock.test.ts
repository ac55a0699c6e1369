/**
 * A scenario's clock (D253): loaded into a running mock it moves only its own accounts' clocks (its
 * `clock` and its steps' advances), and its `mode` leaves the mock's clock as it is; started with it
 * (`startsMock`), `mode` sets the mock's clock. Its advances in total must fit before the latest time
 * the mock keeps, checked before anything is made (D251).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatchControl } from '../control/routes.ts';
import { LATEST_TIME_MS } from '../core/clock.ts';
import { createHarness, type Harness, type TestAccount } from '../testkit/harness.ts';
import { loadScenario } from './apply.ts';

let h: Harness;
let other: TestAccount;
beforeEach(async () => {
  h = await createHarness();
  other = await h.account(); // an account of someone else sharing the mock
});
afterEach(async () => {
  await h.close();
});

const clockOf = async (accountId?: string) => (await h.control('GET', accountId ? `/__mock/accounts/${accountId}/clock` : '/__mock/clock')).body;

async function loadRunning(scenario: object) {
  const res = await h.control('POST', '/__mock/scenarios', { scenario });
  return res;
}

describe('a scenario loaded into a running mock moves only its own accounts (D253)', () => {
  it('its `mode` leaves the mock\'s clock (everyone\'s) as it is', async () => {
    const res = await loadRunning({ scenario: 1, clock: { mode: 'real' }, accounts: [{ account: { name: 'mine' }, steps: [{ clock: { mode: 'real' } }] }] });
    expect(res.status, res.text).toBe(201);
    expect((await clockOf()).mode).toBe('manual');
    expect(res.body.clock.mode).toBe('manual');
  });

  it("its file-wide advance and its steps' advances move its accounts, not the mock's clock nor another account", async () => {
    const before = { mock: await clockOf(), other: await clockOf(other.accountId) };
    const res = await loadRunning({
      scenario: 1,
      clock: { advanceSeconds: 100 },
      accounts: [
        { as: 'one', account: { name: 'one' }, steps: [{ clock: { advanceSeconds: 8 } }, { clock: { advanceSeconds: 2 } }] },
        { as: 'two', account: { name: 'two' } },
      ],
    });
    expect(res.status, res.text).toBe(201);
    const [one, two] = res.body.accounts as { accountId: string }[];
    expect((await clockOf(one!.accountId)).advancedSeconds).toBe(110);
    expect((await clockOf(two!.accountId)).advancedSeconds).toBe(100);
    expect(await clockOf()).toEqual(before.mock);
    expect(await clockOf(other.accountId)).toEqual(before.other);
  });

  it('started with the scenario, its `mode` sets the mock\'s clock', async () => {
    const dispatch = (request: { method: string; url: string; body?: string | undefined }) => dispatchControl(h.mock.services, {}, { ...request, headers: {} });
    await loadScenario({ services: h.mock.services, dispatch, startsMock: true }, { scenario: 1, clock: { mode: 'real' }, accounts: [{ account: { name: 'mine' } }] });
    expect(h.clock.mode).toBe('real');
    h.clock.dispose();
  });
});

describe("a scenario's advances in total are bounded before anything is made (D251)", () => {
  // Each row: a scenario whose advances for one account add up past the latest time the mock keeps, and the field named.
  const tenYears = 315_360_000;
  const rows: { name: string; scenario: object; field: string }[] = [
    { name: 'a thousand ten-year steps', scenario: { scenario: 1, accounts: [{ account: { name: 'far' }, steps: Array.from({ length: 1000 }, () => ({ clock: { advanceSeconds: tenYears } })) }] }, field: 'accounts[0].steps' },
    {
      name: "the file's advance plus the second account's steps",
      scenario: { scenario: 1, clock: { advanceSeconds: tenYears }, accounts: [{ account: { name: 'near' } }, { account: { name: 'far' }, steps: Array.from({ length: 797 }, () => ({ clock: { advanceSeconds: tenYears } })) }] },
      field: 'accounts[1].steps',
    },
  ];
  for (const row of rows) {
    it(`refuses ${row.name} with a 422 naming the account's steps, and makes nothing`, async () => {
      const accounts = h.mock.services.store.accounts.size;
      const before = await clockOf();
      const res = await loadRunning(row.scenario);
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors).toEqual([expect.objectContaining({ field: row.field, message: expect.stringMatching(/add up to .* seconds; its clock can move \d+ more before 9998-01-01/) })]);
      expect(h.mock.services.store.accounts.size).toBe(accounts);
      expect(await clockOf()).toEqual(before);
    });
  }

  it('a scenario whose advances fit to the last second loads', async () => {
    const room = Math.floor((LATEST_TIME_MS - h.clock.now()) / 1000);
    const res = await loadRunning({ scenario: 1, accounts: [{ account: { name: 'edge' }, steps: [{ clock: { advanceSeconds: room - tenYearsFloor(room) } }, ...Array.from({ length: Math.floor(room / 315_360_000) }, () => ({ clock: { advanceSeconds: 315_360_000 } }))] }] });
    expect(res.status, res.text).toBe(201);
    expect((await clockOf(res.body.accounts[0].accountId)).now).toBe('9998-01-01T00:00:00.000Z');
  });
});

function tenYearsFloor(seconds: number): number {
  return Math.floor(seconds / 315_360_000) * 315_360_000;
}
