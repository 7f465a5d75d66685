import type { FastifyInstance } from 'fastify';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { Call } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { getCall } from '../calls.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/calls/:id', {
    config: { auth: true, permission: 'calls:read' },
    schema: { summary: 'Retrieve a call', tags: ['Phone calls'], params: IdParams, response: { 200: Call, ...errorResponses } },
    handler: (req) => getCall(s, caller(req), req.params.id),
  });
}
