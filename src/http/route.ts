import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Permission } from '../permissions.ts';
import type { Credential } from '../credentials.ts';
import { ApiError } from '../errors.ts';
import type { Services } from '../services.ts';
import type { RequestStats } from './request-stats.ts';

/** Per-route settings read by the auth, rate-limit and idempotency hooks. */
export type RouteConfig = {
  /** Needs a credential (every /v1 route but the OpenAPI document). */
  auth?: boolean;
  /** Permission required; undefined = any valid credential (GET /v1/me). */
  permission?: Permission;
  /** Create request: Idempotency-Key required (api.md section 8). */
  idempotent?: boolean;
  /** The MCP endpoint: authenticated here, authorized per tool call (mcp/server.ts). */
  mcp?: boolean;
};

declare module 'fastify' {
  interface FastifyContextConfig extends RouteConfig {}
  interface FastifyRequest {
    cred: Credential | null;
    idempotency: { key: string; hash: string } | null;
  }
}

/** What every /v1 endpoint gets: the services and the request counters (src/routes.ts registers them). */
export type RouteDeps = Services & { stats: RequestStats };

export type App = FastifyInstance;
export type ZApp = ReturnType<FastifyInstance['withTypeProvider']> & FastifyInstance;

/**
 * A route's serializerCompiler for answers built by our own code from typed
 * rows (toRoom): straight to JSON, without zod's check of every reply. The
 * route's response schema still documents it, and its tests hold it to it.
 */
export const plainJson = () => (data: unknown): string => JSON.stringify(data);

export function zapp(app: FastifyInstance) {
  return app.withTypeProvider<ZodTypeProvider>();
}

/** The authenticated credential; the auth hook guarantees it on auth routes. */
export function caller(req: FastifyRequest): Credential {
  if (!req.cred) throw new ApiError('unauthorized', 'Authorization: missing credential');
  return req.cred;
}

export type { FastifyReply, FastifyRequest };
