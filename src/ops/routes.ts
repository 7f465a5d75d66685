import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Pool } from '../db/pool.ts';
import { ApiError } from '../errors.ts';
import { Health } from './health.ts';
import { clearSources, countHttp, metricsEnabled, registry, setMetricsEnabled, setSources, type Sources } from './metrics.ts';

// The operator's paths (operator.md, Health and metrics): /healthz, /readyz
// and /metrics, outside /v1 and its OpenAPI document, without an API key or
// the anonymous rate limit, and not logged per request at info (they are
// asked every few seconds by every probe). /metrics is served only when
// TOLK_METRICS_TOKEN is set, to the Bearer of that token.

export type OpsDeps = {
  pool: Pool;
  /** pg-boss, for its queues' depths. */
  boss: { getQueues: () => Promise<Array<{ name: string; queuedCount: number }>> };
  metricsToken: string | undefined;
  /** This process's gateway, when it runs one. */
  gateway?: { active: () => string[] };
  /** The media server of rooms' voices: reported, never what makes the process not ready. */
  media?: { state: () => 'ok' | 'degraded' | null };
};

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An operator's path: no credential, no rate limit (ops/routes.ts). */
    ops?: boolean;
  }
}

const health = new WeakMap<FastifyInstance, Health>();

/** Readiness turns 503 from now on (server.ts, on a shutdown signal, before it drains and closes). */
export function drain(app: FastifyInstance): void {
  health.get(app)?.drain();
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Whether an Authorization header carries the token, compared in constant time. */
export function bearerMatches(header: string | undefined, token: Buffer): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  // Equal lengths for timingSafeEqual: the digests are compared, never the strings.
  return timingSafeEqual(digest(m?.[1] ?? ''), token) && m !== null;
}

const OPS = { ops: true } as const;

export default function opsRoutes(app: FastifyInstance, deps: OpsDeps): void {
  const h = new Health(deps.pool, deps.gateway ? () => true : undefined, deps.media ? () => deps.media!.state() : undefined);
  health.set(app, h);

  app.get('/healthz', { schema: { hide: true }, config: OPS, logLevel: 'warn' }, async (_req, reply) => {
    reply.header('Cache-Control', 'no-store');
    return { status: 'ok' };
  });

  app.get('/readyz', { schema: { hide: true }, config: OPS, logLevel: 'warn' }, async (_req, reply) => {
    const r = await h.ready();
    reply.header('Cache-Control', 'no-store');
    reply.code(r.status === 'ready' ? 200 : 503);
    return r;
  });

  if (deps.metricsToken) setMetricsEnabled(true);
  // Every answer counted under its route template (never its path: no id in a label); no route: `unmatched`.
  if (metricsEnabled()) {
    app.addHook('onResponse', (req, reply, done) => {
      countHttp(req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }
  if (!deps.metricsToken) return;
  const token = digest(deps.metricsToken);

  const sources: Sources = {
    pool: deps.pool,
    callsInProgress: deps.gateway ? () => deps.gateway!.active().length : undefined,
    // The events not dispatched yet: the outbox's queue, a small table.
    outboxBacklog: async () => (await deps.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox_queue')).rows[0]?.n ?? 0,
    queueDepths: async () => (await deps.boss.getQueues()).map((q) => ({ name: q.name, queued: q.queuedCount })),
    connections: () => {
      const a = app as unknown as { sessionBus?: { size: number }; roomHub?: { size: number }; roomPages?: { openSockets: () => number } };
      return { long_poll: a.sessionBus?.size ?? 0, page_stream: a.roomHub?.size ?? 0, audio_socket: a.roomPages?.openSockets() ?? 0 };
    },
  };
  setSources(sources);
  app.addHook('onClose', async () => clearSources(sources));

  app.get('/metrics', { schema: { hide: true }, config: OPS, logLevel: 'warn' }, async (req, reply) => {
    if (!bearerMatches(req.headers.authorization, token)) {
      throw new ApiError('unauthorized', 'Authorization: Bearer TOLK_METRICS_TOKEN required', { 'WWW-Authenticate': 'Bearer' });
    }
    reply.header('Content-Type', registry.contentType);
    reply.header('Cache-Control', 'no-store');
    return registry.metrics();
  });
}
