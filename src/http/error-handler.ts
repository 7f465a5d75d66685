import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { ApiError, problem, type ErrorCode } from '../errors.ts';

// The one error path. Every failure becomes problem+json; 5xx never show internals.

type ValidationIssue = { instancePath?: string; message?: string };

function fieldOf(context: string | undefined, instancePath: string | undefined): string {
  const path = (instancePath ?? '').replace(/^\//, '').split('/').filter(Boolean).join('.');
  if (path) return path;
  return context === 'body' ? 'body' : context === 'querystring' ? 'query' : context ?? 'request';
}

function fromFastify(err: FastifyError): { code: ErrorCode; message: string } | null {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { code: 'payload_too_large', message: 'body: larger than allowed' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { code: 'invalid_request', message: 'Content-Type: must be application/json' };
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
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    // The message names the field first (api.md section 7); Fastify's own messages do not.
    return { code: 'invalid_request', message: /^[A-Za-z_.0-9-]+: /.test(err.message) ? err.message : `request: ${err.message}` };
  }
  return null;
}

export function makeErrorHandler(errorsUrl: string) {
  return function errorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
    let code: ErrorCode;
    let message: string;
    if (err instanceof ApiError) {
      code = err.code;
      message = err.message;
      for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
    } else if (hasZodFastifySchemaValidationErrors(err)) {
      const issues = err.validation as ValidationIssue[];
      const first = issues[0];
      code = 'invalid_request';
      message = `${fieldOf(err.validationContext, first?.instancePath)}: ${first?.message ?? 'invalid'}`;
    } else if (isResponseSerializationError(err)) {
      req.log.error({ err, issues: err.cause?.issues }, 'response does not match its schema');
      code = 'internal_error';
      message = 'Internal error; retry with backoff';
    } else {
      const known = fromFastify(err);
      if (known) {
        code = known.code;
        message = known.message;
      } else {
        req.log.error({ err }, 'unhandled error');
        code = 'internal_error';
        message = 'Internal error; retry with backoff';
      }
    }
    const body = problem(errorsUrl, code, message, req.id);
    reply.code(body.status).type('application/problem+json').serializer(JSON.stringify).send(body);
  };
}

export function makeNotFoundHandler(errorsUrl: string) {
  return function notFound(req: FastifyRequest, reply: FastifyReply) {
    const path = req.url.split('?')[0] ?? '';
    const body = problem(errorsUrl, 'not_found', `No route ${req.method} ${path.length > 200 ? `${path.slice(0, 200)}…` : path}`, req.id);
    reply.code(404).type('application/problem+json').serializer(JSON.stringify).send(body);
  };
}
