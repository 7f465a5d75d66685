import type { FastifyInstance } from 'fastify';
import { errorResponses, IdParams } from '../../../http/schemas.ts';
import { Room } from '../../schemas.ts';
import { caller, zapp } from '../../../http/route.ts';
import { cancelMeeting } from '../meetings.ts';
import type { Services } from '../../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).delete('/v1/meetings/:id', {
    config: { auth: true, permission: 'calendar:write' },
    schema: {
      summary: 'Cancel a meeting',
      description: 'A scheduled meeting becomes canceled and its invitees are sent a cancellation (METHOD:CANCEL). Canceling a canceled meeting returns it unchanged; one that has started or ended answers 409.',
      tags: ['Meetings and booking'],
      params: IdParams,
      response: { 200: Room, ...errorResponses },
    },
    handler: (req) => cancelMeeting(s, caller(req), req.params.id),
  });
}
