import fp from 'fastify-plugin';
import { SERVICE_VERSION } from '../../config.ts';
import { ApiError } from '../../errors.ts';
import type { CredentialCache } from '../credential-cache.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { type AnonymousLimiter, authenticate, authorize, isWrite, setRateHeaders } from '../auth.ts';
import { inWords } from '../quotas.ts';

export type AuthenticationOptions = {
  cache: CredentialCache;
  limiter: RateLimiter;
  anonymous: AnonymousLimiter;
  now: () => number;
  /** WWW-Authenticate of a 401 at /mcp: where the resource's metadata is (RFC 9728, MCP authorization); read per answer, as the public URL may be set after the app is built. */
  mcpChallenge: () => string;
};

function anonymousLimited(ip: string, reset: number): ApiError {
  return new ApiError('rate_limited', `Too many requests from ${ip}; please try again in ${inWords(reset)}`, { 'Retry-After': String(reset) });
}

/**
 * Every answer's X-Request-Id and Service-Version; a route with `auth` gets
 * its key (req.cred), checked against the route's permission and counted
 * against its rate limit; any other request, and a 401, spend the caller's
 * address's anonymous budget.
 */
export default fp<AuthenticationOptions>(async (app, { cache, limiter, anonymous, now, mcpChallenge }) => {
  app.decorateRequest('cred', null);
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
    reply.header('Service-Version', SERVICE_VERSION);
    if (req.routeOptions.config.ops) return;
    if (req.routeOptions.config.auth) {
      try {
        const cred = await authenticate(req, reply, { cache, limiter, now });
        req.cred = cred;
        // /mcp authorizes each tool call against its tool's permission (mcp/server.ts).
        const { mcp, permission } = req.routeOptions.config;
        if (!mcp) authorize(cred, { permission, write: isWrite(req.method) });
        return;
      } catch (err) {
        // A 401 has no credential to count against: it spends the anonymous budget below.
        if (!(err instanceof ApiError && err.code === 'unauthorized')) throw err;
        const v = await anonymous.take(req.ip);
        setRateHeaders(reply, v);
        if (!v.allowed) throw anonymousLimited(req.ip, v.reset);
        // An MCP client learns from the 401 where the resource's metadata is (RFC 9728, MCP authorization).
        if (req.routeOptions.config.mcp) throw new ApiError('unauthorized', err.message, { 'WWW-Authenticate': mcpChallenge() });
        throw err;
      }
    }
    const v = await anonymous.take(req.ip);
    setRateHeaders(reply, v);
    if (!v.allowed) throw anonymousLimited(req.ip, v.reset);
  });
}, { name: 'authentication' });
