import { ownValue, putOwn } from '../core/own.ts';

/**
 * The query of a request as the pipeline and the control plane read it: one string per name, an
 * array for a repeated name (as fastify's parser gave it). Shared by every way in: the server's
 * front (packages/mock/src/node/front.ts), the control dispatch (packages/mock-core/src/control/routes.ts), the MSW adapter
 * (packages/msw/src/msw.ts) and the validating proxy (packages/conformance/proxy/inspect.ts).
 */
export function toQuery(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of params) {
    const existing = ownValue(out, name);
    putOwn(out, name, existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]);
  }
  return out;
}
