/**
 * The classifier, table-driven: each row changes one thing in a small document and names the
 * verdict both ways (base → changed, and changed → base: the reverse of a tightening is a loosening).
 */
import { describe, expect, it } from 'vitest';
import { isProblemCode, type Change, type Json } from './change.ts';
import { diffDocuments, diffRules, type RuleLedger } from './classify.ts';

type Doc = { [key: string]: any };

function base(): Doc {
  return {
    openapi: '3.1.0',
    info: { title: 'Fixture', version: '1.0.0', description: 'd' },
    security: [{ bearer: [] }],
    paths: {
      '/things': {
        get: {
          operationId: 'listThings',
          'x-required-scopes': ['read'],
          'x-rate-limit-group': 'read',
          parameters: [
            { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } },
            { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
          ],
          responses: {
            '200': {
              description: 'ok',
              headers: { ETag: { required: true, schema: { type: 'string' } }, 'Retry-After': { schema: { type: 'integer' } } },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
            },
            '429': { description: 'limited', content: { 'text/plain': { schema: { type: 'string' } } } },
          },
        },
        post: {
          operationId: 'createThing',
          'x-required-scopes': ['things:write'],
          'x-rate-limit-group': 'writes',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewThing' } } } },
          responses: {
            '201': { description: 'created', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
            '412': { description: 'stale', content: { 'application/problem+json': { schema: { type: 'object', properties: { code: { type: 'string', enum: ['PRECONDITION_FAILED'] } } } } } },
          },
        },
      },
      '/things/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: {
          operationId: 'getThing',
          parameters: [{ name: 'expand', in: 'query', schema: { type: 'string' } }],
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
        },
      },
    },
    webhooks: {
      'thing.created': { post: { 'x-event-type': 'thing.created', parameters: [{ name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' } }, { name: 'webhook-trace', in: 'header', schema: { type: 'string' } }], requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } }, responses: { '2XX': { description: 'received' } } } },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', 'x-scope-implies': { 'things:write': ['read'] } } },
      schemas: {
        Thing: {
          type: 'object',
          required: ['id', 'status'],
          properties: {
            id: { type: 'string', format: 'uuid' },
            status: { type: 'string', enum: ['draft', 'live'] },
            name: { type: 'string', maxLength: 10 },
            size: { oneOf: [{ $ref: '#/components/schemas/Small' }, { $ref: '#/components/schemas/Large' }] },
            note: { type: 'string' },
            count: { type: 'integer' },
          },
        },
        NewThing: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 50, pattern: '^[a-z]+$' },
            tags: { type: 'array', items: { type: 'string' }, maxItems: 5 },
            kind: { type: 'string', enum: ['a', 'b'] },
            note: { type: ['string', 'null'] },
            count: { type: 'integer', minimum: 0 },
            size: { oneOf: [{ $ref: '#/components/schemas/Small' }, { $ref: '#/components/schemas/Large' }] },
          },
        },
        Small: { type: 'object', properties: { small: { const: true } } },
        Large: { type: 'object', properties: { large: { const: true } } },
        Huge: { type: 'object', properties: { huge: { const: true } } },
      },
    },
    'x-rate-limits': { windowSeconds: 60, groups: { read: { limit: 200, appliesTo: 'reads' }, writes: { limit: 60, appliesTo: 'writes' } } },
    'x-plans': { tiers: ['core', 'growth'], defaults: { core: { webhooks: false, imageSizes: ['1K'], campaignLimit: 20 } } },
    'x-webhook-delivery': { description: 'at least once', retry: { firstDelaySeconds: 60, horizonSeconds: 86400 } },
    'x-unmatched-request': { codes: { '404': 'NOT_FOUND' } },
  };
}

type Verdict = [Change['severity'], string];
interface Row {
  name: string;
  change: (d: Doc) => void;
  /** base → changed (one verdict, or every verdict when one edit makes several changes) */
  forward: Verdict | Verdict[];
  /** changed → base */
  backward: Verdict | Verdict[];
}

const thing = (d: Doc): Doc => d.components.schemas.Thing;
const newThing = (d: Doc): Doc => d.components.schemas.NewThing;
const list = (d: Doc): Doc => d.paths['/things'].get;
const create = (d: Doc): Doc => d.paths['/things'].post;

const ROWS: Row[] = [
  // Operations, paths, methods, webhooks, statuses, media types
  { name: 'operation', change: (d) => delete d.paths['/things'].post, forward: ['breaking', 'operation.removed'], backward: ['non-breaking', 'operation.added'] },
  { name: 'path', change: (d) => (d.paths['/others'] = { get: { responses: { '200': { description: 'ok' } } } }), forward: ['non-breaking', 'operation.added'], backward: ['breaking', 'operation.removed'] },
  { name: 'webhook event type', change: (d) => delete d.webhooks['thing.created'], forward: ['breaking', 'webhook.removed'], backward: ['non-breaking', 'webhook.added'] },
  { name: 'success status', change: (d) => (create(d).responses = { '202': create(d).responses['201'] }), forward: [['breaking', 'response.removed'], ['non-breaking', 'response.added']], backward: [['breaking', 'response.removed'], ['non-breaking', 'response.added']] },
  // V8: a documented error status removed is breaking (a write without its 412 is a write without optimistic concurrency).
  { name: 'error status', change: (d) => delete list(d).responses['429'], forward: ['breaking', 'response.removed'], backward: ['non-breaking', 'response.added'] },
  { name: 'a write without its 412', change: (d) => delete create(d).responses['412'], forward: ['breaking', 'response.removed'], backward: ['non-breaking', 'response.added'] },
  { name: 'response media type', change: (d) => (list(d).responses['429'].content = { 'application/problem+json': { schema: { type: 'object' } } }), forward: ['breaking', 'media-type.changed'], backward: ['breaking', 'media-type.changed'] },
  { name: 'request media type', change: (d) => (create(d).requestBody.content['application/merge-patch+json'] = { schema: { type: 'object' } }), forward: ['non-breaking', 'media-type.added'], backward: ['breaking', 'media-type.removed'] },
  { name: 'request body required', change: (d) => (create(d).requestBody.required = false), forward: ['non-breaking', 'request-body.required.unset'], backward: ['breaking', 'request-body.required.set'] },
  // V12: a path template variable renamed is not a wire change (the URLs are the same); a real change beside it is still seen.
  { name: 'path parameter renamed', change: (d) => { d.paths['/things/{thingId}'] = d.paths['/things/{id}']; delete d.paths['/things/{id}']; d.paths['/things/{thingId}'].parameters[0] = { ...d.paths['/things/{thingId}'].parameters[0], name: 'thingId' }; }, forward: ['documentation', 'path.parameter.renamed'], backward: ['documentation', 'path.parameter.renamed'] },
  { name: 'path parameter renamed, and a query parameter made required', change: (d) => { d.paths['/things/{thingId}'] = d.paths['/things/{id}']; delete d.paths['/things/{id}']; d.paths['/things/{thingId}'].parameters[0] = { name: 'thingId', in: 'path', required: true, schema: { type: 'string' } }; d.paths['/things/{thingId}'].get.parameters[0].required = true; }, forward: [['documentation', 'path.parameter.renamed'], ['breaking', 'parameter.required.set']], backward: [['documentation', 'path.parameter.renamed'], ['non-breaking', 'parameter.required.unset']] },
  { name: 'path parameter renamed, and its schema tightened', change: (d) => { d.paths['/things/{thingId}'] = d.paths['/things/{id}']; delete d.paths['/things/{id}']; d.paths['/things/{thingId}'].parameters[0] = { name: 'thingId', in: 'path', required: true, schema: { type: 'string', maxLength: 5 } }; }, forward: [['documentation', 'path.parameter.renamed'], ['breaking', 'schema.maxLength.set']], backward: [['documentation', 'path.parameter.renamed'], ['non-breaking', 'schema.maxLength.unset']] },
  { name: 'a different path of the same shape beside the old one', change: (d) => { d.paths['/things/{other}'] = d.paths['/things/{id}']; }, forward: ['non-breaking', 'operation.added'], backward: ['breaking', 'operation.removed'] },
  // Parameters and headers
  { name: 'optional parameter', change: (d) => list(d).parameters.push({ name: 'q', in: 'query', schema: { type: 'string' } }), forward: ['non-breaking', 'parameter.added'], backward: ['breaking', 'parameter.removed'] },
  { name: 'required parameter', change: (d) => list(d).parameters.push({ name: 'q', in: 'query', required: true, schema: { type: 'string' } }), forward: ['breaking', 'parameter.added-required'], backward: ['breaking', 'parameter.removed'] },
  { name: 'parameter required', change: (d) => (list(d).parameters[0].required = true), forward: ['breaking', 'parameter.required.set'], backward: ['non-breaking', 'parameter.required.unset'] },
  { name: 'parameter location', change: (d) => (list(d).parameters[1].in = 'query'), forward: ['breaking', 'parameter.location.changed'], backward: ['breaking', 'parameter.location.changed'] },
  { name: 'parameter maximum', change: (d) => (list(d).parameters[0].schema.maximum = 50), forward: ['breaking', 'schema.maximum.tightened'], backward: ['non-breaking', 'schema.maximum.loosened'] },
  { name: 'webhook header', change: (d) => d.webhooks['thing.created'].post.parameters.shift(), forward: ['breaking', 'webhook-header.removed'], backward: ['non-breaking', 'webhook-header.added'] },
  { name: 'webhook header required', change: (d) => (d.webhooks['thing.created'].post.parameters[1].required = true), forward: ['non-breaking', 'webhook-header.required.set'], backward: ['breaking', 'webhook-header.required.unset'] },
  { name: 'response header ETag', change: (d) => delete list(d).responses['200'].headers.ETag, forward: ['breaking', 'response-header.removed'], backward: ['non-breaking', 'response-header.added'] },
  { name: 'response header required', change: (d) => (list(d).responses['200'].headers['Retry-After'].required = true), forward: ['non-breaking', 'response-header.required.set'], backward: ['breaking', 'response-header.required.unset'] },
  { name: 'response header schema', change: (d) => (list(d).responses['200'].headers['Retry-After'].schema.minimum = 1), forward: ['non-breaking', 'schema.minimum.set'], backward: ['breaking', 'schema.minimum.unset'] },
  // Schemas: properties, required, types, enums
  { name: 'response property', change: (d) => delete thing(d).properties.note, forward: ['breaking', 'schema.property.removed'], backward: ['non-breaking', 'schema.property.added'] },
  { name: 'request property', change: (d) => delete newThing(d).properties.tags, forward: ['breaking', 'schema.property.removed'], backward: ['non-breaking', 'schema.property.added'] },
  { name: 'new required request property', change: (d) => { newThing(d).properties.sku = { type: 'string' }; newThing(d).required.push('sku'); }, forward: ['breaking', 'schema.property.added-required'], backward: ['breaking', 'schema.property.removed'] },
  { name: 'request required', change: (d) => newThing(d).required.push('kind'), forward: ['breaking', 'schema.required.added'], backward: ['non-breaking', 'schema.required.removed'] },
  { name: 'response required', change: (d) => thing(d).required.push('name'), forward: ['non-breaking', 'schema.required.added'], backward: ['breaking', 'schema.required.removed'] },
  { name: 'request type', change: (d) => (newThing(d).properties.count.type = 'string'), forward: [['breaking', 'schema.type.removed'], ['non-breaking', 'schema.type.added']], backward: [['breaking', 'schema.type.removed'], ['non-breaking', 'schema.type.added']] },
  { name: 'response type widened', change: (d) => (thing(d).properties.count.type = 'number'), forward: ['breaking', 'schema.type.widened'], backward: ['non-breaking', 'schema.type.narrowed'] },
  { name: 'request type widened', change: (d) => (newThing(d).properties.count.type = 'number'), forward: ['non-breaking', 'schema.type.widened'], backward: ['breaking', 'schema.type.narrowed'] },
  { name: 'response nullability', change: (d) => (thing(d).properties.note.type = ['string', 'null']), forward: ['breaking', 'schema.nullable.added'], backward: ['non-breaking', 'schema.nullable.removed'] },
  { name: 'request nullability', change: (d) => (newThing(d).properties.note.type = 'string'), forward: ['breaking', 'schema.nullable.removed'], backward: ['non-breaking', 'schema.nullable.added'] },
  { name: 'request enum', change: (d) => newThing(d).properties.kind.enum.push('c'), forward: ['non-breaking', 'schema.enum.added'], backward: ['breaking', 'schema.enum.removed'] },
  // V9: a value added to what a client receives breaks a client switching over the values; a new problem code does not.
  { name: 'response enum', change: (d) => thing(d).properties.status.enum.pop(), forward: ['non-breaking', 'schema.enum.removed'], backward: ['breaking', 'schema.enum.added'] },
  { name: 'problem code', change: (d) => create(d).responses['412'].content['application/problem+json'].schema.properties.code.enum.push('ETAG_REQUIRED'), forward: ['non-breaking', 'schema.enum.added'], backward: ['non-breaking', 'schema.enum.removed'] },
  { name: 'request enum set', change: (d) => delete newThing(d).properties.kind.enum, forward: ['non-breaking', 'schema.enum.unset'], backward: ['breaking', 'schema.enum.set'] },
  // Schemas: every constraint
  { name: 'minLength', change: (d) => (newThing(d).properties.name.minLength = 3), forward: ['breaking', 'schema.minLength.tightened'], backward: ['non-breaking', 'schema.minLength.loosened'] },
  { name: 'maxLength (request)', change: (d) => delete newThing(d).properties.name.maxLength, forward: ['non-breaking', 'schema.maxLength.unset'], backward: ['breaking', 'schema.maxLength.set'] },
  { name: 'maxLength (response)', change: (d) => (thing(d).properties.name.maxLength = 20), forward: ['breaking', 'schema.maxLength.loosened'], backward: ['non-breaking', 'schema.maxLength.tightened'] },
  { name: 'minimum', change: (d) => (newThing(d).properties.count.minimum = 1), forward: ['breaking', 'schema.minimum.tightened'], backward: ['non-breaking', 'schema.minimum.loosened'] },
  { name: 'pattern', change: (d) => delete newThing(d).properties.name.pattern, forward: ['non-breaking', 'schema.pattern.unset'], backward: ['breaking', 'schema.pattern.set'] },
  { name: 'pattern changed', change: (d) => (newThing(d).properties.name.pattern = '^[a-z0-9]+$'), forward: ['breaking', 'schema.pattern.changed'], backward: ['breaking', 'schema.pattern.changed'] },
  { name: 'minItems', change: (d) => (newThing(d).properties.tags.minItems = 1), forward: ['breaking', 'schema.minItems.set'], backward: ['non-breaking', 'schema.minItems.unset'] },
  { name: 'maxItems', change: (d) => (newThing(d).properties.tags.maxItems = 10), forward: ['non-breaking', 'schema.maxItems.loosened'], backward: ['breaking', 'schema.maxItems.tightened'] },
  { name: 'uniqueItems', change: (d) => (newThing(d).properties.tags.uniqueItems = true), forward: ['breaking', 'schema.uniqueItems.set'], backward: ['non-breaking', 'schema.uniqueItems.unset'] },
  { name: 'additionalProperties', change: (d) => delete newThing(d).additionalProperties, forward: ['non-breaking', 'schema.additionalProperties.unset'], backward: ['breaking', 'schema.additionalProperties.set'] },
  { name: 'format (response)', change: (d) => delete thing(d).properties.id.format, forward: ['breaking', 'schema.format.unset'], backward: ['non-breaking', 'schema.format.set'] },
  { name: 'items', change: (d) => (newThing(d).properties.tags.items.maxLength = 8), forward: ['breaking', 'schema.maxLength.set'], backward: ['non-breaking', 'schema.maxLength.unset'] },
  { name: 'oneOf (request)', change: (d) => newThing(d).properties.size.oneOf.push({ $ref: '#/components/schemas/Huge' }), forward: ['non-breaking', 'schema.oneOf.added'], backward: ['breaking', 'schema.oneOf.removed'] },
  { name: 'oneOf (response)', change: (d) => thing(d).properties.size.oneOf.push({ $ref: '#/components/schemas/Huge' }), forward: ['breaking', 'schema.oneOf.added'], backward: ['non-breaking', 'schema.oneOf.removed'] },
  // Security
  { name: 'scope', change: (d) => (create(d)['x-required-scopes'] = ['things:review']), forward: ['breaking', 'security.scope.changed'], backward: ['breaking', 'security.scope.changed'] },
  { name: 'scope relaxed', change: (d) => (create(d)['x-required-scopes'] = []), forward: ['non-breaking', 'security.scope.relaxed'], backward: ['breaking', 'security.scope.changed'] },
  { name: 'scope implication', change: (d) => (d.components.securitySchemes.bearer['x-scope-implies']['things:write'] = []), forward: ['breaking', 'table.value.removed'], backward: ['non-breaking', 'table.value.added'] },
  { name: 'plan feature', change: (d) => (d['x-plans'].defaults.core.webhooks = true), forward: ['non-breaking', 'table.feature.on'], backward: ['breaking', 'table.feature.off'] },
  { name: 'plan entitlement list', change: (d) => d['x-plans'].defaults.core.imageSizes.push('2K'), forward: ['non-breaking', 'table.value.added'], backward: ['breaking', 'table.value.removed'] },
  { name: 'plan tier', change: (d) => d['x-plans'].tiers.pop(), forward: ['breaking', 'table.value.removed'], backward: ['non-breaking', 'table.value.added'] },
  // The document's own tables
  { name: 'rate-limit quota', change: (d) => (d['x-rate-limits'].groups.read.limit = 100), forward: ['breaking', 'table.value.decreased'], backward: ['non-breaking', 'table.value.increased'] },
  { name: 'rate-limit group', change: (d) => delete d['x-rate-limits'].groups.writes, forward: ['breaking', 'table.entry.removed'], backward: ['non-breaking', 'table.entry.added'] },
  { name: 'operation rate-limit group', change: (d) => (create(d)['x-rate-limit-group'] = 'read'), forward: ['breaking', 'rate-limit.group.changed'], backward: ['breaking', 'rate-limit.group.changed'] },
  { name: 'webhook delivery schedule', change: (d) => (d['x-webhook-delivery'].retry.horizonSeconds = 3600), forward: ['breaking', 'table.schedule.changed'], backward: ['breaking', 'table.schedule.changed'] },
  // Documentation
  { name: 'description', change: (d) => (list(d).responses['200'].description = 'the things'), forward: ['documentation', 'doc.description'], backward: ['documentation', 'doc.description'] },
  { name: 'x-assumption', change: (d) => (thing(d).properties.note['x-assumption'] = 'decided'), forward: ['documentation', 'doc.x-assumption'], backward: ['documentation', 'doc.x-assumption'] },
  { name: 'an answer to unmatched requests', change: (d) => (d['x-unmatched-request'].codes['431'] = 'HEADERS_TOO_LARGE'), forward: ['non-breaking', 'table.answer.added'], backward: ['breaking', 'table.answer.removed'] },
  { name: 'a header on unmatched answers', change: (d) => (d['x-unmatched-request'].headers = { '405': { Allow: { type: 'string' } } }), forward: ['non-breaking', 'table.answer.added'], backward: ['breaking', 'table.answer.removed'] },
  { name: "an unmatched answer's code", change: (d) => (d['x-unmatched-request'].codes['404'] = 'GONE'), forward: ['breaking', 'table.answer.changed'], backward: ['breaking', 'table.answer.changed'] },
  { name: 'table description', change: (d) => (d['x-webhook-delivery'].description = 'at least once, maybe twice'), forward: ['documentation', 'table.doc'], backward: ['documentation', 'table.doc'] },
  { name: 'deprecation', change: (d) => Object.assign(list(d), { deprecated: true, 'x-deprecated-at': '2027-01-01', 'x-sunset': '2027-04-01' }), forward: ['non-breaking', 'operation.deprecated'], backward: ['non-breaking', 'operation.undeprecated'] },
];

/** The changes, with a version bump and a history edit (never reported) made on the head as well. */
function verdicts(from: Doc, to: Doc): Verdict[] {
  return diffDocuments(from, to).map((c) => [c.severity, c.kind]);
}

describe('the classifier', () => {
  it('finds nothing between a document and itself, and ignores the version and its history', () => {
    const head = base();
    head.info.version = '2.0.0';
    head.info['x-version-history'] = [{ version: '2.0.0', summary: 's' }];
    expect(diffDocuments(base(), head)).toEqual([]);
  });

  const names = (v: Verdict | Verdict[]): Set<string> => new Set((Array.isArray(v[0]) ? (v as Verdict[]) : [v as Verdict]).map((x) => x.join(' ')));
  describe.each(ROWS)('$name', ({ change, forward, backward }) => {
    const changed = base();
    change(changed);
    it(`base → changed: ${[...names(forward)].join(', ')}`, () => expect(new Set(verdicts(base(), changed).map((v) => v.join(' ')))).toEqual(names(forward)));
    it(`changed → base: ${[...names(backward)].join(', ')}`, () => expect(new Set(verdicts(changed, base()).map((v) => v.join(' ')))).toEqual(names(backward)));
  });

  it('locates a change by operation, response, media type and schema pointer', () => {
    const changed = base();
    thing(changed).properties.status.enum.push('archived');
    const locations = diffDocuments(base(), changed).map((c) => c.location);
    expect(locations).toContain('GET /things › response 200 application/json › /properties/status');
    expect(locations).toContain('POST /things › response 201 application/json › /properties/status');
    expect(locations).toContain('webhook thing.created › request body application/json › /properties/status');
  });

  it('lists breaking changes first', () => {
    const changed = base();
    list(changed).description = 'new words';
    delete changed.paths['/things'].post;
    expect(diffDocuments(base(), changed).map((c) => c.severity)).toEqual(['breaking', 'documentation']);
  });
});

describe('isProblemCode (V9)', () => {
  it.each([
    ['POST /things › response 412 application/problem+json › /properties/code', true],
    ['POST /things › response 409 application/problem+json › /allOf/1/properties/code', true],
    ['POST /things › response 4XX application/json › /properties/code', true],
    ['GET /things › response 200 application/json › /properties/code', false],
    ['GET /things › response 200 application/json › /properties/status', false],
    ['POST /things › response 412 application/problem+json › /properties/status', false],
  ] as const)('%s: %s', (location, want) => expect(isProblemCode(location)).toBe(want));
});

describe('the rule ledger', () => {
  const ledger = (): RuleLedger => ({ version: '1.0.0', rules: [{ id: 'A-1', rule: 'one', status: 'pinned', observable: true, section: 's' }] });
  const cases: [string, (l: RuleLedger) => void, Verdict, Verdict][] = [
    ['rule added', (l) => l.rules.push({ id: 'A-2', rule: 'two', status: 'pinned' }), ['non-breaking', 'rule.added'], ['breaking', 'rule.removed']],
    ['rule reworded', (l) => (l.rules[0]!.rule = 'one, said better'), ['documentation', 'rule.reworded'], ['documentation', 'rule.reworded']],
    ['pinned → assumed', (l) => (l.rules[0]!.status = 'assumed'), ['non-breaking', 'rule.assumed'], ['non-breaking', 'rule.pinned']],
  ];
  it.each(cases)('%s, both ways', (_name, change, forward, backward) => {
    const changed = ledger();
    change(changed);
    expect(diffRules(ledger(), changed).map((c) => [c.severity, c.kind])).toEqual([forward]);
    expect(diffRules(changed, ledger()).map((c) => [c.severity, c.kind])).toEqual([backward]);
  });
});

export { base as fixtureDocument };
export type { Json };
