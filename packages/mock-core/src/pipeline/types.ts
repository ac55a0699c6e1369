/** What a way in hands to the pipeline and gets back (the handlers' side is domain/operation.ts). */
import type { ApiError } from '../core/errors.ts';

/** What the HTTP layer hands to the pipeline: nothing fastify-specific. */
export interface RawRequest {
  method: string;
  /** Path below the API prefix, e.g. `/creatives/abc`. */
  path: string;
  /** Full request path, for `instance`. */
  fullPath: string;
  query: Record<string, string | string[]>;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  /** Raw body bytes (a Buffer from the node adapter), or undefined when the request had none. */
  body: Uint8Array | undefined;
  ip: string;
  /**
   * What the front found wrong before the pipeline (a URL it cannot decode, a body over the limit
   * or not matching its Content-Length): the pipeline answers it in its place, at the validate
   * stage of the operation reached (or for no operation, as the route stage answers 404).
   */
  refused?: ApiError;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** Text, or the kept bytes of a cacheable read. */
  body: string | Uint8Array;
}
