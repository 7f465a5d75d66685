import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { IdempotencyHeaders, Lang } from '../../http/schemas.ts';
import { Call, CallPurpose, ConsentKind } from '../schemas.ts';
import { notAvailableYet } from '../../http/not-available.ts';
import { assertDestinationAllowed, assertLanguagesAllowed, assertNumberAllowed, assertVoiceAllowed, countryOf } from '../../restrictions.ts';

export default function register(app: FastifyInstance) {
  notAvailableYet(app, { method: 'POST', url: '/v1/calls', tag: 'Phone calls', summary: 'Place a translated call as an AI agent',
    config: { permission: 'calls:dial', idempotent: true }, headers: IdempotencyHeaders,
    body: z.object({
      to: z.string().min(4).max(32),
      from: z.string().max(32).optional(),
      purpose: CallPurpose,
      consent: z.object({ kind: ConsentKind, ref: z.string().max(200).optional() }).optional(),
      agent_lang: Lang.default('en'),
      remote_lang: Lang.optional(),
      voice_id: z.string().max(100).optional(),
    }),
    restrict: (cred, b) => {
      assertDestinationAllowed(cred, 'to', countryOf(b.to));
      assertNumberAllowed(cred, 'from', b.from);
      assertLanguagesAllowed(cred, 'agent_lang', [b.agent_lang]);
      assertLanguagesAllowed(cred, 'remote_lang', [b.remote_lang]);
      assertVoiceAllowed(cred, 'voice_id', b.voice_id);
    },
    response: { 201: Call } });
}
