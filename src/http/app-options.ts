import type { FastifyError, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Config } from '../config.ts';
import { SERVICE_VERSION } from '../config.ts';
import { newId } from '../ids.ts';
import { problem } from '../errors.ts';
import { lazyChildLogger } from './lazy-logger.ts';
import type { RequestLogController } from './request-log.ts';
import { LOG_REDACTION } from './redact.ts';
import { logDestination } from '../startup.ts';
import { type AnonymousLimiter, setRateHeaders } from './auth.ts';

export type Edge = {
  anonymous: AnonymousLimiter;
  errorHandler: (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => void;
  requestLog: RequestLogController;
  errorsUrl: string;
};

/**
 * Fastify's own options: the logger and its one line a request, request ids,
 * the body limit, trusted proxies, the router; and the answers to what is
 * refused before any hook runs, with the same headers and problem+json as
 * every other error.
 */
export function appOptions(config: Config, { anonymous, errorHandler, requestLog, errorsUrl }: Edge): FastifyServerOptions {
  return {
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
  };
}
