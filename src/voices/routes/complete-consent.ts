import type { FastifyInstance } from 'fastify';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { Voice } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { completeConsent } from '../voices.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).post('/v1/test-helpers/voices/:id/complete-consent', {
    config: { auth: true, permission: 'voices:clone' },
    schema: {
      summary: 'Test mode: complete the consent as if recorded',
      description: 'Test keys only: in live mode only the person gives their consent, on the consent page, so live keys answer 501 not_available_yet whether or not a cloning engine is configured. No body. Completes the consent of a voice awaiting it as if the person had recorded it: 200 with the voice, now processing; it is ready within 2 s. A voice in any other state answers 409.',
      tags: ['Voices'],
      params: IdParams,
      response: { 200: Voice, ...errorResponses },
    },
    handler: (req) => completeConsent(s, caller(req), req.params.id),
  });
}
