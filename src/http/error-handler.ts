import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, RouteOptions } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { ApiError, problem, truncate, type ErrorCode } from '../errors.ts';
import { isDatabaseDown } from '../db/pool.ts';

/** Seconds a client is asked to wait while the database is unreachable. */
const DATABASE_RETRY_AFTER = 2;

// The one error path. Every failure becomes problem+json; 5xx never show internals.

type ValidationIssue = { instancePath?: string; message?: string };

function fieldOf(context: string | undefined, instancePath: string | undefined): string {
  const path = (instancePath ?? '').replace(/^\//, '').split('/').filter(Boolean).join('.');
  if (path) return path;
  return context === 'body' ? 'body' : context === 'querystring' ? 'query' : context ?? 'request';
}

/** 415: the body came with another media type (or none); only application/json bodies are parsed. */
function unsupportedMediaType(req: FastifyRequest): { code: ErrorCode; message: string } {
  const given = req.headers['content-type'];
  return {
    code: 'unsupported_media_type',
    message: given
      ? `Content-Type: '${truncate(given, 100)}' is not supported; send the body as application/json`
      : 'Content-Type: missing; send the body as application/json',
  };
}

function fromFastify(err: FastifyError, req: FastifyRequest): { code: ErrorCode; message: string } | null {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { code: 'payload_too_large', message: 'body: larger than allowed' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType(req);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { code: 'invalid_request', message: 'body: empty, but Content-Type is application/json; send a JSON object' };
    case 'FST_ERR_BAD_URL':
      return { code: 'invalid_request', message: 'path: not a valid URL (malformed percent-encoding)' };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { code: 'invalid_request', message: `body: ${err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ? 'malformed JSON' : 'Content-Length does not match the body'}` };
  }
  if (err instanceof SyntaxError || err.name === 'SyntaxError') return { code: 'invalid_request', message: 'body: malformed JSON' };
  if (err.statusCode === 413) return { code: 'payload_too_large', message: 'body: larger than allowed' };
  if (err.statusCode === 415) return unsupportedMediaType(req);
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    // The message names the field first (api.md section 7); Fastify's own messages do not.
    return { code: 'invalid_request', message: /^[A-Za-z_.0-9-]+: /.test(err.message) ? err.message : `request: ${err.message}` };
  }
  return null;
}

/** What an error means to the person or program that sent the request: its code, its message, and headers to send with it. */
export type MappedError = { code: ErrorCode; message: string; headers: Record<string, string> };

/**
 * The one mapping from an error to (code, message): the API answers it as
 * problem+json (makeErrorHandler), the pages as problem+json to their script
 * or as a page to a browser (http/pages.ts pageErrorHandler). 5xx never show
 * internals.
 */
export function mapError(err: FastifyError, req: FastifyRequest): MappedError {
  if (err instanceof ApiError) return { code: err.code, message: err.message, headers: err.headers };
  if (hasZodFastifySchemaValidationErrors(err)) {
    const first = (err.validation as ValidationIssue[])[0];
    const field = fieldOf(err.validationContext, first?.instancePath);
    // A required body left out reads better as that than as zod's "expected object, received null".
    const message = field === 'body' && req.body == null ? 'body: required; send a JSON object' : `${field}: ${first?.message ?? 'invalid'}`;
    return { code: 'invalid_request', message, headers: {} };
  }
  if (isResponseSerializationError(err)) {
    req.log.error({ err, issues: err.cause?.issues }, 'response does not match its schema');
    return { code: 'internal_error', message: 'Internal error; retry with backoff', headers: {} };
  }
  const known = fromFastify(err, req);
  if (known) return { ...known, headers: {} };
  if (isDatabaseDown(err)) {
    // The database is stopped or restarting: nothing is wrong with the
    // request, and the pools reconnect by themselves once it is back.
    req.log.warn({ code: (err as { code?: string }).code }, 'database unreachable');
    return {
      code: req.routeOptions.config?.mcp ? 'mcp_disabled' : 'api_disabled',
      message: `The service cannot reach its database; retry in ${DATABASE_RETRY_AFTER} s`,
      headers: { 'Retry-After': String(DATABASE_RETRY_AFTER) },
    };
  }
  req.log.error({ err }, 'unhandled error');
  return { code: 'internal_error', message: 'Internal error; retry with backoff', headers: {} };
}

/** The API's errors: problem+json. */
export function makeErrorHandler(errorsUrl: string) {
  return function errorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
    const { code, message, headers } = mapError(err, req);
    for (const [k, v] of Object.entries(headers)) reply.header(k, v);
    const body = problem(errorsUrl, code, message, req.id);
    reply.code(body.status).type('application/problem+json').serializer(JSON.stringify).send(body);
  };
}

/** The order methods are listed in an Allow header. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const methodRank = (m: string) => (METHOD_ORDER.includes(m) ? METHOD_ORDER.indexOf(m) : METHOD_ORDER.length);

/**
 * Requests no route matches: `405 method_not_allowed`, with an Allow header
 * listing what the path accepts, when the path is served under other methods
 * (`PUT /v1/rooms`, `PATCH /v1/rooms/room_x`); else `404 not_found`. Fastify's
 * own router decides (findRoute matches a concrete path as a request would),
 * asked once per method some route uses: a handful of lookups, only for
 * requests that missed.
 *
 * Wire `onRoute` and `onRequest` as hooks (the latter after the hook that sets
 * the headers every answer carries): deciding in onRequest answers a wrong
 * method before its body is read, so it is never a 413, 415 or 400 about the
 * body. `notFoundHandler` gives the same answer should it ever run.
 */
export class RouteMiss {
  private readonly app: FastifyInstance;
  /** Every method some route registered, in Allow order. */
  private methods: HTTPMethods[] = [];

  constructor(app: FastifyInstance) {
    this.app = app;
  }

  readonly onRoute = (route: RouteOptions): void => {
    const added = [route.method].flat().map((m) => m.toUpperCase() as HTTPMethods).filter((m) => !this.methods.includes(m));
    if (added.length) this.methods = [...this.methods, ...added].sort((a, b) => methodRank(a) - methodRank(b) || a.localeCompare(b));
  };

  readonly onRequest = async (req: FastifyRequest): Promise<void> => {
    if (req.is404) throw this.error(req);
  };

  readonly notFoundHandler = async (req: FastifyRequest): Promise<never> => {
    throw this.error(req);
  };

  /** The methods routes serve `url` with (a concrete path; a query string is ignored). */
  allowed(url: string): HTTPMethods[] {
    const path = url.split('?')[0] ?? '';
    return this.methods.filter((method) => this.app.findRoute({ method, url: path }) !== null);
  }

  error(req: FastifyRequest): ApiError {
    const path = truncate(req.url.split('?')[0] ?? '', 100);
    const served = this.allowed(req.url);
    // A route of this method took the request and found nothing (callNotFound): 404, not 405.
    const allow = served.includes(req.method as HTTPMethods) ? [] : served.filter((m) => m !== req.method);
    if (allow.length === 0) return new ApiError('not_found', `No route ${truncate(req.method, 20)} ${path}`);
    return new ApiError('method_not_allowed', `${truncate(req.method, 20)} ${path}: method not allowed; this path accepts ${allow.join(', ')}`, {
      Allow: allow.join(', '),
    });
  }
}
