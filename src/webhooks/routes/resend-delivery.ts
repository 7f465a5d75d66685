import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses, PathId } from '../../http/schemas.ts';
import { TestDelivery, WEBHOOKS_ROUTE, WEBHOOKS_TAG } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { resendDelivery } from '../endpoints.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).post('/v1/webhook-endpoints/:id/deliveries/:delivery_id/resend', {
    config: WEBHOOKS_ROUTE,
    schema: {
      summary: 'Send a delivery again now',
      description: 'Same body and event id as before, signed anew; the attempt is added to the delivery.',
      tags: [WEBHOOKS_TAG],
      params: z.object({ id: PathId, delivery_id: PathId }),
      response: { 200: TestDelivery, ...errorResponses },
    },
    handler: (req) => resendDelivery(s, caller(req), req.params.id, req.params.delivery_id),
  });
}
