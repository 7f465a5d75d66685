import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Email, errorResponses, IdempotencyHeaders, Lang, OneLine } from '../../http/schemas.ts';
import { Voice } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { idempotent } from '../../http/idempotency.ts';
import { requestVoice } from '../voices.ts';
import type { Services } from '../../services.ts';

export const CloneVoiceBody = z.object({
  name: OneLine((s) => s.min(1).max(60)),
  language: Lang.describe('The voice\'s language; the consent sentence is read in it (pt, en and es; other languages read the English one)'),
  person: z.object({
    name: OneLine((s) => s.min(1).max(80)),
    email: Email.describe('The consent link and a one-time code go to this address; answers show it masked'),
  }),
  purpose: OneLine((s) => s.min(1).max(300)).optional().describe('Why you ask for this voice, in your words, on one line: shown to the person on the consent page and in the mail'),
});

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).post('/v1/voices', {
    config: { auth: true, permission: 'voices:clone', idempotent: true },
    schema: {
      summary: 'Clone a voice through the consent flow',
      description: 'The voice is created awaiting_consent and the person is e-mailed consent_url. There they confirm the address with a one-time code, read who asks and why, and record the consent sentence live. The recording is checked (real audio, at least 3 s, not silence); the voice then goes processing and ready. The link lapses after 7 days (expired). A test key\'s voice is made by the simulator. A live key\'s voice is made at the operator\'s cloning engine (ElevenLabs instant voice cloning) from the recording, and is deleted there when the consent is withdrawn; it fails (failed, with failure_code provider_rejected or provider_unavailable) when the provider refuses it or stays unreachable. Live keys answer 501 not_available_yet only when the operator configured no cloning engine.',
      tags: ['Voices'],
      headers: IdempotencyHeaders,
      body: CloneVoiceBody,
      response: { 202: Voice, ...errorResponses },
    },
    handler: (req, reply) =>
      idempotent(s.pool, req, reply, async (tx) => ({ status: 202, body: await requestVoice(s, tx, caller(req), req.body) })),
  });
}
