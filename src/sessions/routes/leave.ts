import type { FastifyInstance } from 'fastify';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { Session, SESSION_ROUTE, SESSIONS_LIVE_NOTE, SESSIONS_TAG } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { leave } from '../leave.ts';
import type { RouteDeps } from '../../http/route.ts';

export default function register(app: FastifyInstance, s: RouteDeps) {
  zapp(app).post('/v1/sessions/:id/leave', {
    config: SESSION_ROUTE,
    schema: {
      summary: 'Leave the room',
      description: `${SESSIONS_LIVE_NOTE} The conversation becomes a transcript (transcript.ready).`,
      tags: [SESSIONS_TAG],
      params: IdParams,
      response: { 200: Session, ...errorResponses },
    },
    handler: (req) => leave(s, caller(req), req.params.id),
  });

}
