import ipaddr from 'ipaddr.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { hashSecret, type Credential } from '../credentials.ts';
import type { Permission } from '../permissions.ts';
import type { CredentialCache } from './credential-cache.ts';
import type { RateLimiter, Verdict } from './rate-limit.ts';
import { clientKey } from './quotas.ts';

// Authentication and authorization of api.md section 5, in this order
// (authenticate() up to the allow-list, authorize() the rest):
// 401 (missing, invalid, expired, revoked) → rate limits (429) → organization
// status (org_blocked, org_suspended) → plan (paid_plan_required) → IP
// allow-list → needs_review on writes → the route's permission.

export const TEST_DAILY_LIMIT = 1000;
const KEY_FORMAT = /^sk_(test|live)_[A-Za-z0-9]{10,200}$/;
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function unauthorized(message: string): ApiError {
  return new ApiError('unauthorized', message, { 'WWW-Authenticate': 'Bearer realm="tolk"' });
}

/** Whether ip is in one of the allow-list entries (single addresses or CIDR ranges). */
export function ipAllowed(ip: string, allow: string[]): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() turns an IPv4-mapped IPv6 address (::ffff:10.0.0.1) back into IPv4.
    addr = ipaddr.process(ip);
  } catch {
    return false;
  }
  return allow.some((entry) => {
    try {
      if (!entry.includes('/')) return ipaddr.process(entry).toString() === addr.toString();
      const [range, bits] = ipaddr.parseCIDR(entry);
      return range.kind() === addr.kind() && addr.match(range, bits);
    } catch {
      return false;
    }
  });
}

export function setRateHeaders(reply: FastifyReply, v: Verdict): void {
  reply.header('RateLimit-Limit', String(v.limit));
  reply.header('RateLimit-Remaining', String(v.remaining));
  reply.header('RateLimit-Reset', String(v.reset));
}

export async function authenticate(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: { cache: CredentialCache; limiter: RateLimiter; now: () => number },
): Promise<Credential> {
  const header = req.headers.authorization;
  if (!header) throw unauthorized('Authorization: header missing; send Authorization: Bearer <API key>');
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw unauthorized('Authorization: expected "Bearer <API key>"');
  const secret = m[1]!;
  if (!KEY_FORMAT.test(secret)) throw unauthorized('Authorization: not a valid API key');
  const cred = await deps.cache.get(hashSecret(secret));
  if (!cred) throw unauthorized('Authorization: invalid API key');
  if (cred.revokedAt) throw unauthorized('Authorization: this API key was revoked');
  if (cred.expiresAt && cred.expiresAt.getTime() <= deps.now()) throw unauthorized('Authorization: this API key has expired');

  const windows: Array<{ kind: 'minute' | 'day'; limit: number }> = [{ kind: 'minute', limit: cred.requestsPerMinute }];
  if (cred.mode === 'test') windows.push({ kind: 'day', limit: TEST_DAILY_LIMIT });
  const verdicts = await deps.limiter.take(cred.id, windows);
  const denied = verdicts.find((v) => !v.allowed);
  // The headers describe the window that decides: the one that denied, else the minute window.
  setRateHeaders(reply, denied ?? verdicts[0]!);
  if (denied) {
    const retry = { 'Retry-After': String(denied.reset) };
    if (denied.kind === 'day') {
      throw new ApiError('test_daily_limit', `Test keys allow ${TEST_DAILY_LIMIT} requests per day; retry in ${denied.reset} s`, retry);
    }
    throw new ApiError('rate_limited', `Limit of ${denied.limit} requests per minute reached; retry in ${denied.reset} s`, retry);
  }

  if (cred.orgStatus === 'blocked') throw new ApiError('org_blocked', `Organization ${cred.orgId} is blocked`);
  if (cred.orgStatus === 'suspended') throw new ApiError('org_suspended', `Organization ${cred.orgId} is suspended`);
  if (cred.orgPlan === 'free') throw new ApiError('paid_plan_required', `Organization ${cred.orgId} is on the free plan; the API needs a paid plan`);
  if (cred.ipAllow && cred.ipAllow.length > 0 && !ipAllowed(req.ip, cred.ipAllow)) {
    throw new ApiError('ip_not_allowed', `Requests from ${req.ip} are outside this key's IP allow-list`);
  }
  return cred;
}

/**
 * The rest of the order above, for one operation: needs_review on writes, then
 * its permission. The /v1 hook passes the route's; an MCP tool call passes its tool's.
 */
export function authorize(cred: Credential, need: { permission?: Permission | undefined; write: boolean }): void {
  if (cred.needsReview && need.write) {
    throw new ApiError('needs_review', "This key's creator left the organization; it can only read until an owner reviews it");
  }
  if (need.permission && !cred.permissions.has(need.permission)) {
    throw new ApiError('insufficient_scope', `This credential lacks the permission ${need.permission}`, {
      'WWW-Authenticate': `Bearer realm="tolk", error="insufficient_scope", scope="${need.permission}"`,
    });
  }
}

/** Whether a request of this method writes (needs_review keys may only read). */
export function isWrite(method: string): boolean {
  return !READ_METHODS.has(method);
}

/**
 * Requests without a credential (the public pages, 401s, unknown routes, the
 * OpenAPI document and /docs) share a generous budget per client (its
 * address, or its IPv6 /64: quotas.ts clientKey), counted in PostgreSQL like
 * the keys' limits (rate-limit.ts), so every server process shares it. The
 * client's address is the connection's, or X-Forwarded-For's when the
 * connection comes from a trusted proxy (TOLK_TRUSTED_PROXIES: Fastify's
 * trustProxy sets req.ip). The database unreachable, it lets requests through:
 * the pages then fail on their own, and /docs still loads.
 */
export class AnonymousLimiter {
  readonly limit: number;
  private readonly limiter: RateLimiter;
  constructor(limiter: RateLimiter, limit: number) {
    this.limiter = limiter;
    this.limit = limit;
  }
  async take(ip: string | undefined): Promise<Verdict> {
    try {
      const [v] = await this.limiter.take(`anon:${clientKey(ip)}`, [{ kind: 'minute', limit: this.limit }]);
      return v!;
    } catch {
      return { allowed: true, kind: 'minute', limit: this.limit, remaining: this.limit, reset: 60 };
    }
  }
}
