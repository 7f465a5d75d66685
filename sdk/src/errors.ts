// Errors the client throws. Every answer the API refuses becomes a TolkError
// (or one of its subclasses, by HTTP status), carrying the problem+json body's
// stable `code` to branch on, `status`, `message` (for people) and
// `request_id` (quote it to support). A request that got no answer at all is a
// TolkConnectionError; a webhook that does not verify, a
// TolkSignatureVerificationError.

import type { ResponseInfo } from './response.ts';

/** The problem+json body of a refused request (api.md section 7). */
export type Problem = { type: string; title: string; status: number; code: string; message: string; request_id: string };

export class TolkError extends Error {
  override name = 'TolkError';
  /** Stable: branch on it (api.md section 7: `invalid_request`, `rate_limited`, `session_ended`…). */
  readonly code: string;
  /** HTTP status; 0 when no answer came (TolkConnectionError). */
  readonly status: number;
  /** The answer's X-Request-Id (the problem's `request_id`), or null when no answer came. */
  readonly request_id: string | null;
  /** The problem+json body as the API sent it, or null. */
  readonly problem: Problem | null;
  /** Status, headers, rate-limit headers of the answer; null when no answer came. */
  readonly response: ResponseInfo | null;

  constructor(o: { code: string; status: number; message: string; request_id: string | null; problem?: Problem | null; response?: ResponseInfo | null; cause?: unknown }) {
    super(o.message, o.cause === undefined ? undefined : { cause: o.cause });
    this.code = o.code;
    this.status = o.status;
    this.request_id = o.request_id;
    this.problem = o.problem ?? null;
    this.response = o.response ?? null;
  }

  /** Seconds the answer asked to wait before retrying (Retry-After), or null. */
  get retryAfter(): number | null {
    return this.response?.retryAfter ?? null;
  }
}

/** 400: the message names the field (`invalid_request`, `idempotency_key_required`). */
export class TolkInvalidRequestError extends TolkError { override name = 'TolkInvalidRequestError'; }
/** 401 `unauthorized`: the key is missing, invalid, expired or revoked. */
export class TolkAuthenticationError extends TolkError { override name = 'TolkAuthenticationError'; }
/** 402 `spend_limit_reached`. */
export class TolkPaymentRequiredError extends TolkError { override name = 'TolkPaymentRequiredError'; }
/** 403: `insufficient_scope`, `needs_review`, `ip_not_allowed`, `*_not_allowed`, `org_*`, `paid_plan_required`. */
export class TolkPermissionError extends TolkError { override name = 'TolkPermissionError'; }
/** 404 `not_found`. */
export class TolkNotFoundError extends TolkError { override name = 'TolkNotFoundError'; }
/** 409: `idempotency_mismatch`, `idempotency_in_progress` (retried by the client first), `slot_taken`, `session_ended`. */
export class TolkConflictError extends TolkError { override name = 'TolkConflictError'; }
/** 429: `rate_limited`, `too_many_sessions`, `test_daily_limit`; `retryAfter` says how long to wait. */
export class TolkRateLimitError extends TolkError { override name = 'TolkRateLimitError'; }
/** 501 `not_available_yet`: works with a test key. */
export class TolkNotAvailableError extends TolkError { override name = 'TolkNotAvailableError'; }
/** Any other 5xx (`api_disabled`, `booking_unavailable`, `internal_error`…), after the client's retries. */
export class TolkServerError extends TolkError { override name = 'TolkServerError'; }

/**
 * No answer: the connection failed or the request timed out (`code`
 * `connection_error` or `timeout`; `status` 0). `cause` is the platform's error.
 */
export class TolkConnectionError extends TolkError { override name = 'TolkConnectionError'; }

/** A webhook request whose Service-Signature does not verify (`code` `signature_verification_failed`). */
export class TolkSignatureVerificationError extends TolkError { override name = 'TolkSignatureVerificationError'; }

const BY_STATUS: Record<number, typeof TolkError> = {
  400: TolkInvalidRequestError,
  401: TolkAuthenticationError,
  402: TolkPaymentRequiredError,
  403: TolkPermissionError,
  404: TolkNotFoundError,
  409: TolkConflictError,
  429: TolkRateLimitError,
  501: TolkNotAvailableError,
};

function isProblem(v: unknown): v is Problem {
  return typeof v === 'object' && v !== null && typeof (v as Problem).code === 'string' && typeof (v as Problem).message === 'string';
}

/** The error of a refused answer: its problem+json when it has one, else what the status says. */
export function errorOf(response: ResponseInfo, body: unknown): TolkError {
  const Kind = BY_STATUS[response.status] ?? (response.status >= 500 ? TolkServerError : TolkError);
  if (isProblem(body)) {
    return new Kind({ code: body.code, status: response.status, message: body.message, request_id: body.request_id ?? response.requestId, problem: body, response });
  }
  // Not ours (a proxy's page, an empty body): the status alone.
  const text = typeof body === 'string' && body.length > 0 ? `: ${body.slice(0, 200)}` : '';
  return new Kind({ code: `http_${response.status}`, status: response.status, message: `HTTP ${response.status}${text}`, request_id: response.requestId, response });
}
