// One error path: every failure becomes the spec's problem+json (api.md section 7).

export const ERROR_STATUS = {
  invalid_request: 400,
  idempotency_key_required: 400,
  unauthorized: 401,
  spend_limit_reached: 402,
  insufficient_scope: 403,
  needs_review: 403,
  paid_plan_required: 403,
  ip_not_allowed: 403,
  language_not_allowed: 403,
  voice_not_allowed: 403,
  number_not_allowed: 403,
  destination_not_allowed: 403,
  org_blocked: 403,
  org_suspended: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_mismatch: 409,
  idempotency_in_progress: 409,
  slot_taken: 409,
  session_ended: 409,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  too_many_sessions: 429,
  test_daily_limit: 429,
  internal_error: 500,
  not_available_yet: 501,
  api_disabled: 503,
  mcp_disabled: 503,
  booking_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_DESCRIPTIONS: Record<ErrorCode, string> = {
  invalid_request: 'The request is invalid; the message names the field.',
  idempotency_key_required: 'A create request was sent without an Idempotency-Key header.',
  unauthorized: 'The credential is missing, invalid, expired or revoked.',
  spend_limit_reached: 'The key reached a spending limit (day, month or per call) or no minutes are left.',
  insufficient_scope: 'The credential lacks the permission named in WWW-Authenticate.',
  needs_review: "The key's creator left the organization; it is read-only until an owner reviews it.",
  paid_plan_required: 'The organization is on the free plan.',
  ip_not_allowed: "The request came from an IP address outside the key's allow-list.",
  language_not_allowed: "A language outside the key's restrictions.",
  voice_not_allowed: "A voice outside the key's restrictions.",
  number_not_allowed: "A phone number outside the key's restrictions.",
  destination_not_allowed: "A destination outside the key's restrictions or country rules.",
  org_blocked: 'The organization is blocked.',
  org_suspended: 'The organization is suspended.',
  not_found: 'The object does not exist or the credential cannot see it.',
  method_not_allowed: 'The path exists but not with this method; the Allow header lists the methods it accepts.',
  idempotency_mismatch: 'The same Idempotency-Key was used with a different request.',
  idempotency_in_progress: 'The first request with this Idempotency-Key is still running; retry shortly.',
  slot_taken: 'The booking time was taken meanwhile.',
  session_ended: 'The agent session already ended.',
  conflict: 'The request conflicts with the current state of the object, such as a join link or an agent session for an ended room.',
  payload_too_large: 'The request body is larger than allowed (1 MiB unless the server is configured otherwise).',
  unsupported_media_type: 'A request body was sent with a Content-Type other than application/json (or none).',
  rate_limited: 'Too many requests; wait for Retry-After.',
  too_many_sessions: 'Too many simultaneous agent sessions.',
  test_daily_limit: 'Test keys allow 1,000 requests per day.',
  internal_error: 'Something went wrong on our side; retry with backoff.',
  not_available_yet:
    'Not available yet in live mode on this service: answered to live keys where the operator has not configured what the feature needs (live calls: a SIP trunk for the number and engines covering their languages; live agent sessions: engines covering the room\'s languages; live voice cloning: a cloning engine), and by the test helpers. Test keys use the simulator.',
  api_disabled: 'The API is temporarily unavailable; retry later.',
  mcp_disabled: 'The assistant-tool interface is temporarily unavailable; retry later.',
  booking_unavailable: 'Booking is temporarily unavailable; retry later.',
};

/**
 * Codes this service adds to api.md's section 7 table: the spec's table is
 * the contract, these are ours. GET /docs/errors marks every entry with its
 * source.
 */
export const SERVICE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'method_not_allowed',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'internal_error',
]);

/**
 * Codes of api.md that nothing on this server answers yet (none today; the
 * last, mcp_disabled, came with /mcp): GET /docs/errors lists them with
 * `answered: false`, and /v1/openapi.json declares them on no operation.
 */
export const NOT_ANSWERED_YET: ReadonlySet<ErrorCode> = new Set<ErrorCode>([]);

export type CatalogueEntry = {
  code: ErrorCode;
  status: number;
  description: string;
  /** `api.md` for the spec's codes, `service` for the codes this service adds. */
  source: 'api.md' | 'service';
  /** Whether this server answers the code today. */
  answered: boolean;
};

/** GET /docs/errors: every code, its status, meaning and where it comes from. */
export const ERROR_CATALOGUE: readonly CatalogueEntry[] = (Object.keys(ERROR_STATUS) as ErrorCode[]).map((code) => ({
  code,
  status: ERROR_STATUS[code],
  description: ERROR_DESCRIPTIONS[code],
  source: SERVICE_CODES.has(code) ? 'service' : 'api.md',
  answered: !NOT_ANSWERED_YET.has(code),
}));

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.headers = headers;
  }
}

export function invalid(field: string, problem: string): ApiError {
  return new ApiError('invalid_request', `${field}: ${problem}`);
}

export function notFound(what: string, id: string): ApiError {
  return new ApiError('not_found', `No such ${what}: '${truncate(id, 64)}'`);
}

export function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

export type Problem = {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  message: string;
  request_id: string;
};

export function problem(errorsUrl: string, code: ErrorCode, message: string, requestId: string): Problem {
  return {
    type: `${errorsUrl}#${code}`,
    title: code,
    status: ERROR_STATUS[code],
    code,
    message,
    request_id: requestId,
  };
}
