import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Voice } from '../schemas.ts';
import { notAvailableYet } from '../../http/not-available.ts';
import { assertVoiceAllowed } from '../../restrictions.ts';

export default function register(app: FastifyInstance) {
  notAvailableYet(app, { method: 'POST', url: '/v1/voices/generic', tag: 'Voices', summary: "Add a generic voice to the caller's voices",
    config: { permission: 'voices:write' },
    body: z.object({ voice_id: z.string().regex(/^generic_[0-9A-Za-z]{6,40}$/, 'must look like generic_XXXXXX') }),
    restrict: (cred, b) => assertVoiceAllowed(cred, 'voice_id', b.voice_id),
    response: { 200: Voice } });
}
