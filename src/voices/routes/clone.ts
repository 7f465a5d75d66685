import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Email, IdempotencyHeaders, Lang } from '../../http/schemas.ts';
import { Voice } from '../schemas.ts';
import { notAvailableYet } from '../../http/not-available.ts';
import { assertLanguagesAllowed } from '../../restrictions.ts';

export default function register(app: FastifyInstance) {
  notAvailableYet(app, { method: 'POST', url: '/v1/voices', tag: 'Voices', summary: 'Clone a voice through the consent flow',
    config: { permission: 'voices:clone', idempotent: true }, headers: IdempotencyHeaders,
    body: z.object({
      name: z.string().min(1).max(60),
      language: Lang,
      person: z.object({ name: z.string().min(1).max(80), email: Email }),
    }),
    restrict: (cred, b) => assertLanguagesAllowed(cred, 'language', [b.language]),
    response: { 202: Voice } });
}
