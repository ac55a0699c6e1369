/**
 * What the validating proxy (packages/conformance/proxy/server.ts) judges in one exchange, as pure functions:
 *
 * - the response, with the suite's response checker (packages/conformance/suite/checks: `checkResponse`, the same
 *   function every response of the conformance suite passes through): status declared, content type,
 *   schema, header grammars and RateLimit arithmetic, problem members, ETag, Location, with the rule
 *   ids each violation breaks; a violation resting on a decided gap (x-assumption) is a warning unless
 *   assumptions are enforced;
 * - the request, with the mock's request validator (packages/mock-core/src/pipeline/validate.ts: `validateRequest`,
 *   the stage the mock itself runs): an operation of the document, Idempotency-Key, path and query
 *   parameters, If-Match, the body's media type and schema. A request finding is the client's, not
 *   the implementation's, and is reported apart.
 *
 * And the tally the proxy keeps: counts, and per rule of packages/contract/spec/rules.yaml how often it was checked
 * and violated, written as the rules report (rules.json, rules.md) when the proxy stops.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { checkResponse } from '../suite/checks/index.ts';
import type { Exchange, Violation } from '../suite/checks/types.ts';
import { loadLedger } from '../../contract/rules/ledger.ts';
import { ruleResult, type RuleResult } from '../suite/reporters/rules-reporter.ts';
import { ApiError } from '../../mock-core/src/core/errors.ts';
import { splitUrl, toQuery } from '../../mock/src/node/front.ts';
import { validateRequest } from '../../mock-core/src/pipeline/validate.ts';
import { matchOperation } from '../../contract/spec/routes.ts';

/** One exchange as the proxy saw it pass. Header names are lower-case. */
export interface ObservedExchange {
  method: string;
  /** The request target as the client sent it (path and query). */
  target: string;
  requestHeaders: Readonly<Record<string, string | undefined>>;
  /** The request body's bytes (empty when none). */
  requestBody: Buffer;
  status: number;
  /** Lower-case name → values in arrival order. */
  responseHeaders: Readonly<Record<string, readonly string[]>>;
  /** The response body's bytes as sent (possibly content-encoded). */
  responseBody: Buffer;
}

export interface RequestFinding {
  /** The problem code the request validator answers (VALIDATION_ERROR, ...), or NO_OPERATION. */
  code: string;
  message: string;
}

export interface Inspection {
  operationId: string | undefined;
  /** Response violations that count (pinned, or assumed with assumptions enforced). */
  violations: Violation[];
  /** Response violations resting on an x-assumption, with assumptions not enforced. */
  warnings: Violation[];
  /** Rule ids whose checks ran on this response. */
  checked: string[];
  request: RequestFinding | undefined;
}

export interface InspectOptions {
  /** The implementation's base path (`/api/public/v1`): requests below it are the API's. */
  basePath: string;
  /** Whether a violation resting on an x-assumption counts (default false: a warning). */
  enforceAssumptions?: boolean;
}

/** The body as the client reads it: decoded when the response is content-encoded. */
export function decodedBody(headers: Readonly<Record<string, readonly string[]>>, body: Buffer): Buffer {
  const encoding = (headers['content-encoding']?.join(',') ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity' || body.length === 0) return body;
  if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(body);
  if (encoding === 'br') return brotliDecompressSync(body);
  if (encoding === 'deflate') return inflateSync(body);
  throw new Error(`content-encoding ${encoding} is not decoded by the proxy`);
}

/** Whether a request target is below the API's base path. */
export function isApiRequest(target: string, basePath: string): boolean {
  const path = target.split('?')[0] ?? target;
  return path === basePath || path.startsWith(`${basePath}/`);
}

/** The request against the document, through the mock's own validator. */
export function inspectRequest(exchange: ObservedExchange, basePath: string): RequestFinding | undefined {
  const { pathname, searchParams } = splitUrl(exchange.target);
  const method = exchange.method === 'HEAD' ? 'GET' : exchange.method;
  const path = pathname.slice(basePath.length) || '/';
  const matched = matchOperation(method, path);
  if (!matched) return { code: 'NO_OPERATION', message: `no operation of the document is ${exchange.method} ${path}` };
  try {
    validateRequest(
      matched.operation,
      { method, path, fullPath: pathname, query: toQuery(searchParams), headers: exchange.requestHeaders, body: exchange.requestBody.length ? exchange.requestBody : undefined, ip: '' },
      matched.pathParams,
    );
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const fields = (error.extensions['errors'] as { field: string; message: string }[] | undefined) ?? [];
    const detail = fields.length ? ` (${fields.map((f) => `${f.field}: ${f.message}`).join('; ')})` : '';
    return { code: error.code, message: `${error.message}${detail}` };
  }
}

export function inspect(exchange: ObservedExchange, origin: string, options: InspectOptions): Inspection {
  const checked: Exchange = {
    request: { method: exchange.method, url: new URL(exchange.target, origin).href },
    response: { status: exchange.status, headers: exchange.responseHeaders, body: decodedBody(exchange.responseHeaders, exchange.responseBody).toString('utf8') },
  };
  const report = checkResponse(checked, { basePath: options.basePath });
  const enforce = options.enforceAssumptions ?? false;
  return {
    operationId: report.operationId,
    violations: report.violations.filter((v) => v.assumption === undefined || enforce),
    warnings: report.violations.filter((v) => v.assumption !== undefined && !enforce),
    checked: report.checked,
    request: inspectRequest(exchange, options.basePath),
  };
}

/** One line per finding, as the proxy prints them while traffic flows. */
export function describe(exchange: Pick<ObservedExchange, 'method' | 'target' | 'status'>, inspection: Inspection): string[] {
  const head = `${exchange.method} ${exchange.target} → ${exchange.status}`;
  const lines: string[] = [];
  const line = (mark: string, v: Violation) => `${mark} ${head}  ${v.rules.length ? `[${v.rules.join(' ')}] ` : ''}${v.check}: ${v.message}${v.assumption ? ` (rests on the x-assumption at ${v.assumption})` : ''}`;
  for (const v of inspection.violations) lines.push(line('✗', v));
  for (const v of inspection.warnings) lines.push(line('~', v));
  if (inspection.request) lines.push(`! ${head}  request ${inspection.request.code}: ${inspection.request.message}${exchange.status < 300 ? ' (and the implementation accepted it)' : ''}`);
  return lines;
}

// ---------------------------------------------------------------------------------------------
// The tally and the rules report

export interface Counts {
  /** Exchanges forwarded (the API's and any other path). */
  forwarded: number;
  /** API exchanges checked. */
  checked: number;
  /** API exchanges not checked (a body larger than the proxy keeps, an undecodable encoding). */
  unchecked: number;
  /** API exchanges whose response broke the contract. */
  violating: number;
  /** Response violations (several per exchange possible). */
  violations: number;
  /** Response violations resting on an x-assumption, not counted. */
  warnings: number;
  /** API requests the document does not allow. */
  invalidRequests: number;
  /** Exchanges the target did not answer: not reached (the client got 502) or dropped (the client's connection dropped too, D261). */
  upstreamErrors: number;
}

export class Tally {
  readonly counts: Counts = { forwarded: 0, checked: 0, unchecked: 0, violating: 0, violations: 0, warnings: 0, invalidRequests: 0, upstreamErrors: 0 };
  private readonly rules = new Map<string, { checked: number; violated: number }>();
  private readonly byCheck = new Map<string, number>();

  add(inspection: Inspection): void {
    this.counts.checked += 1;
    if (inspection.violations.length) this.counts.violating += 1;
    this.counts.violations += inspection.violations.length;
    this.counts.warnings += inspection.warnings.length;
    if (inspection.request) this.counts.invalidRequests += 1;
    const violated = new Set(inspection.violations.flatMap((v) => v.rules));
    for (const id of new Set([...inspection.checked, ...violated])) {
      const entry = this.rules.get(id) ?? { checked: 0, violated: 0 };
      entry.checked += 1;
      if (violated.has(id)) entry.violated += 1;
      this.rules.set(id, entry);
    }
    for (const v of inspection.violations) this.byCheck.set(v.check, (this.byCheck.get(v.check) ?? 0) + 1);
  }

  /** Per rule of the ledger: passed (checked, never violated), failed (violated) or not run. */
  report(target: string): { summary: Record<string, unknown>; rules: { id: string; section: string; rule: string; status: string; result: RuleResult; checked: number; violated: number }[] } {
    const ledger = loadLedger();
    const rules = ledger.rules.map((rule) => {
      const seen = this.rules.get(rule.id) ?? { checked: 0, violated: 0 };
      const result = ruleResult(seen.checked ? [{ outcome: 'passed', via: 'checker', violated: seen.violated > 0 }] : []);
      return { id: rule.id, section: rule.section, rule: rule.rule, status: rule.status, result, checked: seen.checked, violated: seen.violated };
    });
    const count = (result: RuleResult) => rules.filter((r) => r.result === result).length;
    return {
      summary: { target, ledgerVersion: ledger.version, ...this.counts, byCheck: Object.fromEntries(this.byCheck), rules: { total: rules.length, passed: count('passed'), failed: count('failed'), notRun: count('not run') } },
      rules,
    };
  }

  /** Write rules.json and rules.md to `dir`; returns the summary lines the proxy prints on exit. */
  write(dir: string, target: string): string[] {
    const { summary, rules } = this.report(target);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'rules.json'), `${JSON.stringify({ generatedAt: new Date().toISOString(), source: 'cgs-proxy', summary, rules }, null, 2)}\n`);
    const c = this.counts;
    const r = summary['rules'] as { total: number; passed: number; failed: number; notRun: number };
    const lines = [
      `# Rules seen by the validating proxy`,
      '',
      `Target ${target}: ${c.forwarded} exchanges forwarded, ${c.checked} API exchanges checked (${c.unchecked} not checked), ${c.violating} broke the contract (${c.violations} violations, ${c.warnings} assumption warnings), ${c.invalidRequests} requests the document does not allow, ${c.upstreamErrors} not answered.`,
      '',
      `Rules: ${r.passed} passed, ${r.failed} failed, ${r.notRun} not run (of ${r.total}). A rule "passed" was checked on some response and never violated; most rules need a test's scenario (conformance suite), not only traffic.`,
      '',
      '| Rule | Status | Result | Checked | Violated |',
      '|---|---|---|---|---|',
      ...rules.filter((rule) => rule.checked > 0).map((rule) => `| ${rule.id} | ${rule.status} | ${rule.result} | ${rule.checked} | ${rule.violated} |`),
    ];
    writeFileSync(join(dir, 'rules.md'), `${lines.join('\n')}\n`);
    return [
      `cgs-proxy: ${c.forwarded} forwarded, ${c.checked} checked, ${c.violating} broke the contract (${c.violations} violations), ${c.warnings} assumption warnings, ${c.invalidRequests} invalid requests, ${c.upstreamErrors} upstream errors`,
      `  rules: ${r.passed} passed, ${r.failed} failed${r.failed ? ` (${rules.filter((rule) => rule.result === 'failed').map((rule) => rule.id).join(' ')})` : ''}, ${r.notRun} not run; report: ${join(dir, 'rules.md')}`,
    ];
  }
}
