import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses, ListLimit } from '../../http/schemas.ts';
import { PhoneNumber } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { listNumbers } from '../numbers.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/numbers', {
    config: { auth: true, permission: 'numbers:read' },
    schema: {
      summary: "Numbers usable as caller id: the organization's own first, the shared one last",
      tags: ['Phone numbers'],
      querystring: z.object({ limit: ListLimit }),
      response: { 200: z.object({ data: z.array(PhoneNumber) }), ...errorResponses },
    },
    handler: async (req) => ({ data: await listNumbers(s, caller(req), req.query.limit) }),
  });
}
