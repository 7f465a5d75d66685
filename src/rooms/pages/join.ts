import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseBody } from '../../http/pages.ts';
import { Lang, OneLine } from '../../http/schemas.ts';
import type { Services } from '../../services.ts';
import { joinAsPerson } from '../participants.ts';
import { hide } from './live.ts';

// POST /r/:id/participants: a person joins from the page ({ name, speak, hear, t? }): 201 with the
// participant and the secret of its page.

const JoinBody = z.object({
  name: OneLine((s) => s.trim().min(1, 'required').max(80)),
  speak: Lang,
  hear: Lang,
  t: z.string().max(4096).optional(),
});

export default function register(app: FastifyInstance, s: Services) {
  app.post<{ Params: { id: string } }>('/r/:id/participants', hide, async (req, reply) => {
    const body = parseBody(JoinBody, req.body);
    return reply.code(201).send(await joinAsPerson(s, req.params.id, body, req.ip));
  });
}
