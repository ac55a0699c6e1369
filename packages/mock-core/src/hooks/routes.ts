/**
 * The conformance hooks at /__hooks (packages/contract/spec/conformance-hooks.yaml, D92): served by the control
 * plane's dispatch (packages/mock-core/src/control/routes.ts dispatchPlane) with its own document, its own prefix
 * (so a run can be given the hooks and nothing of /__mock) and the same control token.
 */
import type { FastifyInstance } from 'fastify';
import type { MockServices } from '../services/services.ts';
import type { ControlOptions } from '../control/types.ts';
import { dispatchPlane, registerPlaneRoutes, routeOf, type ControlHttpRequest, type ControlHttpResponse, type ControlRoute, type Plane } from '../control/routes.ts';
import { hooksReader } from './document.ts';
import { hookHandlers } from './handlers.ts';
import { withholding } from './withhold.ts';

export const HOOKS_PREFIX = '/__hooks';

let table: ControlRoute[] | undefined;

/** The hooks' routes, each with its handler; checks both ways that the document and the handlers agree. */
export function hooksRoutes(): ControlRoute[] {
  if (table) return table;
  const operations = hooksReader.operations();
  const documented = new Set(operations.map((op) => op.operationId));
  const undocumented = Object.keys(hookHandlers).filter((id) => !documented.has(id));
  if (undocumented.length > 0) throw new Error(`hook handlers not in packages/contract/spec/conformance-hooks.yaml: ${undocumented.join(', ')}`);
  table = operations.map((operation) => {
    const handler = hookHandlers[operation.operationId];
    if (!handler) throw new Error(`packages/contract/spec/conformance-hooks.yaml: ${operation.operationId} has no handler in packages/mock-core/src/hooks/`);
    return routeOf(operation, withholding(operation.operationId, handler));
  });
  return table;
}

const hooksPlane: Plane = {
  prefix: HOOKS_PREFIX,
  documentName: 'packages/contract/spec/conformance-hooks.yaml',
  routes: hooksRoutes,
  validators: hooksReader,
  realm: 'conformance-hooks',
  unauthorized: 'This mock was started with a control token: send it as `Authorization: Bearer <token>` on every request under /__hooks.',
};

/** The hooks with no way in (the node server and the MSW handlers are thin adapters over it). Never throws. */
export function dispatchHooks(services: MockServices, options: ControlOptions, request: ControlHttpRequest): Promise<ControlHttpResponse> {
  return dispatchPlane(hooksPlane, services, options, request);
}

export function registerHooksRoutes(app: FastifyInstance, services: MockServices, options: ControlOptions = {}): void {
  registerPlaneRoutes(app, HOOKS_PREFIX, (request) => dispatchHooks(services, options, request));
}
