import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses } from '../../http/schemas.ts';
import { WebhookEndpoint, WEBHOOKS_ROUTE, WEBHOOKS_TAG } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { listEndpoints } from '../endpoints.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/webhook-endpoints', {
    config: WEBHOOKS_ROUTE,
    schema: { summary: 'Webhook endpoints of this environment', tags: [WEBHOOKS_TAG], response: { 200: z.object({ data: z.array(WebhookEndpoint) }), ...errorResponses } },
    handler: (req) => listEndpoints(s, caller(req)),
  });
}
