import type { FastifyInstance } from 'fastify';
import { DataList, errorResponses } from '../../http/schemas.ts';
import { Call } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { listCalls } from '../calls.ts';
import type { Services } from '../../services.ts';

/** The newest calls listed (api.md gives the list no paging parameters). */
export const CALLS_LISTED = 100;

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/calls', {
    config: { auth: true, permission: 'calls:read' },
    schema: {
      summary: 'Calls placed by this credential, newest first',
      description: `The ${CALLS_LISTED} newest calls this credential placed.`,
      tags: ['Phone calls'],
      response: { 200: DataList(Call), ...errorResponses },
    },
    handler: async (req) => ({ data: await listCalls(s, caller(req), CALLS_LISTED) }),
  });
}
