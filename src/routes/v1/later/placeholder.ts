import type { FastifyInstance, RouteOptions } from 'fastify';
import type { ZodType } from 'zod';
import { ApiError } from '../../../errors.ts';
import { errorResponses } from '../../../http/schemas.ts';
import { caller, type RouteConfig } from '../../../http/route.ts';
import type { Credential } from '../../../credentials.ts';

// Endpoints of api.md that later work builds. They are registered now with
// their full request and response schemas, authentication, permission and
// validation, so the interface and /v1/openapi.json are complete; a valid
// request is then answered 501 not_available_yet instead of a 404.

export type Placeholder = {
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

export function registerPlaceholders(app: FastifyInstance, routes: Placeholder[]): void {
  for (const r of routes) {
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
}
