import type { FastifyInstance } from 'fastify';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { Voice } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { deleteVoice } from '../voices.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).delete('/v1/voices/:id', {
    config: { auth: true, permission: 'voices:write' },
    schema: {
      summary: 'Revoke a voice',
      description: 'A clone is revoked (voice.revoked): it stops being usable at once, also in agent sessions and calls already under way (they go on with the default voice), its consent link stops working and its recording is deleted (a live clone\'s voice at the cloning engine too, by a job retried until the provider confirms); the person is told when they had consented. A clone already revoked, failed or expired is returned unchanged. A generic voice is removed from the organization\'s voices and returned with active false.',
      tags: ['Voices'],
      params: IdParams,
      response: { 200: Voice, ...errorResponses },
    },
    handler: (req) => deleteVoice(s, caller(req), req.params.id),
  });
}
