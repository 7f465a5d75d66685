import Fastify, { type FastifyInstance } from 'fastify';
import { CredentialCache } from './http/credential-cache.ts';
import { RequestLogController } from './http/request-log.ts';
import { RateLimiter } from './http/rate-limit.ts';
import { RequestStats } from './http/request-stats.ts';
import { AnonymousLimiter } from './http/auth.ts';
import { makeErrorHandler } from './http/error-handler.ts';
import { appOptions } from './http/app-options.ts';
import zod from './http/plugins/zod.ts';
import errors from './http/plugins/errors.ts';
import jsonBody from './http/plugins/json-body.ts';
import authentication from './http/plugins/authentication.ts';
import routeMiss from './http/plugins/route-miss.ts';
import inputGuard from './http/plugins/input-guard.ts';
import requestStats from './http/plugins/request-stats.ts';
import openapi from './http/plugins/openapi.ts';
import reference from './http/plugins/reference.ts';
import './http/route.ts';
import { V1_ROUTES } from './routes.ts';
import { now, type Reactions, type Services } from './services.ts';
import { REACTIONS } from './reactions.ts';
import { SessionBus } from './sessions/bus.ts';
import { EventReader } from './sessions/reader.ts';
import { registerPages } from './pages.ts';
import mcpServer, { mcpChallenge } from './mcp/server.ts';
import opsRoutes from './ops/routes.ts';
import { closeQuietConnections } from './http/quiet-connections.ts';

export type AppDeps = Omit<Services, 'reactions'> & { reactions?: Reactions; databaseUrl: string };

/**
 * The whole app, as a table of contents: Fastify's options, then each plugin
 * in the order its hooks run (each in src/http/plugins/), then the routes.
 * The server and the tests build the same app.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, pool } = deps;
  const errorsUrl = `${config.publicBaseUrl}/docs/errors`;
  const clock = () => now(deps).getTime();
  const limiter = new RateLimiter(pool, clock);
  const anonymous = new AnonymousLimiter(limiter, config.publicLimits.anonymousPerMinute);
  const errorHandler = makeErrorHandler(errorsUrl);
  const app = Fastify(appOptions(config, { anonymous, errorHandler, requestLog: new RequestLogController(), errorsUrl }));
  closeQuietConnections(app);

  const cache = new CredentialCache(pool, deps.databaseUrl);
  await cache.start();
  const stats = new RequestStats(pool, clock);
  const bus = new SessionBus(deps.databaseUrl);
  await bus.start();
  // Listeners waiting in this process (bench/ reads bus.size).
  app.decorate('sessionBus', bus);
  app.addHook('onClose', async () => {
    await cache.close();
    await bus.close();
  });

  await app.register(zod);
  await app.register(errors, { handler: errorHandler });
  await app.register(jsonBody);
  await app.register(authentication, { cache, limiter, anonymous, now: clock, mcpChallenge: () => mcpChallenge(config.publicBaseUrl) });
  // After the headers above, before any body is read: a wrong method is 405, not a complaint about its body.
  await app.register(routeMiss);
  await app.register(inputGuard);
  await app.register(requestStats, { stats });
  await app.register(openapi, { publicBaseUrl: config.publicBaseUrl });

  opsRoutes(app, { pool, boss: deps.boss, gateway: deps.gateway, metricsToken: config.metricsToken, ...(deps.media ? { media: deps.media } : {}) });
  const { databaseUrl: _url, ...given } = deps;
  // Readers of a log (a phrase read aloud) wait for its translations on the bus, as its listeners do.
  const services: Services = { ...given, reactions: given.reactions ?? REACTIONS, logBus: bus };
  const reader = new EventReader(services);
  for (const register of V1_ROUTES) register(app, { ...services, stats, bus, reader });
  registerPages(app, services);
  mcpServer(app, { ...services, stats, bus, reader });
  await app.register(reference, { publicBaseUrl: () => config.publicBaseUrl });
  return app;
}
