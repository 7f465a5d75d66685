import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses, FreeText, IdParams, Lang } from '../../http/schemas.ts';
import { SESSION_ROUTE, SESSIONS_LIVE_NOTE, SESSIONS_TAG } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { say } from '../say.ts';
import type { RouteDeps } from '../../http/route.ts';

export const SayBody = z.object({
  text: FreeText((s) => s.min(1).max(1000)),
  lang: Lang.optional().describe("Language of text; default the session's speak_lang"),
  interruptible: z.boolean().optional().describe(
    "Whether someone who talks over it stops it: default true on a call's session (the callee talking stops the agent's speech, " +
    'say.interrupted), false elsewhere. A call\'s AI disclosure is never interrupted.',
  ),
});
export const SayResult = z.object({
  utterance_id: z.string(), queued_ms: z.int(), charged_seconds: z.int(), livemode: z.boolean(),
  voice_id: z.string().nullable().describe('The voice it is spoken with: the session\'s voice_id, or null for the default voice (none chosen, or the chosen voice was revoked since)'),
});

export default function register(app: FastifyInstance, s: RouteDeps) {
  zapp(app).post('/v1/sessions/:id/say', {
    config: SESSION_ROUTE,
    schema: {
      summary: 'Speak text in the room',
      description:
        `${SESSIONS_LIVE_NOTE} The text is translated into every listener language and spoken. charged_seconds = seconds spoken ` +
        '(at 15 characters a second) times the number of listener languages (what the other sessions, the people on the room page and, in test mode, the robots hear in), ' +
        'debited from the organization\'s balance for a live key (a test key moves none); 402 spend_limit_reached above a spending limit or, live, ' +
        'when the balance cannot pay it. Its progress arrives as session events of this session: say.started, then say.finished ' +
        '(or say.interrupted), with meta.utterance_id and meta.spoken_ms; in a room, where the pages read it aloud, timed by the speaking-rate estimate.',
      tags: [SESSIONS_TAG],
      params: IdParams,
      body: SayBody,
      response: {
        202: SayResult,
        ...errorResponses,
      },
    },
    handler: async (req, reply) => reply.code(202).send(await say(s, caller(req), req.params.id, req.body)),
  });
}
