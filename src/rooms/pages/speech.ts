import type { FastifyInstance } from 'fastify';
import { readAloud } from '../read-aloud.ts';
import { hide, who, type RoomPageDeps, type WhoQuery } from './live.ts';

// GET /r/:id/speech?seq=N&participant=&secret=: "read aloud", phrase N spoken in the person's language, as WAV (rooms/read-aloud.ts).
export default function register(app: FastifyInstance, d: RoomPageDeps) {
  app.get<{ Params: { id: string }; Querystring: WhoQuery & { seq?: string } }>('/r/:id/speech', hide, async (req, reply) => {
    const p = await who(d, req.params.id, req.query);
    const r = await readAloud(d, d.rooms.speech, req.params.id, p, String(req.query.seq ?? ''));
    return reply.type('audio/wav').header('Cache-Control', 'private, max-age=3600').header('X-Content-Type-Options', 'nosniff')
      .header('Content-Language', r.lang).send(r.wav);
  });
}
