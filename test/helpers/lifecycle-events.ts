// What api.md says each machine event puts in the outbox, in one place for the
// two kinds of test of a lifecycle: the machine's own (machines/*.test.ts,
// every edge of the graph) and the model-based run against the real system
// (test/<capability>/*-model.test.ts, every outbox row written).

import type { BookingEvent } from '../../machines/booking.ts';
import type { RoomEvent } from '../../machines/room.ts';
import type { SessionEvent } from '../../machines/session.ts';
import type { VoiceEvent } from '../../machines/voice.ts';

/**
 * Room and meeting events (api.md section 3), for an instant room or a
 * meeting: a meeting's changes made by its timers (its start, its end as its
 * expiry) are also meeting.updated.
 */
export function roomEmits(event: RoomEvent, meeting: boolean): string[] {
  switch (event.type) {
    case 'OPEN': return ['room.started'];
    case 'SCHEDULE': return ['meeting.created'];
    case 'START': return ['room.started', 'meeting.updated'];
    case 'END': return meeting && event.reason === 'expired' ? ['room.ended', 'meeting.updated'] : ['room.ended'];
    case 'CANCEL': return ['meeting.canceled'];
  }
}

/** Booking events (api.md section 6: booking.*); the end of the meeting emits none for the booking. */
export function bookingEmits(event: BookingEvent): string[] {
  switch (event.type) {
    case 'BOOK': return ['booking.created'];
    case 'RESCHEDULE': return ['booking.rescheduled'];
    case 'CANCEL': return ['booking.canceled'];
    case 'COMPLETE': return [];
  }
}

/** Voice events (api.md: voice.*). */
export function voiceEmits(event: VoiceEvent): string[] {
  switch (event.type) {
    case 'REQUEST': return [];
    case 'CONSENT': return ['voice.consent_completed'];
    case 'READY': return ['voice.ready'];
    case 'FAIL': return ['voice.failed'];
    case 'EXPIRE': return ['voice.expired'];
    case 'REVOKE': return ['voice.revoked'];
  }
}

/** Agent and call session events (api.md: session.*). */
export const SESSION_EMITS: Record<SessionEvent['type'], string[]> = {
  JOIN: ['session.started'],
  JOINED: [],
  LEAVE: ['session.ended'],
  ROOM_ENDED: ['session.ended'],
  CALL_ENDED: ['session.ended'],
};
