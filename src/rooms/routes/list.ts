import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses, ListLimit } from '../../http/schemas.ts';
import { RoomList } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { listRooms } from '../rooms.ts';
import type { Services } from '../../services.ts';

export const ListQuery = z.object({
  limit: ListLimit,
  starting_after: z.string().max(100).optional().describe('Id of the last room of the previous page'),
});

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/rooms', {
    config: { auth: true, permission: 'rooms:read' },
    schema: {
      summary: 'List rooms, newest first',
      tags: ['Rooms'],
      querystring: ListQuery,
      response: { 200: RoomList, ...errorResponses },
    },
    handler: (req) => listRooms(s, caller(req), req.query.limit, req.query.starting_after),
  });
}
