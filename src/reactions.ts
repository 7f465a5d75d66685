import type { Reactions } from './services.ts';
import { settleBookingOfRoom } from './bookings/settle.ts';
import { endCall } from './calls/events.ts';
import { endRoomParticipants } from './rooms/participants.ts';
import { endRoomSessions } from './sessions/leave.ts';
import { writeRoomTranscript } from './transcripts/transcripts.ts';

/**
 * The one place where a capability reacts to another's event (services.ts
 * Reactions): rooms and meetings do not import bookings, sessions or
 * transcripts, nor sessions the calls; each calls its reaction inside its own
 * transaction, so what follows commits with the end that caused it.
 */
export const REACTIONS: Reactions = {
  async roomEnded(_s, tx, room) {
    // api.md: the room ends for everyone, its agent sessions included; the room's pages show it has ended.
    await endRoomSessions(tx, room.id);
    await endRoomParticipants(tx, room.id);
    // A booked meeting's booking: completed once its meeting took place, canceled (its slot free again) when it ended before it started.
    if (room.kind === 'meeting') await settleBookingOfRoom(tx, room.id, room.started ? 'COMPLETE' : 'CANCEL');
    // What was said in it, whoever said it, becomes the room's transcript (once: a second end changes nothing).
    await writeRoomTranscript(tx, room.id);
  },
  async meetingCanceled(_s, tx, roomId) {
    await settleBookingOfRoom(tx, roomId, 'CANCEL');
    // Agents may have talked in it before it started: what was said becomes its transcript.
    await writeRoomTranscript(tx, roomId);
  },
  async callSessionLeft(s, tx, callId) {
    await endCall(s, tx, callId);
  },
};
