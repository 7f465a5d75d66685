import type { FastifyInstance } from 'fastify';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { Session, SESSION_ROUTE, SESSIONS_LIVE_NOTE, SESSIONS_TAG } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { getSession } from '../sessions.ts';
import type { RouteDeps } from '../../http/route.ts';

export default function register(app: FastifyInstance, s: RouteDeps) {
  zapp(app).get('/v1/sessions/:id', {
    config: SESSION_ROUTE,
    schema: { summary: 'Retrieve a session', description: SESSIONS_LIVE_NOTE, tags: [SESSIONS_TAG], params: IdParams, response: { 200: Session, ...errorResponses } },
    handler: (req) => getSession(s, caller(req), req.params.id),
  });
}
