import type { FastifyInstance } from 'fastify';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { Voice } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { getVoice } from '../voices.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/voices/:id', {
    config: { auth: true, permission: 'voices:read' },
    schema: {
      summary: 'Retrieve a voice with its consent status',
      description: 'A clone shows its status; consent_url only while awaiting consent. The key that asked for a clone sees it in every state, the organization\'s other keys once it is ready.',
      tags: ['Voices'],
      params: IdParams,
      response: { 200: Voice, ...errorResponses },
    },
    handler: (req) => getVoice(s, caller(req), req.params.id),
  });
}
