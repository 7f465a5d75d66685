import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { WEBHOOKS_ROUTE, WEBHOOKS_TAG } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { rotateSecret } from '../endpoints.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).post('/v1/webhook-endpoints/:id/rotate-secret', {
    config: WEBHOOKS_ROUTE,
    schema: {
      summary: 'Rotate the signing secret',
      description: 'The new secret is shown once. For 24 hours both secrets sign and Service-Signature carries two v1 values.',
      tags: [WEBHOOKS_TAG],
      params: IdParams,
      response: { 200: z.object({ id: z.string(), secret: z.string().regex(/^whsec_/) }), ...errorResponses },
    },
    handler: (req) => rotateSecret(s, caller(req), req.params.id),
  });
}
