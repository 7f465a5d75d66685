import type { FastifyInstance } from 'fastify';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { Call } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { hangupCall } from '../events.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).post('/v1/calls/:id/hangup', {
    config: { auth: true, permission: 'calls:dial' },
    schema: {
      summary: 'Hang up a call (idempotent)',
      description: 'Ends the call: a ringing call is canceled (no_answer, end_reason agent_hangup), an answered one completed. ' +
        'An ended call is returned unchanged.',
      tags: ['Phone calls'],
      params: IdParams,
      response: { 200: Call, ...errorResponses },
    },
    handler: (req) => hangupCall(s, caller(req), req.params.id),
  });
}
