import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses, IdParams, optionalBody } from '../../http/schemas.ts';
import { EventTypeName, TestDelivery, WEBHOOKS_ROUTE, WEBHOOKS_TAG } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { sendTestEvent } from '../endpoints.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).post('/v1/webhook-endpoints/:id/test', {
    config: WEBHOOKS_ROUTE,
    schema: {
      summary: 'Send a signed test event now',
      description: 'The test event is recorded as a delivery (see deliveries) but not retried and not written to the event log.',
      tags: [WEBHOOKS_TAG],
      params: IdParams,
      body: optionalBody(z.object({ type: EventTypeName.default('meeting.created') })),
      response: { 200: TestDelivery, ...errorResponses },
    },
    handler: (req) => sendTestEvent(s, caller(req), req.params.id, req.body.type),
  });
}
