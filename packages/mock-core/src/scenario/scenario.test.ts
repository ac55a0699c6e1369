/**
 * Scenario files (D130, D131): each example of examples/scenarios/ loaded through the control plane
 * (POST /__mock/scenarios) and checked against what the public API then answers; invalid files
 * refused with the line and field of each problem, and nothing made when the file is wrong; an
 * exported account loaded again gives the same states.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../testkit/harness.ts';

const examples = fileURLToPath(new URL('../../../../examples/scenarios/', import.meta.url));
const read = (name: string): string => readFileSync(`${examples}${name}`, 'utf8');

let h: Harness;
beforeEach(async () => {
  // Webhook receivers answer 200 (the scenarios' own chaos decides the failures).
  h = await createHarness({ webhooks: { transport: async () => ({ status: 200 }) } });
});
afterEach(async () => {
  await h.close();
});

interface Loaded {
  accounts: { as: string | null; accountId: string; name: string; keys: Record<string, { keyId: string; key: string; state: string }> }[];
  made: Record<string, any>;
  steps: number;
  clock: { now: string };
}

async function load(name: string): Promise<Loaded> {
  const res = await h.control('POST', '/__mock/scenarios', { text: read(name), name });
  expect(res.status, res.text).toBe(201);
  return res.body as Loaded;
}

describe('the example scenarios, as the API then answers them', () => {
  it('campaign-review.yaml: three creatives pending, one generating, one approved; an expired write key; a run half done; a flaky endpoint', async () => {
    const loaded = await load('campaign-review.yaml');
    const [shop] = loaded.accounts;
    const all = shop!.keys.all!.key;
    const status = async (id: string) => (await h.request('GET', `/creatives/${id}`, { key: all })).body.status;
    expect(loaded.made.pending.creativeIds).toHaveLength(3);
    for (const id of loaded.made.pending.creativeIds) expect(await status(id)).toBe('PENDING');
    // A GENERATING creative has no public representation yet: the API does not show it (404), the control plane does.
    const generating = loaded.made.generating.creativeIds[0];
    const inCampaign = await h.control('GET', `/__mock/accounts/${shop!.accountId}/campaigns/${loaded.made.spring.campaignId}/creatives`);
    expect(inCampaign.status, inCampaign.text).toBe(200);
    expect(inCampaign.body.data.find((c: { creativeId: string }) => c.creativeId === generating).status).toBe('GENERATING');
    expect(await status(loaded.made.approved.creativeIds[0])).toBe('APPROVED');

    const expired = await h.request('GET', '/runs', { key: shop!.keys.oldWriter!.key });
    expect(expired.status).toBe(401);
    expect(shop!.keys.oldWriter!.state).toBe('expired');

    const run = await h.request('GET', `/runs/${loaded.made.halfRun.runId}`, { key: all });
    expect(run.status, run.text).toBe(200);
    expect(run.body.finalizedAt).toBeNull();
    const items = await h.request('GET', `/runs/${loaded.made.halfRun.runId}/items`, { key: all });
    const settled = items.body.data.filter((item: { status: string }) => item.status === 'SETTLED').length;
    expect(settled).toBeGreaterThan(0);
    expect(settled).toBeLessThan(items.body.data.length);

    const endpoint = await h.control('GET', `/__mock/accounts/${shop!.accountId}/webhook-endpoints/${loaded.made.receiver.endpointId}`);
    expect(endpoint.body.chaos.failFirst).toBe(2);
  });

  it('upscales-and-assets.yaml: a 4K upscale done (a derived asset, archived), one still processing, a rejected creative', async () => {
    const loaded = await load('upscales-and-assets.yaml');
    const all = loaded.accounts[0]!.keys.all!.key;
    const done = await h.request('GET', `/upscales/${loaded.made.done.upscaleId}`, { key: all });
    expect(done.body.status).toBe('SUCCEEDED');
    const asset = await h.request('GET', `/assets/${done.body.assetId}`, { key: all });
    expect(asset.body.derivation.operation).toBe('image_upscale');
    expect(asset.body.status).toBe('archived');
    const processing = await h.request('GET', `/upscales/${loaded.made.processing.upscaleId}`, { key: all });
    expect(['QUEUED', 'PROCESSING']).toContain(processing.body.status);
    const rejected = await h.request('GET', `/creatives/${loaded.made.generated.creativeIds[0]}`, { key: all });
    expect(rejected.body.status).toBe('REJECTED');
  });

  it('starter-limits.json: campaigns refused by the plan, a revoked key, sparse pages, the next two requests rate-limited', async () => {
    const loaded = await load('starter-limits.json');
    const starter = loaded.accounts[0]!;
    expect(loaded.made.refused.code).toBe('TIER_REQUIRED');
    const read = starter.keys.read!.key;
    expect((await h.request('GET', '/products', { key: read })).status).toBe(429);
    expect((await h.request('GET', '/products', { key: read })).status).toBe(429);
    expect((await h.request('GET', '/products', { key: read })).status).toBe(200);
    expect((await h.request('GET', '/products', { key: starter.keys.leaked!.key })).status).toBe(401);
    const state = await h.control('GET', `/__mock/accounts/${starter.accountId}`);
    expect(state.body.plan.tier).toBe('starter');
    expect(state.body.settings.sparsePages).toBe(true);
  });
});

describe('invalid scenario files: every problem with its line and field, nothing made', () => {
  const cases: [string, string, { field: string; line: number; message?: RegExp }[]][] = [
    ['a wrong version', 'scenario: 2\naccounts: [{}]\n', [{ field: 'scenario', line: 1 }]],
    ['an unknown field', 'scenario: 1\naccounts:\n  - account: { name: A }\n    colour: red\n', [{ field: 'accounts[0].colour', line: 4, message: /not a field/ }]],
    [
      'a bad scope and a bad lifetime',
      'scenario: 1\naccounts:\n  - keys:\n      - key:\n          scopes: [read, write]\n          expiresInDays: 7\n',
      [
        { field: 'accounts[0].keys[0].key.scopes[1]', line: 5 },
        { field: 'accounts[0].keys[0].key.expiresInDays', line: 6 },
      ],
    ],
    ['a step both action and clock', 'scenario: 1\naccounts:\n  - steps:\n      - clock: { advanceSeconds: 1 }\n        action: { actor: { kind: user }, action: generateCreatives }\n', [{ field: 'accounts[0].steps[0]', line: 4, message: /exactly one/ }]],
    ['YAML that does not parse (a key twice)', 'scenario: 1\naccounts: []\nscenario: 1\n', [{ field: '(the file)', line: 3 }]],
  ];
  for (const [name, text, expected] of cases) {
    it(name, async () => {
      const before = (await h.control('GET', '/__mock/accounts')).body.data.length;
      const res = await h.control('POST', '/__mock/scenarios', { text });
      expect(res.status, res.text).toBe(422);
      for (const want of expected) {
        const got = res.body.errors.find((e: { field: string }) => e.field === want.field);
        expect(got, `${want.field} in ${res.text}`).toBeDefined();
        expect(got.line).toBe(want.line);
        if (want.message) expect(got.message).toMatch(want.message);
      }
      expect((await h.control('GET', '/__mock/accounts')).body.data.length).toBe(before);
    });
  }

  it('a refusal while making (a write key without expiry, a reference to nothing) names its line and field', async () => {
    const keyRule = await h.control('POST', '/__mock/scenarios', { text: 'scenario: 1\naccounts:\n  - account: { empty: true }\n    keys:\n      - key: { scopes: [runs:write], expiresInDays: null }\n' });
    expect(keyRule.status, keyRule.text).toBe(422);
    expect(keyRule.body.errors[0]).toMatchObject({ field: 'accounts[0].keys[0].key.expiresInDays', line: 5 });
    const dangling = await h.control('POST', '/__mock/scenarios', {
      text: "scenario: 1\naccounts:\n  - steps:\n      - action:\n          actor: { kind: user }\n          operationId: approveCreative\n          pathParams: { creativeId: '${nothing.creativeIds.0}' }\n",
    });
    expect(dangling.status, dangling.text).toBe(422);
    expect(dangling.body.errors[0]).toMatchObject({ field: 'accounts[0].steps[0].action.pathParams.creativeId', line: 7 });
    expect(dangling.body.errors[0].message).toMatch(/names nothing/);
  });
});

describe('exportScenario', () => {
  it('an exported account, loaded again, has the same keys, endpoints and campaign creative states', async () => {
    const first = await load('campaign-review.yaml');
    const exported = await h.control('GET', `/__mock/accounts/${first.accounts[0]!.accountId}/scenario`);
    expect(exported.status, exported.text).toBe(200);
    const again = await h.control('POST', '/__mock/scenarios', { text: exported.body.text, name: 'exported.yaml' });
    expect(again.status, again.text).toBe(201);
    const summary = async (accountId: string) => {
      const state = h.mock.services.store.accounts.get(accountId)!;
      const mine = [...state.campaigns.values()].slice(state.seededCampaigns ?? 0);
      return {
        campaigns: mine.map((c) => ({ name: c.name, statuses: c.creativeIds.map((id) => state.creatives.get(id)!.status) })),
        keys: [...state.keys.values()].map((k) => ({ name: k.name, scopes: k.scopes, revoked: k.revokedAt !== null, expired: k.expiresAt !== null && k.expiresAt <= h.clock.now() })),
        endpoints: [...state.webhooks.endpoints.values()].map((e) => ({ url: e.url, eventTypes: e.eventTypes, chaos: e.chaos })),
        plan: state.plan,
      };
    };
    const original = await summary(first.accounts[0]!.accountId);
    expect(original.campaigns).toHaveLength(1);
    expect(await summary(again.body.accounts[0].accountId)).toEqual(original);
  });
});

describe('bad input is a 422 with its line, and a refused load leaves no account behind (D254)', () => {
  const accounts = async (): Promise<string[]> => (await h.control('GET', '/__mock/accounts')).body.data.map((a: { accountId: string }) => a.accountId);
  const laughs = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]', ...'bcdefg'.split('').map((n, i) => `${n}: &${n} [${Array(9).fill(`*${'abcdefg'[i]}`).join(', ')}]`), 'scenario: 1', 'accounts: [{}]', ''].join('\n');
  const unreadable: [string, string, RegExp][] = [
    ['~', '~', /must be object/],
    ['null', 'null', /must be object/],
    ['only a comment', '# nothing here\n', /must be object/],
    ['blank', '  \n\n', /must be object/],
    ['a list', '[]', /must be object/],
    ['an alias bomb ("billion laughs")', laughs, /maxAliasCount/],
  ];
  for (const [name, text, message] of unreadable) {
    it(`${name}: 422 VALIDATION_ERROR, nothing made`, async () => {
      const before = await accounts();
      const res = await h.control('POST', '/__mock/scenarios', { text });
      expect(res.status, res.text).toBe(422);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.errors[0].field).toBe('(the file)');
      expect(res.body.errors[0].message).toMatch(message);
      expect(await accounts()).toEqual(before);
    });
  }

  const unbound: [string, string, { field: string; line: number; message: RegExp }][] = [
    ['an `as` used twice (two accounts)', 'scenario: 1\naccounts:\n  - as: shop\n    account: { empty: true }\n  - as: shop\n    account: { empty: true }\n', { field: 'accounts[1].as', line: 5, message: /already names something above \(accounts\[0\]\)/ }],
    ['an `as` that is one of the load\'s own names', 'scenario: 1\naccounts:\n  - account: { empty: true }\n    keys:\n      - as: products\n        key: { scopes: [read] }\n', { field: 'accounts[0].keys[0].as', line: 5, message: /gives itself/ }],
    [
      'a reference to nothing in the second account',
      "scenario: 1\naccounts:\n  - account: { empty: true }\n  - account: { empty: true }\n    steps:\n      - action:\n          actor: { kind: user }\n          operationId: approveCreative\n          pathParams: { creativeId: '${nothing.creativeIds.0}' }\n",
      { field: 'accounts[1].steps[0].action.pathParams.creativeId', line: 9, message: /names nothing/ },
    ],
    [
      'a reference to a name made further down',
      "scenario: 1\naccounts:\n  - account: { empty: true }\n    steps:\n      - action:\n          actor: { kind: user }\n          operationId: approveCreative\n          pathParams: { creativeId: '${later.creativeIds.0}' }\n      - as: later\n        action: { actor: { kind: user }, action: generateCreatives }\n",
      { field: 'accounts[0].steps[0].action.pathParams.creativeId', line: 8, message: /"later" is not made above/ },
    ],
  ];
  for (const [name, text, want] of unbound) {
    it(`${name}: refused before anything is made`, async () => {
      const before = await accounts();
      const res = await h.control('POST', '/__mock/scenarios', { text });
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors).toContainEqual(expect.objectContaining({ field: want.field, line: want.line, message: expect.stringMatching(want.message) }));
      expect(await accounts()).toEqual(before);
    });
  }

  it('a literal $${...} is no reference', async () => {
    const res = await h.control('POST', '/__mock/scenarios', { text: "scenario: 1\naccounts:\n  - account: { empty: true, name: 'costs $${price}' }\n" });
    expect(res.status, res.text).toBe(201);
    expect(res.body.accounts[0].name).toBe('costs ${price}');
  });

  it('a step refused while making (what static checks cannot know) removes every account the load made', async () => {
    const before = await accounts();
    const text = [
      'scenario: 1',
      'accounts:',
      '  - as: first',
      '    account: { empty: true }',
      '  - account: { empty: true }',
      '    steps:',
      '      - action: { actor: { kind: user }, operationId: approveCreative, pathParams: { creativeId: crt_missing } }',
      '',
    ].join('\n');
    const res = await h.control('POST', '/__mock/scenarios', { text });
    expect(res.status, res.text).toBe(422);
    expect(res.body.detail).toMatch(/The 2 accounts it made were removed/);
    expect(res.body.errors[0]).toMatchObject({ field: 'accounts[1].steps[0].action', line: 7 });
    expect(await accounts()).toEqual(before);
    expect(h.mock.services.store.scenarios.size).toBe(0);
  });

  it('the keys of a removed account stop authenticating', async () => {
    let made: string | undefined;
    const store = h.mock.services.store;
    const add = store.addAccount.bind(store);
    store.addAccount = (account) => {
      made ??= account.accountId;
      add(account);
    };
    const res = await h.control('POST', '/__mock/scenarios', { text: 'scenario: 1\naccounts:\n  - account: { empty: true }\n    steps:\n      - action: { actor: { kind: user }, operationId: approveCreative, pathParams: { creativeId: crt_missing } }\n' });
    expect(res.status, res.text).toBe(422);
    expect(made).toBeDefined();
    expect(store.accounts.has(made!)).toBe(false);
    expect([...store.keysByHash.values()].some((k) => k.accountId === made)).toBe(false);
  });
});

describe('parseScenarioText bounds (D254)', () => {
  it('refuses a text longer than the limit before parsing it', async () => {
    const { parseScenarioText } = await import('./source.ts');
    await expect(parseScenarioText('scenario: 1\naccounts: [{}]\n', 'big.yaml', 10)).rejects.toMatchObject({ errors: [{ field: '(the file)', message: 'must be at most 10 characters' }] });
  });
  it('the limit is the control document\'s ScenarioLoad.text.maxLength', async () => {
    const { scenarioTextLimit } = await import('./apply.ts');
    expect(scenarioTextLimit()).toBe(1_000_000);
  });
});
