import type { FastifyInstance } from 'fastify';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { Slots, SlotsQuery } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { getSlots } from '../busy.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/event-types/:id/slots', {
    config: { auth: true, permission: 'calendar:read' },
    schema: {
      summary: 'Free slots of a booking link',
      description: "Dates in the host's time zone (tz); to is inclusive, at most 62 days; default the next 7 days. No slot starts within the next hour.",
      tags: ['Meetings and booking'],
      params: IdParams,
      querystring: SlotsQuery,
      response: { 200: Slots, ...errorResponses },
    },
    handler: (req) => getSlots(s, caller(req), req.params.id, req.query),
  });
}
