/**
 * The one registry of error codes the mock can answer. `errors.test.ts` checks it against
 * packages/contract/spec/openapi.yaml in both directions: every code here is enumerated by the document under the
 * same status, and every code the document enumerates is here.
 *
 * Operations throw `ApiError`; the respond stage turns it into problem+json (RFC 9457 with the
 * interface's `code` and `requestId`). Anything else thrown becomes a logged 500 — which no client
 * input may ever cause (the fuzz suite checks that).
 */
/**
 * The reason phrases the mock sends, in the status line and as the problem `title` alike (ERR-003):
 * RFC 9110's names. node's http.STATUS_CODES still has the older names of 413 and 422, so every
 * answer passes its phrase to writeHead (`reasonPhrase`).
 */
export const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/**
 * The reason phrases of the other statuses, as node:http's STATUS_CODES names them (the IANA HTTP
 * Status Code Registry's names, but 413 and 422 as above), written out so that the core runs
 * without node:http (D60); errors.test.ts checks the table against node's.
 */
export const OTHER_REASON_PHRASES: Readonly<Record<number, string>> = {
  100: 'Continue', 101: 'Switching Protocols', 102: 'Processing', 103: 'Early Hints',
  200: 'OK', 201: 'Created', 202: 'Accepted', 203: 'Non-Authoritative Information', 204: 'No Content', 205: 'Reset Content', 206: 'Partial Content', 207: 'Multi-Status', 208: 'Already Reported', 226: 'IM Used',
  300: 'Multiple Choices', 301: 'Moved Permanently', 302: 'Found', 303: 'See Other', 304: 'Not Modified', 305: 'Use Proxy', 307: 'Temporary Redirect', 308: 'Permanent Redirect',
  406: 'Not Acceptable', 407: 'Proxy Authentication Required', 410: 'Gone', 411: 'Length Required', 414: 'URI Too Long', 416: 'Range Not Satisfiable', 417: 'Expectation Failed', 418: "I'm a Teapot", 421: 'Misdirected Request', 423: 'Locked', 424: 'Failed Dependency', 425: 'Too Early', 426: 'Upgrade Required', 428: 'Precondition Required', 451: 'Unavailable For Legal Reasons',
  501: 'Not Implemented', 502: 'Bad Gateway', 504: 'Gateway Timeout', 505: 'HTTP Version Not Supported', 506: 'Variant Also Negotiates', 507: 'Insufficient Storage', 508: 'Loop Detected', 509: 'Bandwidth Limit Exceeded', 510: 'Not Extended', 511: 'Network Authentication Required',
};

/** The reason phrase of a status: the mock's own, else node's name for it. */
export function reasonPhrase(status: number): string {
  return REASON_PHRASES[status] ?? OTHER_REASON_PHRASES[status] ?? 'Unknown';
}

export const ERROR_CODES = {
  VALIDATION_ERROR: [400, 422],
  IDEMPOTENCY_KEY_REQUIRED: [400],
  INVALID_IDEMPOTENCY_KEY: [400],
  UNAUTHORIZED: [401],
  ENTITLEMENT_LOST: [401],
  INSUFFICIENT_CREDITS: [402],
  API_TOKEN_SCOPE_DENIED: [403],
  TIER_REQUIRED: [403],
  LIMIT_EXCEEDED: [403],
  IMAGE_SIZE_NOT_ENTITLED: [403],
  IMAGE_UPSCALE_NOT_ENTITLED: [403],
  PRODUCT_NOT_FOUND: [404],
  CREATIVE_NOT_FOUND: [404],
  ASSET_NOT_FOUND: [404],
  CAMPAIGN_NOT_FOUND: [404],
  RUN_NOT_FOUND: [404],
  UPSCALE_NOT_FOUND: [404],
  DELIVERY_NOT_FOUND: [404],
  NOT_FOUND: [404],
  METHOD_NOT_ALLOWED: [405],
  IDEMPOTENCY_KEY_REUSED: [409],
  IDEMPOTENCY_IN_PROGRESS: [409],
  PRICE_EXCEEDS_MAX: [409],
  PRICE_CHANGED: [409],
  ACCOUNT_SPEND_CAP_EXCEEDED: [409],
  CREATIVE_NOT_PENDING: [409],
  CREATIVE_NOT_DELETABLE: [409],
  CREATIVE_CAMPAIGN_DELETED: [409],
  CAMPAIGN_NOT_DELETABLE: [409],
  CAMPAIGN_CASCADE_PENDING: [409],
  IMAGE_SIZE_UNPRICED: [409],
  IMAGE_UPSCALE_IN_PROGRESS: [409],
  IMAGE_UPSCALE_UNPRICED: [409],
  PRECONDITION_FAILED: [412],
  PAYLOAD_TOO_LARGE: [413],
  REQUEST_TIMEOUT: [408],
  HEADERS_TOO_LARGE: [431],
  UNSUPPORTED_MEDIA_TYPE: [415],
  IMAGE_UPSCALE_TARGET_NOT_LARGER: [422],
  IMAGE_UPSCALE_SOURCE_UNREADABLE: [422],
  RATE_LIMITED: [429],
  ACCOUNT_SPEND_UNAVAILABLE: [503],
  WRITES_PAUSED: [503],
  SERVICE_UNAVAILABLE: [503],
} as const satisfies Record<string, readonly number[]>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldError {
  field: string;
  message: string;
}

/** Extension members the interface defines per code. */
export interface ProblemExtensions {
  errors?: FieldError[];
  currentStatus?: string;
  generatingCount?: number;
  reason?: 'still_being_created';
  limitKey?: string;
  limit?: number;
  current?: number;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extensions: ProblemExtensions;
  /** Seconds for a Retry-After header, where the code carries one. */
  readonly retryAfter: number | undefined;
  /** The `Allow` header of a 405: the methods the document declares at the path. */
  readonly allow: readonly string[] | undefined;

  constructor(
    code: ErrorCode,
    detail: string,
    options: { status?: number; extensions?: ProblemExtensions; retryAfter?: number; allow?: readonly string[] } = {},
  ) {
    super(detail);
    const allowed: readonly number[] = ERROR_CODES[code];
    const status = options.status ?? allowed[0]!;
    if (!allowed.includes(status)) throw new Error(`error code ${code} is not registered with status ${status}`);
    this.code = code;
    this.status = status;
    this.extensions = options.extensions ?? {};
    this.retryAfter = options.retryAfter;
    this.allow = options.allow;
  }
}

/** `assert(cond, code, detail)` for operations: throws the ApiError when the condition fails. */
export function check(condition: unknown, code: ErrorCode, detail: string, options?: ConstructorParameters<typeof ApiError>[2]): asserts condition {
  if (!condition) throw new ApiError(code, detail, options);
}
