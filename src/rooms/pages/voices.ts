import type { FastifyInstance } from 'fastify';
import { CLOSE } from '../audio.ts';
import { watchMicrophone } from '../mic-watch.ts';
import type { ParticipantRow } from '../participants.ts';
import { VoiceLink } from '../voices.ts';
import { Interpreters } from '../interpretation.ts';
import { hide, who, type RoomPageDeps, type WhoQuery } from './live.ts';

// GET /r/:id/voices?participant=&secret=: a WebSocket, the person's link to the room's live
// voices (rooms/voices.ts), through the media server (TOLK_MEDIA_SERVER). Refused before the
// upgrade (401) without a participant of the room, 503 where the service has no media server;
// a second one of the same person (another tab) replaces the first. It goes when its person
// leaves the room, when it goes quiet (the page pings every 20 s), or when its peer is gone.
export default function register(app: FastifyInstance, d: RoomPageDeps) {
  const links = new Map<string, VoiceLink>();
  // The rooms' interpretation channels heard through this process (rooms/interpretation.ts).
  const interpreters = d.media?.available ? new Interpreters(d, d.media, d.rooms.speech) : null;
  app.addHook('preClose', async () => {
    for (const l of links.values()) l.drop(CLOSE.goingAway, 'the server is restarting');
    await Promise.all([...links.values()].map((l) => l.settled()));
  });
  app.get<{ Params: { id: string }; Querystring: WhoQuery }>('/r/:id/voices', {
    ...hide,
    websocket: true,
    preValidation: async (req, reply) => {
      (req as unknown as { participant: ParticipantRow }).participant = await who(d, req.params.id, req.query);
      if (!d.media?.available) {
        await reply.code(503).type('application/problem+json').send({ type: 'about:blank', title: 'No live voices', status: 503, error: 'media_unavailable', detail: d.media?.unavailable ?? 'this service has no media server' });
      }
    },
  }, (socket, req) => {
    const p = (req as unknown as { participant: ParticipantRow }).participant;
    links.get(p.id)?.drop(CLOSE.replaced, 'your voice was linked in another tab');
    // As many voices as the room takes people (PublicLimits.participantsPerRoom).
    const link = new VoiceLink({ ...d, media: d.media! }, interpreters!, socket, req.params.id, p, req.log, d.config.publicLimits.participantsPerRoom);
    links.set(p.id, link);
    const unwatch = watchMicrophone({
      pool: d.pool, bus: d.rooms.bus, ws: socket, roomId: req.params.id, participantId: p.id,
      idleMs: d.config.publicLimits.audioIdleSeconds * 1000,
      onGone: (why) => {
        if (why === 'left') link.drop(CLOSE.left, 'you are no longer in this room');
        else if (why === 'idle') link.drop(CLOSE.idle, `no message for ${d.config.publicLimits.audioIdleSeconds} s`);
        else socket.terminate();
        if (why !== 'dead') setTimeout(() => socket.terminate(), 2000).unref();
      },
    });
    socket.on('close', () => {
      unwatch();
      if (links.get(p.id) === link) links.delete(p.id);
    });
  });
}
