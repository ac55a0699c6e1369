import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type TestAccount } from '../testkit/harness.ts';
import { controlViolations } from '../testkit/control.ts';

let h: Harness;
let acct: TestAccount;
beforeEach(async () => {
  h = await createHarness();
  acct = await h.account({ empty: true });
});
afterEach(() => h.close());

describe('generation settings', () => {
  const path = () => `/__mock/accounts/${acct.accountId}/generation`;

  it('reads and changes the account\'s outcome mix, pattern and speed', async () => {
    const before = await h.control('GET', path());
    expect(before.status).toBe(200);
    expect(controlViolations('getGeneration', before)).toEqual([]);
    expect(before.body).toMatchObject({ speed: null, effectiveSpeed: 1, outcomePattern: null });
    const res = await h.control('PATCH', path(), { outcomePattern: ['succeeded', 'refused'], speed: 4, outcomeMix: { failed: 1 } });
    expect(res.status, res.text).toBe(200);
    expect(controlViolations('updateGeneration', res)).toEqual([]);
    expect(res.body).toMatchObject({ speed: 4, effectiveSpeed: 4, outcomePattern: ['succeeded', 'refused'], outcomeMix: { succeeded: 0, failed: 1, refused: 0, stall: 0 } });
    expect(acct.state.generation.outcomePattern).toEqual(['succeeded', 'refused']);
  });

  it.each([
    ['an unknown field', { colour: 1 }],
    ['an unknown outcome', { outcomePattern: ['exploded'] }],
    ['a mix with no positive weight', { outcomeMix: { succeeded: 0 } }],
    ['a speed of zero', { speed: 0 }],
  ])('refuses %s with 422 and changes nothing', async (_name, body) => {
    const res = await h.control('PATCH', path(), body);
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors.length).toBeGreaterThan(0);
    expect(controlViolations('updateGeneration', res)).toEqual([]);
    expect((await h.control('GET', path())).body).toMatchObject({ speed: null, outcomePattern: null, outcomeMix: { succeeded: 1 } });
  });

  it('sets the global speed for accounts without their own', async () => {
    const res = await h.control('PATCH', '/__mock/generation', { speed: 10 });
    expect(res.status).toBe(200);
    expect(controlViolations('updateGlobalGeneration', res)).toEqual([]);
    expect((await h.control('GET', path())).body.effectiveSpeed).toBe(10);
  });

  it('an unknown account is 404', async () => {
    expect((await h.control('GET', '/__mock/accounts/acc_missing/generation')).status).toBe(404);
  });
});
