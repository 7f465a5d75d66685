import type { FastifyInstance } from 'fastify';
import { openStream } from '../participants.ts';
import { hide, who, type RoomPageDeps, type WhoQuery } from './live.ts';

// GET /r/:id/stream?participant=&secret=: the room live for one participant, as Server-Sent Events
// (rooms/stream.ts; EventSource sends no headers, hence the query).
export default function register(app: FastifyInstance, d: RoomPageDeps) {
  app.get<{ Params: { id: string }; Querystring: WhoQuery & { after?: string } }>('/r/:id/stream', hide, async (req, reply) => {
    const roomId = req.params.id;
    const p = await who(d, roomId, req.query);
    // Where the page resumes: EventSource's Last-Event-ID (the last phrase it got), else where it joined.
    // Never before the join: what was said before the person came is not theirs to read, whatever the page sends.
    const last = req.headers['last-event-id'] ?? req.query.after;
    const resume = typeof last === 'string' && /^\d{1,15}$/.test(last) ? Number(last) : null;
    const after = Math.max(resume ?? 0, Number(p.from_seq));
    // At most streamsPerParticipant open at once, on every process (a reload's old stream closes as the new one opens).
    const stream = await openStream(d, p.id);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
      'X-Content-Type-Options': 'nosniff',
      'X-Request-Id': req.id,
    });
    res.write(`retry: 2000\n\n`);
    d.rooms.hub.attach(roomId, res, p, after, stream);
  });
}
