import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import { API_VERSION_DATE, SERVICE_VERSION, type Config } from './config.ts';
import { newId } from './ids.ts';
import { ApiError, ERROR_DESCRIPTIONS, ERROR_STATUS } from './errors.ts';
import type { Pool } from './db/pool.ts';
import type { Boss } from './jobs/boss.ts';
import { CredentialCache } from './http/credential-cache.ts';
import { RateLimiter } from './http/rate-limit.ts';
import { RequestStats } from './http/request-stats.ts';
import { AnonymousLimiter, authenticate, setRateHeaders } from './http/auth.ts';
import { readIdempotencyKey } from './http/idempotency.ts';
import { makeErrorHandler, makeNotFoundHandler } from './http/error-handler.ts';
import { finishOpenApi } from './http/openapi.ts';
import './http/route.ts';
import { V1_ROUTES } from './routes/v1/index.ts';
import roomPage from './routes/pages/room.ts';

/** Throws invalid_request naming the first field (or key) whose text holds a NUL character. */
function rejectNul(where: string, value: unknown, path: string[] = []): void {
  const field = () => (path.length ? path.join('.') : where);
  if (typeof value === 'string') {
    if (value.includes('\0')) throw new ApiError('invalid_request', `${field()}: must not contain the NUL character (U+0000)`);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => rejectNul(where, v, [...path, String(i)]));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\0')) throw new ApiError('invalid_request', `${field()}: a key contains the NUL character (U+0000)`);
      rejectNul(where, v, [...path, k]);
    }
  }
}

export type AppDeps = {
  config: Config;
  pool: Pool;
  boss: Boss;
  databaseUrl: string;
};

/** Every Fastify option and plugin; the server and the tests build the same app. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, pool, boss } = deps;
  const errorsUrl = `${config.publicBaseUrl}/docs/errors`;
  const app = Fastify({
    logger: { level: config.logLevel },
    genReqId: () => newId('req'),
    requestIdHeader: false,
    bodyLimit: config.bodyLimit,
    // Ids are short; a longer path segment does not match a route (404).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(makeErrorHandler(errorsUrl));
  app.setNotFoundHandler(makeNotFoundHandler(errorsUrl));

  const cache = new CredentialCache(pool, deps.databaseUrl);
  await cache.start();
  const limiter = new RateLimiter(pool);
  const anonymous = new AnonymousLimiter();
  const stats = new RequestStats(pool);
  app.decorateRequest('cred', null);
  app.decorateRequest('idempotency', null);
  app.addHook('onClose', async () => {
    await stats.close();
    await cache.close();
  });

  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
    reply.header('Service-Version', SERVICE_VERSION);
    if (req.routeOptions.config.auth) {
      req.cred = await authenticate(req, reply, { cache, limiter });
      return;
    }
    const v = anonymous.take(req.ip);
    setRateHeaders(reply, v);
    if (!v.allowed) throw new ApiError('rate_limited', `Too many requests from ${req.ip}; retry in ${v.reset} s`, { 'Retry-After': String(v.reset) });
  });
  app.addHook('preValidation', async (req) => {
    // PostgreSQL text cannot hold U+0000; refuse it here, naming the field, instead of failing in SQL.
    rejectNul('query', req.query);
    rejectNul('body', req.body);
    if (req.routeOptions.config.idempotent) readIdempotencyKey(req);
  });
  app.addHook('onResponse', async (req, reply) => {
    if (req.cred) stats.record(req.cred.id, req.cred.orgId, req.cred.livemode, reply.statusCode >= 400);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tolk API',
        version: API_VERSION_DATE,
        description:
          'Live-translation rooms, meetings and booking links, voices, AI agent sessions, translated phone calls, transcripts and webhooks. ' +
          'Every request carries `Authorization: Bearer <API key>`; errors are application/problem+json.',
      },
      servers: [{ url: config.publicBaseUrl }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key: sk_test_… or sk_live_…' } },
      },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });

  const services = { config, pool, boss };
  for (const register of V1_ROUTES) register(app, { ...services, stats });
  roomPage(app, services);

  let openapi: unknown = null;
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => {
    openapi ??= finishOpenApi(app.swagger() as never);
    return openapi;
  });
  app.get('/docs/errors', { schema: { hide: true } }, async () => ({
    data: Object.entries(ERROR_STATUS).map(([code, status]) => ({
      code,
      status,
      description: ERROR_DESCRIPTIONS[code as keyof typeof ERROR_STATUS],
    })),
  }));
  await app.register(scalar, {
    routePrefix: '/docs',
    configuration: { url: '/v1/openapi.json', title: 'Tolk API reference' },
  });
  return app;
}
