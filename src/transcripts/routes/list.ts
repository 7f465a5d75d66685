import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses, ListLimit } from '../../http/schemas.ts';
import { TRANSCRIPTS_ROUTE, TranscriptSummary } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { listTranscripts } from '../transcripts.ts';
import type { RouteDeps } from '../../http/route.ts';

export default function register(app: FastifyInstance, s: RouteDeps) {
  zapp(app).get('/v1/transcripts', {
    config: TRANSCRIPTS_ROUTE,
    schema: {
      summary: 'Transcripts readable by the credential, newest first',
      description: 'Every transcript of the organization in the key\'s mode. A room that had phrases has one transcript of its own, written when it ends (deleted, expired, a meeting ended or canceled): its whole conversation from the first phrase, whoever spoke (people, agents, test-mode robots). Each agent session also has its own, written when it leaves or its room ends: what the room said while it was there. A call\'s has room_id null. room_id: only those of that room.',
      tags: ['Transcripts'],
      querystring: z.object({
        room_id: z.string().max(100).optional(),
        limit: ListLimit,
        starting_after: z.string().max(100).optional(),
      }),
      response: { 200: z.object({ data: z.array(TranscriptSummary), has_more: z.boolean() }), ...errorResponses },
    },
    handler: (req) => listTranscripts(s, caller(req), req.query),
  });
}
