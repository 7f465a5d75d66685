import type { FastifyInstance } from 'fastify';
import { IdParams, Room, errorResponses } from '../../../http/schemas.ts';
import { caller, zapp } from '../../../http/route.ts';
import type { Services } from '../../../services/context.ts';
import { getRoom } from '../../../services/rooms.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/rooms/:id', {
    config: { auth: true, permission: 'rooms:read' },
    schema: {
      summary: 'Retrieve a room',
      tags: ['Rooms'],
      params: IdParams,
      response: { 200: Room, ...errorResponses },
    },
    handler: (req) => getRoom(s, s.pool, caller(req), req.params.id),
  });
}
