import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses, IdempotencyHeaders, IdParams, Lang, OneLine } from '../../http/schemas.ts';
import { Session, SESSION_ROUTE, SESSIONS_LIVE_NOTE, SESSIONS_TAG } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { idempotent } from '../../http/idempotency.ts';
import { joinRoom } from '../join.ts';
import type { RouteDeps } from '../../http/route.ts';

export const JoinBody = z.object({
  name: OneLine((s) => s.min(1).max(80)).optional().describe('Shown with an AI badge; default "Tolk Assistant"'),
  speak_lang: Lang,
  hear_lang: Lang,
  voice_id: z.string().max(100).optional(),
  announce: z.boolean().default(true),
});

export default function register(app: FastifyInstance, s: RouteDeps) {
  zapp(app).post('/v1/rooms/:id/agent-sessions', {
    config: { ...SESSION_ROUTE, idempotent: true },
    schema: {
      summary: 'An AI agent joins the room',
      description:
        `${SESSIONS_LIVE_NOTE} A live key joins when an engine translates every pair between speak_lang and hear_lang and the room's langs ` +
        "(speak_lang into each, each into hear_lang; a room with no langs: the session's two), else 501 not_available_yet naming the pairs " +
        'no engine covers. With announce=true every listener hears, in its language, that an AI assistant joined.',
      tags: [SESSIONS_TAG],
      params: IdParams,
      headers: IdempotencyHeaders,
      body: JoinBody,
      response: { 201: Session, ...errorResponses },
    },
    handler: (req, reply) =>
      idempotent(s.pool, req, reply, async (tx) => ({ status: 201, body: await joinRoom(s, tx, caller(req), req.params.id, req.body) })),
  });
}
