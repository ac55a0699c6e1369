/** What the response checker reads and what it reports. */

/** One HTTP exchange as observed on the wire. Header names are lower-case. */
export interface Exchange {
  request: {
    method: string;
    /** The absolute request URL. */
    url: string;
  };
  response: {
    status: number;
    /**
     * The reason phrase of the status line as received (empty or absent over HTTP/2, which has
     * none, or when the client does not expose it). Kept for the reports; NO check reads it: a
     * proxy or gateway writes its own (packages/conformance/suite/README.md, "Behind a network").
     */
    statusText?: string;
    /** Lower-case name → values in arrival order (a header sent twice has two entries). */
    headers: Readonly<Record<string, readonly string[]>>;
    /** The raw body, decoded as UTF-8. */
    body: string;
  };
}

export type CheckName =
  | 'operation'
  | 'status-declared'
  | 'content-type'
  | 'body-json'
  | 'body-schema'
  | 'header-schema'
  | 'header-duplicate'
  | 'problem-type'
  | 'problem-title'
  | 'problem-status'
  | 'problem-code'
  | 'problem-request-id'
  | 'problem-instance'
  | 'problem-errors'
  | 'ratelimit-present'
  | 'ratelimit-grammar'
  | 'ratelimit-arithmetic'
  | 'ratelimit-policy-grammar'
  | 'ratelimit-policy-arithmetic'
  | 'ratelimit-429'
  | 'ratelimit-closest'
  | 'pagination'
  | 'retry-after'
  | 'auth-challenge'
  | 'allow'
  | 'etag'
  | 'location'
  | 'deprecation'
  | 'unserved';

export interface Violation {
  check: CheckName;
  /** Ids of packages/contract/spec/rules.yaml the failed expectation states (empty when only the document states it). */
  rules: readonly string[];
  message: string;
  /**
   * Pointer of the `x-assumption` the failed expectation rests on (a decided gap of the interface,
   * docs/decisions.md); undefined when the expectation is pinned by the interface.
   */
  assumption?: string;
  /**
   * A cause that is no rule: `serve /campaigns` for an operation the target does not serve (a 404
   * without a problem body where the document declares the operation). The reporters group the
   * tests it stops under it (#32 item 12).
   */
  cause?: string;
}

export interface CheckReport {
  /** The operation of the document the request was matched to, if any. */
  operationId: string | undefined;
  violations: Violation[];
  /** Rule ids whose checks ran on this response (whether or not they passed). */
  checked: string[];
}

export interface CheckOptions {
  /** The path of the target's base URL (`/api/public/v1`); the request path is matched below it. */
  basePath: string;
}
