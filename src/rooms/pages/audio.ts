import type { FastifyInstance } from 'fastify';
import { AudioSocket, CLOSE } from '../audio.ts';
import type { ParticipantRow } from '../participants.ts';
import { hide, who, type RoomPageDeps, type WhoQuery } from './live.ts';

// GET /r/:id/audio?participant=&secret=: a WebSocket, the person's microphone (rooms/audio.ts).
// Refused before the upgrade (401) without a participant of the room; a second one of the same
// person (another tab) replaces the first.
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
    socket.on('close', () => { if (microphones.get(p.id) === mic) microphones.delete(p.id); });
  });
}
