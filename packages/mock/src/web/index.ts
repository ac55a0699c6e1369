/**
 * What a browser needs from the mock's server, ahead of the API's front and fastify in the one
 * node:http listener (packages/mock/src/node/app.ts): CORS (cors.ts: preflights answered, response headers set) and
 * the API reference under /docs/ (docs.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../../mock-core/src/core/clock.ts';
import { corsHandler, type CorsOptions } from './cors.ts';
import { docsHandler } from './docs.ts';
import { guardHandler } from './guard.ts';

export type { CorsOptions } from './cors.ts';
export { DOCS_PATH, FRAME_HEADERS } from './docs.ts';

export interface WebOptions {
  cors?: CorsOptions;
  /** `--allowed-host`: names the Host header of /__mock, /__hooks and /console may carry besides loopback and addresses (guard.ts). */
  allowedHosts?: readonly string[];
}

/**
 * The listener's web stage: true when it answered the request, false when the request goes on.
 * The guard of the mock's own planes first (guard.ts: Host and Origin), then CORS, then the
 * guard's content type check, then /docs/.
 */
export function webFront(options: WebOptions, context: { clock: Clock; publicUrl?: string | undefined }): (req: IncomingMessage, res: ServerResponse) => boolean {
  const guard = guardHandler({ allowedHosts: options.allowedHosts ?? [], origins: options.cors?.origins ?? [], ...(context.publicUrl !== undefined ? { publicUrl: context.publicUrl } : {}) }, context.clock);
  const cors = corsHandler(options.cors);
  const docs = docsHandler();
  return (req, res) => guard.caller(req, res) || cors(req, res) || guard.body(req, res) || docs(req, res);
}
