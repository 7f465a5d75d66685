// What the client keeps of each answer besides its body: status, request id,
// the rate-limit headers (api.md section 8: every response has
// RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset; a 429 also
// Retry-After) and whether an Idempotency-Key replayed an earlier answer.

export type RateLimit = {
  /** Requests allowed in the current window. */
  limit: number;
  /** Requests left in it. */
  remaining: number;
  /** Seconds until it resets. */
  reset: number;
};

export type ResponseInfo = {
  status: number;
  headers: Headers;
  /** X-Request-Id. */
  requestId: string | null;
  /** The rate-limit headers, when the answer had them. */
  rateLimit: RateLimit | null;
  /** Retry-After in seconds, when the answer had it. */
  retryAfter: number | null;
  /** Idempotent-Replayed: true when the Idempotency-Key answered an earlier request's result again. */
  idempotentReplayed: boolean;
  /** The Idempotency-Key the request carried, if any. */
  idempotencyKey: string | null;
};

/** A result with its answer's details on `lastResponse` (not enumerable: JSON.stringify and spreads leave it out). */
export type WithResponse<T> = T & { readonly lastResponse: ResponseInfo };

function num(h: Headers, name: string): number | null {
  const v = h.get(name);
  if (v === null || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** Retry-After as seconds: a number of seconds or an HTTP date (RFC 9110). */
function retryAfter(h: Headers, now: number): number | null {
  const v = h.get('retry-after');
  if (v === null) return null;
  const n = num(h, 'retry-after');
  if (n !== null) return Math.max(0, n);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, (at - now) / 1000);
}

export function responseInfo(res: Response, idempotencyKey: string | null): ResponseInfo {
  const h = res.headers;
  const limit = num(h, 'ratelimit-limit');
  const remaining = num(h, 'ratelimit-remaining');
  const reset = num(h, 'ratelimit-reset');
  return {
    status: res.status,
    headers: h,
    requestId: h.get('x-request-id'),
    rateLimit: limit !== null && remaining !== null && reset !== null ? { limit, remaining, reset } : null,
    retryAfter: retryAfter(h, Date.now()),
    idempotentReplayed: h.get('idempotent-replayed') === 'true',
    idempotencyKey,
  };
}

/** Puts the answer's details on a result object as a non-enumerable `lastResponse`. */
export function withResponse<T>(value: T, info: ResponseInfo): WithResponse<T> {
  if (typeof value === 'object' && value !== null) {
    Object.defineProperty(value, 'lastResponse', { value: info, enumerable: false, configurable: true });
  }
  return value as WithResponse<T>;
}
