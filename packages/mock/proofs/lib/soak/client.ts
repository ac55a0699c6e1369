/** The soak's client: one keep-alive agent, every answer checked against the document and counted (packages/mock/proofs/lib/soak.ts). */
import http from 'node:http';
import { basePath } from '../../../../contract/spec/contract.ts';
import { matchOperation } from '../../../../contract/spec/routes.ts';
import { sentRequest, violations, type TestResponse } from '../../../../mock-core/src/testkit/harness.ts';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface Reply extends TestResponse {
  operationId?: string;
}

export interface Stats {
  requests: number;
  byStatus: Record<string, number>;
  fiveXX: number;
  nonConforming: number;
  clientErrors: number;
  latencies: number[];
  problems: string[];
}

export class Client {
  constructor(
    private readonly origin: string,
    private readonly agent: http.Agent,
    private readonly stats: Stats,
  ) {}

  /** A public API request (path below the base) or a control-plane one (`/__mock/...`). */
  request(method: string, path: string, options: { key?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Reply> {
    const control = path.startsWith('/__mock');
    const fullPath = control ? path : `${basePath}${path}`;
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const started = performance.now();
    return new Promise<Reply>((resolve, reject) => {
      const req = http.request(`${this.origin}${fullPath}`, { method, headers, agent: this.agent, timeout: 30_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const lower: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) lower[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
          let body: unknown;
          if ((lower['content-type'] ?? '').includes('json') && text) {
            try {
              body = JSON.parse(text);
            } catch {
              body = undefined;
            }
          }
          const reply: Reply = { status: res.statusCode ?? 0, headers: lower, text, body };
          if (!control) this.record(method, path, reply, performance.now() - started);
          resolve(reply);
        });
      });
      req.on('timeout', () => req.destroy(new Error(`timeout: ${method} ${fullPath}`)));
      req.on('error', (error) => {
        if (!control) {
          this.stats.clientErrors++;
          this.stats.problems.push(`client error on ${method} ${fullPath}: ${(error as Error).message}`);
        }
        reject(error);
      });
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  private record(method: string, path: string, reply: Reply, ms: number): void {
    const s = this.stats;
    s.requests++;
    s.latencies.push(ms);
    s.byStatus[String(reply.status)] = (s.byStatus[String(reply.status)] ?? 0) + 1;
    if (reply.status >= 500) {
      s.fiveXX++;
      s.problems.push(`5xx: ${method} ${path} → ${reply.status} ${reply.text.slice(0, 300)}`);
    }
    const matched = matchOperation(method, path.split('?')[0]!);
    if (!matched) return;
    reply.operationId = matched.operation.operationId;
    const broken = violations(matched.operation.operationId, { ...reply, request: sentRequest(method, path) });
    if (broken.length > 0) {
      s.nonConforming++;
      if (s.problems.length < 50) s.problems.push(`non-conforming: ${method} ${path} → ${reply.status}: ${broken.join('; ')}`);
    }
  }
}
