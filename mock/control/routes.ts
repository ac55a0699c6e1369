/**
 * The control plane under /__mock (its contract: spec/mock-control.yaml). Lets tests and frontend
 * developers set the scene: accounts and keys, the clock, faults, other actors, reset.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { PipelineServices } from '../pipeline/index.ts';
import { createAccount, createKey, expireKey, KeyRequestError, provisionKeys, revokeKey } from '../domain/accounts/service.ts';
import type { PlanTier, Scope } from '../domain/accounts/model.ts';
import { seedAccount } from '../seed/demo.ts';
import type { AccountState } from '../store.ts';

function problem(reply: FastifyReply, status: number, code: string, detail: string) {
  return reply.status(status).type('application/problem+json').send({ type: `/errors/${code}`, title: code, status, code, detail, requestId: 'req_control' });
}

function jsonBody(body: unknown): Record<string, unknown> {
  if (body === undefined || (Buffer.isBuffer(body) && body.length === 0)) return {};
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : String(body);
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new SyntaxError('the body must be a JSON object');
  return parsed as Record<string, unknown>;
}

export function registerControlRoutes(app: FastifyInstance, services: PipelineServices): void {
  const { store, clock } = services;

  const withAccount = (id: string, reply: FastifyReply): AccountState | undefined => {
    const account = store.accounts.get(id);
    if (!account) problem(reply, 404, 'ACCOUNT_NOT_FOUND', `No account ${id}.`);
    return account;
  };

  app.post('/__mock/accounts', async (request, reply) => {
    let body: Record<string, unknown>;
    try {
      body = jsonBody(request.body);
    } catch (error) {
      return problem(reply, 400, 'VALIDATION_ERROR', (error as Error).message);
    }
    try {
      const now = clock.now();
      const account = createAccount(store, {
        now,
        ...(typeof body.name === 'string' ? { name: body.name } : {}),
        ...(typeof body.plan === 'string' ? { tier: body.plan as PlanTier } : {}),
        ...(typeof body.seed === 'number' ? { seed: body.seed } : {}),
      });
      if (body.empty !== true) seedAccount(account, { now, seed: account.seed });
      const keys = provisionKeys(store, account, now);
      return reply.status(201).send({ accountId: account.accountId, keys });
    } catch (error) {
      if (error instanceof KeyRequestError) return problem(reply, 422, 'VALIDATION_ERROR', error.message);
      throw error;
    }
  });

  app.get<{ Params: { id: string } }>('/__mock/accounts/:id', async (request, reply) => {
    const account = withAccount(request.params.id, reply);
    if (!account) return;
    return reply.send({
      accountId: account.accountId,
      plan: account.plan,
      faults: account.faults,
      settings: account.settings,
      counts: {
        products: account.products.size,
        creatives: account.creatives.size,
        campaigns: account.campaigns.size,
        assets: account.assets.size,
        events: account.events.length,
        idempotencyKeys: account.idempotency.size,
      },
      keys: [...account.keys.values()].map(({ hash: _hash, ...rest }) => rest),
    });
  });

  app.post<{ Params: { id: string } }>('/__mock/accounts/:id/keys', async (request, reply) => {
    const account = withAccount(request.params.id, reply);
    if (!account) return;
    try {
      const body = jsonBody(request.body);
      const created = createKey(store, account, {
        name: typeof body.name === 'string' ? body.name : 'key',
        scopes: (Array.isArray(body.scopes) ? body.scopes : []) as Scope[],
        expiresInDays: typeof body.expiresInDays === 'number' ? body.expiresInDays : null,
        legacy: body.legacy === true,
        now: clock.now(),
      });
      return reply.status(201).send({ keyId: created.record.keyId, key: created.key, scopes: created.record.scopes });
    } catch (error) {
      if (error instanceof KeyRequestError || error instanceof SyntaxError) return problem(reply, 422, 'VALIDATION_ERROR', error.message);
      throw error;
    }
  });

  app.post<{ Params: { id: string; keyId: string } }>('/__mock/accounts/:id/keys/:keyId/revoke', async (request, reply) => {
    const account = withAccount(request.params.id, reply);
    if (!account) return;
    const record = revokeKey(account, request.params.keyId, clock.now());
    if (!record) return problem(reply, 404, 'KEY_NOT_FOUND', 'No such key.');
    return reply.send({ keyId: record.keyId, revokedAt: record.revokedAt });
  });

  app.post<{ Params: { id: string; keyId: string } }>('/__mock/accounts/:id/keys/:keyId/expire', async (request, reply) => {
    const account = withAccount(request.params.id, reply);
    if (!account) return;
    const record = expireKey(account, request.params.keyId, clock.now());
    if (!record) return problem(reply, 404, 'KEY_NOT_FOUND', 'No such key.');
    return reply.send({ keyId: record.keyId, expiresAt: record.expiresAt });
  });

  app.get('/__mock/clock', async (_request, reply) => reply.send({ now: clock.nowIso(), mode: clock.mode }));

  app.post('/__mock/clock', async (request, reply) => {
    let body: Record<string, unknown>;
    try {
      body = jsonBody(request.body);
    } catch (error) {
      return problem(reply, 400, 'VALIDATION_ERROR', (error as Error).message);
    }
    if (body.mode !== undefined) {
      if (body.mode !== 'real' && body.mode !== 'manual') return problem(reply, 422, 'VALIDATION_ERROR', 'mode is real or manual');
      clock.setMode(body.mode);
    }
    if (body.advanceSeconds !== undefined) {
      if (typeof body.advanceSeconds !== 'number' || !(body.advanceSeconds >= 0) || !Number.isFinite(body.advanceSeconds)) {
        return problem(reply, 422, 'VALIDATION_ERROR', 'advanceSeconds is a finite number >= 0');
      }
      clock.advance(body.advanceSeconds);
    }
    return reply.send({ now: clock.nowIso(), mode: clock.mode });
  });

  app.post('/__mock/reset', async (_request, reply) => {
    store.reset();
    services.limiter.clear();
    return reply.status(204).send();
  });
}
