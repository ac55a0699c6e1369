import { describe, expect, it } from 'vitest';
import { basePath, createAjv, DOCUMENT_SCHEMA_ID, document, operations, operationsList, readDocument, resolvePointer, validatorFor } from './contract.ts';
import { eventTypes, plans, rateLimits, webhookDelivery } from './tables.ts';
import { matchOperation, pathExists } from './routes.ts';

// [operationId, method, path, scopes, rate-limit group]: the interface's endpoint tables.
const expectedOperations: [string, string, string, string[], string][] = [
  ['listProducts', 'get', '/products', ['read'], 'read'],
  ['getProduct', 'get', '/products/{productId}', ['read'], 'read'],
  ['listCreatives', 'get', '/creatives', ['read'], 'read'],
  ['getCreative', 'get', '/creatives/{creativeId}', ['read'], 'read'],
  ['updateCreative', 'patch', '/creatives/{creativeId}', ['creatives:write'], 'creative_writes'],
  ['deleteCreative', 'delete', '/creatives/{creativeId}', ['creatives:write'], 'creative_writes'],
  ['undeleteCreative', 'post', '/creatives/{creativeId}/undelete', ['creatives:write'], 'creative_writes'],
  ['approveCreative', 'post', '/creatives/{creativeId}/approve', ['creatives:review'], 'creative_reviews'],
  ['rejectCreative', 'post', '/creatives/{creativeId}/reject', ['creatives:review'], 'creative_reviews'],
  ['listCampaigns', 'get', '/campaigns', ['read'], 'read'],
  ['createCampaign', 'post', '/campaigns', ['campaigns:write'], 'campaign_writes'],
  ['getCampaign', 'get', '/campaigns/{campaignId}', ['read'], 'read'],
  ['updateCampaign', 'patch', '/campaigns/{campaignId}', ['campaigns:write'], 'campaign_writes'],
  ['deleteCampaign', 'delete', '/campaigns/{campaignId}', ['campaigns:write'], 'campaign_writes'],
  ['undeleteCampaign', 'post', '/campaigns/{campaignId}/undelete', ['campaigns:write'], 'campaign_writes'],
  ['listAssets', 'get', '/assets', ['read'], 'read'],
  ['getAsset', 'get', '/assets/{assetId}', ['read'], 'read'],
  ['updateAsset', 'patch', '/assets/{assetId}', ['assets:write'], 'asset_writes'],
  ['deleteAsset', 'delete', '/assets/{assetId}', ['assets:write'], 'asset_writes'],
  ['archiveAsset', 'post', '/assets/{assetId}/archive', ['assets:write'], 'asset_writes'],
  ['unarchiveAsset', 'post', '/assets/{assetId}/unarchive', ['assets:write'], 'asset_writes'],
  ['undeleteAsset', 'post', '/assets/{assetId}/undelete', ['assets:write'], 'asset_writes'],
  ['listDeliveries', 'get', '/deliveries', ['read'], 'read'],
  ['getDelivery', 'get', '/deliveries/{deliveryId}', ['read'], 'read'],
  ['listPresets', 'get', '/presets', ['runs:read'], 'generation_read'],
  ['listRuns', 'get', '/runs', ['runs:read'], 'generation_read'],
  ['createRun', 'post', '/runs', ['runs:write'], 'generation_write'],
  ['estimateRun', 'post', '/runs/estimate', ['runs:read'], 'generation_read'],
  ['getRun', 'get', '/runs/{runId}', ['runs:read'], 'generation_read'],
  ['listRunItems', 'get', '/runs/{runId}/items', ['runs:read'], 'generation_read'],
  ['stopRun', 'post', '/runs/{runId}/stop', ['runs:write'], 'generation_write'],
  ['createUpscale', 'post', '/upscales', ['runs:write'], 'generation_write'],
  ['getUpscale', 'get', '/upscales/{upscaleId}', ['runs:read'], 'generation_read'],
];

const validCreative = {
  object: 'creative',
  creativeId: 'crv_1',
  productId: 'prd_1',
  campaignId: 'cmp_1',
  brandId: 'brd_1',
  sku: null,
  mediaType: 'image',
  url: 'https://media.example/crv_1.png',
  thumbnailUrl: null,
  aspectRatio: '1:1',
  approvedAt: null,
  playerUrl: null,
  embedCode: null,
  status: 'PENDING',
};

describe('operations', () => {
  it('finds all 33 operations', () => {
    expect(operationsList).toHaveLength(33);
    expect(operations.size).toBe(33);
    expect(new Set(operationsList.map((op) => op.operationId))).toEqual(new Set(expectedOperations.map(([id]) => id)));
  });

  it.each(expectedOperations)('%s is %s %s with scopes %j in group %s', (id, method, path, scopes, group) => {
    const op = operations.get(id);
    expect(op).toMatchObject({ method, path, scopes, rateLimitGroup: group });
    expect(rateLimits.groups[group]).toBeDefined();
  });

  it.each([
    ['createRun', 'required'],
    ['approveCreative', 'required'],
    ['updateCreative', 'optional'],
    ['deleteAsset', 'optional'],
    ['getCreative', 'none'],
    ['stopRun', 'none'],
  ] as const)('%s: Idempotency-Key %s', (id, expected) => {
    expect(operations.get(id)?.idempotencyKey).toBe(expected);
  });

  it('reads If-Match from path-level and operation-level parameters', () => {
    expect(operations.get('updateCreative')?.ifMatch).toBe(true);
    expect(operations.get('getCreative')?.ifMatch).toBe(false);
  });

  it('merges path-level parameters and resolves $refs', () => {
    const params = operations.get('getCreative')?.parameters.map((p) => [p.in, p.name, p.required]);
    expect(params).toEqual([
      ['path', 'creativeId', true],
      ['query', 'expand', false],
      ['query', 'showDeleted', false],
    ]);
    expect(operations.get('getCreative')?.parameters[0]?.schemaPointer).toBe('#/components/schemas/Id');
  });

  it('resolves request bodies, responses and headers to the pointers of the real nodes', () => {
    const update = operations.get('updateCreative');
    expect(update?.requestBody).toEqual({
      required: true,
      contentTypes: ['application/json'],
      schemaPointer: '#/components/schemas/CreativePatch',
    });
    expect(update?.responses['200']).toMatchObject({
      pointer: '#/paths/~1creatives~1{creativeId}/patch/responses/200',
      contentTypes: ['application/json'],
      schemaPointers: { 'application/json': '#/components/schemas/Creative' },
      headers: {
        etag: { required: true, schemaPointer: '#/components/headers/ETag/schema' },
        ratelimit: { required: true, schemaPointer: '#/components/headers/RateLimit/schema' },
      },
    });
    const conflict = operations.get('deleteCreative')?.responses['409'];
    expect(conflict?.schemaPointers['application/problem+json']).toBe(
      '#/paths/~1creatives~1{creativeId}/delete/responses/409/content/application~1problem+json/schema',
    );
    expect(conflict?.headers['retry-after']?.required).toBe(false);
    expect(operations.get('listCreatives')?.responses['429']?.contentTypes).toEqual(['text/plain']);
    expect(operations.get('listRuns')?.responses['429']?.contentTypes).toEqual(['application/problem+json']);
  });
});

describe('matchOperation', () => {
  it.each([
    ['POST', '/creatives/x/approve', 'approveCreative', { creativeId: 'x' }],
    ['GET', '/creatives/crv_1', 'getCreative', { creativeId: 'crv_1' }],
    ['PATCH', '/creatives/crv%201', 'updateCreative', { creativeId: 'crv 1' }],
    ['POST', '/runs/estimate', 'estimateRun', {}],
    ['GET', '/runs/run_1', 'getRun', { runId: 'run_1' }],
    ['GET', '/runs/run_1/items', 'listRunItems', { runId: 'run_1' }],
    ['post', '/runs/run_1/stop', 'stopRun', { runId: 'run_1' }],
    ['GET', '/products', 'listProducts', {}],
    // Only templates with the method compete: estimate has no GET, so this is a run id.
    ['GET', '/runs/estimate', 'getRun', { runId: 'estimate' }],
  ])('%s %s is %s', (method, path, id, params) => {
    const match = matchOperation(method, path);
    expect(match?.operation.operationId).toBe(id);
    expect(match?.pathParams).toEqual(params);
  });

  it.each([
    ['GET', '/nope'],
    ['GET', '/creatives/x/approve'],
    ['GET', '/creatives/'],
    ['GET', '/api/public/v1/creatives'],
    ['PUT', '/creatives/x'],
    ['GET', 'creatives'],
  ])('%s %s matches nothing', (method, path) => {
    expect(matchOperation(method, path)).toBeUndefined();
  });

  it('tells a known path with another method (405) from an unknown path (404)', () => {
    expect(pathExists('/creatives/x/approve')).toBe(true);
    expect(pathExists('/runs/estimate')).toBe(true);
    expect(pathExists('/creatives/x/publish')).toBe(false);
    expect(pathExists('/')).toBe(false);
  });

  it('knows the base path of the servers', () => {
    expect(basePath).toBe('/api/public/v1');
  });
});

describe('validation', () => {
  it('accepts a valid creative and rejects one without creativeId', () => {
    const validate = validatorFor('#/components/schemas/Creative');
    expect(validate(validCreative), JSON.stringify(validate.errors)).toBe(true);
    const { creativeId: _dropped, ...withoutId } = validCreative;
    expect(validate(withoutId)).toBe(false);
    expect(validate.errors).toContainEqual(expect.objectContaining({ keyword: 'required', params: { missingProperty: 'creativeId' } }));
  });

  it('caches validators by pointer', () => {
    expect(validatorFor('#/components/schemas/Creative')).toBe(validatorFor('#/components/schemas/Creative'));
  });

  it('Problem requires currentStatus on 409 CREATIVE_NOT_PENDING', () => {
    const validate = validatorFor('#/components/schemas/Problem');
    const problem = {
      type: '/errors/CREATIVE_NOT_PENDING',
      title: 'Conflict',
      status: 409,
      code: 'CREATIVE_NOT_PENDING',
      requestId: 'req_1',
    };
    expect(validate(problem)).toBe(false);
    expect(validate.errors).toContainEqual(expect.objectContaining({ params: { missingProperty: 'currentStatus' } }));
    expect(validate({ ...problem, currentStatus: 'APPROVED' }), JSON.stringify(validate.errors)).toBe(true);
  });

  it('validates against inline nodes of operations, with $refs into components', () => {
    const pointer = operations.get('deleteCreative')?.responses['409']?.schemaPointers['application/problem+json'] ?? '';
    const validate = validatorFor(pointer);
    const base = { type: '/errors/X', title: 'Conflict', status: 409, requestId: 'r', currentStatus: 'GENERATING' };
    expect(validate({ ...base, code: 'CREATIVE_NOT_DELETABLE' }), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...base, code: 'CREATIVE_NOT_PENDING' })).toBe(false);
  });

  it('validates header values', () => {
    const validate = validatorFor('#/components/headers/RateLimit/schema');
    expect(validate('limit=100, remaining=50, reset=5')).toBe(true);
    expect(validate('"burst";q=100;w=60')).toBe(false);
  });

  it('compiles every schema of the document in strict mode', () => {
    const pointers = new Set<string>(Object.keys(document.components.schemas).map((name) => `#/components/schemas/${name}`));
    for (const op of operationsList) {
      for (const p of op.parameters) pointers.add(p.schemaPointer);
      if (op.requestBody) pointers.add(op.requestBody.schemaPointer);
      for (const r of Object.values(op.responses)) {
        for (const p of Object.values(r.schemaPointers)) pointers.add(p);
        for (const h of Object.values(r.headers)) pointers.add(h.schemaPointer);
      }
    }
    for (const eventType of Object.keys(document.webhooks)) {
      pointers.add(`#/webhooks/${eventType}/post/requestBody/content/application~1json/schema`);
    }
    for (const pointer of pointers) {
      expect(resolvePointer(pointer), pointer).toBeDefined();
      expect(() => validatorFor(pointer), pointer).not.toThrow();
    }
  });

  it('createAjv gives an independent instance that resolves component $refs', () => {
    const ajv = createAjv();
    const validate = ajv.compile({ type: 'array', items: { $ref: `${DOCUMENT_SCHEMA_ID}#/components/schemas/Id` } });
    expect(validate(['a'])).toBe(true);
    expect(validate([''])).toBe(false);
  });

  it('refuses a pointer with no node', () => {
    expect(() => validatorFor('#/components/schemas/Nope')).toThrow(/no node/);
  });
});

describe('extensions', () => {
  it('reads the rate limits', () => {
    expect(rateLimits.windowSeconds).toBe(60);
    expect(rateLimits.groups['generation_write']).toMatchObject({ limit: 20, traffic: 'generation' });
    expect(rateLimits.caps['writes']).toEqual({ account: 300, ip: 600 });
    for (const group of Object.values(rateLimits.groups)) expect(rateLimits.caps[group.traffic]).toBeDefined();
  });

  it('reads the webhook delivery schedule', () => {
    expect(webhookDelivery.retry).toEqual({ firstDelaySeconds: 60, factor: 2, maxDelaySeconds: 3600, horizonSeconds: 86400 });
    expect(webhookDelivery.replayWindowSeconds).toBe(300);
  });

  it('reads the event types, one webhook each', () => {
    expect(eventTypes).toHaveLength(15);
    expect(eventTypes).toContain('run.completed');
    expect(new Set(Object.keys(document.webhooks))).toEqual(new Set(eventTypes));
  });

  it('reads the plans', () => {
    expect(plans.tiers).toEqual(['starter', 'core', 'growth', 'enterprise']);
    expect(plans.defaults['core']).toMatchObject({ campaigns: true, webhooks: false, imageSizes: ['1K'] });
    expect(plans.defaults['enterprise']?.imageSizes).toEqual(['1K', '2K', '4K']);
  });
});

describe('readDocument: the generated JSON copy is used only while it matches the YAML', () => {
  it('uses the JSON when its sha256 matches the YAML, and parses the YAML when it does not', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { createHash } = await import('node:crypto');
    const { tmpdir } = await import('node:os');
    const { pathToFileURL } = await import('node:url');
    const dir = mkdtempSync(`${tmpdir()}/contract-`);
    const yaml = 'openapi: 3.1.0\nfrom: yaml\n';
    writeFileSync(`${dir}/doc.yaml`, yaml);
    const hash = createHash('sha256').update(yaml).digest('hex');
    writeFileSync(`${dir}/fresh.json`, JSON.stringify({ sha256: hash, document: { from: 'json' } }));
    writeFileSync(`${dir}/stale.json`, JSON.stringify({ sha256: 'not-the-hash', document: { from: 'json' } }));
    const url = (name: string) => pathToFileURL(`${dir}/${name}`);
    expect(readDocument(url('doc.yaml'), url('fresh.json'))).toEqual({ from: 'json' });
    expect(readDocument(url('doc.yaml'), url('stale.json'))).toEqual({ openapi: '3.1.0', from: 'yaml' });
    expect(readDocument(url('doc.yaml'), url('missing.json'))).toEqual({ openapi: '3.1.0', from: 'yaml' });
  });
});
