import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { WEBHOOKS_ROUTE, WEBHOOKS_TAG } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { deleteEndpoint } from '../endpoints.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).delete('/v1/webhook-endpoints/:id', {
    config: WEBHOOKS_ROUTE,
    schema: {
      summary: 'Delete a webhook endpoint',
      tags: [WEBHOOKS_TAG],
      params: IdParams,
      response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }), ...errorResponses },
    },
    handler: (req) => deleteEndpoint(s, caller(req), req.params.id),
  });
}
