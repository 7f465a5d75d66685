import type { FastifyInstance } from 'fastify';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { Room } from '../schemas.ts';
import { caller, plainJson, zapp } from '../../http/route.ts';
import { getRoom } from '../rooms.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/rooms/:id', {
    config: { auth: true, permission: 'rooms:read' },
    schema: {
      summary: 'Retrieve a room',
      tags: ['Rooms'],
      params: IdParams,
      response: { 200: Room, ...errorResponses },
    },
    serializerCompiler: plainJson,
    handler: (req) => getRoom(s, s.pool, caller(req), req.params.id),
  });
}
