import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseBody } from '../../http/pages.ts';
import { FreeText } from '../../http/schemas.ts';
import type { Services } from '../../services.ts';
import { sayAsPerson } from '../participants.ts';
import { hide, Who } from './live.ts';

// POST /r/:id/say: a phrase typed by the participant ({ participant, secret, text }); 202.

const SayBody = z.object({ ...Who, text: FreeText((s) => s.min(1).max(1000)) });

export default function register(app: FastifyInstance, s: Services) {
  app.post<{ Params: { id: string } }>('/r/:id/say', hide, async (req, reply) => {
    const body = parseBody(SayBody, req.body);
    return reply.code(202).send(await sayAsPerson(s, req.params.id, body.participant, body.secret, body.text));
  });
}
