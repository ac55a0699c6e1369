/**
 * What a browser needs from the mock's server, ahead of the API's front and fastify in the one
 * node:http listener (mock/adapters/node/app.ts): CORS (cors.ts: preflights answered, response headers set) and
 * the API reference under /docs/ (docs.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { corsHandler, type CorsOptions } from './cors.ts';
import { docsHandler } from './docs.ts';

export type { CorsOptions } from './cors.ts';
export { DOCS_PATH } from './docs.ts';

export interface WebOptions {
  cors?: CorsOptions;
}

/** The listener's web stage: true when it answered the request, false when the request goes on. */
export function webFront(options: WebOptions = {}): (req: IncomingMessage, res: ServerResponse) => boolean {
  const cors = corsHandler(options.cors);
  const docs = docsHandler();
  return (req, res) => cors(req, res) || docs(req, res);
}
