import type { FastifyInstance } from 'fastify';
import { AudioSocket, CLOSE } from '../audio.ts';
import { watchMicrophone } from '../mic-watch.ts';
import type { ParticipantRow } from '../participants.ts';
import { hide, who, type RoomPageDeps, type WhoQuery } from './live.ts';

// GET /r/:id/audio?participant=&secret=: a WebSocket, the person's microphone (rooms/audio.ts).
// Refused before the upgrade (401) without a participant of the room; a second one of the same
// person (another tab) replaces the first. It goes when its person leaves the room, when it goes
// quiet, or when its peer is gone (mic-watch.ts).
export default function register(app: FastifyInstance, d: RoomPageDeps) {
  const { microphones } = d.rooms;
  app.get<{ Params: { id: string }; Querystring: WhoQuery }>('/r/:id/audio', {
    ...hide,
    websocket: true,
    preValidation: async (req) => {
      (req as unknown as { participant: ParticipantRow }).participant = await who(d, req.params.id, req.query);
    },
  }, (socket, req) => {
    const p = (req as unknown as { participant: ParticipantRow }).participant;
    microphones.get(p.id)?.close(CLOSE.replaced, 'your microphone was opened in another tab');
    const mic = new AudioSocket(d, socket, req.params.id, p, req.log);
    microphones.set(p.id, mic);
    const unwatch = watchMicrophone({
      pool: d.pool, bus: d.rooms.bus, ws: socket, roomId: req.params.id, participantId: p.id,
      idleMs: d.config.publicLimits.audioIdleSeconds * 1000,
      onGone: (why) => {
        if (why === 'left') mic.drop(CLOSE.left, 'left', 'you are no longer in this room');
        else if (why === 'idle') mic.drop(CLOSE.idle, 'idle', `no audio nor ping for ${d.config.publicLimits.audioIdleSeconds} s`);
        else socket.terminate();
        // A peer that does not answer the close (a client trickling bytes) does not hold the connection for ws's 30 s.
        if (why !== 'dead') setTimeout(() => socket.terminate(), 2000).unref();
      },
    });
    socket.on('close', () => {
      unwatch();
      if (microphones.get(p.id) === mic) microphones.delete(p.id);
    });
  });
}
