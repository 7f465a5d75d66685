import type { FastifyInstance } from 'fastify';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { Room } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { endRoom } from '../rooms.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).delete('/v1/rooms/:id', {
    config: { auth: true, permission: 'rooms:write' },
    schema: {
      summary: 'End a room for everyone',
      description: 'Agent sessions in the room end. Ending an ended room returns it unchanged.',
      tags: ['Rooms'],
      params: IdParams,
      response: { 200: Room, ...errorResponses },
    },
    handler: (req) => {
      const cred = caller(req);
      return endRoom(s, { orgId: cred.orgId, livemode: cred.livemode }, req.params.id, 'deleted');
    },
  });
}
