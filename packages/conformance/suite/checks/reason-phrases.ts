/**
 * HTTP reason phrases (RFC 9110 section 15) for the problem `title` check (ERR-003). Where RFC 9110
 * renamed a status, the older RFC 7231 name is accepted too, because implementations built on
 * older frameworks still send it.
 */
export const REASON_PHRASES: Readonly<Record<number, readonly string[]>> = {
  400: ['Bad Request'],
  401: ['Unauthorized'],
  402: ['Payment Required'],
  403: ['Forbidden'],
  404: ['Not Found'],
  405: ['Method Not Allowed'],
  406: ['Not Acceptable'],
  407: ['Proxy Authentication Required'],
  408: ['Request Timeout'],
  409: ['Conflict'],
  410: ['Gone'],
  411: ['Length Required'],
  412: ['Precondition Failed'],
  413: ['Content Too Large', 'Payload Too Large'],
  414: ['URI Too Long'],
  415: ['Unsupported Media Type'],
  416: ['Range Not Satisfiable'],
  417: ['Expectation Failed'],
  421: ['Misdirected Request'],
  422: ['Unprocessable Content', 'Unprocessable Entity'],
  426: ['Upgrade Required'],
  428: ['Precondition Required'],
  429: ['Too Many Requests'],
  431: ['Request Header Fields Too Large'],
  500: ['Internal Server Error'],
  501: ['Not Implemented'],
  502: ['Bad Gateway'],
  503: ['Service Unavailable'],
  504: ['Gateway Timeout'],
  505: ['HTTP Version Not Supported'],
};
