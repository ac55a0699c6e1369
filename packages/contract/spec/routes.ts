/** Concrete paths routed to the document's operations (packages/contract/spec/contract.ts): the operation of a method and path, the methods a path allows, whether a path exists. */
import { type OperationInfo, operationsList } from './contract.ts';

interface Route {
  template: string;
  /** Each segment after the leading '/': a literal, or the name of a `{param}`. */
  segments: ({ literal: string } | { param: string })[];
}

const routes: Route[] = [...new Set(operationsList.map((op) => op.path))].map((template) => ({
  template,
  segments: template
    .split('/')
    .slice(1)
    .map((segment) => {
      const param = /^\{([^{}]+)\}$/.exec(segment)?.[1];
      return param === undefined ? { literal: segment } : { param };
    }),
}));

function matchRoute(route: Route, parts: readonly string[]): Record<string, string> | undefined {
  const segments = route.segments;
  if (segments.length !== parts.length) return undefined;
  // Literals first: most candidates fail on one, before any parameter is decoded.
  for (let index = 0; index < segments.length; index += 1) {
    const segment = segments[index]!;
    if ('literal' in segment ? segment.literal !== parts[index] : parts[index] === '') return undefined;
  }
  const params: Record<string, string> = {};
  for (let index = 0; index < segments.length; index += 1) {
    const segment = segments[index]!;
    if ('literal' in segment) continue;
    const part = parts[index]!;
    let value = part;
    if (part.includes('%')) {
      try {
        value = decodeURIComponent(part);
      } catch {
        // A malformed escape stays as sent; the operation's parameter check decides.
      }
    }
    params[segment.param] = value;
  }
  return params;
}

/** Negative when `a` is more specific: the first segment where one is literal and the other not. */
function bySpecificity(a: Route, b: Route): number {
  for (let i = 0; i < Math.min(a.segments.length, b.segments.length); i += 1) {
    const aLiteral = 'literal' in (a.segments[i] ?? {});
    const bLiteral = 'literal' in (b.segments[i] ?? {});
    if (aLiteral !== bLiteral) return aLiteral ? -1 : 1;
  }
  return 0;
}

function splitPath(pathname: string): string[] | undefined {
  if (!pathname.startsWith('/')) return undefined;
  return pathname.split('/').slice(1);
}

/**
 * The operation for a method and a concrete path relative to the base ('/creatives/abc/approve').
 * Only templates that have the method compete, and a literal segment beats a templated one, so
 * POST /runs/estimate is estimateRun while GET /runs/estimate is getRun with runId 'estimate'.
 */
export function matchOperation(
  method: string,
  pathname: string,
): { operation: OperationInfo; pathParams: Record<string, string> } | undefined {
  const parts = splitPath(pathname);
  if (parts === undefined) return undefined;
  const candidates = routesByMethod.get(method.toLowerCase())?.get(parts.length);
  if (candidates === undefined) return undefined;
  for (const { route, operation } of candidates) {
    const pathParams = matchRoute(route, parts);
    if (pathParams !== undefined) return { operation, pathParams };
  }
  return undefined;
}

/**
 * The routes that have each method, by segment count, most specific first (a stable sort, so equally
 * specific templates keep the document's order): the first that matches a path is its operation.
 */
const routesByMethod = new Map<string, Map<number, { route: Route; operation: OperationInfo }[]>>();
for (const route of routes) {
  for (const operation of operationsList) {
    if (operation.path !== route.template) continue;
    let byLength = routesByMethod.get(operation.method);
    if (!byLength) routesByMethod.set(operation.method, (byLength = new Map()));
    let list = byLength.get(route.segments.length);
    if (!list) byLength.set(route.segments.length, (list = []));
    if (!list.some((c) => c.route === route)) list.push({ route, operation });
  }
}
for (const byLength of routesByMethod.values()) for (const list of byLength.values()) list.sort((a, b) => bySpecificity(a.route, b.route));

/**
 * The methods the document declares at a concrete path (upper case, HEAD wherever GET is: a HEAD is
 * answered as the GET), for the `Allow` header of a 405 (RFC 9110 15.5.6); empty when no template matches.
 */
export function allowedMethods(pathname: string): string[] {
  const parts = splitPath(pathname);
  if (parts === undefined) return [];
  const methods = new Set<string>();
  for (const [method, byLength] of routesByMethod) {
    if (byLength.get(parts.length)?.some(({ route }) => matchRoute(route, parts) !== undefined)) methods.add(method.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  return ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => methods.has(m));
}

/** Whether any operation's path template matches (404 when not, 405 when it does but the method does not). */
export function pathExists(pathname: string): boolean {
  const parts = splitPath(pathname);
  return parts !== undefined && routes.some((route) => matchRoute(route, parts) !== undefined);
}
