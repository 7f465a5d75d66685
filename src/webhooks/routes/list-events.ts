import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses, ListLimit } from '../../http/schemas.ts';
import { EventLogEntry, WEBHOOKS_TAG } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { listEvents } from '../events.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/events', {
    config: { auth: true, permission: 'events:read' },
    schema: {
      summary: 'Event log of the last 30 days, newest first',
      tags: [WEBHOOKS_TAG],
      querystring: z.object({
        type: z.string().max(100).optional().describe('An event type, or a family such as `call.*`'),
        since: z.string().max(40).optional().describe('ISO 8601 date-time or Unix seconds; events created at or after it'),
        limit: ListLimit,
        starting_after: z.string().max(100).optional().describe('Id of the last event of the previous page'),
      }),
      response: { 200: z.object({ data: z.array(EventLogEntry), has_more: z.boolean() }), ...errorResponses },
    },
    handler: (req) => listEvents(s, caller(req), req.query),
  });
}
