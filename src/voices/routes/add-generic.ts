import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses } from '../../http/schemas.ts';
import { Voice } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { addGenericVoice } from '../voices.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).post('/v1/voices/generic', {
    config: { auth: true, permission: 'voices:write' },
    schema: {
      summary: "Add a generic voice to the caller's voices",
      description: 'Adds a catalog voice (GET /v1/voices/catalog) to the organization\'s voices in the key\'s mode, so agent sessions and calls can speak with it (voice_id). Adding it again returns the same voice. An id not in the catalog answers 404.',
      tags: ['Voices'],
      body: z.object({ voice_id: z.string().regex(/^generic_[0-9A-Za-z]{6,40}$/, 'must look like generic_XXXXXX') }),
      response: { 200: Voice, ...errorResponses },
    },
    handler: (req) => addGenericVoice(s, caller(req), req.body.voice_id),
  });
}
