import type { FastifyInstance, RouteOptions } from 'fastify';
import type { ZodType } from 'zod';
import { ApiError } from '../errors.ts';
import { errorResponses } from './schemas.ts';
import { caller, type RouteConfig } from './route.ts';
import type { Credential } from '../credentials.ts';

// The one handler of every endpoint of api.md that later work builds. Each
// such endpoint has its own file in its capability's routes/ and registers
// here with its full request and response schemas, authentication,
// permission, key restrictions and validation, so the interface and
// /v1/openapi.json are complete and the authorization matrix covers it; a
// valid request is then answered 501 not_available_yet instead of a 404.
// Building the endpoint means replacing this call in its file with the real
// route.

export type NotAvailableRoute = {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  summary: string;
  tag: string;
  config: RouteConfig;
  params?: ZodType;
  querystring?: ZodType;
  body?: ZodType;
  headers?: ZodType;
  response: Record<number, ZodType>;
  /** Key restrictions (languages, voices, numbers, destinations) on the validated input. */
  restrict?: (cred: Credential, body: any) => void;
};

export function notAvailableYet(app: FastifyInstance, r: NotAvailableRoute): void {
  app.route({
    method: r.method,
    url: r.url,
    config: { auth: true, ...r.config },
    schema: {
      summary: r.summary,
      description: 'Not available yet on this server: a valid request answers 501 not_available_yet.',
      tags: [r.tag],
      ...(r.params && { params: r.params }),
      ...(r.querystring && { querystring: r.querystring }),
      ...(r.body && { body: r.body }),
      ...(r.headers && { headers: r.headers }),
      response: { ...r.response, ...errorResponses },
    },
    handler: async (req) => {
      r.restrict?.(caller(req), req.body ?? {});
      throw new ApiError('not_available_yet', `${r.method} ${r.url} is not available yet on this server`);
    },
  } as RouteOptions);
}
