/**
 * Hostile input on every route, over a real socket (issue #34, finding 1): every route of the three
 * documents (packages/contract/spec/openapi.yaml under its server's base path, packages/contract/spec/mock-control.yaml,
 * packages/contract/spec/conformance-hooks.yaml under its server's path) and the server's own doors (/docs/, /console/,
 * /media/), with path segments, query names and values, headers and bodies that are the names of
 * Object.prototype's members, plain, percent-encoded and double-encoded, with every documented
 * method and HEAD, OPTIONS, TRACE and an unknown one, in origin and absolute form. No answer is a
 * 5xx, every non-2xx answer with a body is problem+json, every request is answered, and the server
 * still answers afterwards.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basePath, document, operationsList } from '../../../contract/spec/contract.ts';
import { controlOperations } from '../../../mock-core/src/control/document.ts';
import { hooksDocument, hooksReader } from '../../../mock-core/src/hooks/document.ts';
import { MEDIA_ROOT } from '../../../mock-core/src/media/links.ts';
import { CONSOLE_PATH } from '../console/serve.ts';
import { DOCS_PATH } from '../web/index.ts';
import { buildMock, type Mock } from './app.ts';

/** Names an object literal finds without owning them (Object.prototype's members and the prototype slot). */
const NAMES = ['constructor', '__proto__', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];
/** Every character as %XX. */
const percentEncoded = (text: string): string => [...text].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
/** The forms a name is sent in: plain, percent-encoded, and percent-encoded twice (`%25..`). */
const FORMS: ((name: string) => string)[] = [(name) => name, percentEncoded, (name) => percentEncoded(name).replace(/%/g, '%25')];
/** Methods no route declares, sent to every route in turn. */
const EXTRA_METHODS = ['HEAD', 'OPTIONS', 'TRACE', 'PURGE'];

interface Route {
  /** The path template under the server's root: `/api/public/v1/creatives/{creativeId}`. */
  template: string;
  methods: string[];
  query: string[];
}

/** A server's path in a document (`http://127.0.0.1:4010/__hooks` → `/__hooks`). */
function serverPath(source: { servers?: readonly { url: string }[] }): string {
  return new URL(source.servers?.[0]?.url ?? 'http://localhost/').pathname.replace(/\/$/, '');
}

/** Every route of the three documents and the server's own doors, from the documents themselves. */
function routes(): Route[] {
  const byTemplate = new Map<string, Route>();
  const add = (template: string, method: string, query: string[]) => {
    const route = byTemplate.get(template) ?? { template, methods: [], query: [] };
    route.methods.push(method.toUpperCase());
    route.query.push(...query);
    byTemplate.set(template, route);
  };
  for (const op of operationsList) add(`${basePath}${op.path}`, op.method, op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  for (const op of controlOperations()) add(op.path, op.method, op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  const hooksPath = serverPath(hooksDocument() as { servers?: { url: string }[] });
  for (const op of hooksReader.operations()) add(`${hooksPath}${op.path}`, op.method, op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  // The doors outside the documents: /docs/ and /console/ serve files by name, /media/ by path.
  for (const template of [`${DOCS_PATH}{file}`, `${CONSOLE_PATH}{file}`, `${CONSOLE_PATH}views/{file}`, `${CONSOLE_PATH}vendor/{file}`, `${MEDIA_ROOT}{key}`, `${MEDIA_ROOT}{key}/{label}/64x64.png`, `${MEDIA_ROOT}{key}/{label}/{size}`]) {
    add(template, 'GET', []);
  }
  // A name where a literal segment is expected, under each prefix.
  for (const prefix of [basePath, '/__mock', hooksPath, '/docs', '/console', '/media']) add(`${prefix}/{name}`, 'GET', []);
  // The control plane last: its resets and deletions would end the key the API routes are sent with.
  const last = (route: Route) => (route.template.startsWith('/__mock') ? 1 : 0);
  return [...byTemplate.values()].sort((a, b) => last(a) - last(b));
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** One request; a stream (text/event-stream) is read up to its headers and dropped. */
function send(origin: string, method: string, target: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path: target, headers, agent }, (res) => {
      if (String(res.headers['content-type']).startsWith('text/event-stream')) {
        res.destroy();
        return resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end(body);
  });
}

/** What is wrong with an answer, or undefined. */
function fault(method: string, answer: Answer): string | undefined {
  if (answer.status >= 500) return `${answer.status} ${answer.body.slice(0, 200)}`;
  // The one answer the contract gives in plain text (RATE-003, TooManyRequestsText).
  if (answer.status === 429 && String(answer.headers['content-type']).startsWith('text/plain')) return undefined;
  const hasBody = method !== 'HEAD' && answer.body.length > 0;
  if ((answer.status < 200 || answer.status >= 300) && hasBody && !String(answer.headers['content-type']).startsWith('application/problem+json')) {
    return `${answer.status} with ${String(answer.headers['content-type'])}: ${answer.body.slice(0, 120)}`;
  }
  return undefined;
}

describe('hostile names on every route, over a real socket', () => {
  let mock: Mock;
  let origin: string;
  let key: string;
  const logged: unknown[] = [];

  beforeAll(async () => {
    mock = buildMock({ logError: (error) => logged.push(error) });
    await mock.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(mock.app.server.address() as AddressInfo).port}`;
    const created = await fetch(`${origin}/__mock/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"empty":true}' });
    key = ((await created.json()) as { keys: { all: { key: string } } }).keys.all.key;
    // Quotas high enough that the walk reaches the operations rather than the rate limiter.
    const { defaults } = (await (await fetch(`${origin}/__mock/limits`)).json()) as { defaults: Record<string, number> };
    const raised = await fetch(`${origin}/__mock/limits`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(Object.fromEntries(Object.keys(defaults).map((name) => [name, 1_000_000]))) });
    expect(raised.status).toBe(200);
  });
  afterAll(async () => {
    agent.destroy();
    await mock?.app.close();
  });

  it('derives its routes from the documents (each document contributes)', () => {
    const all = routes();
    expect(document.paths).toBeTruthy();
    expect(all.filter((r) => r.template.startsWith(`${basePath}/`)).length).toBeGreaterThan(10);
    expect(all.filter((r) => r.template.startsWith('/__mock/')).length).toBeGreaterThan(20);
    expect(all.filter((r) => r.template.startsWith('/__hooks/')).length).toBeGreaterThan(3);
  });

  it('answers every request below 500, errors in problem+json, and stays up', async () => {
    const jobs: { method: string; target: string; headers: Record<string, string>; body?: string }[] = [];
    const hostileBody = JSON.stringify({ constructor: 'x', toString: 'y', valueOf: 1, hasOwnProperty: null }).replace(/^\{/, '{"__proto__":{"polluted":true},');
    let turn = 0;
    for (const [r, route] of routes().entries()) {
      // Every name on every route, in each form in turn (each route sees all three forms).
      for (const [index, name] of NAMES.entries()) {
        const value = FORMS[(r + index) % FORMS.length]!(name);
        const path = route.template.replace(/\{[^{}]+\}/g, value);
        const query = [...route.query.map((name) => `${name}=${value}`), `${value}=${value}`].join('&');
        const target = `${path}?${query}`;
        // Every documented method with each value; one method no route has, in turn.
        const methods = [...route.methods, EXTRA_METHODS[turn++ % EXTRA_METHODS.length]!];
        for (const method of methods) {
          const headers: Record<string, string> = { authorization: `Bearer ${key}`, prefer: `scenario=${value}`, 'idempotency-key': `k-${index}-${turn}` };
          const withBody = method === 'POST' || method === 'PATCH' || method === 'PUT';
          if (withBody) headers['content-type'] = 'application/json';
          // Every other request in the absolute form of its target (RFC 9112 3.2.2).
          jobs.push({ method, target: jobs.length % 2 === 0 ? `http://127.0.0.1${target}` : target, headers, ...(withBody ? { body: hostileBody } : {}) });
        }
      }
    }
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        try {
          const problem = fault(job.method, await send(origin, job.method, job.target, job.headers, job.body));
          if (problem) failures.push(`${job.method} ${job.target}: ${problem}`);
        } catch (error) {
          failures.push(`${job.method} ${job.target}: ${(error as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(jobs.length).toBeGreaterThan(1500);
    expect(failures.slice(0, 40), `${failures.length} of ${jobs.length} requests failed`).toEqual([]);
    expect(logged.slice(0, 5)).toEqual([]);
    // Nothing leaked onto Object.prototype, and the server still answers.
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const after = await send(origin, 'GET', '/__mock/clock', {});
    expect(after.status).toBe(200);
  });
});

describe('a bug of the mock in the listener: a logged 500 problem+json, and the server stays up', () => {
  async function started(): Promise<{ mock: Mock; origin: string; logged: unknown[] }> {
    const logged: unknown[] = [];
    const mock = buildMock({ logError: (error) => logged.push(error) });
    await mock.app.listen({ host: '127.0.0.1', port: 0 });
    return { mock, origin: `http://127.0.0.1:${(mock.app.server.address() as AddressInfo).port}`, logged };
  }
  const fresh = { agent: false } as const;
  function once(origin: string, method: string, target: string): Promise<Answer> {
    const url = new URL(origin);
    return new Promise((resolve, reject) => {
      const req = http.request({ host: url.hostname, port: url.port, method, path: target, ...fresh, timeout: 10_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
      req.on('error', reject);
      req.end();
    });
  }

  it('a handler that throws synchronously', async () => {
    const { mock, origin, logged } = await started();
    try {
      // The first read of the URL throws, as a bug in the listener's first stage would.
      const [listener] = mock.app.server.listeners('request') as http.RequestListener[];
      mock.app.server.removeAllListeners('request');
      mock.app.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
        if (req.url === '/boom') {
          let reads = 0;
          Object.defineProperty(req, 'url', { configurable: true, get: () => (reads++ === 0 ? (() => { throw new Error('boom'); })() : '/boom') });
        }
        listener!(req, res);
      });
      const answer = await once(origin, 'GET', '/boom');
      expect(answer.status).toBe(500);
      expect(answer.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(JSON.parse(answer.body)).toMatchObject({ status: 500, code: 'INTERNAL_ERROR', instance: '/boom' });
      expect(logged.map(String)).toEqual(['Error: boom']);
      expect((await once(origin, 'GET', '/__mock/clock')).status).toBe(200);
    } finally {
      await mock.app.close();
    }
  });

  it('a handler that rejects', async () => {
    const { mock, origin, logged } = await started();
    try {
      mock.services.media!.resolve = () => Promise.reject(new Error('no bytes'));
      const answer = await once(origin, 'GET', '/media/cre_1/x/64x64.png');
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.body)).toMatchObject({ status: 500, code: 'INTERNAL_ERROR', instance: '/media/cre_1/x/64x64.png' });
      expect(logged.map(String)).toEqual(['Error: no bytes']);
      expect((await once(origin, 'GET', '/__mock/clock')).status).toBe(200);
    } finally {
      await mock.app.close();
    }
  });

  it('a failure after the headers went out destroys that socket only', async () => {
    const { mock, origin, logged } = await started();
    try {
      // An entry whose body cannot be written: the status line is out when res.end throws.
      mock.services.media!.resolve = async () => ({ contentType: 'image/png', etag: '"x"', body: 42 as unknown as Uint8Array, notModified: {}, ok: { 'content-type': 'image/png' } });
      await expect(once(origin, 'GET', '/media/cre_1/x/64x64.png')).rejects.toThrow(/socket hang up|ECONNRESET|aborted/);
      expect(logged).toHaveLength(1);
      expect((await once(origin, 'GET', '/__mock/clock')).status).toBe(200);
    } finally {
      await mock.app.close();
    }
  });
});
