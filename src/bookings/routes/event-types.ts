import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses } from '../../http/schemas.ts';
import { EventType } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import { listEventTypes } from '../links.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/event-types', {
    config: { auth: true, permission: 'calendar:read' },
    schema: {
      summary: "The organization's booking links",
      tags: ['Meetings and booking'],
      response: { 200: z.object({ data: z.array(EventType) }), ...errorResponses },
    },
    handler: (req) => listEventTypes(s, caller(req)),
  });
}
