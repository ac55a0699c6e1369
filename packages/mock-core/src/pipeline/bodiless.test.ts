/**
 * D74 (ERR-045): the actions that take no body (approve, every undelete, archive, unarchive, stop)
 * refuse a body field alike: 422 VALIDATION_ERROR naming it on the read-plane writes, 400 on the
 * generation plane (D23); an empty object is tolerated. Validation comes before the target is
 * looked up, so unknown ids do: nothing is reached.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, violations, type Harness, type TestAccount } from '../testkit/harness.ts';

let h: Harness;
let acct: TestAccount;
beforeAll(async () => {
  h = await createHarness();
  acct = await h.account({ empty: true });
});
afterAll(() => h.close());

const ACTIONS = [
  ['approveCreative', '/creatives/crv_none/approve', 'creatives:review', 422],
  ['undeleteCreative', '/creatives/crv_none/undelete', 'creatives:write', 422],
  ['undeleteCampaign', '/campaigns/cmp_none/undelete', 'campaigns:write', 422],
  ['archiveAsset', '/assets/ast_none/archive', 'assets:write', 422],
  ['unarchiveAsset', '/assets/ast_none/unarchive', 'assets:write', 422],
  ['undeleteAsset', '/assets/ast_none/undelete', 'assets:write', 422],
  ['stopRun', '/runs/run_none/stop', 'runs:write', 400],
] as const;

let n = 0;
describe('D74 ERR-045: a bodiless action refuses a body field', () => {
  it.each(ACTIONS)('%s (%s, key %s): a field → %i VALIDATION_ERROR naming it; {} is tolerated', async (operationId, path, key, status) => {
    const headers = { 'idempotency-key': `bodiless-${++n}` };
    const refused = await h.request('POST', path, { key: acct.key(key), body: { colour: 'red' }, headers });
    expect([refused.status, refused.body.code], refused.text).toEqual([status, 'VALIDATION_ERROR']);
    expect(refused.body.errors.map((e: { field: string }) => e.field)).toEqual(['colour']);
    expect(violations(operationId, refused)).toEqual([]);
    const empty = await h.request('POST', path, { key: acct.key(key), body: {}, headers: { 'idempotency-key': `bodiless-${++n}` } });
    expect(empty.status, `{} reaches the operation (a 404 for the unknown id): ${empty.text}`).toBe(404);
  });
});
