import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses, OneLine } from '../../http/schemas.ts';
import { EventTypeName, WebhookEndpointWithSecret, WEBHOOKS_ROUTE, WEBHOOKS_TAG } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { createEndpoint } from '../endpoints.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).post('/v1/webhook-endpoints', {
    config: WEBHOOKS_ROUTE,
    schema: {
      summary: 'Register a webhook endpoint',
      description: 'The url must be https and resolve to public addresses only; redirects are not followed. The signing secret is in this answer and never again.',
      tags: [WEBHOOKS_TAG],
      body: z.object({
        url: z.string().max(2000),
        events: z.array(EventTypeName).min(1).max(100),
        description: OneLine((s) => s.max(200)).optional(),
      }),
      response: { 201: WebhookEndpointWithSecret, ...errorResponses },
    },
    handler: async (req, reply) => reply.code(201).send(await createEndpoint(s, caller(req), req.body)),
  });
}
