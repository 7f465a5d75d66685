import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses, IdParams, ListLimit } from '../../http/schemas.ts';
import { Delivery, WEBHOOKS_ROUTE, WEBHOOKS_TAG } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { listDeliveries } from '../endpoints.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/webhook-endpoints/:id/deliveries', {
    config: WEBHOOKS_ROUTE,
    schema: {
      summary: 'Deliveries to an endpoint, newest first, with every attempt',
      tags: [WEBHOOKS_TAG],
      params: IdParams,
      querystring: z.object({ limit: ListLimit, starting_after: z.string().max(100).optional().describe('Id of the last delivery of the previous page') }),
      response: { 200: z.object({ data: z.array(Delivery), has_more: z.boolean() }), ...errorResponses },
    },
    handler: (req) => listDeliveries(s, caller(req), req.params.id, req.query.limit, req.query.starting_after),
  });
}
