/**
 * The control plane as a whole: packages/contract/spec/mock-control.yaml and the handlers agree both ways, the
 * document's enumerations agree with the mock, and the error paths every operation shares
 * (malformed JSON, unknown account, bad parameters) answer 4xx problem+json as documented.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventTypes, plans } from '../../../contract/spec/tables.ts';
import { SCOPES } from '../domain/accounts/model.ts';
import { dashboardActions } from '../domain/campaigns/dashboard.ts';
import { createHarness, type Harness } from '../testkit/harness.ts';
import { controlViolations } from '../testkit/control.ts';
import { controlDocument, controlOperations, controlValidator } from './document.ts';
import { defaultLimits } from './limits.ts';
import { controlHandlers } from './routes.ts';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

function schema(name: string): Record<string, unknown> {
  const schemas = (controlDocument().components as { schemas: Record<string, Record<string, unknown>> }).schemas;
  const node = schemas[name];
  if (!node) throw new Error(`no schema ${name}`);
  return node;
}

/** A concrete path for an operation: the account and key ids given, or placeholders. */
function pathOf(path: string, ids: { accountId?: string; keyId?: string } = {}): string {
  return path.replace('{accountId}', ids.accountId ?? 'acc_missing').replace('{keyId}', ids.keyId ?? 'key_missing').replace('{endpointId}', 'whe_missing').replace('{deliveryId}', 'whd_missing').replace('{campaignId}', 'cmp_missing');
}

async function raw(method: string, url: string, payload?: string, contentType = 'application/json') {
  const res = await h.mock.inject({ method: method as 'GET', url, ...(payload !== undefined ? { payload, headers: { 'content-type': contentType } } : {}) });
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) headers[k.toLowerCase()] = String(v);
  let body: unknown;
  try {
    body = res.payload ? JSON.parse(res.payload) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, headers, body: body as any, text: res.payload };
}

describe('the control document', () => {
  it('names exactly the operations that have handlers', () => {
    expect(controlOperations().map((op) => op.operationId).sort()).toEqual(Object.keys(controlHandlers).sort());
  });

  it('has unique operationIds, all under /__mock', () => {
    const ids = controlOperations().map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const op of controlOperations()) expect(op.path.startsWith('/__mock')).toBe(true);
  });

  it('enumerates the mock\'s scopes, tiers, event types, limit names and dashboard actions', () => {
    expect(schema('Scope').enum).toEqual([...SCOPES]);
    expect(schema('PlanTier').enum).toEqual(plans.tiers);
    expect(schema('EventType').enum).toEqual([...eventTypes]);
    expect([...(schema('LimitName').enum as string[])].sort()).toEqual(Object.keys(defaultLimits()).sort());
    const actions = ((schema('DashboardAction').properties as Record<string, { enum: string[] }>).action!).enum;
    expect([...actions].sort()).toEqual(Object.keys(dashboardActions).sort());
  });

  it('compiles every schema in strict mode (a YAML slip such as a comma in a flow mapping fails here)', () => {
    const schemas = (controlDocument().components as { schemas: Record<string, unknown> }).schemas;
    for (const name of Object.keys(schemas)) expect(() => controlValidator(`#/components/schemas/${name}`), name).not.toThrow();
  });

  it('closes every request body object (unknown fields are rejected)', () => {
    const open: string[] = [];
    const visit = (node: unknown, at: string, seen: Set<unknown>): void => {
      if (typeof node !== 'object' || node === null || seen.has(node)) return;
      seen.add(node);
      const n = node as Record<string, unknown>;
      if (typeof n.$ref === 'string') {
        const name = n.$ref.replace('#/components/schemas/', '');
        return visit(schema(name), name, seen);
      }
      // An object definition (a `type: object` with properties); `if`/`else` fragments only constrain.
      if (n.type === 'object' && n.properties !== undefined && n.additionalProperties !== false) open.push(at);
      // `if` only selects (its `properties` define no object); `body` and `input` are open on purpose.
      for (const [k, v] of Object.entries(n)) if (!['body', 'input', 'if'].includes(k)) visit(v, `${at}/${k}`, seen);
    };
    for (const op of controlOperations()) {
      if (op.requestBody) visit({ $ref: op.requestBody.schemaPointer }, op.operationId, new Set());
    }
    // `body` (the public operation's own schema decides) and `input` (the action decides) are
    // deliberately open; everything else is closed.
    expect(open).toEqual([]);
  });
});

describe('errors every operation shares', () => {
  const withBody = controlOperations().filter((op) => op.requestBody);
  const withAccount = controlOperations().filter((op) => op.path.includes('{accountId}'));

  it.each(withBody.map((op) => [op.operationId, op] as const))('%s: malformed JSON is 400 VALIDATION_ERROR', async (_id, op) => {
    const { accountId } = await h.account({ empty: true });
    const res = await raw(op.method.toUpperCase(), pathOf(op.path, { accountId }), '{"a": ');
    expect(res.status, res.text).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.body).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', type: '/errors/VALIDATION_ERROR', title: 'Bad Request' });
    expect(res.body.errors).toEqual([{ field: 'body', message: 'malformed JSON' }]);
    expect(controlViolations(op.operationId, res)).toEqual([]);
  });

  it.each(withBody.map((op) => [op.operationId, op] as const))('%s: a JSON array or an unknown field is 422 VALIDATION_ERROR', async (_id, op) => {
    const { accountId } = await h.account({ empty: true });
    for (const payload of ['[]', '{"notAField": 1}', '"text"']) {
      const res = await raw(op.method.toUpperCase(), pathOf(op.path, { accountId }), payload);
      expect(res.status, `${payload}: ${res.text}`).toBe(422);
      expect(res.body).toMatchObject({ status: 422, code: 'VALIDATION_ERROR' });
      expect(res.body.errors.length).toBeGreaterThan(0);
      expect(controlViolations(op.operationId, res)).toEqual([]);
    }
  });

  it.each(withAccount.map((op) => [op.operationId, op] as const))('%s: an unknown account is 404 ACCOUNT_NOT_FOUND', async (_id, op) => {
    const minimal: Record<string, string> = {
      updateAccount: '{}',
      updatePlan: '{}',
      updateSettings: '{}',
      createKey: '{"scopes":["read"]}',
      updateAccountFaults: '{}',
      updateAccountLimits: '{}',
      updateCredits: '{}',
      runAction: '{"actor":{"kind":"user"},"operationId":"approveCreative","pathParams":{"creativeId":"crt_x"}}',
      createWebhookEndpoint: '{"url":"http://127.0.0.1:4020/","eventTypes":["run.completed"]}',
      updateWebhookEndpoint: '{}',
      updateAccountWebhookSettings: '{}',
      updateGeneration: '{}',
      startExam: '{"seed":1}',
    };
    const res = await raw(op.method.toUpperCase(), pathOf(op.path), minimal[op.operationId]);
    expect(res.status, res.text).toBe(404);
    expect(res.body).toMatchObject({ status: 404, code: 'ACCOUNT_NOT_FOUND', instance: pathOf(op.path) });
    expect(res.body.requestId).toMatch(/^req_control_/);
    expect(controlViolations(op.operationId, res)).toEqual([]);
  });

  it('a body of another content type (curl -d, a form, text/plain) is 415 before anything runs (D246); application/*+json is JSON', async () => {
    const before = (await raw('GET', '/__mock/clock')).body.now;
    for (const type of ['application/x-www-form-urlencoded', 'text/plain;charset=UTF-8']) {
      const res = await raw('POST', '/__mock/clock', '{"advanceSeconds": 1}', type);
      expect(res.status, type).toBe(415);
      expect(res.body).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    }
    expect((await raw('GET', '/__mock/clock')).body.now).toBe(before);
    const res = await raw('POST', '/__mock/clock', '{"advanceSeconds": 1}', 'application/merge-patch+json');
    expect(res.status).toBe(200);
    expect(res.body.now).toBe('2026-01-01T00:00:01.000Z');
  });

  it('an unknown control path is 404 NOT_FOUND, a known one with another method 405', async () => {
    for (const path of ['/__mock/nothing-here', '/__mock', '/__mock/accounts/acc_x/unknown']) {
      const res = await raw('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.body).toMatchObject({ status: 404, code: 'NOT_FOUND', instance: path });
    }
    const res = await raw('DELETE', '/__mock/clock');
    expect(res.status).toBe(405);
    expect(res.body).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED', title: 'Method Not Allowed' });
    expect(res.headers['allow']).toBe('GET, HEAD, POST');
  });

  it('a path parameter outside its schema is 400 VALIDATION_ERROR (even one fastify finds too long)', async () => {
    for (const id of ['a'.repeat(201), 'a'.repeat(150)]) {
      const res = await raw('GET', `/__mock/accounts/${id}`);
      const expected = id.length > 200 ? 400 : 404;
      expect(res.status, res.text).toBe(expected);
      expect(res.headers['content-type']).toContain('application/problem+json');
      if (expected === 400) expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'accountId' }] });
      expect(controlViolations('getAccount', res)).toEqual([]);
    }
  });

  // fastify rejects a malformed percent-escape before routing; `frameworkErrors` in packages/mock/src/node/app.ts
  // answers it in the contract's shape. On the public API the pipeline answers it (D51): a path
  // outside every operation as here; an operation's path after its key is checked (packages/mock/src/node/front.test.ts).
  it('a malformed percent-escape in the path answers 400 problem+json with RateLimit headers', async () => {
    for (const path of ['/__mock/accounts/%E0%A4%A', '/api/public/v1/%ZZ/products']) {
      const res = await raw('GET', path);
      expect(res.status, res.text).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', status: 400, errors: [{ field: 'path' }] });
      expect(res.headers['ratelimit']).toMatch(/^limit=\d+, remaining=\d+, reset=\d+$/);
    }
  });
});
