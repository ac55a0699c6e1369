/**
 * The response checker: every response the suite receives passes through `checkResponse`, whichever
 * test made the request. Pure: it reads one exchange and the document (through packages/contract/spec/contract.ts)
 * and returns every way the response breaks the contract, each violation naming the rule ids it
 * breaks and, when the expectation rests on a decided gap, the `x-assumption` it rests on.
 */
import { assumptionAbove, checkBodySchema, checkContentType, checkDeclaredHeaders, checkStatusDeclared, contentTypeRules, declaredResponse, operationFor, parseJsonBody } from './document.ts';
import { mediaType } from './grammar.ts';
import { checkChallenges, checkDeprecation, checkDuplicates, checkETag, checkLocation, checkRateLimit, checkRetryAfter, RETRY_AFTER_409 } from './headers.ts';
import { headerRulesOf } from './status-rules.ts';
import { checkPagination, isListEnvelope, PAGINATION_RULES, requestedLimit } from './pagination.ts';
import { checkProblem, PROBLEM_RULES } from './problem.ts';
import type { CheckOptions, CheckReport, Exchange, Violation } from './types.ts';

export type { CheckOptions, CheckReport, Exchange, Violation } from './types.ts';

export function checkResponse(exchange: Exchange, options: CheckOptions): CheckReport {
  const { request, response } = exchange;
  const { status, headers, body } = response;
  const violations: Violation[] = [];
  const checked = new Set<string>(['RATE-019', 'RATE-020', 'RATE-021', 'RATE-024']);
  const contentType = headers['content-type']?.[0];
  const type = mediaType(contentType);

  const operation = operationFor(request.method, request.url, options.basePath);

  // An operation of the document answered 404 without a problem body: a route the target does not
  // know (a framework's default 404), not a resource it did not find. Its own cause, named by the
  // path, so the tests it stops are filed under "serve /campaigns", not under their first rules.
  // A collection (no path parameter) always exists; elsewhere only a body that is not JSON at all
  // (`Cannot GET /…`) says so, since a bare JSON 404 may be a resource's, which ERR-001 judges.
  // Such an answer judges no rule of the operation (D288): not its statuses, content type (ERR-001,
  // docs/gate.md asks a partial target for exactly this answer), body or headers; only what every
  // response carries, the rate-limit headers (x-unmatched-request) and unduplicated fields.
  if (operation && status === 404 && type !== 'application/problem+json' && (!operation.path.includes('{') || !/json/.test(type))) {
    violations.push({ check: 'unserved', rules: [], cause: `serve ${operation.path}`, message: `the target does not serve ${request.method.toUpperCase()} ${operation.path} (${operation.operationId}): a 404 without a problem body (${type || 'no content type'}), where a resource not found answers the uniform problem` });
    violations.push(...checkDuplicates(headers));
    violations.push(...checkRateLimit(status, headers).violations);
    return reportOf(operation.operationId, violations, checked);
  }

  const declared = operation ? declaredResponse(operation, status) : undefined;
  if (operation) {
    const undeclared = checkStatusDeclared(operation, status);
    if (undeclared) violations.push(undeclared);
  }

  // Content type: as declared; without a declaration, the interface's general rule (ERR-001).
  if (declared) {
    contentTypeRules(declared.operation, status).forEach((r) => checked.add(r));
    const wrongType = checkContentType(declared, status, contentType, body);
    if (wrongType) violations.push(wrongType);
  } else if (status >= 400 && status !== 429) {
    checked.add('ERR-001');
    if (type !== 'application/problem+json') {
      violations.push({ check: 'content-type', rules: ['ERR-001'], message: `a ${status} is sent as ${type || '(no content type)'}; every non-2xx response is application/problem+json` });
    }
  }

  // A HEAD response has no body, whatever its content type says (RFC 9110 9.3.2).
  const parsed: { value: unknown; violation?: Violation } = request.method.toUpperCase() === 'HEAD' ? { value: undefined } : parseJsonBody(type, body);
  if (parsed.violation) violations.push(parsed.violation);
  const json = parsed.violation ? undefined : parsed.value;

  if (declared && json !== undefined) {
    const schema = checkBodySchema(declared, type, json);
    if (schema) violations.push(schema);
  }
  // The 401 challenge and the 405 Allow are checked by checkChallenges, on every response.
  if (declared) violations.push(...checkDeclaredHeaders(declared, headers));
  if (status === 401) checked.add('AUTH-040');
  if (status === 405) checked.add('ERR-043');
  violations.push(...checkChallenges(request.method, status, headers));
  violations.push(...checkDuplicates(headers));
  if (operation) violations.push(...checkDeprecation(operation, headers));

  violations.push(...checkRateLimit(status, headers).violations);
  if (status === 429) ['RATE-023', 'RATE-026'].forEach((r) => checked.add(r));
  if (status === 503) checked.add('ERR-025');
  const code = status === 409 && type === 'application/problem+json' && typeof json === 'object' && json !== null ? (json as Record<string, unknown>)['code'] : undefined;
  const retry409 = typeof code === 'string' ? RETRY_AFTER_409[code] : undefined;
  retry409?.forEach((r) => checked.add(r));
  violations.push(...checkRetryAfter(status, headers, typeof code === 'string' ? code : undefined));

  if (status >= 200 && status < 300 && isListEnvelope(json)) {
    PAGINATION_RULES.forEach((r) => checked.add(r));
    violations.push(...checkPagination(json, requestedLimit(request.url)));
  }

  if (status >= 400 && type === 'application/problem+json' && json !== undefined) {
    PROBLEM_RULES.filter((r) => r !== 'ERR-008' || status === 422).forEach((r) => checked.add(r));
    violations.push(...checkProblem(status, request.url, json));
  }

  if (declared) {
    const etagHeader = declared.response.headers['etag'];
    if (etagHeader && headers['etag'] !== undefined) {
      checked.add(declared.operation.method === 'get' ? 'ETAG-002' : 'ETAG-003');
      const assumption = assumptionAbove(etagHeader.schemaPointer);
      violations.push(...checkETag(declared.operation, true, headers).map((v) => (assumption ? { ...v, assumption } : v)));
    }
    if (declared.response.headers['location']) {
      if (/^2/.test(declared.statusKey)) headerRulesOf(declared.operation, 'Location').forEach((r) => checked.add(r));
      violations.push(...checkLocation(declared.operation, true, request.url, options.basePath, headers, json));
    }
  }

  return reportOf(operation?.operationId, violations, checked);
}

/** The report of one response: the rules of its violations count as checked too. */
function reportOf(operationId: string | undefined, violations: Violation[], checked: Set<string>): CheckReport {
  for (const v of violations) v.rules.forEach((r) => checked.add(r));
  return { operationId, violations, checked: [...checked].sort() };
}

/** A readable, multi-line account of a report's violations. */
export function formatViolations(exchange: Exchange, violations: readonly Violation[]): string {
  const lines = violations.map((v) => {
    const rules = v.rules.length ? ` [${v.rules.join(', ')}]` : '';
    const assumed = v.assumption ? ` (rests on the x-assumption at ${v.assumption})` : '';
    const cause = v.cause ? ` (cause: ${v.cause})` : '';
    return `  - ${v.check}${rules}${cause}: ${v.message}${assumed}`;
  });
  const { request, response } = exchange;
  const headerLines = Object.entries(response.headers).map(([name, values]) => `    ${name}: ${values.join(' | ')}`);
  return [
    `${request.method} ${request.url} → ${response.status} breaks the contract:`,
    ...lines,
    '  response headers:',
    ...headerLines,
    `  body: ${response.body.slice(0, 2000)}`,
  ].join('\n');
}
