import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import { API_VERSION_DATE, SERVICE_VERSION } from './config.ts';
import { newId } from './ids.ts';
import { ApiError, ERROR_CATALOGUE, problem } from './errors.ts';
import { CredentialCache } from './http/credential-cache.ts';
import { lazyChildLogger } from './http/lazy-logger.ts';
import { RequestLogController } from './http/request-log.ts';
import { LOG_REDACTION } from './http/redact.ts';
import { logDestination } from './startup.ts';
import { RateLimiter } from './http/rate-limit.ts';
import { RequestStats } from './http/request-stats.ts';
import { AnonymousLimiter, authenticate, authorize, isWrite, setRateHeaders } from './http/auth.ts';
import { readIdempotencyKey } from './http/idempotency.ts';
import { inWords } from './http/quotas.ts';
import { rejectDeep, rejectNul } from './http/input-guard.ts';
import { makeErrorHandler, RouteMiss } from './http/error-handler.ts';
import { finishOpenApi } from './http/openapi.ts';
import { docsSecurityHeaders } from './http/docs.ts';
import './http/route.ts';
import { V1_ROUTES } from './routes.ts';
import { now, type Reactions, type Services } from './services.ts';
import { REACTIONS } from './reactions.ts';
import { SessionBus } from './sessions/bus.ts';
import { EventReader } from './sessions/reader.ts';
import { registerPages } from './pages.ts';
import mcpServer, { mcpChallenge } from './mcp/server.ts';
import opsRoutes from './ops/routes.ts';

export type AppDeps = Omit<Services, 'reactions'> & { reactions?: Reactions; databaseUrl: string };

function anonymousLimited(ip: string, reset: number): ApiError {
  return new ApiError('rate_limited', `Too many requests from ${ip}; please try again in ${inWords(reset)}`, { 'Retry-After': String(reset) });
}

/** Every Fastify option and plugin; the server and the tests build the same app. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, pool } = deps;
  const errorsUrl = `${config.publicBaseUrl}/docs/errors`;
  const clock = () => now(deps).getTime();
  const limiter = new RateLimiter(pool, clock);
  const anonymous = new AnonymousLimiter(limiter, config.publicLimits.anonymousPerMinute);
  const errorHandler = makeErrorHandler(errorsUrl);
  const requestLog = new RequestLogController();
  const app = Fastify({
    // A URL Fastify cannot decode (a stray %) is refused before any hook runs:
    // answer it with the same headers and problem+json as every other error, and its log line.
    frameworkErrors: (err, req, reply) => {
      requestLog.refusedBeforeRouting(req, reply);
      reply.header('X-Request-Id', req.id);
      reply.header('Service-Version', SERVICE_VERSION);
      void anonymous.take(req.ip).then((v) => {
        setRateHeaders(reply, v);
        errorHandler(err, req, reply);
      });
    },
    // Node's HTTP parser refuses some requests (headers and URL over 16 KiB,
    // malformed HTTP) before Fastify sees them; they get the same problem+json.
    clientErrorHandler: (err: Error & { code?: string }, socket) => {
      if (err.code === 'ECONNRESET' || socket.destroyed) return;
      const message = err.code === 'HPE_HEADER_OVERFLOW'
        ? 'headers: the URL and headers together are larger than allowed (16 KiB)'
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request: not received in time' : 'request: not valid HTTP';
      const id = newId('req');
      const body = JSON.stringify(problem(errorsUrl, 'invalid_request', message, id));
      void anonymous.take(socket.remoteAddress).then((v) => {
        if (socket.writable) {
          socket.write(
            `HTTP/1.1 400 Bad Request\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
              `X-Request-Id: ${id}\r\nService-Version: ${SERVICE_VERSION}\r\nRateLimit-Limit: ${v.limit}\r\n` +
              `RateLimit-Remaining: ${v.remaining}\r\nRateLimit-Reset: ${v.reset}\r\nConnection: close\r\n\r\n${body}`,
          );
        }
        socket.destroy();
      });
    },
    // TOLK_TRUSTED_PROXIES: req.ip is X-Forwarded-For's client only for connections from these proxies.
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    // Every line goes through one redaction rule: no token or key of a URL reaches the log (http/redact.ts).
    // Readable lines in a terminal, JSON elsewhere (startup.ts logDestination).
    logger: { level: config.logLevel, ...LOG_REDACTION, stream: logDestination(1) },
    // One line a request at info, instead of Fastify's two (http/request-log.ts).
    logController: requestLog,
    childLoggerFactory: lazyChildLogger,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    bodyLimit: config.bodyLimit,
    // No path segment is too long to reach its route: the route's params schema refuses a
    // long id naming it (`id: Too big: …`, http/schemas.ts PathId) without echoing it. Node's
    // 16 KiB limit on the URL and headers bounds a segment before this does.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16 * 1024 },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  // A request no route matches: 405 with Allow when its path takes other methods, else 404.
  const miss = new RouteMiss(app);
  app.addHook('onRoute', miss.onRoute);
  app.setNotFoundHandler(miss.notFoundHandler);
  // Many clients send `Content-Type: application/json` with every POST, also
  // when there is nothing to send (leave, rotate-secret, test): an empty or
  // blank body is no body, as with Stripe's API. Anything else goes through
  // Fastify's own JSON parser (prototype-poisoning protection included). JSON is
  // the only body parsed: any other Content-Type (text/plain too) is 415.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    parseJson(req, body as string, done);
  });

  const cache = new CredentialCache(pool, deps.databaseUrl);
  await cache.start();
  const stats = new RequestStats(pool, clock);
  const bus = new SessionBus(deps.databaseUrl);
  await bus.start();
  // Listeners waiting in this process (bench/ reads bus.size).
  app.decorate('sessionBus', bus);
  app.decorateRequest('cred', null);
  app.decorateRequest('idempotency', null);
  app.addHook('onClose', async () => {
    await stats.close();
    await cache.close();
    await bus.close();
  });

  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
    reply.header('Service-Version', SERVICE_VERSION);
    if (req.routeOptions.config.ops) return;
    if (req.routeOptions.config.auth) {
      try {
        const cred = await authenticate(req, reply, { cache, limiter, now: clock });
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
        if (req.routeOptions.config.mcp) throw new ApiError('unauthorized', err.message, { 'WWW-Authenticate': mcpChallenge(config.publicBaseUrl) });
        throw err;
      }
    }
    const v = await anonymous.take(req.ip);
    setRateHeaders(reply, v);
    if (!v.allowed) throw anonymousLimited(req.ip, v.reset);
  });
  // After the headers above, before any body is read: a wrong method is 405, not a complaint about its body.
  app.addHook('onRequest', miss.onRequest);
  app.addHook('preValidation', (req, _reply, done) => {
    // PostgreSQL text cannot hold U+0000; refuse it here, naming the field, instead of failing in SQL.
    try {
      // A tool's arguments are checked as the tool's (mcp/tools.ts), where an error names the argument.
      if (req.routeOptions.config.mcp) rejectDeep('body', req.body);
      else {
        rejectNul('query', req.query);
        rejectNul('body', req.body);
      }
      if (req.routeOptions.config.idempotent) readIdempotencyKey(req);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  });
  // A callback hook, not an async one: it runs for every answer, thousands at once when a phrase reaches long-polls.
  app.addHook('onResponse', (req, reply, done) => {
    if (req.cred) stats.record(req.cred.id, req.cred.orgId, req.cred.livemode, reply.statusCode >= 400);
    done();
  });

  // Each operation of /v1/openapi.json names the permission it needs (x-permission).
  app.addHook('onRoute', (route) => {
    const permission = route.config?.permission;
    if (permission && route.schema) (route.schema as Record<string, unknown>)['x-permission'] = permission;
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

  opsRoutes(app, { pool, boss: deps.boss, gateway: deps.gateway, metricsToken: config.metricsToken });
  const { databaseUrl: _url, ...given } = deps;
  // Readers of a log (a phrase read aloud) wait for its translations on the bus, as its listeners do.
  const services: Services = { ...given, reactions: given.reactions ?? REACTIONS, logBus: bus };
  const reader = new EventReader(services);
  for (const register of V1_ROUTES) register(app, { ...services, stats, bus, reader });
  registerPages(app, services, bus);
  mcpServer(app, { ...services, stats, bus, reader });

  let openapi: unknown = null;
  // The reference and its documents in one context: its onSend hook gives every
  // answer there a Content-Security-Policy, X-Frame-Options and nosniff (http/docs.ts).
  await app.register(async (docs) => {
    docs.addHook('onSend', docsSecurityHeaders(() => config.publicBaseUrl));
    docs.get('/v1/openapi.json', { schema: { hide: true } }, async () => {
      openapi ??= finishOpenApi(app.swagger() as never);
      return openapi;
    });
    docs.get('/docs/errors', { schema: { hide: true } }, async () => ({ data: ERROR_CATALOGUE }));
    // The reference page works offline and shows only our API: its script comes
    // from this server (the plugin serves it at /docs/js/scalar.js; a `cdn` or
    // `bundle` option would load it from jsDelivr instead), system fonts instead
    // of fonts.scalar.com, and none of the renderer vendor's services: its AI
    // agent, MCP, developer tools (Share, Deploy), "Open API Client"
    // (client.scalar.com). No `proxyUrl`: "Test Request" goes straight to the API.
    // test/docs/docs-page.test.ts opens it in Chromium with the network cut.
    await docs.register(scalar, {
      routePrefix: '/docs',
      configuration: {
        url: '/v1/openapi.json',
        title: 'Tolk API reference',
        pageTitle: 'Tolk API reference',
        withDefaultFonts: false,
        agent: { disabled: true },
        mcp: { disabled: true },
        showDeveloperTools: 'never',
        hideClientButton: true,
        // On by default in the configuration schema (unused by the bundle today).
        telemetry: false,
        customCss: [
          ':root {',
          '  --scalar-font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif, "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji";',
          '  --scalar-font-code: ui-monospace, SFMono-Regular, Menlo, Monaco, Consolas, "Liberation Mono", "Courier New", monospace;',
          '}',
          // The sidebar's "Powered by Scalar" link has no option of its own.
          'a[href^="https://www.scalar.com"] { display: none !important; }',
        ].join('\n'),
      },
    });
  });
  return app;
}
